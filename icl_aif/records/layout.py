"""The run directory: the interface users and other tools script against (schema in docs/records.md).

```
runs/<name>-<timestamp>/
  config.yaml     the config as resolved (overrides applied)
  manifest.json   versions, git commit, prompt hashes, seed, model ids, times
  games.jsonl     one object per finished run, appended the moment it finishes
  calls.jsonl     one object per model call, written when its run finishes
  summary.json    per-round metrics
  summary.md      the same as a Markdown table
  .lock           held (flock) by the process writing the run
```

This module names the files and the order of a run's games; :mod:`~icl_aif.records.writer`
writes them and :mod:`~icl_aif.records.reader` reads them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from icl_aif.config.experiment import ExperimentConfig

GAMES = "games.jsonl"
CALLS = "calls.jsonl"
MANIFEST = "manifest.json"
SUMMARY = "summary.json"
SUMMARY_MD = "summary.md"
CONFIG = "config.yaml"
LOCK = ".lock"
GameKey = tuple[str | None, str]
"""A game of a run directory: its sweep cell (None without a sweep) and its game id."""


def now() -> str:
    """The current UTC time in ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def default_run_dir(config: ExperimentConfig, root: Path = Path("runs")) -> Path:
    """``runs/<name>-<timestamp>``."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return root / f"{config.name}-{stamp}"


def game_key(record: dict[str, Any]) -> GameKey:
    """The game a ``games.jsonl`` or ``calls.jsonl`` line belongs to."""
    return (record.get("cell"), str(record.get("game_id")))


def record_order(record: dict[str, Any]) -> tuple[str, str]:
    """Sort key of ``games.jsonl`` and ``calls.jsonl`` lines: the sweep cell, then the game id."""
    return (str(record.get("cell") or ""), str(record.get("game_id", "")))
