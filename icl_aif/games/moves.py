"""Binding moves (``moves: structured``): every player turn is a message and a move.

A move is one of:

============== ================================================================================
``talk``       nothing binding: the message only
``offer``      proposes terms (the game's :attr:`~icl_aif.games.base.Game.offer_model`); the offer
               stands until the same side offers again or the other side rejects it
``accept``     binds to the other side's standing offer (terms sent with it are ignored); the
               round ends with an agreement on that offer's terms
``reject``     the other side's standing offer no longer stands
``walk_away``  the round ends without an agreement (reason ``walk_away``)
============== ================================================================================

The game's rules resolve the round from the moves alone (:func:`resolve`): the scripted openers
count as the moves the game reads in them (:meth:`~icl_aif.games.base.Game.opening_moves`), then
each turn's ``move``. The text judge still reads every window; where its verdict and the moves
disagree the turn is flagged (:func:`disagreement`).

A player gives its move as the arguments of the tool :data:`TOOL_NAME` (or, on models without
tools, as a JSON object with the same fields): ``message`` (what it says to the other side),
``move`` and ``terms`` (an offer's terms). :func:`move_schema` builds that schema for a game,
:func:`read_move` reads and checks one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Literal, Optional, get_args

from pydantic import BaseModel, Field, ValidationError, create_model

from icl_aif.core.transcript import Seat, State, Turn

if TYPE_CHECKING:
    from icl_aif.games.base import Game

__all__ = [
    "MOVE_KINDS",
    "TOOL_NAME",
    "Move",
    "MoveKind",
    "Resolution",
    "disagreement",
    "move_schema",
    "read_move",
    "resolve",
]

MoveKind = Literal["talk", "offer", "accept", "reject", "walk_away"]
MOVE_KINDS: tuple[MoveKind, ...] = get_args(MoveKind)

TOOL_NAME = "make_move"
"""The name of the tool (and of the JSON schema) a player makes its move with."""


@dataclass(frozen=True)
class Move:
    """One side's move: its kind and, for an offer, the offer's terms (plain data, checked)."""

    kind: MoveKind
    terms: dict[str, Any] | None = None

    def to_dict(self, path: str | None = None) -> dict[str, Any]:
        """The move as a turn stores it: ``kind``, ``terms`` (an offer's), ``path`` (how it was
        read: ``tool``, ``schema``, ``fenced``; ``opener`` for a scripted opening line)."""
        return {"kind": self.kind, "terms": self.terms, "path": path}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Move:
        """The move stored on a turn."""
        return cls(kind=data["kind"], terms=data.get("terms"))


@cache
def move_schema(game: Game[Any, Any]) -> type[BaseModel]:
    """The pydantic model of a move of ``game``: the tool's arguments (named :data:`TOOL_NAME`)."""
    offer = game.offer_model
    if offer is None:
        raise ValueError(f"the {game.name} game has no binding moves (no offer_model)")
    model = create_model(
        TOOL_NAME,
        __doc__=(
            "Say your next line to the other side and make your move: talk (nothing binding), "
            "offer (propose the terms), accept (agree to the other side's standing offer), "
            "reject (refuse it) or walk_away (end the round without an agreement)."
        ),
        message=(str, Field(description="What you say to the other side.")),
        move=(MoveKind, Field(description="Your move.")),
        terms=(
            Optional[offer],  # type: ignore[arg-type]  # noqa: UP045 (a type built at run time)
            Field(None, description="The terms you offer; only with move offer."),
        ),
    )
    return model


def read_move(game: Game[Any, Any], scenario: Any, side: Seat, data: Any) -> tuple[str, Move] | str:
    """``(message, move)`` from a player's move arguments (a dict or a parsed :func:`move_schema`
    instance), or why they are not a move, as the message the player is shown."""
    schema = move_schema(game)
    try:
        parsed = data if isinstance(data, schema) else schema.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the move"
        return f"Your move could not be read ({where}: {first['msg']}). Make your move again."
    message = str(getattr(parsed, "message", "") or "")
    kind: MoveKind = getattr(parsed, "move")  # noqa: B009 (a dynamic model)
    offer = getattr(parsed, "terms", None)
    if kind != "offer":
        return message, Move(kind)
    if offer is None:
        return "An offer needs its terms. Make your move again with the terms you offer."
    problem = game.check_offer(scenario, side, offer)
    if problem is not None:
        return problem
    return message, Move("offer", offer.model_dump(mode="json"))


@dataclass(frozen=True)
class Resolution:
    """What the moves say after a turn: the state, the agreed terms (a deal's), the reason."""

    state: State
    terms: dict[str, Any] | None = None
    reason: str | None = None
    offerer: Seat | None = None  # who made the offer a deal accepted


def standing_offers(
    game: Game[Any, Any], opening: Sequence[Move | None], turns: Sequence[Turn]
) -> dict[Seat, dict[str, Any]]:
    """Each seat's standing offer after ``turns`` (the openers' moves first, by position)."""
    standing: dict[Seat, dict[str, Any]] = {}
    for index, turn in enumerate(turns):
        move = _move_of(opening, index, turn)
        if move is None:
            continue
        side = turn["speaker"]
        if move.kind == "offer" and move.terms is not None:
            standing[side] = move.terms
        elif move.kind == "reject":
            standing.pop(game.seats.other(side), None)
    return standing


def _move_of(opening: Sequence[Move | None], index: int, turn: Turn) -> Move | None:
    stored = turn.get("move")
    if stored is not None:
        return Move.from_dict(stored)
    return opening[index] if index < len(opening) else None


def accept_problem(
    game: Game[Any, Any], opening: Sequence[Move | None], side: Seat, turns: Sequence[Turn]
) -> str | None:
    """Why ``side`` cannot accept after ``turns`` (the other side has no standing offer), as the
    message the player is shown; None when it can."""
    rival = game.seats.other(side)
    if rival in standing_offers(game, opening, turns):
        return None
    return (
        f"There is no standing offer from the {game.seat_name(rival)} to accept. "
        "Make an offer, talk, reject or walk away."
    )


def resolve(
    game: Game[Any, Any], scenario: Any, opening: Sequence[Move | None], turns: Sequence[Turn]
) -> Resolution:
    """The state of the round after ``turns`` as the moves decide it (the last turn's move)."""
    if not turns:
        return Resolution("ongoing")
    last = turns[-1]
    move = _move_of(opening, len(turns) - 1, last)
    if move is None or move.kind in ("talk", "offer", "reject"):
        return Resolution("ongoing")
    if move.kind == "walk_away":
        return Resolution("no_deal", reason="walk_away")
    side = last["speaker"]
    rival = game.seats.other(side)
    offered = standing_offers(game, opening, turns[:-1]).get(rival)
    if offered is None:  # refused as an invalid move before it reached the table
        return Resolution("ongoing")
    assert game.offer_model is not None  # offers were read with it
    offer = game.offer_model.model_validate(offered)
    terms = game.agreed_terms(scenario, rival, offer, turns)
    return Resolution("deal", terms=terms, reason="acceptance", offerer=rival)


def disagreement(
    moves: Resolution, text_state: State, text_terms: Mapping[str, Any] | None
) -> bool:
    """True when the text judge's reading of a window differs from the moves' resolution: another
    state, or a deal on other terms."""
    if moves.state != text_state:
        return True
    if moves.state != "deal":
        return False
    return not _same_terms(moves.terms or {}, text_terms or {})


def _same_terms(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    if set(a) != set(b):
        return False
    return all(_same_value(a[key], b[key]) for key in a)


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return _same_terms(a, b)
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-6)
    return bool(a == b)
