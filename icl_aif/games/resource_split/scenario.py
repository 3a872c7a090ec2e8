"""The resource split's scenario, its per-game draw and the terms of its agreements (seed 003).

Two players divide three resources, ``A``, ``B`` and ``C``, of which there are ``amounts`` units
each (the paper: 10 of each, so that ``n_1 + n_2 = 10`` per resource). Each side values a unit of
each resource with a private integer utility from 0 to 10. Player 1 (the ``player1`` seat) makes
the first offer, player 2 (the ``player2`` seat) answers; either may accept the other's standing
offer, counter, or walk away.

Reward (the paper's game reward): a side's worth of what it gets divided by the worth of
everything, ``sum_r n_r * u_r / sum_r amount_r * u_r``, in [0, 1]; with 10 units of each
resource this is exactly the paper's ``(n_A u_A + n_B u_B + n_C u_C) / (10 u_A + 10 u_B + 10 u_C)``.
Without an agreement both sides get ``no_deal_payoff`` (the paper's -0.5).

Which values a game draws (:func:`draw_scenario`, from the game's seed): every field left
``null`` in the config: each side's utilities (by default) and, with ``amounts: null``, the
amounts (1 to 10 units each; the appendix's table allows 0 to 10 of each resource). A
scenario that still has a value unset outside a run (a template check, a judge or simulator built
by hand) plays the draw of seed 0 (:func:`complete`).
"""

from __future__ import annotations

import random
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from icl_aif.config.settings import Opener, Scenario
from icl_aif.core.transcript import Seat, Seats, Turn
from icl_aif.games.scenarios import exchanges_field, render_openers, round_values

__all__ = [
    "AMOUNT_RANGE",
    "DEFAULT_OPENERS",
    "RESOURCES",
    "ROLE_NAMES",
    "SEATS",
    "UTILITY_RANGE",
    "Bundle",
    "ResourceSplitScenario",
    "ResourceSplitTerms",
    "amounts_of",
    "complete",
    "draw_scenario",
    "max_value",
    "opening_turns",
    "reward",
    "scenario_values",
    "utilities",
    "value_of",
]

RESOURCES: tuple[str, ...] = ("A", "B", "C")
"""The resources, in the order offers name them."""

SEATS = Seats(("player1", "player 1"), ("player2", "player 2"))
"""The game's seats: ids and names (:class:`~icl_aif.core.transcript.Seats`)."""
ROLE_NAMES = SEATS.names
"""What the prompts call each seat: the ``player1`` seat is player 1 (it makes the first offer),
the ``player2`` seat player 2."""

UTILITY_RANGE = (0, 10)
"""Each utility is an integer in this range (the paper's "between 0 and 10")."""

AMOUNT_RANGE = (1, 10)
"""The units of a resource drawn with ``amounts: null`` (the appendix's "between 0 and 10",
leaving out a resource nobody can get)."""

DEFAULT_OPENERS = (
    Opener(
        speaker="player2",
        text="Hi! There are {amount_A} units of A, {amount_B} of B and {amount_C} of C for us "
        "to share. You make the first offer: how would you split them?",
    ),
)


class Bundle(BaseModel):
    """A number for each resource: units (amounts, a side's share) or a utility per unit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    A: int = Field(ge=0, le=1000)
    B: int = Field(ge=0, le=1000)
    C: int = Field(ge=0, le=1000)

    def get(self, resource: str) -> int:
        """The number of ``resource`` (``A``, ``B`` or ``C``)."""
        return int(getattr(self, resource))

    def as_dict(self) -> dict[str, int]:
        """``{"A": .., "B": .., "C": ..}``."""
        return {r: self.get(r) for r in RESOURCES}

    def text(self) -> str:
        """``A=6 B=2 C=5``: the form offers use."""
        return " ".join(f"{r}={self.get(r)}" for r in RESOURCES)


def _bundle(values: dict[str, int] | tuple[int, ...]) -> Bundle:
    if isinstance(values, tuple):
        return Bundle(**dict(zip(RESOURCES, values, strict=True)))
    return Bundle(**values)


class ResourceSplitScenario(Scenario):
    """The units of each resource, each side's utilities (``null``: drawn per game), what no
    agreement pays, and how every round opens (openers expand ``{amount_A}``, ``{amount_B}``,
    ``{amount_C}``, ``{max_exchanges}``, ``{max_lines}`` and ``{no_deal_payoff}``)."""

    amounts: Bundle | None = Field(
        Bundle(A=10, B=10, C=10),
        description="Units of A, B and C (the paper: 10 each, n_1 + n_2 = 10 per resource); "
        "null: drawn per game, 1 to 10 each.",
    )
    player1_utilities: Bundle | None = Field(
        None,
        description="Player 1's (player1 seat) worth of a unit of A, B, C, integers 0-10; "
        "null: drawn per game.",
    )
    player2_utilities: Bundle | None = Field(
        None,
        description="Player 2's (player2 seat) worth of a unit of A, B, C, integers 0-10; "
        "null: drawn per game.",
    )
    no_deal_payoff: float = Field(
        -0.5,
        description="Each side's reward when a round ends without an agreement (seed 003: -0.5).",
    )
    max_exchanges: int = exchanges_field(
        4,
        "Player1-player2 pairs of lines per round, openers included (the paper: 4 "
        "rounds of interaction); then the round is truncated.",
    )
    openers: tuple[Opener, ...] = DEFAULT_OPENERS

    @model_validator(mode="after")
    def _check_values(self) -> ResourceSplitScenario:
        for side in ("player1", "player2"):
            bundle = getattr(self, f"{side}_utilities")
            if bundle is None:
                continue
            high = max(bundle.as_dict().values())
            if high > UTILITY_RANGE[1]:
                raise ValueError(
                    f"{side}_utilities {bundle.text()}: utilities are integers from 0 to 10"
                )
            if self.amounts is not None and _dot(self.amounts, bundle) == 0:
                raise ValueError(
                    f"{side}_utilities {bundle.text()} value nothing there is "
                    f"({self.amounts.text()}): give some resource a utility above 0"
                )
            if high == 0:  # amounts: null draws at least 1 unit of each, worth nothing to it
                raise ValueError(
                    f"{side}_utilities {bundle.text()} value nothing: give some resource a "
                    "utility above 0"
                )
        if self.amounts is not None and sum(self.amounts.as_dict().values()) == 0:
            raise ValueError("amounts are all 0: give some resource at least one unit")
        return self

    @property
    def drawn(self) -> bool:
        """True when every value is set (nothing left to draw)."""
        return None not in (self.amounts, self.player1_utilities, self.player2_utilities)


class ResourceSplitTerms(BaseModel):
    """The terms of an agreement: the units of each resource each seat gets, and each seat's
    reward (:func:`reward`, in [0, 1]) under the utilities of the game that agreed them."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    player1: Bundle
    player2: Bundle
    player1_reward: float = Field(ge=0, le=1)
    player2_reward: float = Field(ge=0, le=1)

    def share(self, side: Seat) -> Bundle:
        """The units ``side`` gets."""
        return self.player1 if side == "player1" else self.player2

    def reward(self, side: Seat) -> float:
        """``side``'s reward of the agreement."""
        return self.player1_reward if side == "player1" else self.player2_reward


def _dot(units: Bundle, weights: Bundle) -> int:
    return sum(units.get(r) * weights.get(r) for r in RESOURCES)


def draw_scenario(scenario: ResourceSplitScenario, seed: int) -> ResourceSplitScenario:
    """``scenario`` with every unset value drawn from ``seed``: the amounts (1-10 units each)
    and each side's utilities (integers 0-10), redrawn until each side values what there is
    (its reward has a denominator above 0) and the two sides' utilities differ. A scenario with
    nothing unset comes back as it is; two utilities the config sets alike are played alike."""
    if scenario.drawn:
        return scenario
    rng = random.Random(f"resource_split:scenario:{seed}")
    both_set = scenario.player1_utilities is not None and scenario.player2_utilities is not None
    while True:
        amounts = scenario.amounts or _bundle(tuple(rng.randint(*AMOUNT_RANGE) for _ in RESOURCES))
        drawn = {
            side: _bundle(tuple(rng.randint(*UTILITY_RANGE) for _ in RESOURCES))
            for side in ("player1", "player2")
        }
        player1 = scenario.player1_utilities or drawn["player1"]
        player2 = scenario.player2_utilities or drawn["player2"]
        if (
            _dot(amounts, player1) > 0
            and _dot(amounts, player2) > 0
            and (player1 != player2 or both_set)
        ):
            break
    data = scenario.model_dump()
    data.update(
        amounts=amounts.model_dump(),
        player1_utilities=player1.model_dump(),
        player2_utilities=player2.model_dump(),
    )
    return ResourceSplitScenario.model_validate(data)


def complete(scenario: Scenario) -> ResourceSplitScenario:
    """The scenario a game plays: ``scenario`` when every value is set (a game's drawn one),
    else the draw of seed 0 (a scenario looked at outside a game)."""
    assert isinstance(scenario, ResourceSplitScenario), type(scenario).__name__
    return draw_scenario(scenario, 0)


def amounts_of(scenario: ResourceSplitScenario) -> Bundle:
    """The units of each resource of a completed scenario."""
    assert scenario.amounts is not None
    return scenario.amounts


def utilities(scenario: ResourceSplitScenario, side: Seat) -> Bundle:
    """``side``'s utilities of a completed scenario."""
    bundle = scenario.player1_utilities if side == "player1" else scenario.player2_utilities
    assert bundle is not None, "draw the scenario first (complete)"
    return bundle


def value_of(units: Bundle, weights: Bundle) -> int:
    """The worth of ``units`` under the utilities ``weights``."""
    return _dot(units, weights)


def max_value(scenario: ResourceSplitScenario, side: Seat) -> int:
    """The worth to ``side`` of everything there is (the reward's denominator)."""
    return _dot(amounts_of(scenario), utilities(scenario, side))


def reward(scenario: ResourceSplitScenario, side: Seat, units: Bundle) -> float:
    """``side``'s reward for getting ``units``: their worth over the worth of everything."""
    total = max_value(scenario, side)
    return round(_dot(units, utilities(scenario, side)) / total, 6) if total else 0.0


def scenario_values(scenario: ResourceSplitScenario) -> dict[str, Any]:
    """Template values of a completed scenario's public part (the openers' and the briefs')."""
    amounts = amounts_of(scenario)
    return {
        **{f"amount_{r}": amounts.get(r) for r in RESOURCES},
        **round_values(scenario),
        "no_deal_payoff": f"{scenario.no_deal_payoff:g}",
    }


def opening_turns(scenario: ResourceSplitScenario) -> list[Turn]:
    """The scripted lines that open every round."""
    return render_openers(scenario, scenario_values(scenario))
