"""Plain-data pieces of a negotiation: turns, the judge's verdicts, and money formatting.

Everything here is JSON-serialisable so that graph state, checkpoints and run records stay simple.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

from icl_aif.core.record_upgrade import FORMAT2_SEATS

Seat = str
"""A seat id of the game being played (the price game's ``seller``, Deal or No Deal's ``alice``):
the games declare their seats (:class:`Seats`); the engine holds no list of them."""

State = Literal["ongoing", "deal", "no_deal"]
STATES: tuple[State, ...] = ("ongoing", "deal", "no_deal")

Outcome = Literal["deal", "no_deal", "error"]

MessageRole = Literal["system", "user", "assistant"]


class Message(TypedDict):
    """One chat message as plain data."""

    role: MessageRole
    content: str


class Turn(TypedDict):
    """One utterance in a round: who said it and what they said.

    ``flags`` (only on a generated or typed line, and only when there are some) say what was done
    to the reply or noticed in it before it reached the table (:mod:`icl_aif.engine.replies`).
    """

    speaker: Seat
    text: str
    flags: NotRequired[list[str]]
    move: NotRequired[dict[str, Any]]
    text_verdict: NotRequired[dict[str, Any]]


MOVE_NOTE = re.compile(r"\n\[move: [a-z_]+(?: \{[^\n]*\})?\]$")
"""The note a line's binding move adds to it in the players' views (:func:`with_move_note`)."""


def with_move_note(turn: Turn) -> str:
    """The turn's text as the players read it: with its binding move (``moves: structured``) on
    a line of its own, ``[move: offer {"price": 14}]`` or ``[move: accept]``; the text alone for
    a turn without one."""
    move = turn.get("move")
    if not move:
        return turn["text"]
    terms = move.get("terms")
    shown = f" {json.dumps(terms, ensure_ascii=False, sort_keys=True)}" if terms else ""
    return f"{turn['text']}\n[move: {move['kind']}{shown}]"


def without_move_note(text: str) -> str:
    """``text`` without the move note :func:`with_move_note` added (what the line said)."""
    return MOVE_NOTE.sub("", text)


@dataclass(frozen=True)
class Seats:
    """A game's two seats, as a PettingZoo environment declares its ``possible_agents``: their
    ids (config keys, records, graph nodes), in order, and the names the players and reports
    use (``Seats(("alice", "Alice"), ("bob", "Bob"))``). The first seat is the one the
    game's papers list first (the price game's seller)."""

    first: tuple[Seat, str]
    second: tuple[Seat, str]
    ids: tuple[Seat, Seat] = field(init=False)
    names: Mapping[Seat, str] = field(init=False)

    def __post_init__(self) -> None:
        ids = (self.first[0], self.second[0])
        if ids[0] == ids[1] or not all(re.fullmatch(r"[a-z][a-z0-9]*", i) for i in ids):
            raise ValueError(f"seat ids must be two different lowercase words, got {ids}")
        object.__setattr__(self, "ids", ids)
        object.__setattr__(
            self, "names", {self.first[0]: self.first[1], self.second[0]: self.second[1]}
        )

    def __iter__(self) -> Iterator[Seat]:
        return iter(self.ids)

    def __contains__(self, seat: object) -> bool:
        return seat in self.ids

    def other(self, seat: Seat) -> Seat:
        """The rival of ``seat``."""
        return self.ids[1] if seat == self.ids[0] else self.ids[0]

    def name(self, seat: Seat) -> str:
        """How players and reports name ``seat`` (``Alice``, ``player 1``)."""
        return self.names[seat]

    def index(self, seat: Seat) -> int:
        """0 for the first seat, 1 for the second."""
        return self.ids.index(seat)

    def stream(self, seat: Seat) -> str:
        """The label of ``seat``'s random streams (model and simulator seeds): the seat's name in
        format-2 records, so that a seed gives the games it gave before seats were the game's."""
        return FORMAT2_SEATS[self.index(seat)]

    def listed(self) -> str:
        """``alice or bob``, for messages that list the allowed seats."""
        return " or ".join(self.ids)


@dataclass(frozen=True)
class Verdict:
    """The judge's reading of a window of turns.

    ``terms`` are the game's terms of an agreement, as plain data, set only for ``deal`` (the
    price game's ``{"price": 15.0}``; a term may be None when the judge could not bind it).
    ``reason`` says why: for ``no_deal`` one of ``walk_away``, ``refusal``, ``cap``; free text otherwise.
    ``decided_by`` (``rules`` or ``llm``) and ``parse`` (how a model's reply was read: ``schema``,
    ``json_mode``, ``fenced``, ``regex``) are set by model-backed moderators; None otherwise.
    """

    state: State
    terms: dict[str, Any] | None = None
    reason: str | None = None
    decided_by: str | None = None
    parse: str | None = None

    @property
    def terminal(self) -> bool:
        """True when the round is over."""
        return self.state != "ongoing"

    def to_dict(self) -> dict[str, Any]:
        """The verdict as plain data."""
        return asdict(self)


def format_money(amount: float) -> str:
    """``20`` -> ``$20``, ``16.5`` -> ``$16.50``, ``1200`` -> ``$1,200``."""
    if float(amount).is_integer():
        return f"${int(amount):,}"
    return f"${amount:,.2f}"
