"""Graph state: the transcript, offers, feedback and outcomes only, all plain data."""

from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from icl_aif.core.transcript import State, Turn
from icl_aif.engine.protocol import Message, PlayedRound, RefusedLine


class RoundState(TypedDict, total=False):
    """One round being played (``graphs/negotiation.py``)."""

    round: int
    history: list[Message]  # the improved player's carried history before this round
    turns: Annotated[list[Turn], operator.add]
    status: State | None
    terms: dict[str, Any] | None  # the game's terms of an agreement, None without one
    reason: str | None
    truncated: bool  # the exchange cap ended the round (a no deal with reason cap)
    invalid_moves: Annotated[int, operator.add]  # lines the game refused as moves (then retried)
    refused: Annotated[list[RefusedLine], operator.add]  # those lines, and why each was refused
    decided_by: str | None  # who judged the last line: rules, llm or moves (docs/records.md)
    # moves: structured: the turns whose text the moderator read otherwise than the moves
    disagreements: Annotated[list[dict[str, Any]], operator.add]
    parse: str | None  # how the model's reply was read, when the llm decided
    error: str | None


class RunState(TypedDict, total=False):
    """One run: rounds with feedback in between (``graphs/icl_aif.py``)."""

    history: list[Message]
    rounds: list[PlayedRound]
    error: str | None
