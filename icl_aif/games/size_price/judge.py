"""The size-price game's rules judge: reads the window after every line and binds acceptances.

After the window's last line (its speaker: the acceptor), in this order
(:func:`~icl_aif.games.size_price.offers.read_line` reads each line):

1. A line with the ``OFFER:`` tag and no quantity-and-price after it: ``ongoing`` (reason
   ``malformed offer``).
2. An acceptance binds the **standing offer**: the latest offer the *other* side made in the
   window. Terms the acceptance restates must be that offer's (same quantity, prices within half
   a cent); an invalid standing offer (see :meth:`~icl_aif.games.size_price.offers.Offer.problem`)
   makes no deal. When the other side made no offer in the window, a full window (the round may
   go back further) binds the terms the acceptance restates; a window that holds the whole round
   (shorter than ``roles.moderator.window``) has nothing to accept. Anything that cannot be bound
   leaves the round ``ongoing``, never a deal.
3. A line that states an offer is a counter-offer: ``ongoing`` (reason ``offer``, or ``invalid
   offer: ...``).
4. A walk-away or a refusal ends the round: ``no_deal`` with reason ``walk_away`` or ``refusal``.
5. Anything else is talk: ``ongoing``.

The simulators' acceptances and the briefs' format restate the offer, so a window of one line
binds them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icl_aif.core.transcript import Seat, Turn, Verdict
from icl_aif.games.judges import GameJudge
from icl_aif.games.size_price.offers import LineReading, Offer, read_line
from icl_aif.games.size_price.scenario import SEATS, SizePriceTerms

__all__ = ["SizePriceJudge", "standing_offer", "terms_of"]


def terms_of(offer: Offer) -> dict[str, Any]:
    """The terms of a valid ``offer``, as plain data."""
    return SizePriceTerms(quantity=int(offer.quantity), unit_price=offer.unit_price).model_dump()


def standing_offer(
    readings: Sequence[LineReading], speakers: Sequence[Seat], offerer: Seat
) -> LineReading | None:
    """The latest line of ``offerer`` that made an offer (or tried to: a malformed one)."""
    for reading, speaker in zip(reversed(readings), reversed(speakers), strict=True):
        if speaker == offerer and (reading.proposes or reading.malformed):
            return reading
    return None


class SizePriceJudge(GameJudge):
    """Rules that label the state after the last line of a window (no model)."""

    def __init__(self, window: int = 4, max_quantity: int | None = None) -> None:
        self.window = window
        self.max_quantity = max_quantity

    def read(self, window: Sequence[Turn], scenario: Mapping[str, Any] | None) -> Verdict:
        """``ongoing``, ``deal`` (with its terms) or ``no_deal`` (with its reason)."""
        limit = (scenario or {}).get("max_quantity", self.max_quantity)
        readings = [read_line(t["text"]) for t in window]
        last, speaker = readings[-1], window[-1]["speaker"]
        if last.malformed:
            return Verdict("ongoing", reason="malformed offer")
        if last.accepts:
            return self._bind(window, readings, speaker, limit)
        if last.offer is not None:
            problem = last.offer.problem(limit)
            return Verdict(
                "ongoing", reason="offer" if problem is None else f"invalid offer: {problem}"
            )
        if last.ending is not None:
            return Verdict("no_deal", reason=last.ending)
        return Verdict("ongoing", reason="talk")

    def _bind(
        self,
        window: Sequence[Turn],
        readings: list[LineReading],
        acceptor: Seat,
        limit: int | None,
    ) -> Verdict:
        """The deal an acceptance by ``acceptor`` (the window's last line) makes, or why none."""
        offerer = SEATS.other(acceptor)
        restated = readings[-1].offer
        speakers = [t["speaker"] for t in window[:-1]]
        standing = standing_offer(readings[:-1], speakers, offerer)
        if standing is not None:
            if standing.offer is None:
                return Verdict("ongoing", reason="acceptance of a malformed offer")
            if restated is not None and not restated.same(standing.offer):
                return Verdict("ongoing", reason="acceptance restates another offer")
            offer = standing.offer
        elif len(window) < self.window:
            return Verdict("ongoing", reason=f"acceptance, but the {offerer} made no offer")
        elif restated is not None:
            offer = restated
        else:
            return Verdict("ongoing", reason="acceptance with no offer in the window")
        problem = offer.problem(limit)
        if problem is not None:
            return Verdict("ongoing", reason=f"acceptance of an invalid offer: {problem}")
        return Verdict("deal", terms=terms_of(offer), reason=f"accepted the {offerer}'s offer")
