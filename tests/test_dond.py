"""Deal or No Deal (seeds 000, 001): its judge, moves, contexts, payoffs, metrics, exact messages
and full runs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

import icl_aif.games.dond  # noqa: F401  (registers the game)
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Turn
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_run_graph
from icl_aif.engine.protocol import judge_window
from icl_aif.games.dond.critic import DondCritic
from icl_aif.games.dond.judge import DondJudge
from icl_aif.games.dond.moves import read_move
from icl_aif.games.dond.scenario import (
    DondScenario,
    DondTerms,
    Items,
    all_splits,
    context_problem,
    pareto_optimal,
    score,
    terms_of,
)
from icl_aif.games.dond.simulators import DondPlayer
from icl_aif.games.registry import get_game
from icl_aif.games.simulation import count_lexicon
from icl_aif.records.reader import read_games
from tests.conftest import ROOT, run

GAME = get_game("dond")
FIXED = DondScenario(sample=False)  # 3 books, 1 hat, 2 balls; Alice 2/4/0, Bob 1/1/3
OPENER = (
    "[message] Hi Alice! We have 3 books, 1 hat and 2 balls to split between us. Which of them "
    "matter most to you?"
)


def s(text: str) -> Turn:
    return Turn(speaker="alice", text=text)


def b(text: str) -> Turn:
    return Turn(speaker="bob", text=text)


def items(books: int, hats: int, balls: int) -> Items:
    return Items(books=books, hats=hats, balls=balls)


def judge(window: list[Turn], scenario: DondScenario = FIXED, size: int = 4) -> Any:
    return DondJudge(scenario).classify(judge_window(window, size), GAME.judge_info(scenario))


def config(**values: Any) -> ExperimentConfig:
    data: dict[str, Any] = {
        "name": "dond",
        "game": "dond",
        "seed": 5,
        "runs": 3,
        "rounds": 3,
        "concurrency": 3,
        **values,
    }
    return config_from_dict(data)


# --- the judge --------------------------------------------------------------------------

TALK = [b(OPENER), s("[message] I'd like the books and the hat; you can have the balls.")]


def test_matching_proposals_make_a_deal_with_each_seats_items_and_scores() -> None:
    window = [
        *TALK,
        b("[propose] 0 books, 0 hats, 2 balls"),
        s("[propose] 3 books, 1 hat, 0 balls"),
    ]
    verdict = judge(window)
    assert verdict.state == "deal"
    assert verdict.terms == {
        "alice": {"books": 3, "hats": 1, "balls": 0},
        "bob": {"books": 0, "hats": 0, "balls": 2},
        "alice_score": 10,
        "bob_score": 6,
    }


def test_a_proposal_may_state_both_shares_and_any_order() -> None:
    window = [
        *TALK,
        b("[propose] I get 2 balls, 0 books and 0 hats; you get 3 books, 1 hat, 0 balls"),
        s("[PROPOSE] books=3 hats=1 balls=0"),
    ]
    assert judge(window).state == "deal"


def test_a_single_proposal_keeps_the_round_going() -> None:
    verdict = judge([*TALK, b("[propose] 1 book, 0 hats, 2 balls")])
    assert (verdict.state, verdict.reason) == ("ongoing", "proposal")


def test_mismatched_proposals_end_the_round_by_the_papers_rule() -> None:
    window = [*TALK, b("[propose] 1 book, 0 hats, 2 balls"), s("[propose] 3 books, 1 hat, 0 balls")]
    verdict = judge(window)
    assert (verdict.state, verdict.terms, verdict.reason) == ("no_deal", None, "mismatch")


def test_mismatched_proposals_keep_the_round_going_with_mismatch_continue() -> None:
    window = [*TALK, b("[propose] 1 book, 0 hats, 2 balls"), s("[propose] 3 books, 1 hat, 0 balls")]
    verdict = judge(window, FIXED.model_copy(update={"mismatch": "continue"}))
    assert (verdict.state, verdict.terms, verdict.reason) == ("ongoing", None, "mismatch")


@pytest.mark.parametrize(
    "line", ["[walk away]", "[walk away] Too little for me.", "[message] Then I walk away."]
)
def test_a_walk_away_ends_the_round_without_a_deal(line: str) -> None:
    verdict = judge([*TALK, b(line)])
    assert (verdict.state, verdict.reason) == ("no_deal", "walk_away")


def test_talk_is_ongoing_and_i_wont_walk_away_is_talk() -> None:
    assert judge([*TALK, b("[message] I won't walk away yet.")]).state == "ongoing"
    assert judge([*TALK, b("just chatting")]).reason == "talk"


def test_the_judge_reads_the_context_of_the_game_it_judges() -> None:
    other = FIXED.model_copy(update={"counts": items(1, 2, 3)})
    window = [
        *TALK,
        b("[propose] 0 books, 0 hats, 2 balls"),
        s("[propose] 3 books, 1 hat, 0 balls"),
    ]
    assert judge(window, other).reason == "mismatch"


def test_the_rules_judge_binds_every_agreement_the_simulators_word() -> None:
    judged = GAME.build_judge(config(), PromptLibrary(), lambda _: None)  # type: ignore[arg-type, return-value]
    for turns, agreed in GAME.agreement_examples(FIXED, seed=3):
        window = judge_window([*GAME.opening_turns(FIXED), *turns], 4)
        verdict = asyncio.run(judged.aclassify(window, GAME.judge_info(FIXED)))
        assert (verdict.state, verdict.terms) == ("deal", agreed)


def test_the_judge_needs_a_window_of_two() -> None:
    with pytest.raises(UsageError, match="window"):
        GAME.build_judge(
            config(roles={"moderator": {"mode": "rules", "window": 1}}),
            PromptLibrary(),
            lambda _: None,  # type: ignore[arg-type, return-value]
        )


# --- invalid moves ----------------------------------------------------------------------


def invalid(text: str, turns: list[Turn] = TALK, side: str = "bob") -> str | None:
    return GAME.invalid_move(FIXED, side, text, turns)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Let's split it.", "Start your line with [message] to talk"),
        ("[message] Hi. [propose] 1 book, 0 hats, 0 balls", "Write one move per line"),
        (
            "[propose] 1 book, 2 apples, 0 balls",
            "there are only books, hats and balls, but your proposal names 'apples'",
        ),
        ("[propose] 1 book, 1 hat", "your proposal gives no count for balls"),
        ("[propose] the hat please", "your proposal names no item counts"),
        ("[propose] 1.5 books, 0 hats, 0 balls", "counts must be whole numbers"),
        ("[propose] 1 book, 1 book, 0 hats, 0 balls", "names books more than once"),
        (
            "[propose] 4 books, 0 hats, 3 balls",
            "Your proposal claims 4 books and 3 balls, more than there are: there are only "
            "3 books, 1 hats, 2 balls.",
        ),
        (
            "[propose] I get 1 book, 0 hats, 1 ball; you get 1 book, 1 hat, 1 ball",
            "Your proposal gives out 2 books instead of 3: the two shares must add up to exactly "
            "3 books, 1 hats, 2 balls.",
        ),
        ("[message]", "Your message is empty"),
    ],
)
def test_an_invalid_move_says_exactly_what_is_wrong(text: str, message: str) -> None:
    problem = invalid(text)
    assert problem is not None and message in problem


def test_after_a_proposal_the_other_side_must_propose_or_walk_away() -> None:
    proposed = [*TALK, b("[propose] 1 book, 0 hats, 2 balls")]
    assert invalid("[message] Hmm, let me think.", proposed, "alice") == (
        "Bob has proposed, so the talking is over: answer with a proposal "
        "of your own, starting with [propose], or [walk away]."
    )
    assert invalid("[propose] 2 books, 1 hat, 0 balls", proposed, "alice") is None
    assert invalid("[walk away]", proposed, "alice") is None


def test_a_proposal_must_follow_talk() -> None:
    assert invalid("[propose] 1 book, 0 hats, 0 balls", []) == (
        "Discuss how to divide the items with a [message] before you submit a proposal."
    )
    after_pair = [
        *TALK,
        b("[propose] 1 book, 0 hats, 2 balls"),
        s("[propose] 3 books, 1 hat, 0 balls"),
    ]  # mismatch: continue, the pair is answered
    assert "Discuss" in (invalid("[propose] 1 book, 0 hats, 2 balls", after_pair) or "")
    assert invalid("[message] Let's try again.", after_pair) is None


def test_valid_moves_pass() -> None:
    for line in ("[message] I like balls.", "[propose] 0 books, 0 hats, 2 balls", "[walk away]"):
        assert invalid(line) is None, line


# --- contexts, scores, payoffs, Pareto ---------------------------------------------------


def test_drawn_contexts_meet_the_constraints_and_are_deterministic() -> None:
    seen = set()
    for seed in range(400):
        drawn = GAME.sample_scenario(DondScenario(), seed)
        assert isinstance(drawn, DondScenario) and drawn.sample is False
        c = drawn.counts.as_tuple()
        assert all(1 <= n <= 4 for n in c) and 5 <= sum(c) <= 7
        for values in (drawn.alice_values, drawn.bob_values):
            assert min(values.as_tuple()) >= 0 and score(drawn.counts, values) == 10
        pairs = list(zip(drawn.alice_values.as_tuple(), drawn.bob_values.as_tuple(), strict=True))
        assert all(a > 0 or v > 0 for a, v in pairs)  # every type valued by someone
        assert any(a > 0 and v > 0 for a, v in pairs)  # at most one side can score 10
        assert context_problem(drawn.counts, drawn.alice_values, drawn.bob_values) is None
        assert GAME.sample_scenario(DondScenario(), seed) == drawn
        seen.add((c, drawn.alice_values.as_tuple(), drawn.bob_values.as_tuple()))
    assert len(seen) > 300  # contexts vary with the seed
    assert GAME.sample_scenario(FIXED, 7) is FIXED  # sample: false plays the config's


def test_the_constraints_are_checked() -> None:
    assert context_problem(items(1, 1, 1), items(4, 3, 3), items(4, 3, 3)) is not None
    assert "both sides" in (context_problem(items(2, 2, 2), items(5, 0, 0), items(0, 5, 0)) or "")
    assert "no item type" in (context_problem(items(2, 2, 1), items(5, 0, 0), items(0, 3, 4)) or "")


def deal(alice: Items, bob: Items, scenario: DondScenario = FIXED) -> dict[str, Any]:
    return {"round": 1, "outcome": "deal", "terms": terms_of(scenario, alice, bob), "turns": []}


DEAL = deal(items(3, 1, 0), items(0, 0, 2))  # Alice 3x2 + 1x4 = 10, Bob 2x3 = 6


@pytest.mark.parametrize(
    ("weight", "alice", "bob"),
    [(0.0, 10, 6), (1.0, 16, 16), (-1.0, 4, -4), (0.5, 13, 11)],
)
def test_payoff_is_own_score_plus_lambda_times_the_others(
    weight: float, alice: float, bob: float
) -> None:
    scenario = FIXED.model_copy(update={"objective_weight": weight})
    assert GAME.payoff(scenario, "alice", DEAL) == alice
    assert GAME.payoff(scenario, "bob", DEAL) == bob


def test_no_deal_pays_zero_and_an_error_none() -> None:
    no_deal = {"round": 1, "outcome": "no_deal", "reason": "mismatch", "terms": None, "turns": []}
    assert GAME.payoff(FIXED, "alice", no_deal) == 0
    assert GAME.walk_away(FIXED, "bob") == 0
    assert GAME.payoff(FIXED, "alice", {"outcome": "error", "reason": "boom"}) is None


def test_the_papers_maxima_10_and_19_and_the_bounds() -> None:
    """Seeds 000/001: the maximum reward in one game is 10 (lambda 0) and 19 (lambda 1)."""
    assert GAME.payoff_bounds(FIXED, "alice") == (0.0, 10.0)
    coop = FIXED.model_copy(update={"objective_weight": 1.0})
    assert GAME.payoff_bounds(coop, "alice")[1] <= 19
    best = 0.0
    for seed in range(300):
        drawn = GAME.sample_scenario(DondScenario(objective_weight=1), seed)
        assert GAME.payoff_bounds(drawn, "alice")[1] <= 19
        assert (
            GAME.payoff_bounds(drawn.model_copy(update={"objective_weight": 0.0}), "bob")[1] == 10
        )
        best = max(best, GAME.payoff_bounds(drawn, "bob")[1])
    assert best == 19
    assert GAME.payoff_bounds(DondScenario(objective_weight=-1), "bob") == (-10.0, 10.0)


def test_pareto_optimality_by_enumeration_on_a_small_context() -> None:
    assert len(list(all_splits(FIXED.counts))) == 4 * 2 * 3
    good = DondTerms.model_validate(DEAL["terms"])
    assert pareto_optimal(FIXED, good)
    # Alice keeps the balls she does not value: Bob's 6 is lost for nothing
    wasteful = DondTerms.model_validate(terms_of(FIXED, items(3, 0, 2), items(0, 1, 0)))
    assert not pareto_optimal(FIXED, wasteful)
    # Bob takes everything: no split gives Alice more without giving Bob less
    assert pareto_optimal(
        FIXED, DondTerms.model_validate(terms_of(FIXED, items(0, 0, 0), items(3, 1, 2)))
    )


def test_round_metrics_score_each_game_on_its_own_context() -> None:
    other = FIXED.model_copy(update={"alice_values": items(0, 4, 3), "bob_values": items(2, 4, 0)})
    games: list[dict[str, Any]] = [
        {"scenario": FIXED.model_dump(mode="json"), "rounds": [
            {**DEAL, "turns": [b(OPENER), s("x"), b("y"), s("z")], "invalid_moves": 1},
        ]},
        {"scenario": other.model_dump(mode="json"), "rounds": [
            {**deal(items(3, 0, 2), items(0, 1, 0), other), "turns": [b(OPENER), s("x"), b("y")]},
        ]},
        {"rounds": [
            {"round": 1, "outcome": "no_deal", "reason": "invalid_moves", "terms": None,
             "turns": [b(OPENER), s("x")], "invalid_moves": 3},
        ]},
        {"rounds": [{"round": 1, "outcome": "error", "reason": "boom", "turns": []}]},
    ]  # fmt: skip
    metrics = GAME.round_metrics(GAME.setup(config(scenario={"sample": False})), games, 1)
    assert metrics == {
        "alice_score": pytest.approx((10 + 6 + 0) / 3, abs=1e-4),
        "bob_score": pytest.approx((6 + 4 + 0) / 3, abs=1e-4),
        "pareto_rate": 0.5,  # the second deal wastes Alice's balls (worth 3 to her) on nothing
        "invalid_move_rate": pytest.approx(4 / 9, abs=1e-4),  # 1 + 3 refused; tries 4 + 2 + 3
        "abort_rate": pytest.approx(1 / 3, abs=1e-4),
    }
    assert [c.key for c in GAME.columns] == list(metrics)


@pytest.mark.parametrize(("improve", "expected"), [("alice", 10), ("bob", 6)])
def test_the_measure_is_the_improved_sides_payoff(improve: str, expected: float) -> None:
    measure = GAME.measure(GAME.setup(config(improve=improve, scenario={"sample": False})))
    assert (measure.name, measure.money, measure.no_deal_value) == ("payoff", False, 0)
    assert measure.of(DEAL) == expected


def test_the_outcome_sentence_states_the_items_scores_and_pareto() -> None:
    assert GAME.outcome_sentence(DEAL, FIXED) == (
        "deal: Alice gets 3 books, 1 hat and 0 balls (score 10), Bob gets 0 books, 0 hats and "
        "2 balls (score 6); payoffs 10 and 6; Pareto-optimal"
    )
    walked = {"outcome": "no_deal", "reason": "walk_away", "turns": [b("[walk away]")]}
    assert GAME.outcome_sentence(walked, FIXED) == "no deal: Bob walked away"


# --- config -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ({"objective_weight": 2}, "scenario.objective_weight"),
        ({"mismatch": "maybe"}, "scenario.mismatch"),
        ({"counts": {"books": 0, "hats": 0, "balls": 0}}, "at least one item"),
        ({"counts": {"books": 1, "hats": 1}}, "scenario.counts.balls"),
        ({"item": "balloon"}, "unknown field 'scenario.item'"),
    ],
)
def test_scenario_problems_are_one_line(scenario: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        config(scenario=scenario)
    assert "\n" not in str(caught.value)


def test_an_unknown_simulator_names_the_games_own() -> None:
    with pytest.raises(Exception, match="boulware, linear, conceder, fair, critic"):
        GameContext(config=config(roles={"alice": {"model": "scripted:tit_for_tat"}}))


def test_every_critic_suggestion_uses_the_players_lexicon() -> None:
    for key, advice in DondCritic.ADVICE.items():
        assert any(count_lexicon([advice], DondPlayer.LEXICON).values()), key


def test_the_between_round_templates_use_no_lexicon_phrase() -> None:
    for path in (ROOT / "prompts/dond/round").glob("*.txt"):
        assert not any(
            count_lexicon([path.read_text(encoding="utf-8")], DondPlayer.LEXICON).values()
        ), path.name


# --- simulators --------------------------------------------------------------------------


def first_offer(history: list[BaseMessage]) -> Items:
    player = DondPlayer(strategy="linear", side="alice", scenario=FIXED, seed=1)
    reply = player.respond([SystemMessage("brief"), *history, HumanMessage(OPENER)])
    move = read_move(reply)
    assert move.kind == "message", reply
    from icl_aif.games.dond.moves import read_claim

    claim = read_claim(move.body)
    assert claim.mine is not None
    return claim.mine


def test_trade_feedback_makes_a_player_leave_what_it_does_not_value() -> None:
    past = [
        HumanMessage(OPENER),
        AIMessage(
            "[message] How about this: I get 3 books, 1 hat and 2 balls and you get 0 books, 0 hats and 0 balls."
        ),
        HumanMessage("[walk away]"),
        HumanMessage("Round 1 is over. ...\n1. Trade: give up the items you value least."),
        AIMessage("Understood."),
    ]
    offers = {first_offer(past).balls for _ in range(3)}
    assert offers == {0}  # balls are worth 0 to Alice, so she leaves them all to Bob


def test_a_player_answers_an_acceptable_proposal_with_its_complement() -> None:
    player = DondPlayer(strategy="linear", side="alice", scenario=FIXED, seed=1)
    history: list[BaseMessage] = [
        SystemMessage("brief"),
        HumanMessage(OPENER),
        AIMessage(
            "[message] How about this: I get 3 books, 1 hat and 0 balls and you get 0 books, 0 hats and 2 balls."
        ),
        HumanMessage("[propose] 0 books, 0 hats, 2 balls"),
    ]
    reply = player.respond(history)
    turns = [b(OPENER), s(history[2].text), b(history[3].text), s(reply)]
    assert judge(turns).state == "deal"


# --- exact messages in round 2 ----------------------------------------------------------

ALICE_BRIEF = (
    "You are Alice, and you are negotiating with Bob over how to divide 3 books, 1 hat and 2 "
    "balls. Every item goes whole to one of you.\n"
    "Your private values: a book is worth 2 points, a hat 4 points and a ball 0 points, so all "
    "the items together are worth 10 points to you. Bob has private values of their own, which "
    "you do not know.\n"
    "Your score is the sum of the values of the items you end up with. Your payoff is your own "
    "score: make it as large as you can. Bob's score neither helps nor hurts you.\n"
    "Write every line as a single move that starts with a tag:\n"
    "[message] followed by what you want to say, to discuss who gets what;\n"
    "[propose] followed by the items you keep, a whole-number count for each of books, hats and "
    "balls, for example: [propose] 1 book, 2 hats, 0 balls. Whatever you do not claim goes to "
    "Bob;\n"
    "[walk away] to end the game without a deal.\n"
    "Talk before you propose. After either of you proposes, the talking is over: the other "
    "side's only moves are a counter-proposal or walking away. If the two proposals "
    "together give out exactly all the items, they are the deal. If they do not, the game ends "
    "and you both score 0.\n"
    "Without a deal you both score 0. The game stops without a deal after 16 lines in all, the "
    "opening line included.\n"
    "Keep each message to one or two sentences."
)
BOB_BRIEF = (
    ALICE_BRIEF.replace("You are Alice, and you are negotiating with Bob", "You are Bob, and you are negotiating with Alice")
    .replace("a book is worth 2 points, a hat 4 points and a ball 0 points", "a book is worth 1 point, a hat 1 point and a ball 3 points")
    .replace("Bob has private values", "Alice has private values")
    .replace("Bob's score neither", "Alice's score neither")
    .replace("goes to Bob;", "goes to Alice;")
)  # fmt: skip
INSTRUCTION = (
    "Round 1 is over. You agreed on a split: you got 2 books, 1 hat and 0 balls (score 8) and "
    "Bob got 1 book, 0 hats and 2 balls (score 7 by Bob's values). Your payoff was 8.\n\n"
    "Feedback on how you negotiated:\n"
    "1. Be ready to walk away from a split worth much less than half of your total, and say so "
    "calmly.\n"
    "2. Ask Bob what they value, and offer the items that matter little to you for the ones "
    "that matter most: a good trade helps both of you.\n"
    "3. Open high: ask for more than you expect to get in your first message, so that you have "
    "room to concede.\n\n"
    "Round 2 starts now with the same items and the same values. Try to earn a payoff above 8, "
    "the payoff of round 1."
)


def test_the_exact_messages_of_round_2_of_a_scripted_run() -> None:
    ctx = GameContext(config=config(runs=1, rounds=2, scenario={"sample": False}))
    state = asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    agreed = terms_of(FIXED, items(2, 1, 0), items(1, 0, 2))
    assert [r["terms"] for r in state["rounds"]] == [agreed, agreed]
    calls = {
        role: [c["messages"] for c in ctx.calls if c["role"] == role and c["round"] == 2]
        for role in ("alice", "bob")
    }
    assert calls["alice"][0] == [
        {"role": "system", "content": ALICE_BRIEF},
        {"role": "user", "content": OPENER},
        {"role": "assistant", "content": "[message] How about this: I get 2 books, 1 hat and 1 ball and you get 1 book, 0 hats and 1 ball."},
        {"role": "user", "content": "[message] How about this: I get 3 books, 0 hats and 2 balls and you get 0 books, 1 hat and 0 balls."},
        {"role": "assistant", "content": "[message] I still think this is right: I get 2 books, 1 hat and 1 ball and you get 1 book, 0 hats and 1 ball."},
        {"role": "user", "content": "[message] Let me offer something else: I get 2 books, 0 hats and 2 balls and you get 1 book, 1 hat and 0 balls."},
        {"role": "assistant", "content": "[message] I can move a little: I get 2 books, 1 hat and 2 balls and you get 1 book, 0 hats and 0 balls."},
        {"role": "user", "content": "[message] Let me offer something else: I get 1 book, 1 hat and 2 balls and you get 2 books, 0 hats and 0 balls."},
        {"role": "assistant", "content": "[message] Let me offer something else: I get 2 books, 1 hat and 0 balls and you get 1 book, 0 hats and 2 balls."},
        {"role": "user", "content": "[propose] 1 book, 0 hats and 2 balls"},
        {"role": "assistant", "content": "[propose] 2 books, 1 hat and 0 balls"},
        {"role": "user", "content": INSTRUCTION},
        {"role": "assistant", "content": "Understood. I will put this feedback to use in round 2 and aim for a payoff above 8."},
        {"role": "user", "content": OPENER},
    ]  # fmt: skip
    # the rival starts fresh: its brief, the opener (its own line) and Alice's first offer,
    # which after the critic's "trade" advice leaves Bob the balls she does not value
    assert calls["bob"][0] == [
        {"role": "system", "content": BOB_BRIEF},
        {"role": "assistant", "content": OPENER},
        {"role": "user", "content": "[message] How about this: I get 3 books, 1 hat and 0 balls and you get 0 books, 0 hats and 2 balls."},
    ]  # fmt: skip


# --- full runs --------------------------------------------------------------------------


def assert_finished(directory: Path, runs: int, rounds: int) -> list[dict[str, Any]]:
    games = read_games(directory)
    assert len(games) == runs
    deals = 0
    for game in games:
        assert game["status"] == "complete"
        assert len(game["rounds"]) == rounds
        scenario = GAME.game_scenario(GAME.scenario_of(config()), game)
        for record in game["rounds"]:
            assert record["outcome"] in ("deal", "no_deal")
            if record["outcome"] == "deal":
                deals += 1
                terms = DondTerms.model_validate(record["terms"])
                assert terms.alice_score == score(terms.alice, scenario.alice_values)  # type: ignore[attr-defined]
            else:
                assert record["terms"] is None
    assert deals > 0
    return games


@pytest.mark.parametrize("source", ["ai", "human_pool", "constant", "none"])
def test_a_five_round_run_with_every_feedback_source(source: str, tmp_path: Path) -> None:
    result = run(config(rounds=5, feedback={"source": source}), tmp_path / source)
    games = assert_finished(result.directory, runs=3, rounds=5)
    assert {r.get("feedback_source") for g in games for r in g["rounds"][:-1]} == {source}
    assert len({str(g.get("scenario")) for g in games}) == 3  # a context drawn per game
    if source == "human_pool":
        pool = (ROOT / "prompts/dond/feedback/alice_pool.txt").read_text(encoding="utf-8")
        for game in games:
            for suggestion in game["rounds"][0]["suggestions"]:
                assert suggestion in pool


def test_a_five_round_run_with_paired_arms(tmp_path: Path) -> None:
    arms = ["ai", "human_pool", "constant", "none"]
    cfg = config(rounds=5, arms=arms, branch_after=1, improve="bob", runs=2)
    games = assert_finished(run(cfg, tmp_path / "arms").directory, runs=2 * len(arms), rounds=5)
    assert sorted({g["arm"] for g in games}) == sorted(arms)
    for game in games:
        assert game["rounds"][0]["shared"] is True


def test_the_game_conforms(tmp_path: Path) -> None:
    from icl_aif.testing.conformance import check_game

    check_game("dond", tmp_path)
