"""The run directory: the interface users and other tools script against (schema in docs/records.md).

```
runs/<name>-<timestamp>/
  config.yaml     the config as resolved (overrides applied)
  manifest.json   versions, git commit, prompt hashes, seed, model ids, times
  games.jsonl     one object per finished run, appended the moment it finishes
  calls.jsonl     one object per model call, written when its run finishes
  summary.json    per-round metrics
  summary.md      the same as a Markdown table
```
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import subprocess
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from icl_aif.config import ExperimentConfig, config_to_yaml
from icl_aif.errors import UsageError

GAMES = "games.jsonl"
CALLS = "calls.jsonl"
MANIFEST = "manifest.json"
SUMMARY = "summary.json"
SUMMARY_MD = "summary.md"
CONFIG = "config.yaml"

_PACKAGES = ("icl-aif", "langgraph", "langchain-core", "pydantic", "numpy")


def now() -> str:
    """The current UTC time in ISO 8601."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def default_run_dir(config: ExperimentConfig, root: Path = Path("runs")) -> Path:
    """``runs/<name>-<timestamp>``."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return root / f"{config.name}-{stamp}"


def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages a result depends on."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_state(path: Path) -> dict[str, Any]:
    """The git commit of the source tree (and whether it had uncommitted changes), if any."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True, timeout=5
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=path, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    if commit.returncode != 0:
        return {"commit": None, "dirty": None}
    return {"commit": commit.stdout.strip(), "dirty": bool(dirty.stdout.strip())}


def hash_files(root: Path) -> dict[str, str]:
    """SHA-256 of every file below ``root``, keyed by relative path."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


class RunWriter:
    """Writes one run directory; every finished game is on disk before the next one is written."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._games: IO[str] | None = None
        self._calls: IO[str] | None = None
        self.manifest: dict[str, Any] = {}

    def check_new(self) -> None:
        """Refuse a directory that already holds a run (two runs must never mix)."""
        if (self.directory / GAMES).exists():
            raise UsageError(
                f"{self.directory} already holds a run; choose another --out directory"
            )

    def create(self, config: ExperimentConfig, manifest: dict[str, Any]) -> None:
        """Make the directory and write the config and the manifest; refuse to mix two runs."""
        self.check_new()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            (self.directory / CONFIG).write_text(config_to_yaml(config), encoding="utf-8")
        except OSError as exc:
            raise UsageError(
                f"cannot write the run directory {self.directory}: {exc.strerror}"
            ) from None
        self.manifest = manifest
        self.write_manifest()
        self._games = (self.directory / GAMES).open("a", encoding="utf-8")
        self._calls = (self.directory / CALLS).open("a", encoding="utf-8")

    def write_manifest(self) -> None:
        """(Re)write ``manifest.json`` atomically."""
        _write_atomic(self.directory / MANIFEST, json.dumps(self.manifest, indent=2) + "\n")

    def append_game(self, game: dict[str, Any], calls: Iterable[dict[str, Any]]) -> None:
        """Append one finished run and its model calls, flushed to disk."""
        assert self._games is not None and self._calls is not None, "create() first"
        self._calls.write("".join(_line(c) for c in calls))
        self._calls.flush()
        self._games.write(_line(game))
        self._games.flush()
        os.fsync(self._games.fileno())

    def finish(self, summary: dict[str, Any], summary_md: str) -> None:
        """Sort the records by game id, write the summaries and close the files."""
        self.close()
        for name in (GAMES, CALLS):
            path = self.directory / name
            rows = list(read_jsonl(path))
            rows.sort(key=record_order)  # stable: calls keep their order, arms theirs
            _write_atomic(path, "".join(_line(r) for r in rows))
        _write_atomic(self.directory / SUMMARY, json.dumps(summary, indent=2) + "\n")
        _write_atomic(self.directory / SUMMARY_MD, summary_md)

    def close(self) -> None:
        """Close the open record files."""
        for handle in (self._games, self._calls):
            if handle is not None and not handle.closed:
                handle.close()


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of a JSONL file."""
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def read_games(directory: Path) -> list[dict[str, Any]]:
    """All finished runs of a run directory, ordered by sweep cell and game id (a game's arms
    in the order of the config)."""
    path = directory / GAMES
    if not path.is_file():
        raise UsageError(f"{directory}: no {GAMES} here; is this a run directory?")
    return sorted(read_jsonl(path), key=record_order)


def record_order(record: dict[str, Any]) -> tuple[str, str]:
    """Sort key of ``games.jsonl`` and ``calls.jsonl`` lines: the sweep cell, then the game id."""
    return (str(record.get("cell") or ""), str(record.get("game_id", "")))


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from disk, or a one-line error naming the file."""
    if not path.is_file():
        raise UsageError(f"{path}: no such file; is {path.parent} a run directory?")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def base_manifest(
    config: ExperimentConfig, prompts_root: Path, overrides: list[str], config_file: str | None
) -> dict[str, Any]:
    """The manifest as written when a run starts."""
    from icl_aif import __version__

    roles = config.roles
    prompts = {f"prompts/{k}": v for k, v in hash_files(prompts_root).items()}
    if config.feedback.pool is not None and config.feedback.pool.is_file():
        prompts[str(config.feedback.pool)] = hashlib.sha256(
            config.feedback.pool.read_bytes()
        ).hexdigest()
    examples = roles.moderator.examples
    if roles.moderator.uses_model and examples is not None and examples.is_file():
        prompts[str(examples)] = hashlib.sha256(examples.read_bytes()).hexdigest()
    return {
        "name": config.name,
        "icl_aif_version": __version__,
        "versions": package_versions(),
        "git": git_state(Path(__file__).resolve().parent),
        "platform": platform.platform(),
        "config_file": config_file,
        "overrides": overrides,
        "seed": config.seed,
        "runs": config.runs,
        "rounds": config.rounds,
        "improve": config.improve,
        "models": {
            "seller": "person" if config.person == "seller" else roles.seller.model,
            "buyer": "person" if config.person == "buyer" else roles.buyer.model,
            "critic": roles.critic.model if config.feedback.source == "ai" else None,
            "moderator": roles.moderator.mode,
            "moderator_model": roles.moderator.model if roles.moderator.uses_model else None,
        },
        "feedback": {
            "source": config.feedback.source,
            "suggestions": config.feedback.suggestions,
            "constraints": list(config.feedback.constraints),
        },
        "context": {
            "mode": config.context,
            "last_rounds": config.last_rounds if config.context == "last_rounds" else None,
        },
        "person": config.person,
        "prompts": prompts,
        "started_at": now(),
        "finished_at": None,
        "status": "running",
    }


def _line(obj: dict[str, Any]) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
