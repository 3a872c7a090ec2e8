"""The pie split's rules judge: reads the window after every line and binds acceptances.

After the window's last line (its speaker: the acceptor), in this order:

1. An acceptance (:func:`~icl_aif.games.pie_split.offers.read_line`) binds to the **standing
   offer**: the latest split the *other* side stated in the window. A split the acceptance
   restates must be that offer (same shares, same number if both are numbered); a standing offer
   that does not add up to the pie makes no deal. When the other side stated no split in the
   window, a full window (the round may go back further) binds to the split the acceptance
   restates; a window that holds the whole round (shorter than ``roles.moderator.window``) has
   nothing to accept. Anything that cannot be bound leaves the round ``ongoing``, never a deal.
2. A line that states a split is a new offer: ``ongoing`` (reason ``offer``, or ``invalid split``
   when its shares do not add up to the pie).
3. A walk-away or a refusal ends the round: ``no_deal`` with reason ``walk_away`` or ``refusal``.
4. Anything else is talk: ``ongoing``.

``t`` (the terms' ``exchanges``) is the accepted offer's number minus one: the number the
offer itself states, else the number the acceptance restates. An unnumbered offer is dated by
counting the splits stated before it only when the window holds the whole round; otherwise the
acceptance cannot be dated and the round goes on. The window never needs to reach back further
than the acceptance when the acceptance restates the offer and its number, as the simulators'
acceptances and the briefs' format do: a window of one line binds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icl_aif.core.transcript import Seat, Turn, Verdict
from icl_aif.games.judges import GameJudge
from icl_aif.games.pie_split.offers import LineReading, Split, read_line, same_split
from icl_aif.games.pie_split.scenario import SEATS, PieSplitTerms

__all__ = ["PieSplitJudge", "terms_of"]


def terms_of(offer: Split, offerer: Seat, pie: float, exchanges: int) -> dict[str, Any]:
    """The terms of ``offer`` (stated by ``offerer``) accepted after ``exchanges`` offers, as
    plain data: each seat's share of the pie as a proportion."""
    offerer_share = round(offer.mine / pie, 6)
    shares = {offerer: offerer_share, SEATS.other(offerer): round(1.0 - offerer_share, 6)}
    terms = PieSplitTerms(
        proposer_share=shares["proposer"], responder_share=shares["responder"], exchanges=exchanges
    )
    return terms.model_dump()


class PieSplitJudge(GameJudge):
    """Rules that label the state after the last line of a window (no model)."""

    def __init__(self, pie: float = 100.0, window: int = 4) -> None:
        self.pie = pie
        self.window = window

    def read(self, window: Sequence[Turn], scenario: Mapping[str, Any] | None) -> Verdict:
        """``ongoing``, ``deal`` (with its terms) or ``no_deal`` (with its reason)."""
        pie = float((scenario or {}).get("pie", self.pie))
        readings = [read_line(t["text"], pie) for t in window]
        last, speaker = readings[-1], window[-1]["speaker"]
        if last.accepts:
            return self._bind(window, readings, speaker, pie)
        if last.split is not None:
            if not last.split.adds_up(pie):
                total = last.split.mine + last.split.yours
                return Verdict(
                    "ongoing", reason=f"invalid split: adds up to {total:g}, not {pie:g}"
                )
            return Verdict("ongoing", reason="offer")
        if last.ending is not None:
            return Verdict("no_deal", reason=last.ending)
        return Verdict("ongoing", reason="talk")

    def _bind(
        self, window: Sequence[Turn], readings: list[LineReading], acceptor: Seat, pie: float
    ) -> Verdict:
        """The deal an acceptance by ``acceptor`` (the window's last line) makes, or why none."""
        offerer = SEATS.other(acceptor)
        restated = readings[-1].split  # from the acceptor's side
        whole_round = len(window) < self.window
        index = next(
            (
                i
                for i in range(len(window) - 2, -1, -1)
                if window[i]["speaker"] == offerer and readings[i].split is not None
            ),
            None,
        )
        if index is not None:
            standing = readings[index].split
            assert standing is not None
            if restated is not None:
                as_offered = Split(mine=restated.yours, yours=restated.mine)
                if not same_split(standing, as_offered, pie):
                    return Verdict("ongoing", reason="acceptance restates another split")
                if None not in (restated.number, standing.number) and (
                    restated.number != standing.number
                ):
                    return Verdict("ongoing", reason="acceptance names another offer")
            number = (
                standing.number
                if standing.number is not None
                else (restated.number if restated is not None else None)
            )
            if number is None and whole_round:
                number = 1 + sum(r.split is not None for r in readings[:index])
        elif whole_round:
            return Verdict("ongoing", reason=f"acceptance, but the {offerer} made no offer")
        elif restated is not None:
            standing = Split(mine=restated.yours, yours=restated.mine, number=restated.number)
            number = restated.number
        else:
            return Verdict("ongoing", reason="acceptance with no offer in the window")
        if not standing.adds_up(pie):
            return Verdict("ongoing", reason="acceptance of an invalid split")
        if number is None or number < 1:
            return Verdict("ongoing", reason="acceptance of an unnumbered offer")
        terms = terms_of(standing, offerer, pie, number - 1)
        return Verdict("deal", terms=terms, reason=f"accepted offer {number}")
