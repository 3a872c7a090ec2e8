"""The pie split (seed 003): its judge, payoffs, config checks, exact messages and full runs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import ValidationError

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Turn
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_run_graph
from icl_aif.engine.protocol import judge_window
from icl_aif.games.pie_split.critic import PieSplitCritic
from icl_aif.games.pie_split.judge import PieSplitJudge
from icl_aif.games.pie_split.offers import read_line
from icl_aif.games.pie_split.scenario import PieSplitScenario, PieSplitTerms
from icl_aif.games.pie_split.simulators import PieSplitPlayer
from icl_aif.games.registry import get_game
from icl_aif.games.simulation import count_lexicon
from icl_aif.records.reader import read_games, read_json
from tests.conftest import ROOT, icl_aif, run

GAME = get_game("pie_split")
OPENER = (
    "Hello! We have a pie of 100 to divide, and it shrinks by 10% with every offer that is "
    "turned down. You go first: what is your offer?"
)


def s(text: str) -> Turn:
    return Turn(speaker="proposer", text=text)


def b(text: str) -> Turn:
    return Turn(speaker="responder", text=text)


def judge(window: list[Turn], size: int = 4) -> Any:
    """The verdict after the last line of ``window``, as the engine would ask (the last
    ``size`` lines)."""
    return PieSplitJudge(pie=100, window=size).classify(judge_window(window, size))


def terms(proposer: float, responder: float, exchanges: int) -> dict[str, Any]:
    return {"proposer_share": proposer, "responder_share": responder, "exchanges": exchanges}


def config(*overrides: tuple[str, Any], **values: Any) -> ExperimentConfig:
    data: dict[str, Any] = {
        "name": "pie",
        "game": "pie_split",
        "seed": 5,
        "runs": 3,
        "rounds": 3,
        "concurrency": 3,
        "scenario": {"pie": 100, "discount": 0.9, "max_exchanges": 5},
        **values,
    }
    return config_from_dict(data)


# --- the judge --------------------------------------------------------------------------

ROUND = [
    b(OPENER),
    s("Offer 1: 70 for me and 30 for you."),
    b("Offer 2: 45 for me and 55 for you."),
    s("Offer 3: 60 for me and 40 for you."),
]


def test_an_acceptance_binds_the_other_sides_standing_split_with_t() -> None:
    verdict = judge([*ROUND, b("I accept offer 3: 40 for me and 60 for you.")])
    assert (verdict.state, verdict.terms) == ("deal", terms(0.6, 0.4, 2))


def test_the_proposer_accepts_the_responders_counter_offer() -> None:
    verdict = judge([*ROUND[:3], s("Deal. I accept offer 2: 55 for me and 45 for you.")])
    assert (verdict.state, verdict.terms) == ("deal", terms(0.55, 0.45, 1))


def test_a_bare_acceptance_binds_the_latest_split_of_the_other_side_not_its_own() -> None:
    window = [*ROUND[:3], s("Offer 3: 65 for me and 35 for you."), b("Hmm."), s("Agreed.")]
    verdict = judge(window)  # the proposer accepts the responder's offer 2, not its own offer 3
    assert (verdict.state, verdict.terms) == ("deal", terms(0.55, 0.45, 1))


@pytest.mark.parametrize(
    "line",
    [
        "Offer 4: 50 for me and 50 for you.",
        "I can't accept that. Offer 4: 50 for me and 50 for you.",
        "Deal?",
        "I accept offer 3: 50 for me and 50 for you.",  # restates another split
        "I accept offer 2: 40 for me and 60 for you.",  # names another offer
    ],
)
def test_a_counter_proposal_or_a_mismatched_acceptance_stays_ongoing(line: str) -> None:
    verdict = judge([*ROUND, b(line)])
    assert (verdict.state, verdict.terms) == ("ongoing", None)


def test_a_split_that_does_not_add_up_is_never_a_deal() -> None:
    invalid = [*ROUND[:3], s("Offer 3: 60 for me and 30 for you.")]
    proposal = judge(invalid)
    assert proposal.state == "ongoing"
    assert proposal.reason == "invalid split: adds up to 90, not 100"
    for acceptance in ("I accept offer 3: 30 for me and 60 for you.", "Deal!", "I accept."):
        verdict = judge([*invalid, b(acceptance)])
        assert (verdict.state, verdict.terms) == ("ongoing", None), acceptance


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("That is too little for me, so I walk away. No deal.", "walk_away"),
        ("No deal, I'm out.", "walk_away"),
        ("I refuse to continue this negotiation.", "refusal"),
    ],
)
def test_a_walk_away_or_a_refusal_ends_the_round_without_a_deal(line: str, reason: str) -> None:
    verdict = judge([*ROUND, b(line)])
    assert (verdict.state, verdict.terms, verdict.reason) == ("no_deal", None, reason)


def test_a_line_that_says_it_will_not_walk_away_is_talk() -> None:
    assert judge([*ROUND, b("I won't walk away yet.")]).state == "ongoing"


def test_an_acceptance_that_restates_its_offer_binds_in_a_window_of_one_line() -> None:
    verdict = judge([*ROUND, b("I accept offer 3: 40 for me and 60 for you.")], size=1)
    assert (verdict.state, verdict.terms) == ("deal", terms(0.6, 0.4, 2))


def test_an_acceptance_binds_when_the_offer_has_left_a_full_window() -> None:
    window = [
        *ROUND,
        b("Let me think about it."),
        s("Take your time, but the pie keeps shrinking."),
        b("Fine, I accept offer 3: 40 for me and 60 for you."),
    ]
    verdict = judge(window)  # the window shows no split of the proposer's
    assert (verdict.state, verdict.terms) == ("deal", terms(0.6, 0.4, 2))
    assert judge([*window[:-1], b("Fine, deal.")]).state == "ongoing"  # nothing to bind


def test_nothing_is_accepted_before_the_other_side_offered() -> None:
    cheat = [b(OPENER), s("I accept offer 1: 40 for you and 60 for me.")]
    assert judge(cheat).state == "ongoing"


def test_unnumbered_offers_are_counted_when_the_window_holds_the_round() -> None:
    window = [b(OPENER), s("I propose 60 for me and 40 for you."), b("Deal!")]
    assert judge(window).terms == terms(0.6, 0.4, 0)
    later = [*window[:2], b("I get 55 and you get 45."), s("OK, agreed.")]
    assert judge(later, size=6).terms == terms(0.45, 0.55, 1)


def test_shares_in_percent_are_shares_of_the_pie() -> None:
    reading = read_line("Offer 2: 60% for me and 40% for you.", pie=50)
    assert reading.split is not None
    assert (reading.split.mine, reading.split.yours, reading.split.number) == (30, 20, 2)


def test_the_rules_judge_binds_every_agreement_the_simulators_word() -> None:
    scenario = PieSplitScenario()
    judged = GAME.build_judge(config(), PromptLibrary(), lambda _: None)  # type: ignore[arg-type, return-value]
    for turns, agreed in GAME.agreement_examples(scenario, seed=3):
        window = judge_window([*GAME.opening_turns(scenario), *turns], 4)
        verdict = asyncio.run(judged.aclassify(window, GAME.judge_info(scenario)))
        assert (verdict.state, verdict.terms) == ("deal", agreed)


# --- terms and payoffs ------------------------------------------------------------------

DEAL = {"round": 1, "outcome": "deal", "terms": terms(0.6, 0.4, 2), "turns": []}
NO_DEAL = {"round": 1, "outcome": "no_deal", "reason": "cap", "terms": None, "turns": []}


def test_payoffs_of_60_40_accepted_after_two_exchanges() -> None:
    scenario = PieSplitScenario()
    assert GAME.payoff(scenario, "proposer", DEAL) == pytest.approx(0.6 * 0.81)  # 0.486
    assert GAME.payoff(scenario, "responder", DEAL) == pytest.approx(0.4 * 0.81)  # 0.324
    assert GAME.payoff(scenario, "proposer", NO_DEAL) == -0.5  # the paper's no-deal reward
    assert GAME.payoff(scenario, "responder", {"outcome": "error", "reason": "boom"}) is None
    assert GAME.payoff_bounds(scenario, "proposer") == (0.0, 1.0)
    slower = PieSplitScenario(discount=0.5)
    assert GAME.payoff(slower, "responder", DEAL) == pytest.approx(0.1)


@pytest.mark.parametrize(("improve", "expected"), [("proposer", 0.486), ("responder", 0.324)])
def test_the_measure_is_the_improved_sides_payoff(improve: str, expected: float) -> None:
    measure = GAME.measure(GAME.setup(config(improve=improve)))
    assert (measure.name, measure.money, measure.no_deal_value) == ("payoff", False, -0.5)
    assert measure.label == "improved side's payoff (share x discount^t)"
    assert measure.of(DEAL) == pytest.approx(expected)
    assert measure.of(NO_DEAL) is None


def test_terms_must_sum_to_one_and_nothing_else() -> None:
    with pytest.raises(ValidationError, match=r"sum to 0\.9, not 1"):
        PieSplitTerms(proposer_share=0.6, responder_share=0.3, exchanges=1)
    with pytest.raises(ValidationError, match="Extra inputs"):
        PieSplitTerms.model_validate({**terms(0.5, 0.5, 0), "price": 3})
    with pytest.raises(ValidationError, match="greater than or equal to 0"):
        PieSplitTerms(proposer_share=0.5, responder_share=0.5, exchanges=-1)


def test_the_outcome_sentence_states_the_split_and_t() -> None:
    scenario = PieSplitScenario()
    assert GAME.outcome_sentence(DEAL, scenario) == (
        "deal on offer 3 after 2 exchanges: proposer 60, responder 40 of the pie of 100 "
        "(payoffs 0.486 and 0.324)"
    )
    walked = {"outcome": "no_deal", "reason": "walk_away", "turns": [b("I walk away.")]}
    assert GAME.outcome_sentence(walked, scenario) == "no deal: the responder walked away"


# --- config -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ({"discount": 0}, "discount 0 is not in \\(0, 1\\]"),
        ({"discount": 1.5}, "discount 1.5 is not in \\(0, 1\\]"),
        ({"pie": 0}, "field 'scenario.pie': Input should be greater than 0"),
        ({"max_exchanges": 1}, "field 'scenario.max_exchanges'"),
        ({"item": "balloon"}, "unknown field 'scenario.item'"),
        ({"openers": []}, "openers must hold at least one line"),
    ],
)
def test_scenario_problems_are_one_line(scenario: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        config(scenario=scenario)
    assert "\n" not in str(caught.value)


def test_the_pie_split_has_only_a_rules_judge() -> None:
    with pytest.raises(
        UsageError, match="game 'pie_split' has no llm judge; allowed values: rules"
    ):
        config(roles={"moderator": {"mode": "llm", "model": "scripted:linear"}})


def test_an_unknown_simulator_names_the_games_own() -> None:
    cfg = config(roles={"proposer": {"model": "scripted:tit_for_tat"}})
    with pytest.raises(Exception, match="boulware, linear, conceder, fair, critic"):
        GameContext(config=cfg)


def test_a_players_params_are_shares() -> None:
    cfg = config(roles={"proposer": {"model": "scripted:linear", "params": {"floor": 3}}})
    with pytest.raises(Exception, match="take opening, reservation"):
        GameContext(config=cfg)


def test_every_critic_suggestion_uses_the_players_lexicon() -> None:
    for key, advice in PieSplitCritic.ADVICE.items():
        assert any(count_lexicon([advice], PieSplitPlayer.LEXICON).values()), key


# --- simulators --------------------------------------------------------------------------


def first_offer(player: PieSplitPlayer, history: list[BaseMessage]) -> float:
    reading = read_line(player.respond([*history, HumanMessage(OPENER)]), pie=100)
    assert reading.split is not None and reading.split.number == 1
    return reading.split.mine


def test_a_player_opens_higher_after_feedback_that_says_open_high() -> None:
    def player() -> PieSplitPlayer:
        values = {"opening": 0.7, "reservation": 0.4}
        return PieSplitPlayer(
            strategy="linear", side="proposer", scenario=PieSplitScenario(), **values
        )

    brief = [SystemMessage("brief")]
    before = first_offer(player(), brief)
    past_round = [
        HumanMessage(OPENER),
        AIMessage("Offer 1: 70 for me and 30 for you."),
        HumanMessage("I accept offer 1: 30 for me and 70 for you."),
        HumanMessage("Round 1 is over. ...\n1. Open high and keep your next offers close."),
        AIMessage("Understood."),
    ]
    after = first_offer(player(), [*brief, *past_round])
    assert after - before == pytest.approx(4, abs=1)


def test_a_fair_player_walks_away_from_an_unfair_split_on_the_rounds_last_line() -> None:
    fair = PieSplitPlayer(strategy="fair", side="proposer", scenario=PieSplitScenario())
    lines: list[BaseMessage] = [SystemMessage("brief"), HumanMessage(OPENER)]
    for number in range(1, 9):  # 8 offers: the proposer's next line is the 10th and last
        mine = number % 2 == 1
        text = f"Offer {number}: {50 if mine else 70} for me and {50 if mine else 30} for you."
        lines.append(AIMessage(text) if mine else HumanMessage(text))
    reply = fair.respond(lines)
    turns = [b(OPENER), *[s(m.text) if m.type == "ai" else b(m.text) for m in lines[2:]], s(reply)]
    assert judge(turns).reason == "walk_away"
    lines[-1] = HumanMessage("Offer 8: 50 for me and 50 for you.")
    assert "I accept offer 8: 50 for you and 50 for me" in fair.respond(lines)


# --- exact messages in round 2 ----------------------------------------------------------

PROPOSER_BRIEF = (
    "You are the proposer in a pie-split game: you and the responder divide a pie of 100, and "
    "you make the first offer.\n"
    "The pie shrinks: every offer that is turned down costs one exchange, and an agreement on "
    "offer N is worth 0.9 to the power N-1 of the shares agreed (your payoff is your share of "
    "the pie times that). Without an agreement you both get -0.5.\n"
    "The round stops without a deal after 10 lines in all, the opening included.\n"
    'Write every offer as "Offer N: X for me and Y for you." with X + Y = 100, numbering the '
    "offers of both sides in order from 1 (yours is one more than the last number on the "
    "table). A split that does not add up to 100 is invalid.\n"
    "To accept the responder's latest offer, restate it: \"I accept offer N: Y for you and X "
    'for me." To end the game without a deal, say "I walk away."\n'
    "Answer with one or two short sentences each turn. Get as large a payoff as you can."
)
RESPONDER_BRIEF = (
    "You are the responder in a pie-split game: you and the proposer divide a pie of 100, and "
    "the proposer makes the first offer.\n"
    "The pie shrinks: every offer that is turned down costs one exchange, and an agreement on "
    "offer N is worth 0.9 to the power N-1 of the shares agreed (your payoff is your share of "
    "the pie times that). Without an agreement you both get -0.5.\n"
    "The round stops without a deal after 10 lines in all, the opening included.\n"
    "You may accept the proposer's latest offer or answer with an offer of your own. Write "
    'every offer as "Offer N: X for me and Y for you." with X + Y = 100, numbering the offers '
    "of both sides in order from 1 (yours is one more than the last number on the table). A "
    "split that does not add up to 100 is invalid.\n"
    "To accept the proposer's latest offer, restate it: \"I accept offer N: Y for you and X "
    'for me." To end the game without a deal, say "I walk away."\n'
    "Answer with one or two short sentences each turn. Get as large a payoff as you can."
)
INSTRUCTION = (
    "Round 1 is over. You agreed on offer 6: 52 of the pie of 100 for you and 48 for the "
    "responder, after 5 turned-down offers. Your payoff was 0.52 x 0.9^5 = 0.307.\n\n"
    "Feedback on how you negotiated:\n"
    "1. Every turned-down offer cost you 10% of the pie. Settle early, before the discount eats "
    "into your share.\n"
    "2. Consider proposing an equal split on your first offer: half of the full pie is worth "
    "more than a bigger share after several exchanges.\n"
    "3. Be ready to walk away from a split far below half, and say so calmly.\n\n"
    "Round 2 starts now with the same opening. Try to earn a payoff above 0.307, the payoff of "
    "round 1."
)


def test_the_exact_messages_of_round_2_of_a_scripted_run() -> None:
    cfg = config(seed=1, runs=1, rounds=2)
    ctx = GameContext(config=cfg)
    state = asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    assert [r["terms"] for r in state["rounds"]] == [terms(0.52, 0.48, 5), terms(0.55, 0.45, 4)]
    calls = {
        role: [c["messages"] for c in ctx.calls if c["role"] == role and c["round"] == 2]
        for role in ("proposer", "responder")
    }
    assert calls["proposer"][0] == [
        {"role": "system", "content": PROPOSER_BRIEF},
        {"role": "user", "content": OPENER},
        {"role": "assistant", "content": "Let's start with offer 1: 78 for me and 22 for you."},
        {"role": "user", "content": "Offer 2: 57 for me and 43 for you."},
        {"role": "assistant", "content": "How about offer 3: 68 for me and 32 for you?"},
        {
            "role": "user",
            "content": "Offer 4: 52 for me and 48 for you. That is a step towards you.",
        },
        {"role": "assistant", "content": "I can move a little. Offer 5: 59 for me and 41 for you."},
        {"role": "user", "content": "How about offer 6: 48 for me and 52 for you?"},
        {"role": "assistant", "content": "Agreed: I accept offer 6, 48 for you and 52 for me."},
        {"role": "user", "content": INSTRUCTION},
        {
            "role": "assistant",
            "content": "Understood. I will put this feedback to use in round 2 and aim for a "
            "payoff above 0.307.",
        },
        {"role": "user", "content": OPENER},
    ]
    # the rival starts fresh: its brief, the opener (its own line) and the proposer's offer 1
    assert calls["responder"][0] == [
        {"role": "system", "content": RESPONDER_BRIEF},
        {"role": "assistant", "content": OPENER},
        {"role": "user", "content": "Let's start with offer 1: 69 for me and 31 for you."},
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
            assert "terms" in record
            if record["outcome"] == "deal":
                deals += 1
                PieSplitTerms.model_validate(record["terms"])
                assert GAME.payoff(PieSplitScenario(), "proposer", record) is not None
            else:
                assert record["terms"] is None
    assert deals > 0
    return games


@pytest.mark.parametrize("source", ["ai", "human_pool", "constant", "none"])
def test_a_run_with_every_feedback_source(source: str, tmp_path: Path) -> None:
    result = run(config(feedback={"source": source}), tmp_path / source)
    games = assert_finished_with_deals(result.directory, runs=3, rounds=3)
    sources = {r.get("feedback_source") for g in games for r in g["rounds"][:-1]}
    assert sources == {source}
    if source == "human_pool":
        pool = (ROOT / "prompts/pie_split/feedback/proposer_pool.txt").read_text(encoding="utf-8")
        for game in games:
            for suggestion in game["rounds"][0]["suggestions"]:
                assert suggestion in pool


def test_a_run_with_paired_arms(tmp_path: Path) -> None:
    arms = ["ai", "human_pool", "constant", "none"]
    cfg = config(arms=arms, branch_after=1, improve="responder", runs=2)
    result = run(cfg, tmp_path / "arms")
    games = assert_finished_with_deals(result.directory, runs=2 * len(arms), rounds=3)
    assert sorted({g["arm"] for g in games}) == sorted(arms)
    for game in games:
        assert game["rounds"][0]["shared"] is True
        assert game["rounds"][0]["feedback_source"] == game["arm"]


def test_the_arms_experiment_runs_offline_and_reports_in_html(tmp_path: Path) -> None:
    """The shipped config, from the command line: the loop with arms, then the HTML report."""
    out = tmp_path / "run"
    result = icl_aif(
        "run", ROOT / "experiments/pie_split_arms.yaml", "--offline", "--set", "runs=4",
        "--out", out,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    summary = read_json(out / "summary.json")
    assert summary["measure"] == {
        "name": "payoff",
        "label": "improved side's payoff (share x discount^t)",
        "money": False,
    }
    assert {row["arm"] for row in summary["arms"]} == {"ai", "human_pool", "constant", "none"}
    assert all(0 < row["payoff_before"] <= 1 for row in summary["arms"])
    assert read_json(out / "manifest.json")["game"] == "pie_split"
    page = tmp_path / "report.html"
    result = icl_aif("report", out, "--html", "--out", page)
    assert result.returncode == 0, result.stderr
    text = page.read_text(encoding="utf-8")
    assert "payoff" in text and "$" not in text.split("<details", 1)[0]
