"""The pie split's scenario and the terms of its agreements (seed 003).

A pie of size ``pie`` is divided between the proposer (the ``proposer`` seat, who makes the first
offer) and the responder (the ``responder`` seat). Every offer that is turned down costs one
exchange, and the pie shrinks by the ``discount`` factor with each: an agreement reached after
``t`` exchanges pays each side its share of the pie times ``discount ** t``.

``t`` (:attr:`PieSplitTerms.exchanges`) is the number of offers made in the round before the
accepted one: offers are numbered from 1 across both sides in the order they are made, so an
agreement on offer ``N`` has ``t = N - 1`` (the first offer accepted at once: ``t = 0``).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from icl_aif.config.settings import Opener, Scenario
from icl_aif.core.transcript import Seat, Seats, Turn
from icl_aif.games.scenarios import exchanges_field, render_openers, round_values

__all__ = [
    "DEFAULT_OPENERS",
    "ROLE_NAMES",
    "SEATS",
    "SHARE_TOLERANCE",
    "PieSplitScenario",
    "PieSplitTerms",
    "format_amount",
    "opening_turns",
    "scenario_values",
    "share_step",
]

SEATS = Seats(("proposer", "proposer"), ("responder", "responder"))
"""The game's seats: ids and names (:class:`~icl_aif.core.transcript.Seats`)."""
ROLE_NAMES = SEATS.names
"""What the prompts call each seat: the ``proposer`` seat proposes first, the ``responder`` responds."""

SHARE_TOLERANCE = 1e-6
"""How far two proportions that should sum to 1 may miss it (rounding in a stated split)."""

DEFAULT_OPENERS = (
    Opener(
        speaker="responder",
        text="Hello! We have a pie of {pie} to divide, and it shrinks by {shrink} with every "
        "offer that is turned down. You go first: what is your offer?",
    ),
)


class PieSplitScenario(Scenario):
    """The pie, how fast it shrinks, what no agreement pays, and how every round opens (openers
    expand ``{pie}``, ``{discount}``, ``{shrink}``, ``{max_exchanges}``, ``{max_lines}`` and
    ``{no_deal_payoff}``)."""

    pie: float = Field(100.0, gt=0, description="The size of the pie, in the units offers use.")
    discount: float = Field(
        0.9,
        description="What is left of the pie's value after each turned-down offer (0 < d <= 1).",
    )
    no_deal_payoff: float = Field(
        -0.5,
        description="Each side's payoff when a round ends without an agreement (seed 003: -0.5, "
        "so that a deal is worth reaching).",
    )
    max_exchanges: int = exchanges_field(
        5,
        "Proposer-responder pairs of lines per round, openers included (the paper: 5); "
        "then the round is truncated.",
    )
    openers: tuple[Opener, ...] = DEFAULT_OPENERS

    @field_validator("discount")
    @classmethod
    def _check_discount(cls, value: float) -> float:
        if not 0 < value <= 1:
            raise ValueError(
                f"discount {value:g} is not in (0, 1]: it is the share of the pie left after "
                "each turned-down offer, e.g. 0.9"
            )
        return value


class PieSplitTerms(BaseModel):
    """The terms of an agreement: each seat's share of the pie as a proportion (they sum to 1)
    and ``exchanges``, the number of offers made before the accepted one (``t``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    proposer_share: float = Field(ge=0, le=1)
    responder_share: float = Field(ge=0, le=1)
    exchanges: int = Field(ge=0)

    @model_validator(mode="after")
    def _check_sum(self) -> PieSplitTerms:
        total = self.proposer_share + self.responder_share
        if not math.isclose(total, 1.0, abs_tol=SHARE_TOLERANCE):
            raise ValueError(
                f"proposer_share {self.proposer_share:g} and responder_share {self.responder_share:g} sum to "
                f"{total:g}, not 1"
            )
        return self

    def share(self, side: Seat) -> float:
        """``side``'s share of the pie."""
        return self.proposer_share if side == "proposer" else self.responder_share


def share_step(pie: float) -> float:
    """The grain of the simulators' offers: a hundredth of the pie's order of magnitude
    (1 for a pie of 100, 0.01 for a pie of 1)."""
    return float(10 ** math.floor(math.log10(pie)) / 100)


def format_amount(amount: float) -> str:
    """``60`` -> ``60``, ``12.5`` -> ``12.5``, ``33.333`` -> ``33.33``."""
    rounded = round(float(amount), 2)
    if rounded.is_integer():
        return str(int(rounded))
    return f"{rounded:.2f}".rstrip("0").rstrip(".")


def scenario_values(scenario: PieSplitScenario) -> dict[str, Any]:
    """Template values for a scenario (the briefs' and the openers')."""
    return {
        "pie": format_amount(scenario.pie),
        "discount": f"{scenario.discount:g}",
        "shrink": f"{(1 - scenario.discount) * 100:g}%",
        **round_values(scenario),
        "no_deal_payoff": f"{scenario.no_deal_payoff:g}",
    }


def opening_turns(scenario: PieSplitScenario) -> list[Turn]:
    """The scripted lines that open every round."""
    return render_openers(scenario, scenario_values(scenario))
