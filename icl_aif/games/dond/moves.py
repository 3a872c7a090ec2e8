"""How a line of Deal or No Deal is read: a message, a proposal or a walk-away, and what is wrong
with an invalid one.

Every line starts with one tag (case-insensitive):

- ``[message] TEXT``: talk (the openers too);
- ``[propose] 1 book, 2 hats, 0 balls``: a binding proposal naming the items the speaker keeps,
  one whole-number count for each of books, hats and balls, in any order (``books=1 hats=2
  balls=0`` reads the same). It may go on with the other side's share, ``[propose] I get 1 book,
  2 hats, 0 balls; you get 2 books, 0 hats, 2 balls``, which must then give out exactly the rest;
- ``[walk away]``: the speaker ends the round without a deal (so does a message that says ``I walk
  away``).

A line without a tag is read as talk by the judge, but :func:`move_problem` refuses it. The order
of moves (seeds 000 and 001: once a side proposes, talk ends and the other side answers with a
proposal of its own) is checked by :func:`move_problem` over the round so far.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from icl_aif.core.transcript import Seat, Turn
from icl_aif.games.dond.scenario import ITEMS, ROLE_NAMES, SEATS, Items

__all__ = [
    "Claim",
    "Move",
    "last_pending",
    "move_problem",
    "read_claim",
    "read_move",
]

MoveKind = Literal["message", "propose", "walk", "untagged"]

_TAG = re.compile(r"\[\s*(message|propose|proposal|walk[\s_-]*away)\s*\]", re.I)
_LEADING_TAG = re.compile(r"^\s*\[\s*(message|propose|proposal|walk[\s_-]*away)\s*\]", re.I)
_WORD = {"book": "books", "hat": "hats", "ball": "balls"}
_COUNT_WORD = re.compile(r"(-?\d+(?:[.,]\d+)?)\s*(?:x\s*)?([a-z]+)", re.I)
_WORD_COUNT = re.compile(r"\b([a-z]+)\s*[=:]\s*(-?\d+(?:[.,]\d+)?)", re.I)
_YOURS = re.compile(r"\byou(?:'ll|\s+will)?\s+(?:get|take|keep|receive|have)\b|\bfor\s+you\b", re.I)
_WALK = re.compile(r"\bi\s+(?:will\s+|'ll\s+)?walk\s+away\b|\bi'?m\s+walking\s+away\b", re.I)
_NEGATED_WALK = re.compile(
    r"\b(?:not|never|won'?t|don'?t|do\s+not|will\s+not|wouldn'?t)\b[^.!?,]{0,12}?\bwalk", re.I
)
_FILLER = {"i", "get", "take", "keep", "want", "and", "me", "for", "the", "of", "my", "mine"}


@dataclass(frozen=True)
class Claim:
    """The item counts a proposal (or an offer in a message) names: ``mine`` for the speaker,
    ``yours`` for the other side when stated, and ``problem`` when it cannot be read."""

    mine: Items | None
    yours: Items | None = None
    problem: str | None = None


@dataclass(frozen=True)
class Move:
    """One line read: its kind, the body after the tag, and the claim of a proposal."""

    kind: MoveKind
    body: str
    tags: int
    claim: Claim | None = None


def _item(word: str) -> str | None:
    word = word.lower()
    if word in ITEMS:
        return word
    return _WORD.get(word)


def _counts(part: str) -> tuple[dict[str, int], list[str], list[str], list[str]]:
    """The counts named in ``part`` (item -> count), and the problems: repeated types, unknown
    items, counts that are not whole numbers."""
    found: dict[str, int] = {}
    repeated: list[str] = []
    unknown: list[str] = []
    fractional: list[str] = []
    keyed = [(m.group(2), m.group(1)) for m in _WORD_COUNT.finditer(part)]
    if any(_item(word) is not None for _, word in keyed):  # books=1 hats=2 balls=0
        pairs = keyed
    else:  # 1 book, 2 hats, 0 balls
        pairs = [(m.group(1), m.group(2)) for m in _COUNT_WORD.finditer(part)]
    for number, word in pairs:
        item = _item(word)
        if item is None:
            if word.lower() not in _FILLER:
                unknown.append(word)
            continue
        if not re.fullmatch(r"\d+", number):
            fractional.append(f"{number} {item}")
            continue
        if item in found:
            repeated.append(item)
            continue
        found[item] = int(number)
    return found, repeated, unknown, fractional


def _items_of(part: str, whose: str) -> tuple[Items | None, str | None]:
    found, repeated, unknown, fractional = _counts(part)
    if unknown:
        names = ", ".join(f"'{w}'" for w in dict.fromkeys(unknown))
        return None, f"there are only books, hats and balls, but {whose} names {names}"
    if fractional:
        return None, (
            f"{whose} names {', '.join(fractional)}: counts must be whole numbers, 0 or "
            "more (an item cannot be split)"
        )
    if repeated:
        return None, f"{whose} names {', '.join(dict.fromkeys(repeated))} more than once"
    missing = [item for item in ITEMS if item not in found]
    if len(missing) == len(ITEMS):
        return None, f"{whose} names no item counts"
    if missing:
        return None, f"{whose} gives no count for {' and '.join(missing)}"
    return Items(**found), None


def read_claim(body: str) -> Claim:
    """The counts a proposal's body (or an offer in a message) names: the speaker's, then, after
    ``you get`` / ``for you``, the other side's."""
    split = _YOURS.search(body)
    mine_part, yours_part = (
        (body, None) if split is None else (body[: split.start()], body[split.end() :])
    )
    mine, problem = _items_of(mine_part, "your proposal")
    if problem is not None:
        return Claim(mine=None, problem=problem)
    if yours_part is None:
        return Claim(mine=mine)
    yours, problem = _items_of(yours_part, "the other side's share in your proposal")
    return Claim(mine=mine, yours=yours, problem=problem)


def read_move(text: str) -> Move:
    """The move a line makes (its first tag decides; ``tags`` counts them all)."""
    tags = len(_TAG.findall(text))
    lead = _LEADING_TAG.match(text)
    if lead is None:
        kind: MoveKind = "walk" if _says_walk(text) else "untagged"
        return Move(kind=kind, body=text.strip(), tags=tags)
    tag = lead.group(1).lower()
    body = text[lead.end() :].strip()
    if tag in ("propose", "proposal"):
        return Move(kind="propose", body=body, tags=tags, claim=read_claim(body))
    if tag.startswith("walk"):
        return Move(kind="walk", body=body, tags=tags)
    return Move(kind="walk" if _says_walk(body) else "message", body=body, tags=tags)


def _says_walk(text: str) -> bool:
    return bool(_WALK.search(text)) and not _NEGATED_WALK.search(text)


def last_pending(turns: Sequence[Turn]) -> Turn | None:
    """The proposal of the round so far that still waits for its answer, if any: proposals pair
    up in order (a proposal right after the other side's unanswered one answers it)."""
    pending: Turn | None = None
    for turn in turns:
        if read_move(turn["text"]).kind != "propose":
            continue
        answers = pending is not None and pending["speaker"] != turn["speaker"]
        pending = None if answers else turn
    return pending


def move_problem(counts: Items, side: Seat, text: str, turns: Sequence[Turn]) -> str | None:
    """What is wrong with ``side``'s line ``text`` after the round's ``turns`` (openers
    included), as the message the player is shown; None for a valid move."""
    rival = ROLE_NAMES[SEATS.other(side)]
    move = read_move(text)
    example = "[propose] 1 book, 2 hats, 0 balls"
    if move.kind == "untagged":
        return (
            "Start your line with [message] to talk, [propose] to submit your proposal (for "
            f"example {example}) or [walk away] to end the game without a deal."
        )
    if move.tags > 1:
        return (
            "Write one move per line: a single [message], [propose] or [walk away], with no "
            "second tag after the first."
        )
    if move.kind == "walk":
        return None
    pending = last_pending(turns)
    answering = pending is not None and pending["speaker"] != side
    if move.kind == "message":
        if answering:
            return (
                f"{rival} has proposed, so the talking is over: answer "
                "with a proposal of your own, starting with [propose], or [walk away]."
            )
        if not move.body:
            return "Your message is empty: write something after [message]."
        return None
    if not answering:
        previous = read_move(turns[-1]["text"]).kind if turns else None
        if previous in (None, "propose"):
            return "Discuss how to divide the items with a [message] before you submit a proposal."
    claim = move.claim
    assert claim is not None
    if claim.problem is not None or claim.mine is None:
        return (
            f"Your proposal cannot be read: {claim.problem}. Write the items you keep, one "
            f"whole-number count for each of books, hats and balls, for example {example}."
        )
    over = [
        f"{claim.mine.of(item)} {item}" for item in ITEMS if claim.mine.of(item) > counts.of(item)
    ]
    if over:
        return (
            f"Your proposal claims {' and '.join(over)}, more than there are: there are only "
            f"{_listed(counts)}."
        )
    if claim.yours is not None:
        given = [claim.mine.of(item) + claim.yours.of(item) for item in ITEMS]
        wrong = [
            f"{g} {item} instead of {counts.of(item)}"
            for item, g in zip(ITEMS, given, strict=True)
            if g != counts.of(item)
        ]
        if wrong:
            return (
                f"Your proposal gives out {' and '.join(wrong)}: the two shares must add up to "
                f"exactly {_listed(counts)}."
            )
    return None


def _listed(counts: Items) -> str:
    return ", ".join(f"{counts.of(item)} {item}" for item in ITEMS)
