"""The size-price game's binding moves (``moves: structured``): an offer is a quantity and a unit
price (``{"quantity": 6, "unit_price": 71.04}`` for ``OFFER: 6 units at $71.04 each``)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from icl_aif.games.moves import Move
from icl_aif.games.size_price.judge import terms_of
from icl_aif.games.size_price.offers import Offer, read_line
from icl_aif.games.size_price.scenario import SizePriceScenario, opening_turns

__all__ = ["SizePriceOffer", "agreed_terms", "check_offer", "opening_moves"]


class SizePriceOffer(BaseModel):
    """What a side offers: a number of units and the price of each, in dollars."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    quantity: int = Field(ge=1, description="The number of units, a whole number of at least 1.")
    unit_price: float = Field(ge=0, description="The price of each unit, in dollars.")

    def offer(self) -> Offer:
        """The offer as the judge reads a stated one."""
        return Offer(quantity=float(self.quantity), unit_price=self.unit_price)


def check_offer(scenario: SizePriceScenario, offer: SizePriceOffer) -> str | None:
    """Why ``offer`` is not one ``scenario`` allows (more units than ``max_quantity``; the model
    already refuses a quantity below 1 and a negative price), as the message the player is shown;
    None for a valid offer."""
    problem = offer.offer().problem(scenario.max_quantity)
    if problem is None:
        return None
    return (
        f"Your offer is invalid: {problem}. Offer a whole number of units from 1 to "
        f"{scenario.max_quantity} and a unit price of $0 or more."
    )


def opening_moves(scenario: SizePriceScenario) -> list[Move | None]:
    """The openers' moves: an opening line that makes a valid offer (as the judge reads it)
    offers it; any other line (the default opener's question) is talk."""
    moves: list[Move | None] = []
    for turn in opening_turns(scenario):
        reading = read_line(turn["text"])
        offer = reading.offer if reading.proposes else None
        valid = offer is not None and offer.problem(scenario.max_quantity) is None
        moves.append(Move("offer", terms_of(offer)) if valid and offer is not None else None)
    return moves


def agreed_terms(offer: SizePriceOffer) -> dict[str, Any]:
    """The terms of an accepted ``offer``, as the judge states them
    (:func:`~icl_aif.games.size_price.judge.terms_of`)."""
    return terms_of(offer.offer())
