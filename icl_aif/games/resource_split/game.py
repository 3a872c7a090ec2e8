"""The resource split of seed 003: two players divide resources A, B and C that each values
differently.

Seats: the ``player1`` seat is **player 1** (it makes the first offer), the ``player2`` seat
**player 2**; both may offer, accept or walk away after that. Offers name every resource for both
sides (``Offer: I take A=6 B=2 C=5, you take A=4 B=8 C=5.``, see
:mod:`icl_aif.games.resource_split.offers`).

Scenario: the units of each resource (10 each, the paper's ``n_1 + n_2 = 10``), each side's
private utilities (integers 0-10, drawn per game by :meth:`ResourceSplitGame.sample_scenario`
unless the config fixes them), ``no_deal_payoff`` (-0.5) and ``max_exchanges`` (4).

Terms: ``{"player1": {"A": 6, "B": 2, "C": 5}, "player2": {"A": 4, "B": 8, "C": 5},
"player1_reward": r_1, "player2_reward": r_2}``. Rewards (the paper's game reward): each side's
worth of its units over the worth of everything, ``sum n_r u_r / sum amount_r u_r`` in [0, 1];
without an agreement both get ``no_deal_payoff``. The per-round figure is the improved side's
reward (``mean_reward`` and the other ``reward`` keys of a summary). Moves that break the format
(a split that does not add up, a malformed offer, an acceptance with nothing to accept) are
refused by :meth:`ResourceSplitGame.invalid_move` and counted per round. Templates:
``prompts/resource_split/``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cache
from statistics import fmean
from typing import Any, cast

from pydantic import BaseModel

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Seat, Turn
from icl_aif.games.base import (
    Column,
    Judge,
    ModelFor,
    Setup,
)
from icl_aif.games.registry import register_game
from icl_aif.games.resource_split import binding
from icl_aif.games.resource_split.binding import ResourceSplitOffer
from icl_aif.games.resource_split.critic import ResourceSplitCritic
from icl_aif.games.resource_split.judge import (
    ResourceSplitJudge,
    judge_values,
    standing_offer,
    terms_of,
)
from icl_aif.games.resource_split.offers import Split, read_line, read_split
from icl_aif.games.resource_split.scenario import (
    RESOURCES,
    ROLE_NAMES,
    SEATS,
    Bundle,
    ResourceSplitScenario,
    ResourceSplitTerms,
    amounts_of,
    complete,
    draw_scenario,
    scenario_values,
)
from icl_aif.games.simulation import ConcessionPlayer
from icl_aif.games.skeleton import GameSkeleton

__all__ = ["REASONS", "ResourceSplitGame"]

PROMPTS = "resource_split"

REASONS: dict[str, str] = {
    "walk_away": "{last} walked away",
    "refusal": "{last} refused to go on",
    "cap": "the round reached its limit of {lines} lines",
    "invalid_moves": "the round was stopped after repeated invalid moves",
}
"""Why a round ended without an agreement, naming the player that ended it."""


@cache
def _move_prompts() -> PromptLibrary:
    """The templates of the messages :meth:`ResourceSplitGame.invalid_move` returns."""
    return PromptLibrary()


def _move_message(
    prompts: PromptLibrary, kind: str, scenario: ResourceSplitScenario, **values: Any
) -> str:
    amounts = amounts_of(scenario)
    return prompts.render(
        f"{PROMPTS}/moves/{kind}.txt",
        amounts=", ".join(f"{r} {amounts.get(r)}" for r in RESOURCES),
        **values,
    )


def invalid_move_message(
    prompts: PromptLibrary,
    scenario: ResourceSplitScenario,
    side: Seat,
    text: str,
    turns: Sequence[Turn],
) -> str | None:
    """Why ``text`` is no valid move of ``side`` after ``turns`` (see
    :meth:`ResourceSplitGame.invalid_move`), worded by ``prompts/resource_split/moves/``."""
    amounts = amounts_of(scenario)
    reading = read_line(text)
    rival = ROLE_NAMES[SEATS.other(side)]
    if reading.split is not None and not reading.split.adds_up(amounts):
        totals = reading.split.totals()
        problem = "; ".join(
            f"{r} adds up to {totals.get(r)}, not {amounts.get(r)}"
            for r in RESOURCES
            if totals.get(r) != amounts.get(r)
        )
        return _move_message(prompts, "bad_total", scenario, problem=problem)
    if reading.malformed:
        return _move_message(prompts, "malformed", scenario)
    if reading.accepts:
        readings = [read_line(t["text"]) for t in turns]
        standing = standing_offer(turns, readings, SEATS.other(side))
        if standing is None or not standing.adds_up(amounts):
            return _move_message(prompts, "no_offer", scenario, rival=rival)
        if reading.split is not None and reading.split.swapped() != standing:
            return _move_message(
                prompts,
                "mismatch",
                scenario,
                rival=rival,
                theirs=standing.mine.text(),
                yours=standing.yours.text(),
            )
    return None


@register_game
class ResourceSplitGame(GameSkeleton[ResourceSplitScenario, ResourceSplitTerms]):
    """Two players divide three resources that each values differently (seed 003: an RL-tuned
    negotiator's resource split)."""

    name = "resource_split"
    seats = SEATS
    title = "Resource split"
    source = "seed 003 (fine-tuning LLM negotiators with RL: the resource split game)"
    scenario_model = ResourceSplitScenario
    terms_model = ResourceSplitTerms
    simulators = ("boulware", "linear", "conceder", "fair", "critic")
    offer_model = ResourceSplitOffer
    measure_name = "reward"
    measure_label = "improved side's reward (its worth of the split / worth of everything)"
    silent_flag = "no_offer"
    unread = "a split"
    nobody = "a player"
    reasons = REASONS
    columns = (
        Column("invalid_moves", "invalid moves", "count"),
        Column("aborts", "aborts", "count"),
        Column("mean_player1_reward", "player 1's reward", "number"),
        Column("mean_player2_reward", "player 2's reward", "number"),
        Column("win_rate", "win %", "rate"),
    )

    # --- what each side is told ----------------------------------------------------------

    def opener_values(self, scenario: ResourceSplitScenario) -> dict[str, Any]:
        """``amount_A``, ``amount_B``, ``amount_C``, ``max_exchanges``, ``max_lines``,
        ``no_deal_payoff``."""
        return scenario_values(complete(scenario))

    def brief(self, prompts: PromptLibrary, scenario: ResourceSplitScenario, side: Seat) -> str:
        """``resource_split/players/<side>.txt`` with the amounts and ``side``'s own utilities
        (player 1's for the player1 seat, player 2's for the player2 seat)."""
        played = complete(scenario)
        own = played.player1_utilities if side == "player1" else played.player2_utilities
        assert own is not None and played.amounts is not None
        return prompts.render(
            f"{PROMPTS}/players/{side}.txt",
            **scenario_values(played),
            **{f"utility_{r}": own.get(r) for r in RESOURCES},
            max_value=sum(played.amounts.get(r) * own.get(r) for r in RESOURCES),
        )

    def deal_sentence(self, scenario: ResourceSplitScenario, terms: ResourceSplitTerms) -> str:
        """``deal: player 1 takes A=6 B=2 C=5 (reward 0.520), player 2 takes A=4 B=8 C=5 (reward
        0.610)``."""
        return (
            f"deal: player 1 takes {terms.player1.text()} "
            f"(reward {self.payoff_text(terms.player1_reward)}), player 2 takes "
            f"{terms.player2.text()} (reward {self.payoff_text(terms.player2_reward)})"
        )

    def payoff_text(self, value: float) -> str:
        """``0.520``."""
        return f"{value:.3f}"

    def deal_result(
        self, setup: Setup[ResourceSplitScenario], terms: ResourceSplitTerms
    ) -> dict[str, Any]:
        """Each side's share, the rival and the improved side's reward."""
        side = setup.improve
        return {
            "own": terms.share(side).text(),
            "other": terms.share(SEATS.other(side)).text(),
            "rival": ROLE_NAMES[SEATS.other(side)],
            "reward": self.payoff_text(terms.reward(side)),
        }

    def no_deal_result(self, setup: Setup[ResourceSplitScenario]) -> dict[str, Any]:
        """The no-deal payoff."""
        return {"no_deal_payoff": f"{setup.scenario.no_deal_payoff:g}"}

    def critic_values(
        self, prompts: PromptLibrary, setup: Setup[ResourceSplitScenario]
    ) -> dict[str, Any]:
        """The improved role and seat and the no-deal payoff."""
        return {
            "role": ROLE_NAMES[setup.improve],
            "seat": setup.improve,
            "no_deal_payoff": f"{setup.scenario.no_deal_payoff:g}",
            "suggestions": setup.suggestions,
        }

    def sample_terms(self, scenario: ResourceSplitScenario) -> dict[str, Any]:
        """Player 1 takes A=6 B=2 C=5, player 2 the rest."""
        return ResourceSplitTerms(
            player1=Bundle(A=6, B=2, C=5),
            player2=Bundle(A=4, B=8, C=5),
            player1_reward=0.5,
            player2_reward=0.6,
        ).model_dump()

    def check_templates(
        self, prompts: PromptLibrary, config: ExperimentConfig, *, critic: bool
    ) -> None:
        """The inherited checks, and the messages of refused moves."""
        super().check_templates(prompts, config, critic=critic)
        played = complete(config.scenario)
        for kind, values in (
            ("bad_total", {"problem": "A adds up to 9, not 10"}),
            ("malformed", {}),
            ("no_offer", {"rival": "player 2"}),
            ("mismatch", {"rival": "player 2", "theirs": "A=1 B=1 C=1", "yours": "A=1 B=1 C=1"}),
        ):
            _move_message(prompts, kind, played, **values)

    # --- one game's scenario, and moves -----------------------------------------------------

    def sample_scenario(self, scenario: ResourceSplitScenario, seed: int) -> ResourceSplitScenario:
        """``scenario`` with every value it leaves ``null`` drawn from ``seed``: each side's
        utilities (integers 0-10, the two sides' different, each valuing something there is)
        and, with ``amounts: null``, the amounts (1-10 units each)."""
        return draw_scenario(scenario, seed)

    def invalid_move(
        self, scenario: ResourceSplitScenario, side: Seat, text: str, turns: Sequence[Turn]
    ) -> str | None:
        """The message for a split whose shares of some resource do not add up to its amount, a
        malformed offer (resources named, or ``Offer:``, without all three for both sides), an
        acceptance with no valid standing offer of the other side in ``turns``, or an acceptance
        that restates another split than that offer; None for any other line."""
        return invalid_move_message(_move_prompts(), complete(scenario), side, text, turns)

    # --- binding moves (moves: structured) --------------------------------------------------

    def check_offer(
        self, scenario: ResourceSplitScenario, side: Seat, offer: BaseModel
    ) -> str | None:
        """A split whose two shares of some resource do not add up to its amount is refused,
        naming the amounts and what is off."""
        return binding.check_offer(complete(scenario), cast(ResourceSplitOffer, offer))

    def agreed_terms(
        self,
        scenario: ResourceSplitScenario,
        offerer: Seat,
        offer: BaseModel,
        turns: Sequence[Turn],
    ) -> dict[str, Any]:
        """Each seat's units and reward under the game's utilities, as the judge states them."""
        return binding.agreed_terms(complete(scenario), offerer, cast(ResourceSplitOffer, offer))

    def opening_moves(self, scenario: ResourceSplitScenario) -> list[Any]:
        """An opener that states a valid split offers it; the default opener is talk."""
        return binding.opening_moves(complete(scenario))

    # --- the judge and the terms ----------------------------------------------------------

    def build_judge(
        self, config: ExperimentConfig, prompts: PromptLibrary, model_for: ModelFor
    ) -> Judge:
        """The rules judge (:class:`~icl_aif.games.resource_split.judge.ResourceSplitJudge`);
        the values of each game reach it through :meth:`judge_info`."""
        return ResourceSplitJudge(complete(config.scenario), window=config.roles.moderator.window)

    def judge_info(self, scenario: ResourceSplitScenario) -> dict[str, Any]:
        """The amounts and both sides' utilities, with which the judge states each seat's reward
        in the terms (a rules judge: no model reads them)."""
        return judge_values(complete(scenario))

    def agreement_examples(
        self, scenario: ResourceSplitScenario, seed: int
    ) -> list[tuple[list[Turn], dict[str, Any]]]:
        """An offer and its acceptance, worded by the simulators, for splits drawn from ``seed``
        (each side offering twice)."""
        from icl_aif.games.resource_split.simulators import rest_of, spoken_agreement

        played = complete(scenario)
        amounts = amounts_of(played)
        rng = random.Random(f"resource_split:agreements:{seed}")
        examples: list[tuple[list[Turn], dict[str, Any]]] = []
        offerers: tuple[Seat, ...] = ("player1", "player2", "player1", "player2")
        for offerer in offerers:
            mine = Bundle(**{r: rng.randint(0, amounts.get(r)) for r in RESOURCES})
            yours = rest_of(amounts, mine)
            turns = spoken_agreement(offerer, mine, yours, rng)
            examples.append((turns, terms_of(Split(mine, yours), offerer, played)))
        return examples

    # --- payoffs ------------------------------------------------------------------------

    def deal_payoff(
        self, scenario: ResourceSplitScenario, side: Seat, terms: ResourceSplitTerms
    ) -> float:
        """``side``'s reward of a deal, as its terms state it (under the utilities of the game
        that agreed it)."""
        return terms.reward(side)

    def walk_away(self, scenario: ResourceSplitScenario, side: Seat) -> float:
        """``scenario.no_deal_payoff`` for either side (seed 003: -0.5)."""
        return scenario.no_deal_payoff

    def payoff_bounds(self, scenario: ResourceSplitScenario, side: Seat) -> tuple[float, float]:
        """From nothing to everything: (0, 1)."""
        return (0.0, 1.0)

    def round_metrics(
        self, setup: Setup[ResourceSplitScenario], games: Sequence[Mapping[str, Any]], number: int
    ) -> dict[str, Any]:
        """Round ``number``'s invalid moves (summed over games), aborts (rounds ended for
        invalid moves), each side's mean reward (no deal: ``no_deal_payoff``) and the improved
        side's win rate (a reward above the other side's, the paper's "games won")."""
        improved, rival = setup.improve, SEATS.other(setup.improve)
        rewards: dict[Seat, list[float]] = {"player1": [], "player2": []}
        wins: list[bool] = []
        invalid = aborts = 0
        for game in games:
            for record in game.get("rounds") or []:
                if record.get("round") != number or record.get("outcome") == "error":
                    continue
                invalid += int(record.get("invalid_moves") or 0)
                aborts += record.get("reason") == "invalid_moves"
                scenario = self.game_scenario(setup.scenario, game)
                got = {side: self.payoff(scenario, side, record) for side in rewards}
                if got["player1"] is None or got["player2"] is None:
                    continue
                for side in rewards:
                    rewards[side].append(cast(float, got[side]))
                wins.append(cast(float, got[improved]) > cast(float, got[rival]))
        return {
            "invalid_moves": invalid,
            "aborts": aborts,
            "mean_player1_reward": fmean(rewards["player1"]) if rewards["player1"] else None,
            "mean_player2_reward": fmean(rewards["player2"]) if rewards["player2"] else None,
            "win_rate": fmean(wins) if wins else None,
        }

    def states(self, scenario: ResourceSplitScenario, text: str) -> bool:
        """Whether a line states an offer."""
        return read_split(text) is not None

    # --- simulators ----------------------------------------------------------------------

    # --- simulators ----------------------------------------------------------------------

    def simulator_types(self) -> tuple[type[ConcessionPlayer], type[ResourceSplitCritic]]:
        """``scripted:boulware|linear|conceder|fair`` players and ``scripted:critic``."""
        from icl_aif.games.resource_split.simulators import ResourceSplitPlayer

        return ResourceSplitPlayer, ResourceSplitCritic
