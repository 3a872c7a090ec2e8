"""The size-price bargaining game (seed 004): judge, moves, payoffs, bargaining power, exact
messages, full runs and conformance."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import ValidationError

import icl_aif.games.size_price  # noqa: F401  (registers the game)
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Turn
from icl_aif.engine.configs import config_from_dict, load_config
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_run_graph
from icl_aif.engine.protocol import judge_window
from icl_aif.games.registry import get_game
from icl_aif.games.simulation import count_lexicon
from icl_aif.games.size_price.critic import SizePriceCritic
from icl_aif.games.size_price.judge import SizePriceJudge
from icl_aif.games.size_price.offers import read_line
from icl_aif.games.size_price.scenario import (
    SizePriceScenario,
    SizePriceTerms,
    bargaining_power,
    demand,
    efficient_quantity,
    equal_power_agreement,
    harmonic,
    max_surplus,
    payoffs,
)
from icl_aif.games.size_price.simulators import SizePricePlayer
from icl_aif.records.reader import read_games
from icl_aif.testing.conformance import check_game
from tests.conftest import ROOT, run

GAME = get_game("size_price")
OPENER = (
    "Hello! I run a shop and I'd like to buy waterproof hiking boots from you wholesale. How "
    "many units and at what unit price do you propose?"
)
SCENARIO = SizePriceScenario()


def s(text: str) -> Turn:
    return Turn(speaker="seller", text=text)


def b(text: str) -> Turn:
    return Turn(speaker="buyer", text=text)


def judge(window: list[Turn], size: int = 4) -> Any:
    """The verdict after the last line of ``window``, as the engine would ask (the last
    ``size`` lines)."""
    return SizePriceJudge(window=size, max_quantity=1000).classify(judge_window(window, size))


def terms(quantity: int, unit_price: float) -> dict[str, Any]:
    return {"quantity": quantity, "unit_price": unit_price}


def config(**values: Any) -> ExperimentConfig:
    data: dict[str, Any] = {
        "name": "size-price",
        "game": "size_price",
        "seed": 5,
        "runs": 3,
        "rounds": 3,
        "concurrency": 3,
        "improve": "buyer",
        "scenario": {"unit_cost": 40, "unit_value": 250, "max_exchanges": 5},
        "roles": {
            "seller": {"model": "scripted:linear"},
            "buyer": {"model": "scripted:linear"},
            "critic": {"model": "scripted:critic"},
            "moderator": {"mode": "rules"},
        },
        **values,
    }
    return config_from_dict(data)


# --- the judge --------------------------------------------------------------------------

ROUND = [
    b(OPENER),
    s("Let's start here. OFFER: 6 units at $90.00 each."),
    b("Too steep for me. OFFER: 4 units at $55.00 each."),
    s("I can move a little. OFFER: 6 units at $80.00 each."),
]


def test_an_offer_keeps_the_round_going() -> None:
    verdict = judge(ROUND)
    assert (verdict.state, verdict.terms, verdict.reason) == ("ongoing", None, "offer")


@pytest.mark.parametrize(
    "line",
    ["ACCEPT: 6 units at $80 each", "I accept: 6 units at $80.00 each.", "ACCEPT", "Deal!"],
)
def test_an_acceptance_binds_the_other_sides_standing_offer(line: str) -> None:
    verdict = judge([*ROUND, b(line)])
    assert (verdict.state, verdict.terms) == ("deal", terms(6, 80.0))


def test_the_seller_accepts_the_buyers_counter_offer() -> None:
    verdict = judge([*ROUND[:3], s("We have a deal: 4 units at $55 each.")])
    assert (verdict.state, verdict.terms) == ("deal", terms(4, 55.0))


def test_a_bare_acceptance_binds_the_other_sides_latest_offer_not_its_own() -> None:
    window = [*ROUND[:3], s("OFFER: 6 units at $85.00 each."), b("Hmm."), s("Agreed.")]
    verdict = judge(window)  # the seller accepts the buyer's 4 at $55, not its own offer
    assert (verdict.state, verdict.terms) == ("deal", terms(4, 55.0))


@pytest.mark.parametrize(
    "line",
    [
        "OFFER: 5 units at $70 each.",
        "I can't accept that. OFFER: 5 units at $70 each.",
        "Would you accept 5 units at $70 each?",
        "Deal?",
        "I accept: 5 units at $80 each.",  # restates another quantity
        "I accept: 6 units at $79.50 each.",  # restates another price
        "I accept that you need a margin, but OFFER: 6 units at $70 each.",  # the tag wins
    ],
)
def test_a_counter_offer_or_a_mismatched_acceptance_stays_ongoing(line: str) -> None:
    verdict = judge([*ROUND, b(line)])
    assert (verdict.state, verdict.terms) == ("ongoing", None)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("OFFER: 0 units at $70 each.", "invalid offer: 0 units: the quantity must be at least 1"),
        (
            "OFFER: -2 units at $70 each.",
            "invalid offer: -2 units: the quantity must be at least 1",
        ),
        (
            "OFFER: 2.5 units at $70 each.",
            "invalid offer: 2.5 units is not a whole number of units",
        ),
        ("OFFER: 6 units at -$5 each.", "invalid offer: a unit price of -$5.00 is negative"),
        (
            "OFFER: 5000 units at $5 each.",
            "invalid offer: 5000 units is more than the 1000 units an offer may name",
        ),
        ("OFFER: a few boxes, cheap.", "malformed offer"),
    ],
)
def test_an_invalid_or_malformed_offer_is_never_a_deal(line: str, reason: str) -> None:
    proposal = judge([*ROUND[:3], s(line)])
    assert (proposal.state, proposal.reason) == ("ongoing", reason)
    for acceptance in ("ACCEPT", "Deal!", "I accept."):
        verdict = judge([*ROUND[:3], s(line), b(acceptance)])
        assert (verdict.state, verdict.terms) == ("ongoing", None), acceptance


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("We are too far apart, so I walk away. No deal.", "walk_away"),
        ("No deal, I'm out.", "walk_away"),
        ("I refuse to continue this negotiation.", "refusal"),
    ],
)
def test_a_walk_away_or_a_refusal_ends_the_round_without_a_deal(line: str, reason: str) -> None:
    verdict = judge([*ROUND, b(line)])
    assert (verdict.state, verdict.terms, verdict.reason) == ("no_deal", None, reason)


def test_a_line_that_says_it_will_not_walk_away_is_talk() -> None:
    assert judge([*ROUND, b("I won't walk away yet.")]).reason == "talk"


def test_nothing_is_accepted_before_the_other_side_offered() -> None:
    verdict = judge([b(OPENER), s("ACCEPT: 6 units at $80 each.")])
    assert (verdict.state, verdict.reason) == ("ongoing", "acceptance, but the buyer made no offer")


def test_a_restating_acceptance_binds_in_a_window_of_one_line() -> None:
    verdict = judge([*ROUND, b("ACCEPT: 6 units at $80.00 each")], size=1)
    assert (verdict.state, verdict.terms) == ("deal", terms(6, 80.0))
    assert judge([*ROUND, b("ACCEPT")], size=1).state == "ongoing"  # nothing to bind


def test_offers_in_other_words_are_read() -> None:
    offer = read_line("I'd take 10 units of hiking boots for 30.5 dollars per unit.").offer
    assert offer is not None and (offer.quantity, offer.unit_price) == (10, 30.5)
    offer = read_line("OFFER: 1,200 units at $1,050.25 each").offer
    assert offer is not None and (offer.quantity, offer.unit_price) == (1200, 1050.25)


def test_the_rules_judge_binds_every_agreement_the_simulators_word() -> None:
    judged = GAME.build_judge(config(), PromptLibrary(), lambda _: None)  # type: ignore[arg-type, return-value]
    for turns, agreed in GAME.agreement_examples(SCENARIO, seed=3):
        window = judge_window([*GAME.opening_turns(SCENARIO), *turns], 4)
        verdict = asyncio.run(judged.aclassify(window, GAME.judge_info(SCENARIO)))
        assert (verdict.state, verdict.terms) == ("deal", agreed)


# --- invalid moves ----------------------------------------------------------------------

SYNTAX = 'Write an offer as "OFFER: Q units at $P each", Q a whole number of units.'


@pytest.mark.parametrize(
    ("side", "line", "message"),
    [
        ("seller", "OFFER: lots of boots", f"Your offer could not be read. {SYNTAX}"),
        (
            "seller",
            "OFFER: 0 units at $70 each",
            f"Your offer is invalid: 0 units: the quantity must be at least 1. {SYNTAX}",
        ),
        (
            "buyer",
            "OFFER: 3 units at -$1 each",
            f"Your offer is invalid: a unit price of -$1.00 is negative. {SYNTAX}",
        ),
        (
            "buyer",
            "I accept: 5 units at $80 each.",
            "You accepted 5 units at $80.00 each, but the wholesale seller's standing offer is "
            '6 units at $80.00 each. Accept it with "ACCEPT" or make a new offer.',
        ),
        ("buyer", "ACCEPT", None),
        ("buyer", "OFFER: 5 units at $60 each.", None),
        ("buyer", "Let me think about it.", None),
    ],
)
def test_invalid_moves_say_what_is_wrong(side: str, line: str, message: str | None) -> None:
    assert GAME.invalid_move(SCENARIO, side, line, ROUND) == message  # type: ignore[arg-type]


def test_accepting_with_no_standing_offer_is_an_invalid_move() -> None:
    assert GAME.invalid_move(SCENARIO, "seller", "ACCEPT", [b(OPENER)]) == (
        "There is no offer of the retail buyer to accept yet. Make an offer instead: "
        '"OFFER: Q units at $P each".'
    )


# --- payoffs and bargaining power -------------------------------------------------------


def test_the_papers_equal_power_agreement_splits_the_surplus_in_half() -> None:
    """Seed 004's example instance (cost 40, value 250) and its eq. 19."""
    assert harmonic(6) == pytest.approx(2.45)
    assert efficient_quantity(SCENARIO) == 6  # floor(250 / 40)
    assert max_surplus(SCENARIO) == pytest.approx(372.5)  # 250 x 2.45 - 6 x 40
    n, p = equal_power_agreement(SCENARIO)
    assert (n, p) == (6, pytest.approx(71.0417, abs=1e-4))  # (250 x 2.45 / 6 + 40) / 2
    agreed = SizePriceTerms(quantity=n, unit_price=p)
    assert bargaining_power(SCENARIO, "seller", agreed) == pytest.approx(0.5)
    assert bargaining_power(SCENARIO, "buyer", agreed) == pytest.approx(0.5)


def test_payoffs_and_bargaining_power_of_a_worked_deal() -> None:
    deal = {"round": 1, "outcome": "deal", "terms": terms(4, 60.0), "turns": []}
    # seller (60 - 40) x 4 = 80; buyer 250 x (1 + 1/2 + 1/3 + 1/4) - 4 x 60 = 280.83
    assert GAME.payoff(SCENARIO, "seller", deal) == pytest.approx(80.0)
    assert GAME.payoff(SCENARIO, "buyer", deal) == pytest.approx(280.8333, abs=1e-4)
    agreed = SizePriceTerms(quantity=4, unit_price=60)
    assert bargaining_power(SCENARIO, "seller", agreed) == pytest.approx(80 / 360.8333, abs=1e-6)
    buyer = GAME.measure(GAME.setup(config(improve="buyer")))
    assert buyer.of(deal) == pytest.approx(0.778291, abs=1e-6)
    seller = GAME.measure(GAME.setup(config(improve="seller")))
    assert seller.of(deal) == pytest.approx(0.221709, abs=1e-6)


def test_bargaining_power_beyond_the_bargaining_set() -> None:
    too_dear = SizePriceTerms(quantity=6, unit_price=110)  # the buyer pays more than it gains
    assert payoffs(SCENARIO, 6, 110)["buyer"] < 0
    assert bargaining_power(SCENARIO, "seller", too_dear) == 1.0
    assert bargaining_power(SCENARIO, "buyer", too_dear) == 0.0
    glut = SizePriceTerms(quantity=100, unit_price=45)  # more units than are worth making
    assert bargaining_power(SCENARIO, "buyer", glut) is None


def test_no_deal_pays_nothing_and_the_measure_is_the_bargaining_power() -> None:
    no_deal = {"round": 1, "outcome": "no_deal", "reason": "cap", "terms": None, "turns": []}
    assert GAME.payoff(SCENARIO, "seller", no_deal) == 0.0
    assert GAME.payoff(SCENARIO, "buyer", {"outcome": "error", "reason": "boom"}) is None
    assert GAME.payoff_bounds(SCENARIO, "buyer") == (0.0, pytest.approx(372.5))
    measure = GAME.measure(GAME.setup(config()))
    assert (measure.name, measure.money, measure.no_deal_value) == ("bargaining_power", False, 0)
    assert measure.of(no_deal) is None
    assert measure.states is not None and measure.states("OFFER: 3 units at $5 each")


def test_the_buyers_demand_is_where_marginal_value_meets_the_price() -> None:
    assert demand(SCENARIO, 60) == 4  # 250/4 = 62.5 >= 60 > 250/5 = 50
    assert demand(SCENARIO, 250) == 1  # v is the most it pays for a single unit
    assert demand(SCENARIO, 300) == 1


def test_round_metrics_on_hand_written_games() -> None:
    cfg = config(improve="seller")
    rounds = [
        {"round": 1, "outcome": "deal", "terms": terms(6, 71.0416667), "turns": []},
        {"round": 1, "outcome": "no_deal", "reason": "walk_away", "terms": None, "turns": []},
        {"round": 1, "outcome": "error", "reason": "boom", "terms": None, "turns": []},
    ]
    games = [{"game_id": f"g{i}", "rounds": [r]} for i, r in enumerate(rounds)]
    figures = GAME.round_metrics(GAME.setup(cfg), games, 1)
    assert figures == {
        "mean_quantity": 6.0,
        "mean_unit_price": pytest.approx(71.0417, abs=1e-4),
        "mean_seller_payoff": pytest.approx(93.125, abs=1e-3),  # (186.25 + 0) / 2
        "mean_buyer_payoff": pytest.approx(93.125, abs=1e-3),
        "normalised_earnings": 0.25,  # (0.5 + 0) / 2
        "efficiency": 0.5,
    }
    assert [c.key for c in GAME.columns] == list(figures)
    assert GAME.round_metrics(GAME.setup(cfg), games, 2)["mean_quantity"] is None


def test_terms_are_a_whole_quantity_and_a_price() -> None:
    with pytest.raises(ValidationError, match="greater than or equal to 1"):
        SizePriceTerms(quantity=0, unit_price=5)
    with pytest.raises(ValidationError, match="Extra inputs"):
        SizePriceTerms.model_validate({**terms(3, 5), "price": 3})


def test_the_outcome_sentence_states_the_terms_payoffs_and_power() -> None:
    deal = {"round": 1, "outcome": "deal", "terms": terms(4, 60.0), "turns": []}
    assert GAME.outcome_sentence(deal, SCENARIO) == (
        "deal on 4 units at $60.00 each: seller's profit $80.00, buyer's expected benefit "
        "$280.83 (bargaining power: seller 0.22, buyer 0.78)"
    )
    walked = {"outcome": "no_deal", "reason": "walk_away", "turns": [b("I walk away.")]}
    assert GAME.outcome_sentence(walked, SCENARIO) == "no deal: the retail buyer walked away"


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ({"unit_value": 30}, "unit_value 30 is not above unit_cost 40"),
        ({"unit_cost": 0}, "field 'scenario.unit_cost': Input should be greater than 0"),
        ({"max_quantity": 0}, "field 'scenario.max_quantity'"),
        ({"pie": 100}, "unknown field 'scenario.pie'"),
    ],
)
def test_scenario_problems_are_one_line(scenario: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        config(scenario=scenario)
    assert "\n" not in str(caught.value)


def test_an_unknown_simulator_names_the_games_own() -> None:
    cfg = config(roles={"seller": {"model": "scripted:tit_for_tat"}})
    with pytest.raises(Exception, match="boulware, linear, conceder, critic"):
        GameContext(config=cfg)


# --- simulators and the critic ----------------------------------------------------------


def test_every_critic_suggestion_uses_the_players_lexicon() -> None:
    for key, advice in SizePriceCritic.ADVICE.items():
        assert any(count_lexicon([advice], SizePricePlayer.LEXICON).values()), key


def first_offer(player: SizePricePlayer, history: list[BaseMessage]) -> tuple[float, float]:
    reading = read_line(player.respond([*history, HumanMessage(OPENER)]))
    assert reading.offer is not None and reading.proposes
    return reading.offer.quantity, reading.offer.unit_price


def test_a_seller_opens_higher_after_feedback_that_says_open_high() -> None:
    def player() -> SizePricePlayer:
        return SizePricePlayer(
            strategy="linear", side="seller", scenario=SCENARIO, opening=0.8, reservation=0.3
        )

    brief = [SystemMessage("brief")]
    before = first_offer(player(), brief)
    past_round = [
        HumanMessage(OPENER),
        AIMessage("OFFER: 6 units at $89.00 each."),
        HumanMessage("I accept: 6 units at $89.00 each."),
        HumanMessage("Round 1 is over. ...\n1. Open high and keep your next prices close."),
        AIMessage("Understood."),
    ]
    after = first_offer(player(), [*brief, *past_round])
    assert before[0] == after[0] == 6  # the efficient quantity
    # 3% more of S* = 372.50 over 6 units: about $1.86 a unit (within the jitter of 1%)
    assert after[1] - before[1] == pytest.approx(0.03 * 372.5 / 6, abs=1.3)


def test_a_buyer_asks_for_the_quantity_it_demands_at_its_price() -> None:
    buyer = SizePricePlayer(
        strategy="linear", side="buyer", scenario=SCENARIO, opening=0.8, reservation=0.3
    )
    history: list[BaseMessage] = [
        SystemMessage("brief"),
        AIMessage(OPENER),
        HumanMessage("OFFER: 6 units at $95.00 each."),
    ]
    offer = read_line(buyer.respond(history)).offer
    assert offer is not None
    assert offer.quantity == demand(SCENARIO, offer.unit_price) < 6


# --- exact messages in round 2 ----------------------------------------------------------

SELLER_BRIEF = (
    "You are a wholesale seller of waterproof hiking boots, bargaining with a retail buyer over "
    "one wholesale order. A deal fixes both the quantity the buyer takes and the price it pays "
    "per unit, together.\n"
    "Each unit costs you $40.00 to make, so selling Q units at $P each earns you a profit of "
    "Q x (P - $40.00). Without an agreement you earn $0.\n"
    'Make every offer as "OFFER: Q units at $P each", with Q a whole number from 1 to 1000 and '
    "P the price of one unit in dollars.\n"
    'To accept the buyer\'s latest offer, restate it: "ACCEPT: Q units at $P each". If you do '
    'not accept, make a new offer. To end the negotiation without a deal, say "I walk away."\n'
    "The round ends without a deal after 10 lines in all, the buyer's opening included.\n"
    "Answer with one or two short sentences and your offer or acceptance each turn. Earn as "
    "much profit as you can."
)
BUYER_BRIEF = (
    "You are a retail buyer bargaining with a wholesale seller over one order of waterproof "
    "hiking boots for your shop. A deal fixes both the quantity you take and the price you pay "
    "per unit, together.\n"
    "Each unit you resell brings you $250.00, yet extra stock moves ever more slowly: the k-th "
    "unit you order is worth $250.00/k to you. Buying Q units at $P each gives you an expected "
    "benefit of $250.00 x (1 + 1/2 + ... + 1/Q) - Q x P. Without an agreement you get $0.\n"
    'Make every offer as "OFFER: Q units at $P each", with Q a whole number from 1 to 1000 and '
    "P the price of one unit in dollars.\n"
    'To accept the seller\'s latest offer, restate it: "ACCEPT: Q units at $P each". If you do '
    'not accept, make a new offer. To end the negotiation without a deal, say "I walk away."\n'
    "The round ends without a deal after 10 lines in all, your opening included.\n"
    "Answer with one or two short sentences and your offer or acceptance each turn. Get as "
    "large an expected benefit as you can."
)
INSTRUCTION = (
    "Round 1 is over. You agreed on 6 units at $71.08 each. Your expected benefit was $186.02."
    "\n\nFeedback on how you negotiated:\n"
    "1. The wholesale seller kept more of the gains than you did. Hold firm and give ground a "
    "little at a time.\n"
    "2. You took the last offer on the table. Raise your minimum: the wholesale seller moves "
    "when you show you would rather walk away than accept a poor deal.\n"
    "3. Your offers asked for too few units, and the wholesale seller turned them down. Propose "
    "the efficient quantity, where the last unit is still worth more than it costs, and bargain "
    "over the price of that total surplus.\n\n"
    "Round 2 starts now with the same opening. Try to earn more than $186.02, your expected "
    "benefit in round 1."
)


def test_the_exact_messages_of_round_2_of_a_scripted_run() -> None:
    cfg = config(seed=1, runs=1, rounds=2)
    ctx = GameContext(config=cfg)
    state = asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    assert [r["terms"] for r in state["rounds"]] == [terms(6, 71.08), terms(6, 71.52)]
    calls = {
        role: [c["messages"] for c in ctx.calls if c["role"] == role and c["round"] == 2]
        for role in ("seller", "buyer")
    }
    assert calls["buyer"][0] == [
        {"role": "system", "content": BUYER_BRIEF},
        {"role": "assistant", "content": OPENER},
        {"role": "user", "content": "Let's start here. OFFER: 6 units at $89.24 each."},
        {"role": "assistant", "content": "Let's start here. OFFER: 4 units at $54.41 each."},
        {"role": "user", "content": "That is a step towards you. OFFER: 6 units at $83.63 each."},
        {"role": "assistant", "content": "I can move a little. OFFER: 3 units at $64.44 each."},
        {"role": "user", "content": "How about this instead? OFFER: 6 units at $77.16 each."},
        {"role": "assistant", "content": "I can move a little. OFFER: 3 units at $74.26 each."},
        {"role": "user", "content": "I can move a little. OFFER: 6 units at $71.08 each."},
        {"role": "assistant", "content": "Deal. I accept: 6 units at $71.08 each."},
        {"role": "user", "content": INSTRUCTION},
        {
            "role": "assistant",
            "content": "Understood. I will put this feedback to use in round 2 and aim to earn "
            "more than $186.02.",
        },
        {"role": "assistant", "content": OPENER},
        {"role": "user", "content": "Let's start here. OFFER: 6 units at $89.11 each."},
    ]
    # the rival starts fresh: its brief and the buyer's opener
    assert calls["seller"][0] == [
        {"role": "system", "content": SELLER_BRIEF},
        {"role": "user", "content": OPENER},
    ]


# --- full runs --------------------------------------------------------------------------


def assert_finished_with_deals(directory: Path, runs: int, rounds: int) -> list[dict[str, Any]]:
    games = read_games(directory)
    assert len(games) == runs
    deals = 0
    for game in games:
        assert game["status"] == "complete"
        assert len(game["rounds"]) == rounds
        for record in game["rounds"]:
            assert record["outcome"] in ("deal", "no_deal")
            if record["outcome"] == "deal":
                deals += 1
                SizePriceTerms.model_validate(record["terms"])
                assert GAME.payoff(SCENARIO, "seller", record) is not None
            else:
                assert record["terms"] is None
    assert deals > 0
    return games


@pytest.mark.parametrize("source", ["ai", "human_pool", "constant", "none"])
def test_a_5_round_run_with_every_feedback_source(source: str, tmp_path: Path) -> None:
    result = run(config(rounds=5, feedback={"source": source}), tmp_path / source)
    games = assert_finished_with_deals(result.directory, runs=3, rounds=5)
    sources = {r.get("feedback_source") for g in games for r in g["rounds"][:-1]}
    assert sources == {source}
    if source == "human_pool":
        pool = (ROOT / "prompts/size_price/feedback/buyer_pool.txt").read_text(encoding="utf-8")
        for game in games:
            for suggestion in game["rounds"][0]["suggestions"]:
                assert suggestion in pool


def test_a_5_round_run_with_paired_arms(tmp_path: Path) -> None:
    arms = ["ai", "human_pool", "constant", "none"]
    cfg = config(rounds=5, arms=arms, branch_after=1, improve="seller", runs=2)
    result = run(cfg, tmp_path / "arms")
    games = assert_finished_with_deals(result.directory, runs=2 * len(arms), rounds=5)
    assert sorted({g["arm"] for g in games}) == sorted(arms)
    for game in games:
        assert game["rounds"][0]["shared"] is True
        assert game["rounds"][0]["feedback_source"] == game["arm"]


@pytest.mark.parametrize("name", ["size_price.yaml", "size_price_arms.yaml"])
def test_the_shipped_experiments_load_and_run_offline(name: str, tmp_path: Path) -> None:
    cfg = load_config(ROOT / "experiments" / name, ["runs=2", "concurrency=2"])
    assert (cfg.game, cfg.scenario) == ("size_price", SCENARIO)
    result = run(cfg, tmp_path / "run")
    assert_finished_with_deals(
        result.directory, runs=2 * len(cfg.arms or [None]), rounds=cfg.rounds
    )


def test_the_size_price_game_conforms(tmp_path: Path) -> None:
    check_game("size_price", tmp_path)
