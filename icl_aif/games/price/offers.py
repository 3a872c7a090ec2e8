"""The price game's binding moves (``moves: structured``): an offer is a price."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from icl_aif.games.moves import Move
from icl_aif.games.price.scenario import PriceScenario

__all__ = ["PriceOffer", "opening_moves"]


class PriceOffer(BaseModel):
    """What a side offers: a price in dollars."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    price: float = Field(gt=0, description="The price you offer, in dollars.")


def opening_moves(scenario: PriceScenario) -> list[Move | None]:
    """The openers' moves: a seller's opener that names ``{list_price}`` offers the list price,
    a buyer's that names ``{buyer_open}`` offers its first offer (the default openers do both);
    any other opener is talk. Read from the templates, not from the rendered words."""
    offers = {
        "seller": ("{list_price}", scenario.list_price),
        "buyer": ("{buyer_open}", scenario.buyer_open),
    }
    moves: list[Move | None] = []
    for opener in scenario.openers:
        placeholder, price = offers[opener.speaker]
        moves.append(Move("offer", {"price": price}) if placeholder in opener.text else None)
    return moves
