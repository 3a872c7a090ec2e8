"""The size-price bargaining game's scenario, terms and economics (seed 004, appendix E.3).

A wholesale seller and a retail buyer agree on two terms at once: the number of units ``n`` (a
whole number, at least 1) and the unit price ``p``. The seller makes each unit at the unit cost
``c``; the buyer values the ``k``-th unit it buys at ``v / k`` (it expects to sell the ``k``-th
unit with probability ``1/k`` at the retail price ``v``), so ``n`` units are worth ``v H(n)`` to it,
``H(n) = 1 + 1/2 + ... + 1/n`` the ``n``-th harmonic number.

Payoffs of an agreement (seed 004): the seller's profit ``(p - c) n``, the buyer's benefit
``v H(n) - p n``; without one both get 0.

How the parameters map to the usual words:

- the buyer's **maximum price** is ``v``: the most it pays for a single unit (the first unit's
  value; seed 004 sets ``v := p_max``, the price at which Bertrand demand falls to zero), and
  ``v H(n) / n`` the most it pays per unit for ``n`` units without a loss;
- the buyer's **demand** at a unit price ``p`` is ``floor(v / p)``: the quantity at which the
  marginal value ``v / k`` meets the price, which maximises its benefit at that price;
- the **joint surplus** of ``n`` units is ``S(n) = v H(n) - c n`` (the price only moves it from one
  side to the other); it is largest at the efficient quantity ``n* = floor(v / c)`` (each unit up
  to it is worth more to the buyer than it costs to make), and ``S* = S(n*)`` is the most the two
  can earn together: the denominator of the normalised earnings.
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
    "MAX_QUANTITY",
    "ROLE_NAMES",
    "SEATS",
    "SizePriceScenario",
    "SizePriceTerms",
    "bargaining_power",
    "demand",
    "efficient_quantity",
    "equal_power_agreement",
    "format_price",
    "harmonic",
    "joint_surplus",
    "max_surplus",
    "opening_turns",
    "payoffs",
    "public_values",
    "scenario_values",
    "side_payoff",
]

SEATS = Seats(("seller", "wholesale seller"), ("buyer", "retail buyer"))
"""The game's seats: ids and names (:class:`~icl_aif.core.transcript.Seats`)."""
ROLE_NAMES = SEATS.names
"""What the prompts call each seat."""

MAX_QUANTITY = 10_000
"""The largest ``max_quantity`` a scenario may set. The buyer's value of ``n`` units sums ``n``
terms (:func:`harmonic`), and the efficient quantity ``n*`` is at most ``max_quantity``: the
scripted players sum up to ``n*`` terms several times on each of their lines, the payoffs of a
deal up to ``max_quantity``. At this limit a scripted game of the shipped config's length spends
well under a second on them (``bench/scenario_bounds.py``)."""

DEFAULT_OPENERS = (
    Opener(
        speaker="buyer",
        text="Hello! I run a shop and I'd like to buy {product} from you wholesale. How many "
        "units and at what unit price do you propose?",
    ),
)


class SizePriceScenario(Scenario):
    """The product, the seller's unit cost ``c``, the buyer's unit value ``v`` (the k-th unit is
    worth ``v/k``) and the largest quantity an offer may name (openers expand ``{product}``,
    ``{max_quantity}``, ``{max_exchanges}`` and ``{max_lines}``, never a private value)."""

    product: str = Field(
        "waterproof hiking boots",
        min_length=1,
        description="What is traded (seed 004's example conversation: Waterproof Hiking Boots).",
    )
    unit_cost: float = Field(
        40.0, gt=0, description="The seller's production cost per unit, c (seed 004's example: 40)."
    )
    unit_value: float = Field(
        250.0,
        gt=0,
        description="The buyer's retail price v: the k-th unit bought is worth v/k to it (seed "
        "004's example: 250). Also the most it would pay for a single unit.",
    )
    max_quantity: int = Field(
        1000,
        ge=1,
        description="The most units an offer may name (a larger one is invalid); at most "
        "MAX_QUANTITY, 10,000.",
    )
    max_exchanges: int = exchanges_field(
        5,
        "Seller-buyer pairs of lines per round, openers included (seed 004: 5 "
        "interactions each); then the round is truncated.",
    )
    openers: tuple[Opener, ...] = DEFAULT_OPENERS

    @field_validator("max_quantity")
    @classmethod
    def _check_quantity(cls, value: int) -> int:
        if value > MAX_QUANTITY:
            raise ValueError(
                f"{value:,} units; at most {MAX_QUANTITY:,} (the buyer's value of n units sums n "
                "terms, 1 + 1/2 + ... + 1/n)"
            )
        return value

    @model_validator(mode="after")
    def _check_trade(self) -> SizePriceScenario:
        if self.unit_value <= self.unit_cost:
            raise ValueError(
                f"unit_value {self.unit_value:g} is not above unit_cost {self.unit_cost:g}: no "
                "unit is worth making, so no deal can pay both sides"
            )
        return self


class SizePriceTerms(BaseModel):
    """The terms of an agreement: the number of units and the price of each."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    quantity: int = Field(ge=1)
    unit_price: float = Field(ge=0)


def harmonic(n: int) -> float:
    """``H(n) = 1 + 1/2 + ... + 1/n`` (0 for ``n <= 0``)."""
    return math.fsum(1.0 / k for k in range(1, n + 1))


def payoffs(scenario: SizePriceScenario, quantity: int, unit_price: float) -> dict[Seat, float]:
    """Each side's payoff of ``quantity`` units at ``unit_price``: the seller's ``(p - c) n``,
    the buyer's ``v H(n) - p n`` (seed 004)."""
    return {
        "seller": (unit_price - scenario.unit_cost) * quantity,
        "buyer": scenario.unit_value * harmonic(quantity) - unit_price * quantity,
    }


def side_payoff(scenario: SizePriceScenario, side: Seat, terms: SizePriceTerms) -> float:
    """``side``'s payoff of ``terms``."""
    return payoffs(scenario, terms.quantity, terms.unit_price)[side]


def joint_surplus(scenario: SizePriceScenario, quantity: int) -> float:
    """``S(n) = v H(n) - c n``: what ``quantity`` units earn the two sides together."""
    return scenario.unit_value * harmonic(quantity) - scenario.unit_cost * quantity


def _units(ratio: float, most: int) -> int:
    """``floor(ratio)``, at least 1 and at most ``most`` (a ratio too large for a float, such
    as a value over a cost near 0, is ``most``)."""
    return max(1, most if ratio >= most else math.floor(ratio))


def efficient_quantity(scenario: SizePriceScenario) -> int:
    """``n* = floor(v / c)`` (at least 1, at most ``max_quantity``): the quantity of the largest
    joint surplus, seed 004's ``n_eq``."""
    return _units(scenario.unit_value / scenario.unit_cost, scenario.max_quantity)


def max_surplus(scenario: SizePriceScenario) -> float:
    """``S* = S(n*)``: the most the two sides can earn together."""
    return joint_surplus(scenario, efficient_quantity(scenario))


def demand(scenario: SizePriceScenario, unit_price: float) -> int:
    """The buyer's demand at ``unit_price``: the quantity where the marginal value ``v/k`` meets
    the price, ``floor(v / p)`` (at least 1, at most ``max_quantity``)."""
    if unit_price <= 0:
        return scenario.max_quantity
    return _units(scenario.unit_value / unit_price, scenario.max_quantity)


def equal_power_agreement(scenario: SizePriceScenario) -> tuple[int, float]:
    """Seed 004's Nash bargaining solution under equal power (its eq. 19): ``n* = floor(v/c)``
    units at ``p = (v H(n*) / n* + c) / 2`` each (the price that splits ``S(n*)`` in half)."""
    n = efficient_quantity(scenario)
    return n, (scenario.unit_value * harmonic(n) / n + scenario.unit_cost) / 2


def bargaining_power(
    scenario: SizePriceScenario, side: Seat, terms: SizePriceTerms
) -> float | None:
    """``side``'s bargaining power ``alpha`` of an agreement (seed 004's metric, eq. 20 with
    ``d_1 = d_2 = 0`` and ``alpha_1 + alpha_2 = 1``).

    The price only moves money between the sides, so at the agreed quantity ``n`` the deals
    lie on the line ``u_s + u_b = S(n)``. The generalized Nash bargaining solution with powers
    ``alpha`` and ``1 - alpha`` maximises ``u_s^alpha u_b^(1 - alpha)`` on it; setting the
    derivative to zero, ``alpha / u_s = (1 - alpha) / u_b``, gives ``u_s = alpha S(n)``. The
    agreement is that solution for exactly one power: ``alpha_side = u_side / (u_s + u_b)``, the
    side's share of the joint surplus it realised (0.5 at seed 004's equal-power price, 1 when
    it took the whole surplus). A side whose payoff is negative took none (0), the other side
    more than all (1); None when the agreement has no surplus to share (``S(n) <= 0``)."""
    values = payoffs(scenario, terms.quantity, terms.unit_price)
    total = values["seller"] + values["buyer"]
    if total <= 0:
        return None
    return min(1.0, max(0.0, values[side] / total))


def format_price(amount: float) -> str:
    """``9.5`` -> ``$9.50``, ``71`` -> ``$71.00``, ``-3`` -> ``-$3.00``: a unit price, in cents."""
    sign = "-" if amount < 0 else ""
    return f"{sign}${abs(amount):,.2f}"


def public_values(scenario: SizePriceScenario) -> dict[str, Any]:
    """The values both sides may see (the openers'): the product, the quantity bound, the cap."""
    return {
        "product": scenario.product,
        "max_quantity": scenario.max_quantity,
        **round_values(scenario),
    }


def scenario_values(scenario: SizePriceScenario) -> dict[str, Any]:
    """Template values for a scenario (the briefs' and the critic's): the public ones and both
    private values (each brief names only its own side's)."""
    return {
        **public_values(scenario),
        "unit_cost": format_price(scenario.unit_cost),
        "unit_value": format_price(scenario.unit_value),
    }


def opening_turns(scenario: SizePriceScenario) -> list[Turn]:
    """The scripted lines that open every round."""
    return render_openers(scenario, public_values(scenario))
