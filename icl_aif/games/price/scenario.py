"""The single-item price game's scenario and the terms of its agreements (seed 002)."""

from __future__ import annotations

import math
import os
import random
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from icl_aif.config.settings import Opener, Scenario
from icl_aif.core.transcript import Seats, Turn, format_money
from icl_aif.games.price.listings import ListingsError, listing_rows
from icl_aif.games.scenarios import render_openers

__all__ = [
    "DEFAULT_OPENERS",
    "CounterpartType",
    "PriceScenario",
    "PriceTerms",
    "ScenarioConfig",
    "listing_values",
    "load_listings",
    "opening_turns",
    "price_step",
    "scenario_values",
]

DEFAULT_OPENERS = (
    Opener(speaker="buyer", text="Hi, how much is the {item}?"),
    Opener(speaker="seller", text="Hi, this is a good {item} and its price is {list_price}."),
    Opener(speaker="buyer", text="Would you consider selling it for {buyer_open}?"),
)

SEATS = Seats(("seller", "seller"), ("buyer", "buyer"))
"""The price game's seats, as seed 002 names them."""

Range = tuple[float, float]


def price_step(list_price: float) -> float:
    """Offers are whole dollars for small items and coarser for expensive ones."""
    return float(max(1, 10 ** math.floor(math.log10(max(list_price / 20, 1)))))


class CounterpartType(BaseModel):
    """The declared type of a known-type counterpart (``scripted:known``, docs/known_types.md):
    the seat it plays, its reservation price, its concession exponent and its deadline, each a
    value or a ``[low, high]`` range drawn per game from the game's seed."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    seat: Literal["seller", "buyer"] = Field(description="The seat scripted:known plays.")
    reservation: float | Range = Field(
        description="The worst price it accepts: a seller's floor, a buyer's ceiling."
    )
    beta: float | Range = Field(
        1.0,
        description="Its concession exponent: 1 concedes at a constant rate, below 1 late "
        "(boulware), above 1 early (conceder).",
    )
    deadline: int | tuple[int, int] | None = Field(
        None,
        description="How many replies it makes before it walks away (its last offer is its "
        "reservation); none: every line it gets before the round's cap.",
    )

    @field_validator("reservation", "beta", "deadline")
    @classmethod
    def _check_range(cls, value: Any, info: ValidationInfo) -> Any:
        values = value if isinstance(value, tuple) else (value,)
        least = 1 if info.field_name == "deadline" else 0
        for one in values:
            if one is not None and (one <= 0 if least == 0 else one < least):
                raise ValueError(
                    f"{info.field_name}: {one:g} must be above {least - 1 if least else 0}"
                )
        if isinstance(value, tuple) and value[0] > value[1]:
            raise ValueError(
                f"{info.field_name}: [{value[0]:g}, {value[1]:g}] is no range (low > high)"
            )
        return value

    @property
    def drawn(self) -> bool:
        """Whether every value is fixed (nothing left to draw)."""
        return not any(isinstance(v, tuple) for v in (self.reservation, self.beta, self.deadline))

    def draw(self, rng: random.Random, step: float) -> CounterpartType:
        """One game's type: each range drawn uniformly (the reservation to the price ``step``,
        beta to two decimals, the deadline a whole number)."""
        reservation, beta, deadline = self.reservation, self.beta, self.deadline
        if isinstance(reservation, tuple):
            reservation = round(rng.uniform(*reservation) / step) * step
        if isinstance(beta, tuple):
            beta = round(rng.uniform(*beta), 2)
        if isinstance(deadline, tuple):
            deadline = rng.randint(*deadline)
        return self.model_copy(
            update={"reservation": reservation, "beta": beta, "deadline": deadline}
        )


class PriceScenario(Scenario):
    """The item, its prices and how every round opens (openers expand ``{item}``,
    ``{list_price}`` and ``{buyer_open}``)."""

    item: str = Field("balloon", description="What is sold, as the prompts name it.")
    list_price: float = Field(20.0, gt=0, description="The seller's asking price.")
    buyer_open: float = Field(10.0, gt=0, description="The buyer's first offer.")
    seller_cost: float = Field(8.0, ge=0, description="What the item cost the seller (private).")
    buyer_budget: float | None = Field(
        None, gt=0, description="The most the buyer may pay (private); none means no stated budget."
    )
    openers: tuple[Opener, ...] = DEFAULT_OPENERS
    listings: Path | None = Field(
        None,
        description="A listings file (JSONL, e.g. from icl-aif scenarios import): each game plays "
        "one listing drawn from its seed, whose item and prices replace the ones above. A "
        "relative path is read from the working directory, like feedback.pool.",
    )
    source: str | None = Field(
        None, description="Where the scenario comes from (a listing's id); recorded, not said."
    )
    counterpart: CounterpartType | None = Field(
        None,
        description="A known-type counterpart's declared type (the seat playing scripted:known): "
        "each game records the type it drew, and the per-round tables add the optimal payoff, "
        "the optimality gap and the surplus efficiency (docs/known_types.md).",
    )

    @field_validator("listings")
    @classmethod
    def _check_listings(cls, value: Path | None) -> Path | None:
        if value is not None:
            load_listings(value)  # a missing file or a bad line fails when the config loads
        return value

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Every field, but ``listings``, ``source`` and ``counterpart`` only when set (records
        of scenarios without them stay as they were)."""
        data: dict[str, Any] = handler(self)
        for key in ("listings", "source", "counterpart"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @field_validator("item")
    @classmethod
    def _check_item(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("name the item that is sold, e.g. balloon (the prompts say it)")
        return value

    @model_validator(mode="after")
    def _check_prices(self) -> PriceScenario:
        if self.buyer_open >= self.list_price:
            raise ValueError("buyer_open must be below list_price")
        if self.seller_cost > self.list_price:
            raise ValueError(
                f"seller_cost {self.seller_cost:g} is above list_price {self.list_price:g}: the "
                "seller would lose money even at its asking price; lower seller_cost or raise "
                "list_price"
            )
        if self.buyer_budget is not None and self.buyer_budget < self.buyer_open:
            raise ValueError(
                f"buyer_budget {self.buyer_budget:g} is below buyer_open {self.buyer_open:g}: the "
                "buyer's first offer would break its own budget; raise buyer_budget or lower "
                "buyer_open"
            )
        if self.counterpart is not None:
            self._check_counterpart(self.counterpart)
        return self

    def _check_counterpart(self, counterpart: CounterpartType) -> None:
        """A known type with reservations its own opening can reach, and no listings."""
        if self.listings is not None:
            raise ValueError(
                "counterpart: not with listings (its reservation is in the scenario's dollars)"
            )
        low, high = (
            counterpart.reservation
            if isinstance(counterpart.reservation, tuple)
            else (counterpart.reservation, counterpart.reservation)
        )
        if counterpart.seat == "seller" and high > self.list_price:
            raise ValueError(
                f"counterpart.reservation: {high:g} is above list_price {self.list_price:g}, "
                "where the seller opens"
            )
        if counterpart.seat == "buyer" and low < self.buyer_open:
            raise ValueError(
                f"counterpart.reservation: {low:g} is below buyer_open {self.buyer_open:g}, "
                "where the buyer opens"
            )

    @property
    def buyer_ceiling(self) -> float:
        """The most the buyer would pay: its budget, else the list price."""
        return self.buyer_budget if self.buyer_budget is not None else self.list_price


ScenarioConfig = PriceScenario
"""The name this scenario had before games were plug-ins."""

LISTING_FIELDS = ("item", "list_price", "buyer_open", "seller_cost", "buyer_budget", "source")
"""The fields a listing sets in the scenario of the game that plays it."""


def load_listings(path: Path) -> tuple[PriceScenario, ...]:
    """The listings of a listings file, each checked as a price scenario; a problem is a
    ``ValueError`` that names the file and the line. Read once per file version."""
    stat = os.stat(path) if path.is_file() else None
    key = (str(path.resolve()), stat.st_mtime_ns if stat else 0, stat.st_size if stat else 0)
    return _load_listings(path, key)


@cache
def _load_listings(path: Path, key: tuple[str, int, int]) -> tuple[PriceScenario, ...]:
    del key  # the cache's key: the file's place, time and size
    listings = []
    for number, row in listing_rows(path):
        try:
            listings.append(PriceScenario.model_validate(row))
        except ValidationError as exc:
            raise ListingsError(f"{path} line {number}: {_problem(exc)}") from None
    return tuple(listings)


def _problem(exc: ValidationError) -> str:
    """The first problem of a listing as ``field: message``, or the message of a check across
    fields."""
    error = exc.errors()[0]
    message = str(error.get("ctx", {}).get("error", error["msg"]))
    where = ".".join(str(part) for part in error["loc"])
    return f"{where}: {message}" if where else message


def listing_values(listing: PriceScenario) -> dict[str, Any]:
    """The values a listing sets in a game's scenario (:data:`LISTING_FIELDS`)."""
    return {name: getattr(listing, name) for name in LISTING_FIELDS}


class PriceTerms(BaseModel):
    """The terms of an agreement: the price (None when the judge saw a deal but bound no price)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    price: float | None


def scenario_values(scenario: PriceScenario) -> dict[str, Any]:
    """Template values for a scenario; prices come formatted (``$20``)."""
    return {
        "item": scenario.item,
        "list_price": format_money(scenario.list_price),
        "buyer_open": format_money(scenario.buyer_open),
        "seller_cost": format_money(scenario.seller_cost),
        "buyer_budget": (
            format_money(scenario.buyer_budget) if scenario.buyer_budget is not None else ""
        ),
    }


def opening_turns(scenario: PriceScenario) -> list[Turn]:
    """The scripted lines that open every round."""
    return render_openers(scenario, scenario_values(scenario))
