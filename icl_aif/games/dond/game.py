"""Deal or No Deal (seeds 000 and 001, after Lewis et al. 2017): two players divide books, hats
and balls that each values privately, under an objective weight lambda.

Seats: the ``alice`` seat is **Alice**, the ``bob`` seat **Bob**. Every line is a tagged move
(:mod:`icl_aif.games.dond.moves`): ``[message] ...``, ``[propose] 1 book, 2 hats, 0 balls`` (the
items the speaker keeps) or ``[walk away]``. Once a side has proposed, the other must answer with
a proposal; two proposals that give out exactly all the items are the deal
(:mod:`icl_aif.games.dond.judge`).

Terms: ``{"alice": {"books": 1, "hats": 2, "balls": 0}, "bob": {...}}``: each seat's items.
Scores: a side's own score is sum(count x value) of its items by its own values. Payoffs (the
seeds' objective ``R1 := X + lambda * Y``, lambda in [-1, 1], with X a side's own score, Y the
other's, and the mirror image for player 2): own score + lambda x the other's score; without an
agreement both get 0. The per-round figure is the
improved side's payoff (the papers' "score" is the reward under the objective: at most 10 with
lambda 0 and 19 with lambda 1). Templates: ``prompts/dond/``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from statistics import fmean
from typing import Any, cast

from pydantic import BaseModel

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Seat, Turn
from icl_aif.games.base import (
    Column,
    Judge,
    ModelFor,
    Setup,
)
from icl_aif.games.dond import binding
from icl_aif.games.dond.binding import DondOffer
from icl_aif.games.dond.critic import DondCritic
from icl_aif.games.dond.judge import DondJudge
from icl_aif.games.dond.moves import move_problem
from icl_aif.games.dond.scenario import (
    ROLE_NAMES,
    SEATS,
    TOTAL_VALUE,
    DondScenario,
    DondTerms,
    Items,
    all_splits,
    draw_context,
    items_text,
    pareto_optimal,
    scenario_values,
    score,
    terms_of,
    values_text,
)
from icl_aif.games.registry import register_game
from icl_aif.games.simulation import ConcessionPlayer
from icl_aif.games.skeleton import GameSkeleton

__all__ = ["REASONS", "DondGame", "side_payoff"]

PROMPTS = "dond"

REASONS: dict[str, str] = {
    "walk_away": "{last} walked away",
    "refusal": "{last} refused to go on",
    "mismatch": "the two proposals did not fit together",
    "cap": "the round reached its limit of {lines} lines",
    "invalid_moves": "the round was stopped after repeated invalid moves",
}
"""Why a round ended without an agreement, naming the player that ended it."""


def side_payoff(scenario: DondScenario, terms: DondTerms, side: Seat) -> float:
    """``side``'s own score plus lambda (``scenario.objective_weight``) times the other's."""
    own = terms.score(side)
    other = terms.score(SEATS.other(side))
    return float(own + scenario.objective_weight * other)


def _number(value: float) -> str:
    return f"{value:g}"


def _objective_file(weight: float) -> str:
    if weight == 0:
        return "objective_own"
    if weight == 1:
        return "objective_joint"
    if weight == -1:
        return "objective_zero_sum"
    return "objective_weighted"


@register_game
class DondGame(GameSkeleton[DondScenario, DondTerms]):
    """Deal or No Deal with an objective weight (seeds 000 and 001: language model self-play in
    cooperative, semi-competitive and strictly competitive games)."""

    name = "dond"
    seats = SEATS
    title = "Deal or No Deal"
    source = (
        "seeds 000 and 001 (Liao, Tomlin and Klein: language model self-play in non-zero-sum "
        "games), after Lewis et al. 2017"
    )
    scenario_model = DondScenario
    terms_model = DondTerms
    simulators = ("boulware", "linear", "conceder", "fair", "critic")
    offer_model = DondOffer
    measure_label = "improved side's payoff (own score + lambda x other's score)"
    unread = "items"
    nobody = "a player"
    reasons = REASONS
    sample_reason = "mismatch"
    columns = (
        Column("alice_score", "Alice's score", "number"),
        Column("bob_score", "Bob's score", "number"),
        Column("pareto_rate", "Pareto-optimal", "rate"),
        Column("invalid_move_rate", "invalid moves", "rate"),
        Column("abort_rate", "aborted", "rate"),
    )

    # --- what each side is told ----------------------------------------------------------

    def opener_values(self, scenario: DondScenario) -> dict[str, Any]:
        """``items`` (``3 books, 1 hat and 2 balls``), ``books``, ``hats``, ``balls``,
        ``max_exchanges``, ``max_lines``."""
        return scenario_values(scenario)

    def brief(self, prompts: PromptLibrary, scenario: DondScenario, side: Seat) -> str:
        """``dond/players/brief.txt`` with ``side``'s values, the objective and the rules."""
        s = scenario
        rival = ROLE_NAMES[SEATS.other(side)]
        weight = s.objective_weight
        objective = prompts.render(
            f"{PROMPTS}/players/{_objective_file(weight)}.txt", rival=rival, weight=_number(weight)
        ).strip()
        mismatch = prompts.render(f"{PROMPTS}/players/mismatch_{s.mismatch}.txt").strip()
        return prompts.render(
            f"{PROMPTS}/players/brief.txt",
            **scenario_values(s),
            player=ROLE_NAMES[side],
            rival=rival,
            values=values_text(s.values(side)),
            total=score(s.counts, s.values(side)),
            objective=objective,
            mismatch=mismatch,
        )

    def deal_sentence(self, scenario: DondScenario, terms: DondTerms) -> str:
        """``deal: Alice gets 3 books, 1 hat and 0 balls (score 10), Bob gets 0 books, 0 hats
        and 2 balls (score 6); payoffs 10 and 6; Pareto-optimal``."""
        s = scenario
        pareto = (
            "Pareto-optimal"
            if pareto_optimal(s, terms)
            else "not Pareto-optimal: another split gives one side more and the other no less"
        )
        return (
            f"deal: Alice gets {items_text(terms.alice)} (score "
            f"{terms.score('alice')}), Bob gets {items_text(terms.bob)} (score "
            f"{terms.score('bob')}); payoffs "
            f"{_number(side_payoff(s, terms, 'alice'))} and "
            f"{_number(side_payoff(s, terms, 'bob'))}; {pareto}"
        )

    def payoff_text(self, value: float) -> str:
        """``10``, ``7.5``."""
        return _number(value)

    def deal_result(self, setup: Setup[DondScenario], terms: DondTerms) -> dict[str, Any]:
        """Each side's items and score, the rival and the improved side's payoff."""
        side = setup.improve
        rival = SEATS.other(side)
        return {
            "own_items": items_text(terms.of(side)),
            "own_score": terms.score(side),
            "other_items": items_text(terms.of(rival)),
            "other_score": terms.score(rival),
            "rival": ROLE_NAMES[rival],
            "payoff": _number(side_payoff(setup.scenario, terms, side)),
        }

    def critic_values(self, prompts: PromptLibrary, setup: Setup[DondScenario]) -> dict[str, Any]:
        """The improved role and seat and the items."""
        return {
            "role": ROLE_NAMES[setup.improve],
            "seat": setup.improve,
            "items": items_text(setup.scenario.counts),
            "suggestions": setup.suggestions,
        }

    def critic_system(self, prompts: PromptLibrary, setup: Setup[DondScenario]) -> dict[str, Any]:
        """The improved side's values, the objective weight and the mismatch rule."""
        s = setup.scenario
        return {
            "values": values_text(s.values(setup.improve)),
            "weight": _number(s.objective_weight),
            "mismatch": prompts.render(f"{PROMPTS}/critic/mismatch_{s.mismatch}.txt").strip(),
        }

    def sample_terms(self, scenario: DondScenario) -> dict[str, Any]:
        """Alice takes the books, Bob the hats and the balls."""
        c = scenario.counts
        return terms_of(
            scenario,
            Items(books=c.books, hats=0, balls=0),
            Items(books=0, hats=c.hats, balls=c.balls),
        )

    def check_templates(
        self, prompts: PromptLibrary, config: ExperimentConfig, *, critic: bool
    ) -> None:
        """The defaults' templates, and every objective and mismatch wording."""
        super().check_templates(prompts, config, critic=critic)
        for weight in (0.0, 1.0, -1.0, 0.5):
            for mismatch in ("end", "continue"):
                scenario = self.scenario_of(config).model_copy(
                    update={"objective_weight": weight, "mismatch": mismatch}
                )
                self.brief(prompts, scenario, "alice")
                prompts.render(f"{PROMPTS}/critic/mismatch_{mismatch}.txt")

    # --- one game's scenario, and moves ----------------------------------------------------

    def sample_scenario(self, scenario: DondScenario, seed: int) -> DondScenario:
        """With ``sample: true``, the counts and both sides' values drawn from ``seed``
        (:func:`~icl_aif.games.dond.scenario.draw_context`; ``sample`` is false in the result,
        which holds a fixed context); the scenario itself otherwise."""
        s = scenario
        if not s.sample:
            return s
        counts, alice, bob = draw_context(seed)
        return s.model_copy(
            update={
                "sample": False,
                "counts": counts,
                "alice_values": alice,
                "bob_values": bob,
            }
        )

    def invalid_move(
        self, scenario: DondScenario, side: Seat, text: str, turns: Sequence[Turn]
    ) -> str | None:
        """What is wrong with the line (:func:`~icl_aif.games.dond.moves.move_problem`): no or
        several tags, a message after the other side's proposal, a proposal before any talk, a
        proposal that cannot be read, names unknown items, claims more than there are or gives
        out more or fewer than all the items."""
        return move_problem(scenario.counts, side, text, turns)

    # --- binding moves (moves: structured) --------------------------------------------------

    def check_offer(self, scenario: DondScenario, side: Seat, offer: BaseModel) -> str | None:
        """A share that claims more of an item than there is, or two shares that do not give
        out exactly all the items, is refused with the collection named."""
        return binding.check_offer(scenario, cast(DondOffer, offer))

    def agreed_terms(
        self, scenario: DondScenario, offerer: Seat, offer: BaseModel, turns: Sequence[Turn]
    ) -> dict[str, Any]:
        """Each seat's items and own score, as the judge states a match of two proposals."""
        return binding.agreed_terms(scenario, offerer, cast(DondOffer, offer))

    def opening_moves(self, scenario: DondScenario) -> list[Any]:
        """An opening ``[propose]`` offers what it claims; the default opener is talk."""
        return binding.opening_moves(scenario)

    # --- the judge and the terms ----------------------------------------------------------

    def build_judge(
        self, config: ExperimentConfig, prompts: PromptLibrary, model_for: ModelFor
    ) -> Judge:
        """The rules judge (:class:`~icl_aif.games.dond.judge.DondJudge`); it compares the last
        two lines, so it needs a window of at least 2."""
        if config.roles.moderator.window < 2:
            raise UsageError(
                "roles.moderator.window: Deal or No Deal's judge compares two proposals; set it "
                "to 2 or more"
            )
        return DondJudge(self.scenario_of(config))

    def judge_info(self, scenario: DondScenario) -> dict[str, Any]:
        """The context and the mismatch rule. The values are private to the players, but the
        rules judge is the game's environment, which scores a deal (as in seeds 000 and 001,
        where the environment computes the rewards), so the terms carry both scores."""
        s = scenario
        return {
            "counts": s.counts.model_dump(),
            "alice_values": s.alice_values.model_dump(),
            "bob_values": s.bob_values.model_dump(),
            "mismatch": s.mismatch,
        }

    def agreement_examples(
        self, scenario: DondScenario, seed: int
    ) -> list[tuple[list[Turn], dict[str, Any]]]:
        """An offer in a message, the other side's proposal of its share and the offerer's
        matching proposal, worded by the simulators, for splits drawn from ``seed``."""
        from icl_aif.games.dond.simulators import spoken_agreement

        s = scenario
        rng = random.Random(f"dond:agreements:{seed}")
        splits = list(all_splits(s.counts))
        examples: list[tuple[list[Turn], dict[str, Any]]] = []
        offerers: tuple[Seat, ...] = ("alice", "bob", "alice", "bob")
        for offerer in offerers:
            alice, bob = rng.choice(splits)
            mine = alice if offerer == "alice" else bob
            turns = spoken_agreement(s, offerer, mine, rng)
            examples.append((turns, terms_of(s, alice, bob)))
        return examples

    # --- payoffs ------------------------------------------------------------------------

    def deal_payoff(self, scenario: DondScenario, side: Seat, terms: DondTerms) -> float:
        """Own score + lambda x the other's."""
        return side_payoff(scenario, terms, side)

    def walk_away(self, scenario: DondScenario, side: Seat) -> float:
        """0 for either side (seeds 000, 001: no agreement, zero points)."""
        return 0.0

    def payoff_bounds(self, scenario: DondScenario, side: Seat) -> tuple[float, float]:
        """The least and the most ``side``'s payoff can be: with ``sample: true`` over every
        context that can be drawn (each score 0 to 10: 0 to 10 with lambda 0, at most 20 with
        lambda 1, from -10 with lambda -1), else over every split of the fixed context."""
        s = scenario
        weight = s.objective_weight
        if s.sample:
            return (min(0.0, weight * TOTAL_VALUE), TOTAL_VALUE + max(0.0, weight) * TOTAL_VALUE)
        payoffs = [
            side_payoff(s, DondTerms.model_validate(terms_of(s, alice, bob)), side)
            for alice, bob in all_splits(s.counts)
        ]
        return (min(payoffs), max(payoffs))

    def round_metrics(
        self, setup: Setup[DondScenario], games: Sequence[Mapping[str, Any]], number: int
    ) -> dict[str, Any]:
        """Round ``number``'s mean own score of each seat (0 without a deal), the share of deals
        that are Pareto-optimal, the share of the players' tries the game refused as invalid
        moves, and the share of rounds stopped for invalid moves (rounds that ended in an error
        left out; each game scored on the scenario it played)."""
        scores: dict[Seat, list[float]] = {"alice": [], "bob": []}
        pareto: list[bool] = []
        invalid = tries = aborted = rounds = 0
        for game in games:
            scenario = self.game_scenario(setup.scenario, game)
            openers = len(scenario.openers)
            for record in game.get("rounds", ()):
                if record.get("round") != number or record.get("outcome") == "error":
                    continue
                rounds += 1
                terms = self.terms_of(record)
                for side in ("alice", "bob"):
                    own = 0 if terms is None else terms.score(side)
                    scores[side].append(float(own))
                if terms is not None:
                    pareto.append(pareto_optimal(scenario, terms))
                refused = int(record.get("invalid_moves") or 0)
                stopped = record.get("reason") == "invalid_moves"  # its last try is on the table
                lines = max(0, len(record.get("turns") or ()) - openers)
                invalid += refused
                tries += refused + lines - (1 if stopped and lines else 0)
                aborted += stopped
        return {
            "alice_score": round(fmean(scores["alice"]), 4) if rounds else None,
            "bob_score": round(fmean(scores["bob"]), 4) if rounds else None,
            "pareto_rate": round(sum(pareto) / len(pareto), 4) if pareto else None,
            "invalid_move_rate": round(invalid / tries, 4) if tries else None,
            "abort_rate": round(aborted / rounds, 4) if rounds else None,
        }

    # --- simulators ----------------------------------------------------------------------

    # --- simulators ----------------------------------------------------------------------

    def simulator_types(self) -> tuple[type[ConcessionPlayer], type[DondCritic]]:
        """``scripted:boulware|linear|conceder|fair`` players and ``scripted:critic``."""
        from icl_aif.games.dond.simulators import DondPlayer

        return DondPlayer, DondCritic
