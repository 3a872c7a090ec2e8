"""Rule-based simulators: concession strategies, acceptance, walking away, the feedback lexicon."""

from __future__ import annotations

from pathlib import Path
from statistics import mean

import pytest
from langchain_core.messages import BaseMessage

from icl_aif.core.transcript import Turn
from icl_aif.engine.protocol import Message, turns_as_messages
from icl_aif.games.critics import rounds_in_view
from icl_aif.games.price.critic import PriceCritic
from icl_aif.games.price.judge.prices import standing_offer
from icl_aif.games.price.judge.rules import PriceRulesJudge
from icl_aif.games.price.scenario import ScenarioConfig, opening_turns
from icl_aif.games.price.simulators import ScriptedNegotiator
from icl_aif.models.calls import to_langchain
from tests.conftest import quickstart, run

SCENARIO = ScenarioConfig()


def seller_view(*lines: str, feedback: str | None = None) -> list[BaseMessage]:
    """The seller's messages: openers, then alternating buyer/seller lines starting with the seller."""
    turns = opening_turns(SCENARIO)
    for i, text in enumerate(lines):
        turns.append(Turn(speaker="seller" if i % 2 == 0 else "buyer", text=text))
    messages: list[Message] = [{"role": "system", "content": "brief"}]
    if feedback is not None:  # a finished round 1, the feedback turn and the acknowledgement
        messages += turns_as_messages("seller", opening_turns(SCENARIO))
        messages += [
            {"role": "assistant", "content": "Deal at $10."},
            {"role": "user", "content": f"Round 1 is over. You sold it for $10.\n\n{feedback}"},
            {"role": "assistant", "content": "Understood."},
        ]
    return to_langchain([*messages, *turns_as_messages("seller", turns)])


def first_counter(strategy: str, seed: int) -> float:
    model = ScriptedNegotiator(strategy=strategy, side="seller", scenario=SCENARIO, seed=seed)
    offer = standing_offer(model.respond(seller_view()))
    assert offer is not None
    return offer


def test_boulware_concedes_later_than_linear_later_than_conceder() -> None:
    firsts = {
        s: mean(first_counter(s, seed) for seed in range(30))
        for s in ("boulware", "linear", "conceder")
    }
    assert firsts["boulware"] > firsts["linear"] > firsts["conceder"]
    assert firsts["boulware"] >= 19.0


def test_accepts_an_offer_better_than_its_next_one() -> None:
    model = ScriptedNegotiator(strategy="boulware", side="seller", scenario=SCENARIO, seed=1)
    answer = model.respond(seller_view("I can do $19.", "Alright, I'll pay $19.50."))
    verdict = PriceRulesJudge().classify(
        [
            {"speaker": "buyer", "text": "Alright, I'll pay $19.50."},
            {"speaker": "seller", "text": answer},
        ]
    )
    assert (verdict.state, verdict.price) == ("deal", 19.5)


def test_walks_away_on_its_last_turn_below_its_floor() -> None:
    model = ScriptedNegotiator(
        strategy="linear", side="seller", scenario=SCENARIO, seed=1, floor=15
    )
    lines = []
    for _ in range(8):
        lines += ["How about $16?", "Would you take $11?"]
    answer = model.respond(seller_view(*lines))
    verdict = PriceRulesJudge().classify(
        [{"speaker": "buyer", "text": "Would you take $11?"}, {"speaker": "seller", "text": answer}]
    )
    assert verdict.state == "no_deal"


def test_never_offers_below_its_floor_nor_reverses() -> None:
    model = ScriptedNegotiator(
        strategy="conceder", side="seller", scenario=SCENARIO, seed=5, floor=14
    )
    lines: list[str] = []
    offers = []
    for _ in range(8):
        answer = model.respond(seller_view(*lines))
        offer = standing_offer(answer)
        assert offer is not None, answer
        offers.append(offer)
        lines += [answer, "Would you take $10?"]
    assert min(offers) >= 14
    assert offers == sorted(offers, reverse=True)


@pytest.mark.parametrize(
    "phrase", ["Hold firm and give ground in small steps.", "Be willing to walk away."]
)
def test_feedback_lexicon_makes_the_seller_tougher(phrase: str) -> None:
    def offers(feedback: str | None) -> list[float]:
        result = []
        for seed in range(20):
            model = ScriptedNegotiator(
                strategy="linear", side="seller", scenario=SCENARIO, seed=seed
            )
            line = model.respond(
                seller_view("I can do $18.", "Would you take $12?", feedback=feedback)
            )
            result.append(standing_offer(line) or 0.0)
        return result

    neutral = offers("Thanks for playing.")
    assert mean(offers(phrase * 3)) > mean(neutral)


def test_scripted_critic_diagnoses_the_last_round() -> None:
    critic = PriceCritic(side="seller", scenario=SCENARIO, suggestions=3, seed=0)

    def said(*lines: str) -> list[dict[str, str]]:
        return [
            {"speaker": "buyer" if i % 2 == 0 else "seller", "text": text}
            for i, text in enumerate(lines)
        ]

    turns = said("Hi", "It is $20.", "$10?", "I can do $12.", "No thanks, I'll walk away.")
    no_deal = [{"round": 1, "turns": turns, "outcome": "no_deal", "reason": "walk_away"}]
    asked = to_langchain([{"role": "user", "content": "Round 1"}])
    # the scripted critic reads the rounds in view of the call, not the text it is sent
    with rounds_in_view(no_deal):
        reply = critic.respond(asked)
    lines = reply.splitlines()
    assert len(lines) == 3 and [ln[:3] for ln in lines] == ["1. ", "2. ", "3. "]
    assert "concede faster near the end" in lines[0]  # broke the deal
    assert "Anchor high" in lines[1]  # $20 -> $12 is 80% of the gap at once
    early = said("Hi", "It is $20.", "$15?", "Deal!")
    deal = [{"round": 1, "turns": early, "outcome": "deal", "terms": {"price": 15.0}}]
    with rounds_in_view(deal):
        assert "Do not accept too early" in critic.respond(asked)
    general = critic.respond(asked)  # no round in view: general advice only
    assert "concede faster" not in general and "Do not accept" not in general


def test_offline_loop_shows_the_price_versus_deal_rate_trade_off(tmp_path: Path) -> None:
    summary = run(quickstart("runs=60"), tmp_path / "run").summary
    first, *_, last = summary["per_round"]
    assert last["mean_price"] > first["mean_price"] + 1.0
    assert last["deal_rate"] < first["deal_rate"] - 0.2
    assert all(r["deals_without_price"] == 0 for r in summary["per_round"])


def test_a_scripted_player_reads_no_price_in_the_items_name() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

    from icl_aif.games.price.scenario import PriceScenario
    from icl_aif.games.price.simulators import ScriptedNegotiator

    scenario = PriceScenario(item="1980 Schwinn", list_price=400, buyer_open=200, seller_cost=100)
    seller = ScriptedNegotiator(strategy="linear", side="seller", scenario=scenario, seed=3)
    line = seller.respond(
        [
            SystemMessage("brief"),
            HumanMessage("Hi, how much is the 1980 Schwinn?"),
            AIMessage("Hi, this is a good 1980 Schwinn and its price is $400."),
            HumanMessage("Would you consider selling it for $200?"),
        ]
    )
    assert "$1,980" not in line and "1980" not in line.replace("1980 Schwinn", "")
