"""Plain-data pieces of a negotiation: turns, the judge's verdicts, and money formatting.

Everything here is JSON-serialisable so that graph state, checkpoints and run records stay simple.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from typing import Any, Literal, NotRequired, TypedDict

Speaker = Literal["seller", "buyer"]
SPEAKERS: tuple[Speaker, Speaker] = ("seller", "buyer")

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
    to the reply or noticed in it before it reached the table (:mod:`icl_aif.replies`).
    """

    speaker: Speaker
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


def other_side(speaker: Speaker) -> Speaker:
    """The rival of ``speaker``."""
    return "buyer" if speaker == "seller" else "seller"


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
