"""Append-only JSONL files of what annotators submitted, safe against a kill at any moment.

Each line is written whole and flushed to disk before the submission is acknowledged; a reader
skips a last line cut short by a kill (the submission it held was never acknowledged).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["append_line", "read_lines", "transcript_hash"]


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
