"""Append-only JSONL files of what annotators submitted, safe against a kill at any moment.

Each line is written whole and flushed to disk before the submission is acknowledged; a reader
skips a last line cut short by a kill (the submission it held was never acknowledged).
:func:`write_problem` checks, before the server starts, that the files and directories it will
write can be written.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["append_line", "read_lines", "transcript_hash", "write_problem"]


def transcript_hash(transcript: str) -> str:
    """``sha256:<hex>`` of a transcript's UTF-8 text: which transcript an annotator saw."""
    return "sha256:" + hashlib.sha256(transcript.encode("utf-8")).hexdigest()


def append_line(path: Path, record: dict[str, Any]) -> None:
    """Append ``record`` as one JSON line to ``path`` and flush it to disk.

    A line cut short by an earlier kill is ended first, so the new line stands alone.
    """
    line = json.dumps(record, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab+") as file:
        if file.tell() > 0:
            file.seek(-1, os.SEEK_END)
            if file.read(1) != b"\n":
                file.write(b"\n")
        file.write(line.encode("utf-8"))
        file.flush()
        os.fsync(file.fileno())


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The records of ``path`` (none if it does not exist); a line that is not whole JSON (cut
    short by a kill) is skipped with a warning."""
    if not path.is_file():
        return []
    records: list[dict[str, Any]] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            logger.warning("%s line %d is cut short; skipped", path, number)
            continue
        if isinstance(record, dict):
            records.append(record)
    return records


def write_problem(path: Path, *, directory: bool = False) -> str | None:
    """Why ``path`` cannot be written, or None: a ``directory`` to write files in, or else a
    file to append to; either may not exist yet (then what would hold it must be a directory
    this process can write in). Nothing is left behind: an existing file is opened for
    appending and closed, a directory gets a probe file that is removed at once.
    """
    try:
        if path.exists():
            if path.is_dir() != directory:
                return f"{path} is {'not a directory' if directory else 'a directory'}"
            if directory:
                return _probe(path)
            with path.open("ab"):
                return None
        holder = next((p for p in path.parents if p.exists()), Path("."))
        if not holder.is_dir():
            return f"{holder} is a file, not a directory"
        return _probe(holder)
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"


def _probe(directory: Path) -> str | None:
    """Why no file can be created in ``directory``, or None (the probe file is removed)."""
    try:
        fd, name = tempfile.mkstemp(dir=directory, prefix=".icl-aif-write-check-")
    except OSError as exc:
        return f"cannot write in {directory}: {exc.strerror or exc}"
    os.close(fd)
    os.unlink(name)
    return None
