"""Deal or No Deal's binding moves (``moves: structured``): an offer is a division of the items.

An offer names the items the offerer keeps and the items the other side gets (``{"mine":
{"books": 1, "hats": 2, "balls": 0}, "yours": {...}}``); together they must give out exactly the
collection. The text game's moves map onto these: ``[message]`` is talk, a ``[propose]`` that
opens a pair is an offer, a ``[propose]`` that answers the other side's proposal with its exact
complement accepts it (the two proposals match: a deal), and ``[walk away]`` walks away.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from icl_aif.core.transcript import Seat
from icl_aif.games.dond.moves import read_move
from icl_aif.games.dond.scenario import ITEMS, SEATS, DondScenario, Items, items_text, opening_turns
from icl_aif.games.dond.scenario import terms_of as scored_terms
from icl_aif.games.moves import Move

__all__ = [
    "DondOffer",
    "agreed_terms",
    "check_offer",
    "opening_moves",
    "proposed_offer",
    "rest_of",
]


class DondOffer(BaseModel):
    """What a side offers: the items it keeps and the items the other side gets."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    mine: Items = Field(description="The books, hats and balls you keep.")
    yours: Items = Field(description="The books, hats and balls the other side gets.")


def rest_of(counts: Items, mine: Items) -> Items | None:
    """What is left of ``counts`` after ``mine``; None when ``mine`` claims more than there is."""
    rest = [counts.of(item) - mine.of(item) for item in ITEMS]
    return None if min(rest) < 0 else Items.of_tuple(rest)


def check_offer(scenario: DondScenario, offer: DondOffer) -> str | None:
    """Why ``offer`` is no division of ``scenario``'s items (a share claims more of some item
    than there is, or the two shares do not give out exactly all the items), as the message the
    player is shown; None for a valid division."""
    counts = scenario.counts
    there_are = f"there are {items_text(counts)}"
    for whose, items in (("your share (mine)", offer.mine), ("their share (yours)", offer.yours)):
        over = [f"{items.of(item)} {item}" for item in ITEMS if items.of(item) > counts.of(item)]
        if over:
            return (
                f"Your offer gives {' and '.join(over)} in {whose}, more than there are: "
                f"{there_are}. Make your offer again."
            )
    given = Items.of_tuple([offer.mine.of(i) + offer.yours.of(i) for i in ITEMS])
    if given != counts:
        return (
            f"Your offer gives out {items_text(given)}, but {there_are}: the two shares (mine "
            "and yours) must add up to exactly all the items. Make your offer again."
        )
    return None


def opening_moves(scenario: DondScenario) -> list[Move | None]:
    """The openers' moves: an opening ``[propose]`` that makes a valid offer offers it; any
    other line (the default ``[message]`` opener) is talk."""
    moves: list[Move | None] = []
    for turn in opening_turns(scenario):
        offer = proposed_offer(scenario, turn["text"])
        moves.append(None if offer is None else Move("offer", offer.model_dump(mode="json")))
    return moves


def proposed_offer(scenario: DondScenario, text: str) -> DondOffer | None:
    """The offer a ``[propose]`` line makes (the rest of the items going to the other side when
    it names only its own share); None for another line or a proposal that is no valid offer."""
    move = read_move(text)
    claim = move.claim if move.kind == "propose" else None
    if claim is None or claim.problem is not None or claim.mine is None:
        return None
    yours = claim.yours or rest_of(scenario.counts, claim.mine)
    if yours is None:
        return None
    offer = DondOffer(mine=claim.mine, yours=yours)
    return offer if check_offer(scenario, offer) is None else None


def agreed_terms(scenario: DondScenario, offerer: Seat, offer: DondOffer) -> dict[str, Any]:
    """The terms of ``offerer``'s ``offer`` once accepted, as the judge states a match: each
    seat's items and own score (:func:`~icl_aif.games.dond.scenario.terms_of`)."""
    shares = {offerer: offer.mine, SEATS.other(offerer): offer.yours}
    return scored_terms(scenario, shares["alice"], shares["bob"])
