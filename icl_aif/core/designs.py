"""The shipped designs: the experiment files of ``experiments/`` (and the data files they read),
which the wheel carries as package data (``icl_aif/_designs/experiments/``).

A design is named by its file's stem (``quickstart``, ``table1_feedback_pools``) and described
by the first line of its leading comment. Its data files are named in it by paths relative to
the project's root (``experiments/data/craigslist_dev_100.jsonl``): :func:`anchored` turns those
into paths under the designs' root, so a design runs by name from any directory, and ``icl-aif
init`` copies them beside the file it writes, where the same relative paths find them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "DATA_PREFIX",
    "Design",
    "anchored",
    "data_files",
    "design_root",
    "find_design",
    "is_shipped",
    "shipped_designs",
]

DATA_PREFIX = "experiments/"
"""How a design names a file it reads: a path under the project's ``experiments/``."""


def design_root() -> Path | None:
    """The directory that holds ``experiments/``: a source checkout's root, else the copy
    shipped inside the installed package; None when neither is there."""
    package = Path(__file__).resolve().parent.parent
    for root in (package.parent, package / "_designs"):
        if (root / "experiments").is_dir() and any((root / "experiments").glob("*.yaml")):
            return root
    return None


@dataclass(frozen=True)
class Design:
    """A shipped experiment file: its name, where it is and its one-line summary."""

    name: str
    path: Path
    summary: str


SUMMARY_CHARS = 100


def _summary(path: Path) -> str:
    """The first sentence of the file's leading comment, at most :data:`SUMMARY_CHARS`
    characters."""
    words: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.lstrip("#").strip() if line.startswith("#") else ""
        if not text:
            break
        words += text.split()
    summary = " ".join(words)
    ends = _SENTENCE_END.search(summary)
    if ends:
        summary = summary[: ends.end()]
    if len(summary) > SUMMARY_CHARS:
        summary = summary[: SUMMARY_CHARS - 3].rsplit(" ", 1)[0] + "..."
    return summary


_SENTENCE_END = re.compile(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)[.?!](?= |$)")


def shipped_designs() -> list[Design]:
    """Every shipped design, by name."""
    root = design_root()
    if root is None:
        return []
    return [
        Design(path.stem, path, _summary(path))
        for path in sorted((root / "experiments").glob("*.yaml"))
    ]


def find_design(name: str) -> Design | None:
    """The shipped design called ``name`` (its file's stem; ``.yaml`` may be given), or None."""
    stem = name[: -len(".yaml")] if name.endswith(".yaml") else name
    return next((d for d in shipped_designs() if d.name == stem), None)


def _strings(data: Any) -> Iterator[str]:
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from _strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from _strings(value)


def data_files(data: dict[str, Any]) -> list[str]:
    """The files under ``experiments/`` a design's settings name (relative paths), the ones
    that exist under the designs' root."""
    root = design_root()
    if root is None:
        return []
    return sorted({s for s in _strings(data) if s.startswith(DATA_PREFIX) and (root / s).is_file()})


def anchored(data: Any, root: Path) -> Any:
    """``data`` with each relative ``experiments/...`` path that names no file from here but a
    file under ``root`` made absolute there (a shipped design run from another directory)."""
    if isinstance(data, str):
        found = data.startswith(DATA_PREFIX) and not Path(data).exists() and (root / data).is_file()
        return str(root / data) if found else data
    if isinstance(data, dict):
        return {key: anchored(value, root) for key, value in data.items()}
    if isinstance(data, list):
        return [anchored(value, root) for value in data]
    return data


def is_shipped(path: Path) -> bool:
    """Whether ``path`` is one of the shipped designs' files."""
    root = design_root()
    if root is None:
        return False
    return path.resolve().parent == (root / "experiments").resolve()
