"""The resource split (seed 003): its judge, refused moves, rewards, the per-game draw, exact
messages and full runs."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import ValidationError

import icl_aif.games.resource_split  # noqa: F401  (registers the game)
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Turn
from icl_aif.engine.configs import config_from_dict, load_config
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_run_graph
from icl_aif.engine.protocol import judge_window
from icl_aif.games.registry import get_game
from icl_aif.games.resource_split.critic import ResourceSplitCritic
from icl_aif.games.resource_split.judge import ResourceSplitJudge, judge_values
from icl_aif.games.resource_split.offers import read_line
from icl_aif.games.resource_split.scenario import (
    Bundle,
    ResourceSplitScenario,
    ResourceSplitTerms,
    complete,
    reward,
)
from icl_aif.games.resource_split.simulators import (
    ResourceSplitPlayer,
    demand_bundle,
)
from icl_aif.games.simulation import count_lexicon
from icl_aif.records.reader import read_games, read_json
from icl_aif.testing.conformance import check_game
from tests.conftest import ROOT, run

GAME = get_game("resource_split")
# utilities chosen so that everything is worth 100 to each side (rewards are hundredths)
FIXED = ResourceSplitScenario(
    player1_utilities=Bundle(A=5, B=3, C=2), player2_utilities=Bundle(A=1, B=4, C=5)
)
OPENER = (
    "Hi! There are 10 units of A, 10 of B and 10 of C for us to share. You make the first "
    "offer: how would you split them?"
)


def s(text: str) -> Turn:
    return Turn(speaker="player1", text=text)


def b(text: str) -> Turn:
    return Turn(speaker="player2", text=text)


def judge(window: list[Turn], size: int = 4, scenario: ResourceSplitScenario = FIXED) -> Any:
    """The verdict after the last line of ``window``, as the engine would ask (the last
    ``size`` lines)."""
    return ResourceSplitJudge(scenario, window=size).classify(judge_window(window, size))


def bundle(a: int, b_: int, c: int) -> dict[str, int]:
    return {"A": a, "B": b_, "C": c}


def terms(
    player1: tuple[int, int, int], player2: tuple[int, int, int], rs: float, rb: float
) -> Any:
    return {
        "player1": bundle(*player1),
        "player2": bundle(*player2),
        "player1_reward": rs,
        "player2_reward": rb,
    }


def config(**values: Any) -> ExperimentConfig:
    data: dict[str, Any] = {
        "name": "resources",
        "game": "resource_split",
        "seed": 5,
        "runs": 3,
        "rounds": 5,
        "concurrency": 3,
        **values,
    }
    return config_from_dict(data)


# --- the judge --------------------------------------------------------------------------

ROUND = [
    b(OPENER),
    s("Offer: I take A=10 B=5 C=0, you take A=0 B=5 C=10."),
    b("Offer: I take A=2 B=8 C=10, you take A=8 B=2 C=0."),
    s("Offer: I take A=9 B=4 C=2, you take A=1 B=6 C=8."),
]
DEAL_3 = terms((9, 4, 2), (1, 6, 8), 0.61, 0.65)  # 45+12+4, 1+24+40


def test_an_acceptance_binds_the_other_sides_standing_offer_with_both_rewards() -> None:
    verdict = judge([*ROUND, b("I accept: you take A=9 B=4 C=2, I take A=1 B=6 C=8.")])
    assert (verdict.state, verdict.terms, verdict.reason) == ("deal", DEAL_3, "accepted")


def test_player_1_accepts_player_2s_counter_offer() -> None:
    verdict = judge([*ROUND[:3], s("Deal. I accept: you take A=2 B=8 C=10, I take A=8 B=2 C=0.")])
    assert (verdict.state, verdict.terms) == ("deal", terms((8, 2, 0), (2, 8, 10), 0.46, 0.84))


def test_a_bare_acceptance_binds_the_latest_offer_of_the_other_side_not_its_own() -> None:
    window = [
        *ROUND[:3],
        s("Offer: I take A=9 B=9 C=0, you take A=1 B=1 C=10."),
        b("Hmm."),
        s("Agreed."),
    ]
    verdict = judge(window)  # player 1 accepts player 2's offer, not its own latest
    assert (verdict.state, verdict.terms) == ("deal", terms((8, 2, 0), (2, 8, 10), 0.46, 0.84))


@pytest.mark.parametrize(
    "line",
    [
        "Offer: I take A=5 B=5 C=5, you take A=5 B=5 C=5.",
        "I can't accept that. Offer: I take A=5 B=5 C=5, you take A=5 B=5 C=5.",
        "Deal?",
        "I accept: you take A=9 B=4 C=1, I take A=1 B=6 C=9.",  # restates another split
        "Offer: I take A=5 B=5, you take A=5 B=5 C=10.",  # malformed: talk
    ],
)
def test_a_counter_offer_a_mismatched_acceptance_or_a_malformed_offer_stays_ongoing(
    line: str,
) -> None:
    verdict = judge([*ROUND, b(line)])
    assert (verdict.state, verdict.terms) == ("ongoing", None)


def test_a_split_that_does_not_add_up_is_never_a_deal() -> None:
    invalid = [*ROUND[:3], s("Offer: I take A=9 B=4 C=2, you take A=2 B=6 C=7.")]
    proposal = judge(invalid)
    assert proposal.state == "ongoing"
    assert proposal.reason == "invalid split: A adds up to 11, not 10; C adds up to 9, not 10"
    for acceptance in ("I accept: you take A=9 B=4 C=2, I take A=2 B=6 C=7.", "Deal!", "I accept."):
        verdict = judge([*invalid, b(acceptance)])
        assert (verdict.state, verdict.terms) == ("ongoing", None), acceptance


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("That leaves me too little, so I walk away. No deal.", "walk_away"),
        ("No deal, I'm out.", "walk_away"),
        ("I refuse to continue this negotiation.", "refusal"),
    ],
)
def test_a_walk_away_or_a_refusal_ends_the_round_without_a_deal(line: str, reason: str) -> None:
    verdict = judge([*ROUND, b(line)])
    assert (verdict.state, verdict.terms, verdict.reason) == ("no_deal", None, reason)


def test_a_line_that_says_it_will_not_walk_away_is_talk() -> None:
    assert judge([*ROUND, b("I won't walk away yet.")]).state == "ongoing"


def test_a_restated_acceptance_binds_in_a_window_of_one_line_or_after_the_offer_left() -> None:
    accept = b("I accept: you take A=9 B=4 C=2, I take A=1 B=6 C=8.")
    assert judge([*ROUND, accept], size=1).terms == DEAL_3
    later = [*ROUND, b("Let me think."), s("Take your time."), accept]
    assert judge(later).terms == DEAL_3  # the window shows no offer of player 1's
    assert judge([*later[:-1], b("Fine, deal.")]).state == "ongoing"  # nothing to bind


def test_nothing_is_accepted_before_the_other_side_offered() -> None:
    cheat = [b(OPENER), s("I accept: you take A=0 B=0 C=0, I take A=10 B=10 C=10.")]
    assert judge(cheat).state == "ongoing"


def test_the_judge_reads_each_games_values_from_the_scenario_info() -> None:
    other = ResourceSplitScenario(
        player1_utilities=Bundle(A=0, B=0, C=1), player2_utilities=Bundle(A=1, B=1, C=1)
    )
    window = [*ROUND, b("I accept: you take A=9 B=4 C=2, I take A=1 B=6 C=8.")]
    verdict = ResourceSplitJudge(FIXED).classify(window, judge_values(other))
    assert verdict.terms == terms((9, 4, 2), (1, 6, 8), 0.2, 0.5)


def test_offers_read_several_spellings() -> None:
    reading = read_line("My counter-offer: I get A: 3, B: 4 and C: 5; you get A=7, B=6, C=5.")
    assert reading.split is not None and not reading.malformed
    assert (reading.split.mine.text(), reading.split.yours.text()) == ("A=3 B=4 C=5", "A=7 B=6 C=5")
    assert read_line("Offer: half of everything.").malformed
    assert not read_line("Your offer is too low for me.").malformed


def test_the_rules_judge_binds_every_agreement_the_simulators_word() -> None:
    judged = GAME.build_judge(config(), PromptLibrary(), lambda _: None)  # type: ignore[arg-type, return-value]
    for seed in range(3):
        scenario = GAME.sample_scenario(ResourceSplitScenario(), seed)
        for turns, agreed in GAME.agreement_examples(scenario, seed=seed):
            window = judge_window([*GAME.opening_turns(scenario), *turns], 4)
            verdict = asyncio.run(judged.aclassify(window, GAME.judge_info(scenario)))
            assert (verdict.state, verdict.terms) == ("deal", agreed)


# --- refused moves ----------------------------------------------------------------------


def refused(side: str, text: str, turns: list[Turn]) -> str | None:
    return GAME.invalid_move(FIXED, side, text, turns)  # type: ignore[arg-type]


def test_a_split_that_does_not_add_up_is_refused_with_what_is_off() -> None:
    assert refused("player1", "Offer: I take A=9 B=4 C=2, you take A=2 B=6 C=7.", ROUND[:3]) == (
        "That offer is invalid: the two shares of every resource must add up to what there is "
        "(A 10, B 10, C 10), but A adds up to 11, not 10; C adds up to 9, not 10. Send a "
        'corrected offer in the form "Offer: I take A=x B=y C=z, you take A=x B=y C=z."'
    )


def test_a_malformed_offer_is_refused() -> None:
    assert refused("player2", "Offer: I take A=5 B=5, you take the rest.", ROUND) == (
        "That offer could not be read. Name all three resources for both of you, with the "
        "shares of each adding up to what there is (A 10, B 10, C 10): "
        '"Offer: I take A=x B=y C=z, you take A=x B=y C=z."'
    )


def test_an_acceptance_with_no_standing_offer_is_refused() -> None:
    assert refused("player1", "I accept.", [b(OPENER)]) == (
        "There is no offer of player 2's on the table to accept yet. Make an offer of your own "
        'in the form "Offer: I take A=x B=y C=z, you take A=x B=y C=z."'
    )
    own_only = ROUND[:2]  # player 1 cannot accept its own offer
    assert refused("player1", "Agreed.", own_only) is not None


def test_an_acceptance_that_restates_another_split_is_refused() -> None:
    assert refused("player2", "I accept: you take A=9 B=4 C=1, I take A=1 B=6 C=9.", ROUND) == (
        "Your acceptance restates a different split from player 1's standing offer, in which "
        "player 1 takes A=9 B=4 C=2 and you take A=1 B=6 C=8. To accept it, write "
        '"I accept: you take A=9 B=4 C=2, I take A=1 B=6 C=8."; otherwise make a new offer.'
    )


@pytest.mark.parametrize(
    "line",
    [
        "Offer: I take A=5 B=5 C=5, you take A=5 B=5 C=5.",
        "I accept: you take A=9 B=4 C=2, I take A=1 B=6 C=8.",
        "Deal.",
        "I walk away.",
        "Your offer is too low; think again.",
    ],
)
def test_valid_lines_are_moves(line: str) -> None:
    assert refused("player2", line, ROUND) is None


# --- rewards and the draw ---------------------------------------------------------------

DEAL = {"round": 1, "outcome": "deal", "terms": DEAL_3, "turns": []}
NO_DEAL = {"round": 1, "outcome": "no_deal", "reason": "cap", "terms": None, "turns": []}


def test_the_papers_reward_on_a_worked_example() -> None:
    # r_i = (n_A u_A + n_B u_B + n_C u_C) / (10 u_A + 10 u_B + 10 u_C)
    assert reward(FIXED, "player1", Bundle(A=6, B=2, C=5)) == pytest.approx(46 / 100)
    assert reward(FIXED, "player2", Bundle(A=4, B=8, C=5)) == pytest.approx(61 / 100)
    uneven = ResourceSplitScenario(
        player1_utilities=Bundle(A=7, B=0, C=3), player2_utilities=Bundle(A=2, B=2, C=2)
    )
    assert reward(uneven, "player1", Bundle(A=3, B=10, C=10)) == pytest.approx(51 / 100)
    assert reward(uneven, "player2", Bundle(A=3, B=10, C=10)) == pytest.approx(46 / 60)


def test_payoffs_bounds_and_the_measure() -> None:
    assert GAME.payoff(FIXED, "player1", DEAL) == 0.61
    assert GAME.payoff(FIXED, "player2", DEAL) == 0.65
    assert GAME.payoff(FIXED, "player1", NO_DEAL) == -0.5  # the paper's no-deal reward
    assert GAME.payoff(FIXED, "player2", {"outcome": "error", "reason": "boom"}) is None
    assert GAME.payoff_bounds(FIXED, "player1") == (0.0, 1.0)
    for improve, expected in (("player1", 0.61), ("player2", 0.65)):
        measure = GAME.measure(GAME.setup(config(improve=improve)))
        assert (measure.name, measure.money, measure.no_deal_value) == ("reward", False, -0.5)
        assert (measure.of(DEAL), measure.of(NO_DEAL)) == (expected, None)


def test_terms_are_checked() -> None:
    with pytest.raises(ValidationError, match="less than or equal to 1"):
        ResourceSplitTerms.model_validate({**DEAL_3, "player1_reward": 1.5})
    with pytest.raises(ValidationError, match="Extra inputs"):
        ResourceSplitTerms.model_validate({**DEAL_3, "price": 3})


def test_the_outcome_sentence_names_each_seats_units_and_reward() -> None:
    assert GAME.outcome_sentence(DEAL, FIXED) == (
        "deal: player 1 takes A=9 B=4 C=2 (reward 0.610), player 2 takes A=1 B=6 C=8 (reward 0.650)"
    )
    walked = {"outcome": "no_deal", "reason": "walk_away", "turns": [b("I walk away.")]}
    assert GAME.outcome_sentence(walked, FIXED) == "no deal: player 2 walked away"


def test_sample_scenario_draws_valid_different_utilities_over_many_seeds() -> None:
    base = ResourceSplitScenario()
    drawn = [GAME.sample_scenario(base, seed) for seed in range(500)]
    pairs = set()
    for scenario in drawn:
        assert isinstance(scenario, ResourceSplitScenario) and scenario.drawn
        assert scenario.amounts == Bundle(A=10, B=10, C=10)  # the paper's n_1 + n_2 = 10
        player1, player2 = scenario.player1_utilities, scenario.player2_utilities
        assert player1 is not None and player2 is not None and player1 != player2
        for values in (player1, player2):
            assert all(0 <= v <= 10 for v in values.as_dict().values())
            assert sum(values.as_dict().values()) > 0
        pairs.add((player1, player2))
    assert len(pairs) > 450
    values = {v for sc in drawn for v in sc.player1_utilities.as_dict().values()}  # type: ignore[union-attr]
    assert values == set(range(11))
    assert GAME.sample_scenario(base, 7) == drawn[7]  # from the seed alone
    assert GAME.sample_scenario(FIXED, 7) is FIXED  # nothing left to draw


def test_sample_scenario_keeps_what_the_config_fixes_and_draws_amounts_when_asked() -> None:
    half = ResourceSplitScenario(amounts=None, player1_utilities=Bundle(A=1, B=2, C=3))
    for seed in range(200):
        scenario = GAME.sample_scenario(half, seed)
        assert isinstance(scenario, ResourceSplitScenario)
        assert scenario.player1_utilities == Bundle(A=1, B=2, C=3)
        assert scenario.amounts is not None
        assert all(1 <= n <= 10 for n in scenario.amounts.as_dict().values())


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        ({"player1_utilities": {"A": 11, "B": 0, "C": 0}}, "utilities are integers from 0 to 10"),
        ({"player2_utilities": {"A": 0, "B": 0, "C": 0}}, "value nothing there is"),
        ({"amounts": {"A": 10, "B": 10}}, "scenario.amounts.C"),
        ({"max_exchanges": 1}, "field 'scenario.max_exchanges'"),
        ({"pie": 100}, "unknown field 'scenario.pie'"),
    ],
)
def test_scenario_problems_are_one_line(scenario: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        config(scenario=scenario)
    assert "\n" not in str(caught.value)


def test_round_metrics_count_invalid_moves_aborts_rewards_and_wins() -> None:
    games = [
        {"rounds": [{**DEAL, "invalid_moves": 2}]},
        {"rounds": [{**DEAL, "terms": terms((9, 4, 2), (1, 6, 8), 0.7, 0.3)}]},
        {"rounds": [{**NO_DEAL, "reason": "invalid_moves", "invalid_moves": 3}]},
        {"rounds": [{"round": 1, "outcome": "error", "reason": "boom", "invalid_moves": 9}]},
    ]
    figures = GAME.round_metrics(GAME.setup(config()), games, 1)
    assert figures == {
        "invalid_moves": 5,
        "aborts": 1,
        "mean_player1_reward": pytest.approx((0.61 + 0.7 - 0.5) / 3),
        "mean_player2_reward": pytest.approx((0.65 + 0.3 - 0.5) / 3),
        "win_rate": pytest.approx(1 / 3),
    }
    assert [c.key for c in GAME.columns] == list(figures)


# --- simulators and the critic -----------------------------------------------------------


def test_every_critic_suggestion_uses_the_players_lexicon() -> None:
    for key, advice in ResourceSplitCritic.ADVICE.items():
        assert any(count_lexicon([advice], ResourceSplitPlayer.LEXICON).values()), key


def test_a_demand_takes_what_the_player_values_most_first() -> None:
    amounts = Bundle(A=10, B=10, C=10)
    assert demand_bundle(amounts, Bundle(A=5, B=3, C=2), 80) == Bundle(A=10, B=10, C=0)
    assert demand_bundle(amounts, Bundle(A=5, B=3, C=2), 62) == Bundle(A=10, B=4, C=0)
    assert demand_bundle(amounts, Bundle(A=0, B=3, C=0), 100) == Bundle(A=0, B=10, C=0)


def first_offer(player: ResourceSplitPlayer, history: list[BaseMessage]) -> float:
    reading = read_line(player.respond([*history, HumanMessage(OPENER)]))
    assert reading.split is not None
    return reward(FIXED, "player1", reading.split.mine)


def test_a_player_opens_higher_after_feedback_that_says_open_high() -> None:
    def player() -> ResourceSplitPlayer:
        values = {"opening": 0.7, "reservation": 0.4}
        return ResourceSplitPlayer(strategy="linear", side="player1", scenario=FIXED, **values)

    brief = [SystemMessage("brief")]
    before = first_offer(player(), brief)
    past_round = [
        HumanMessage(OPENER),
        AIMessage("Offer: I take A=10 B=7 C=0, you take A=0 B=3 C=10."),
        HumanMessage("I accept: you take A=10 B=7 C=0, I take A=0 B=3 C=10."),
        HumanMessage("Round 1 is over. ...\n1. Open high and keep your next offers close."),
        AIMessage("Understood."),
    ]
    after = first_offer(player(), [*brief, *past_round])
    assert after - before == pytest.approx(0.05, abs=0.03)


def test_a_fair_player_offers_half_and_walks_away_from_less_on_the_last_line() -> None:
    fair = ResourceSplitPlayer(strategy="fair", side="player1", scenario=FIXED)
    assert fair.respond([SystemMessage("brief"), HumanMessage(OPENER)]) in (
        "Offer: I take A=5 B=5 C=5, you take A=5 B=5 C=5.",
        "Here is my opening offer: I take A=5 B=5 C=5, you take A=5 B=5 C=5.",
    )
    greedy = "Offer: I take A=9 B=9 C=9, you take A=1 B=1 C=1."
    lines: list[BaseMessage] = [SystemMessage("brief"), HumanMessage(OPENER)]
    for number in range(6):  # the player1's next line is the 8th and last
        mine = number % 2 == 0
        lines.append(
            AIMessage("Offer: I take A=5 B=5 C=5, you take A=5 B=5 C=5.")
            if mine
            else HumanMessage(greedy)
        )
    assert read_line(fair.respond(lines)).ending == "walk_away"
    lines[-1] = HumanMessage("Offer: I take A=0 B=5 C=5, you take A=10 B=5 C=5.")
    assert fair.respond(lines).endswith("you take A=0 B=5 C=5, I take A=10 B=5 C=5.")


# --- exact messages in round 2 ----------------------------------------------------------

# game 0 of seed 1 draws player 1's utilities A=9 B=8 C=4 and player 2's A=5 B=8 C=3
SELLER_BRIEF = (
    "You are player 1 in a resource-split game: you and player 2 share 10 units of "
    "resource A, 10 of B and 10 of C, and you make the first offer.\n"
    "The resources are worth different amounts to each of you. To you a unit of A is "
    "worth 9, a unit of B 8 and a unit of C 4, so everything together is worth 210 to "
    "you; player 2's values are private and may differ. Your reward is the worth to "
    "you of the units you end up with divided by 210, a number from 0 to 1. Without "
    "an agreement you both get -0.5.\n"
    "The round stops without a deal after 8 lines in all, the opening included.\n"
    'Write every offer as "Offer: I take A=x B=y C=z, you take A=x B=y C=z." naming '
    "all three resources for both of you; the two numbers of each resource must add "
    "up to what there is (A 10, B 10, C 10), or the offer is invalid.\n"
    "To accept player 2's latest offer, restate it from your side: \"I accept: you "
    'take A=x B=y C=z, I take A=x B=y C=z." To end the game without a deal, say "I '
    'walk away."\n'
    "Answer with one or two short sentences each turn. Get as large a reward as you "
    "can."
)
INSTRUCTION = (
    "Round 1 is over. You agreed on a split: you took A=10 B=0 C=10 and player 2 took "
    "A=0 B=10 C=0. Your reward was 0.619.\n"
    "\n"
    "Feedback on how you negotiated:\n"
    "1. The deal gave player 2 more than it gave you. Keep the resources you value "
    "most and give up the ones you value least first.\n"
    "2. A round without an agreement costs you both -0.5, and any deal beats no deal: "
    "when you reach your final line, accept player 2's standing offer.\n"
    "3. Remind player 2 how few lines are left and that no deal costs you both -0.5, "
    "so a quick agreement on your terms suits player 2 too.\n"
    "\n"
    "Round 2 starts now with the same opening. Try to earn a reward above 0.619, the "
    "reward of round 1."
)
BUYER_BRIEF = (
    "You are player 2 in a resource-split game: you and player 1 share 10 units of "
    "resource A, 10 of B and 10 of C, and player 1 makes the first offer.\n"
    "The resources are worth different amounts to each of you. To you a unit of A is "
    "worth 5, a unit of B 8 and a unit of C 3, so everything together is worth 160 to "
    "you; player 1's values are private and may differ. Your reward is the worth to "
    "you of the units you end up with divided by 160, a number from 0 to 1. Without "
    "an agreement you both get -0.5.\n"
    "The round stops without a deal after 8 lines in all, the opening included.\n"
    "You may accept player 1's latest offer or answer with an offer of your own. "
    'Write every offer as "Offer: I take A=x B=y C=z, you take A=x B=y C=z." naming '
    "all three resources for both of you; the two numbers of each resource must add "
    "up to what there is (A 10, B 10, C 10), or the offer is invalid.\n"
    "To accept player 1's latest offer, restate it from your side: \"I accept: you "
    'take A=x B=y C=z, I take A=x B=y C=z." To end the game without a deal, say "I '
    'walk away."\n'
    "Answer with one or two short sentences each turn. Get as large a reward as you "
    "can."
)
ROUND_TERMS = [
    {
        "player1": {"A": 10, "B": 0, "C": 10},
        "player2": {"A": 0, "B": 10, "C": 0},
        "player1_reward": 0.619048,
        "player2_reward": 0.5,
    },
    {
        "player1": {"A": 10, "B": 1, "C": 10},
        "player2": {"A": 0, "B": 9, "C": 0},
        "player1_reward": 0.657143,
        "player2_reward": 0.45,
    },
]
ROUND2_SELLER = [
    {"role": "system", "content": SELLER_BRIEF},
    {"role": "user", "content": OPENER},
    {"role": "assistant", "content": "Offer: I take A=10 B=10 C=6, you take A=0 B=0 C=4."},
    {
        "role": "user",
        "content": "Here is my opening offer: I take A=5 B=10 C=0, you take A=5 B=0 C=10.",
    },
    {
        "role": "assistant",
        "content": "Offer: I take A=10 B=10 C=0, you take A=0 B=0 C=10. That moves toward you.",
    },
    {
        "role": "user",
        "content": "I can give a little ground. Offer: I take A=0 B=10 C=0, you take A=10 B=0 C=10.",
    },
    {
        "role": "assistant",
        "content": "Deal. I accept: you take A=0 B=10 C=0, I take A=10 B=0 C=10.",
    },
    {"role": "user", "content": INSTRUCTION},
    {
        "role": "assistant",
        "content": "Understood. I will put this feedback to use in round 2 and aim for a reward above 0.619.",
    },
    {"role": "user", "content": OPENER},
]
ROUND2_BUYER = [
    {"role": "system", "content": BUYER_BRIEF},
    {"role": "assistant", "content": OPENER},
    {"role": "user", "content": "Offer: I take A=10 B=10 C=5, you take A=0 B=0 C=5."},
]


def test_the_exact_messages_of_round_2_of_a_scripted_run() -> None:
    cfg = config(seed=1, runs=1, rounds=2)
    ctx = GameContext(config=cfg)
    state = asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    calls = {
        role: [c["messages"] for c in ctx.calls if c["role"] == role and c["round"] == 2]
        for role in ("player1", "player2")
    }
    assert [r["terms"] for r in state["rounds"]] == ROUND_TERMS
    # the improved player 1 keeps its brief, round 1, the feedback turn and its acknowledgement
    assert calls["player1"][0] == ROUND2_SELLER
    # the rival starts fresh: its brief, the opener (its own line) and player 1's first offer
    assert calls["player2"][0] == ROUND2_BUYER


# --- full runs --------------------------------------------------------------------------


def assert_finished_with_deals(directory: Path, runs: int, rounds: int) -> list[dict[str, Any]]:
    games = read_games(directory)
    assert len(games) == runs
    deals = 0
    for game in games:
        assert game["status"] == "complete"
        assert len(game["rounds"]) == rounds
        played = ResourceSplitScenario.model_validate(game["scenario"])  # drawn per game
        for record in game["rounds"]:
            assert record["outcome"] in ("deal", "no_deal")
            if record["outcome"] == "deal":
                deals += 1
                agreed = ResourceSplitTerms.model_validate(record["terms"])
                for side in ("player1", "player2"):  # rewards under the game's own utilities
                    assert agreed.reward(side) == reward(played, side, agreed.share(side))
            else:
                assert record["terms"] is None
    assert deals > 0
    return games


@pytest.mark.parametrize("source", ["ai", "human_pool", "constant", "none"])
def test_a_five_round_run_with_every_feedback_source(source: str, tmp_path: Path) -> None:
    result = run(config(feedback={"source": source}), tmp_path / source)
    games = assert_finished_with_deals(result.directory, runs=3, rounds=5)
    sources = {r.get("feedback_source") for g in games for r in g["rounds"][:-1]}
    assert sources == {source}
    if source == "human_pool":
        pool = (ROOT / "prompts/resource_split/feedback/player1_pool.txt").read_text("utf-8")
        for game in games:
            for suggestion in game["rounds"][0]["suggestions"]:
                assert suggestion in pool
    summary = read_json(result.directory / "summary.json")
    assert [c["key"] for c in summary["game_columns"]] == [c.key for c in GAME.columns]
    assert all(row["invalid_moves"] == 0 for row in summary["per_round"])


def test_a_run_with_paired_arms(tmp_path: Path) -> None:
    arms = ["ai", "human_pool", "constant", "none"]
    cfg = config(arms=arms, branch_after=1, improve="player2", runs=2)
    result = run(cfg, tmp_path / "arms")
    games = assert_finished_with_deals(result.directory, runs=2 * len(arms), rounds=5)
    assert sorted({g["arm"] for g in games}) == sorted(arms)
    for game in games:
        assert game["rounds"][0]["shared"] is True
        assert game["rounds"][0]["feedback_source"] == game["arm"]
    by_run: dict[Any, list[Any]] = {}
    for game in games:  # every arm of a run plays the run's drawn scenario
        by_run.setdefault(game["rounds"][0]["turns"][1]["text"], []).append(game["scenario"])
    assert all(len({str(s) for s in same}) == 1 for same in by_run.values())


def test_invalid_moves_are_asked_again_then_abort_the_round(tmp_path: Path) -> None:
    bad = "Offer: I take A=9 B=9 C=9, you take A=9 B=9 C=9."
    good = "Offer: I take A=9 B=4 C=2, you take A=1 B=6 C=8."
    cfg = config(
        runs=1,
        rounds=2,
        move_retries=1,
        scenario=FIXED.model_dump(),
        feedback={"source": "none"},
        roles={
            "player1": {"model": "replay:player1", "params": {"replies": [bad, good, bad, bad]}},
            "player2": {
                "model": "replay:player2",
                "params": {"replies": ["I accept: you take A=9 B=4 C=2, I take A=1 B=6 C=8."]},
            },
        },
    )
    result = run(cfg, tmp_path / "run")
    first, second = read_games(result.directory)[0]["rounds"]
    assert (first["outcome"], first["terms"], first["invalid_moves"]) == ("deal", DEAL_3, 1)
    assert (second["outcome"], second["reason"], second["invalid_moves"]) == (
        "no_deal",
        "invalid_moves",
        2,
    )
    rows = read_json(result.directory / "summary.json")["per_round"]
    assert [(r["invalid_moves"], r["aborts"]) for r in rows] == [(1, 0), (2, 1)]
    assert rows[1]["mean_player1_reward"] == -0.5


def test_the_shipped_experiment_loads_and_runs_offline(tmp_path: Path) -> None:
    cfg = load_config(ROOT / "experiments/resource_split.yaml", ["runs=4", "concurrency=2"])
    assert (cfg.rounds, cfg.scenario.max_exchanges, cfg.improve) == (5, 4, "player1")
    assert_finished_with_deals(run(cfg, tmp_path / "run").directory, runs=4, rounds=5)


def test_the_game_conforms(tmp_path: Path) -> None:
    check_game("resource_split", tmp_path)


def test_an_undrawn_scenario_plays_the_draw_of_seed_0() -> None:
    assert complete(ResourceSplitScenario()) == GAME.sample_scenario(ResourceSplitScenario(), 0)
