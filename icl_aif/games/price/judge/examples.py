"""Growing the LLM moderator's few-shot examples from corrected mistakes (``icl-aif moderator-add``).

The paper's authors grew their moderator's demonstrations from its corrected errors. Here the loop
is: ``icl-aif moderator-eval DEV.jsonl --moderator llm --model M --write-failures F.jsonl``, check
(and where needed correct) the gold ``label`` and ``price`` of each line of ``F.jsonl``, optionally
add a short ``reason``, then ``icl-aif moderator-add F.jsonl``. Every line is validated as a
labelled window before anything is written; the moderator's answer (``predicted``) is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from icl_aif.core.errors import UsageError
from icl_aif.core.transcript import Turn, format_money
from icl_aif.games.price.judge.evaluation import LabelledWindow, load_labelled, parse_labelled

__all__ = ["AddResult", "add_examples", "overlap", "window_key"]

DROPPED_KEYS = frozenset({"predicted"})
_PRICE_TOLERANCE = 0.005


@dataclass(frozen=True)
class AddResult:
    """What :func:`add_examples` did."""

    added: int
    duplicates: int
    target: Path


def window_key(turns: Iterable[Turn]) -> tuple[tuple[str, str], ...]:
    """The identity of a window: speakers and texts, case and spacing ignored."""
    return tuple((t["speaker"], " ".join(t["text"].split()).casefold()) for t in turns)


def overlap(items: Sequence[LabelledWindow], examples: Sequence[LabelledWindow]) -> int:
    """How many of ``items`` are also few-shot examples (their scores are then not held out)."""
    known = {window_key(e.turns) for e in examples}
    return sum(1 for item in items if window_key(item.turns) in known)


def _same_answer(a: LabelledWindow, b: LabelledWindow) -> bool:
    if a.label != b.label:
        return False
    if a.price is None or b.price is None:
        return a.price is None and b.price is None
    return abs(a.price - b.price) < _PRICE_TOLERANCE


def _answer(item: LabelledWindow) -> str:
    return item.label + ("" if item.price is None else f" {format_money(item.price)}")


def _existing(target: Path) -> list[LabelledWindow]:
    if not target.exists():
        return []
    try:
        content = target.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{target}: cannot read the examples file ({exc})") from None
    return parse_labelled(content, target)


def add_examples(source: Path, target: Path) -> AddResult:
    """Append the labelled windows of ``source`` to the few-shot file ``target``.

    Every line of ``source`` is validated first (a bad line is a :class:`UsageError` naming it
    and nothing is written). A window already in ``target`` (or earlier in ``source``) with the
    same answer is skipped as a duplicate; with a different answer it is an error, since the two
    examples would contradict each other.
    """
    new = load_labelled(source)
    existing = _existing(target)
    known = {window_key(item.turns): (item, str(target)) for item in existing}
    fresh: list[LabelledWindow] = []
    duplicates = 0
    for index, item in enumerate(new, start=1):
        key = window_key(item.turns)
        if key in known:
            old, where = known[key]
            if not _same_answer(old, item):
                name = item.id or f"window {index}"
                raise UsageError(
                    f"{source}: {name} repeats the turns of {old.id or 'an example'} in {where} "
                    f"but answers {_answer(item)} instead of {_answer(old)}; fix one of them"
                )
            duplicates += 1
            continue
        known[key] = (item, str(source))
        fresh.append(item)
    if fresh:
        _append(target, fresh)
    return AddResult(added=len(fresh), duplicates=duplicates, target=target)


def _append(target: Path, items: Sequence[LabelledWindow]) -> None:
    lines = []
    for item in items:
        record = {k: v for k, v in item.to_record().items() if k not in DROPPED_KEYS}
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        prefix = ""
        if target.exists() and target.stat().st_size:
            with target.open("rb") as handle:
                handle.seek(-1, 2)
                prefix = "" if handle.read(1) == b"\n" else "\n"
        with target.open("a", encoding="utf-8") as handle:
            handle.write(prefix + "".join(lines))
    except OSError as exc:
        raise UsageError(f"{target}: cannot append the examples ({exc})") from None
