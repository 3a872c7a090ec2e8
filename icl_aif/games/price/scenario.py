"""The single-item price game's scenario and the terms of its agreements (seed 002)."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
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
    "PriceScenario",
    "PriceTerms",
    "ScenarioConfig",
    "listing_values",
    "load_listings",
    "opening_turns",
    "scenario_values",
]

DEFAULT_OPENERS = (
    Opener(speaker="buyer", text="Hi, how much is the {item}?"),
    Opener(speaker="seller", text="Hi, this is a good {item} and its price is {list_price}."),
    Opener(speaker="buyer", text="Would you consider selling it for {buyer_open}?"),
)

SEATS = Seats(("seller", "seller"), ("buyer", "buyer"))
"""The price game's seats, as seed 002 names them."""


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

    @field_validator("listings")
    @classmethod
    def _check_listings(cls, value: Path | None) -> Path | None:
        if value is not None:
            load_listings(value)  # a missing file or a bad line fails when the config loads
        return value

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Every field, but ``listings`` and ``source`` only when set (records of scenarios
        without them stay as they were)."""
        data: dict[str, Any] = handler(self)
        for key in ("listings", "source"):
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
        return self

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
