"""The resource split's binding moves (``moves: structured``): an offer is a split of the units.

An offer names the units of A, B and C the offerer takes and those the other side takes
(``{"mine": {"A": 6, "B": 2, "C": 5}, "yours": {"A": 4, "B": 8, "C": 5}}`` for ``Offer: I take
A=6 B=2 C=5, you take A=4 B=8 C=5.``); the two shares of every resource must add up to its
amount.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from icl_aif.core.transcript import Seat
from icl_aif.games.moves import Move
from icl_aif.games.resource_split.judge import terms_of
from icl_aif.games.resource_split.offers import Split, read_line
from icl_aif.games.resource_split.scenario import (
    RESOURCES,
    Bundle,
    ResourceSplitScenario,
    amounts_of,
    opening_turns,
)

__all__ = ["ResourceSplitOffer", "agreed_terms", "check_offer", "off_by", "opening_moves"]


class ResourceSplitOffer(BaseModel):
    """What a side offers: the units of each resource it takes and those the other side takes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mine: Bundle = Field(description="The units of A, B and C you take.")
    yours: Bundle = Field(description="The units of A, B and C the other side takes.")

    def split(self) -> Split:
        """The offer as the judge reads a stated split."""
        return Split(mine=self.mine, yours=self.yours)


def off_by(scenario: ResourceSplitScenario, offer: ResourceSplitOffer) -> str | None:
    """Which resources ``offer`` does not give out exactly (``A adds up to 9, not 10``, the
    words of the text game's refusal); None when every resource adds up to its amount."""
    split, amounts = offer.split(), amounts_of(scenario)
    if split.adds_up(amounts):
        return None
    totals = split.totals()
    return "; ".join(
        f"{r} adds up to {totals.get(r)}, not {amounts.get(r)}"
        for r in RESOURCES
        if totals.get(r) != amounts.get(r)
    )


def check_offer(scenario: ResourceSplitScenario, offer: ResourceSplitOffer) -> str | None:
    """Why ``offer`` is no split of ``scenario``'s units (some resource's two shares do not add
    up to its amount), as the message the player is shown; None for a valid split."""
    problem = off_by(scenario, offer)
    if problem is None:
        return None
    amounts = amounts_of(scenario)
    there = ", ".join(f"{r} {amounts.get(r)}" for r in RESOURCES)
    return (
        "Your offer is invalid: the two shares (mine and yours) of every resource must add up "
        f"to what there is ({there}), but {problem}. Make your offer again."
    )


def opening_moves(scenario: ResourceSplitScenario) -> list[Move | None]:
    """The openers' moves: an opening line that states a valid split offers it (the judge reads
    it as an offer too); any other line (the default opener's question) is talk."""
    amounts = amounts_of(scenario)
    moves: list[Move | None] = []
    for turn in opening_turns(scenario):
        reading = read_line(turn["text"])
        split = reading.split
        valid = split is not None and not reading.accepts and split.adds_up(amounts)
        offer = (
            None
            if split is None
            else {"mine": split.mine.as_dict(), "yours": split.yours.as_dict()}
        )
        moves.append(Move("offer", offer) if valid else None)
    return moves


def agreed_terms(
    scenario: ResourceSplitScenario, offerer: Seat, offer: ResourceSplitOffer
) -> dict[str, Any]:
    """The terms of ``offerer``'s ``offer`` once accepted, as the judge states them: each seat's
    units and reward (:func:`~icl_aif.games.resource_split.judge.terms_of`)."""
    return terms_of(offer.split(), offerer, scenario)
