"""The pie split's binding moves (``moves: structured``): an offer is a split of the pie.

An offer names both shares from the offerer's side, in the pie's units (``{"mine": 60,
"yours": 40}`` for ``Offer 3: 60 for me and 40 for you.``); the two must add up to the pie. An
accepted offer's ``exchanges`` (``t``) is the number of offers made in the round before it,
counted from the moves (the openers' included), as the numbers the simulators and the briefs
give their offers count them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from icl_aif.core.transcript import Seat, Turn
from icl_aif.games.moves import Move
from icl_aif.games.pie_split.judge import terms_of
from icl_aif.games.pie_split.offers import Split, read_line
from icl_aif.games.pie_split.scenario import PieSplitScenario, format_amount, opening_turns

__all__ = ["PieSplitOffer", "agreed_terms", "check_offer", "offerers_by_turn", "opening_moves"]


class PieSplitOffer(BaseModel):
    """What a side offers: its own share of the pie and the other side's, in the pie's units."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    mine: float = Field(ge=0, description="Your share of the pie, in the pie's units.")
    yours: float = Field(ge=0, description="The other side's share of the pie, in its units.")

    def split(self) -> Split:
        """The offer as the judge reads a stated split."""
        return Split(mine=self.mine, yours=self.yours)


def check_offer(scenario: PieSplitScenario, offer: PieSplitOffer) -> str | None:
    """Why ``offer`` is no split of ``scenario``'s pie (its shares do not add up to the pie), as
    the message the player is shown; None for a valid split."""
    if offer.split().adds_up(scenario.pie):
        return None
    pie = format_amount(scenario.pie)
    total = format_amount(offer.mine + offer.yours)
    return (
        f"Your offer gives out {total}, not the pie of {pie}: your share (mine) and the other "
        f"side's (yours) must add up to exactly {pie}. Make your offer again."
    )


def opening_moves(scenario: PieSplitScenario) -> list[Move | None]:
    """The openers' moves: an opening line that states a valid split offers it (the judge
    reads it as an offer too); any other line (the default opener's question) is talk."""
    moves: list[Move | None] = []
    for turn in opening_turns(scenario):
        reading = read_line(turn["text"], scenario.pie)
        split = reading.split
        offers = split is not None and not reading.accepts and split.adds_up(scenario.pie)
        terms = None if split is None else {"mine": split.mine, "yours": split.yours}
        moves.append(Move("offer", terms) if offers else None)
    return moves


def offerers_by_turn(opening: Sequence[Move | None], turns: Sequence[Turn]) -> list[Seat | None]:
    """For each of ``turns``, the side that made an offer with it (None for any other move):
    a turn's own move, else the opener's at its position."""
    offerers: list[Seat | None] = []
    for index, turn in enumerate(turns):
        stored = turn.get("move")
        move = (
            Move.from_dict(stored) if stored else (opening[index] if index < len(opening) else None)
        )
        offerers.append(turn["speaker"] if move is not None and move.kind == "offer" else None)
    return offerers


def agreed_terms(
    scenario: PieSplitScenario, offerer: Seat, offer: PieSplitOffer, turns: Sequence[Turn]
) -> dict[str, Any]:
    """The terms of ``offerer``'s ``offer`` accepted by the last of ``turns``, as the judge
    states them (:func:`~icl_aif.games.pie_split.judge.terms_of`): ``exchanges`` is the number of
    offers made before ``offerer``'s latest one (the offer accepted)."""
    offerers = offerers_by_turn(opening_moves(scenario), turns[:-1])
    accepted = max((i for i, side in enumerate(offerers) if side == offerer), default=0)
    exchanges = sum(side is not None for side in offerers[:accepted])
    return terms_of(offer.split(), offerer, scenario.pie, exchanges)
