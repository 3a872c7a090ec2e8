"""Shared helpers for the test suite (all offline)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import pytest

from icl_aif.config import ExperimentConfig, load_config
from icl_aif.records import read_games
from icl_aif.runner import RunResult, run_experiment

ROOT = Path(__file__).resolve().parents[1]
CLI_HOME = (
    Path(tempfile.gettempdir()) / "icl-aif-test-home"
)  # nothing a CLI run caches lands in ROOT


def cli_env(columns: int = 100, **extra: str) -> dict[str, str]:
    """A clean environment for ``icl-aif`` subprocesses: no keys, a fixed width, a home outside
    the source tree (matplotlib writes its font cache there)."""
    CLI_HOME.mkdir(exist_ok=True)
    return {
        "PATH": "/usr/bin:/bin",
        "COLUMNS": str(columns),
        "HOME": str(CLI_HOME),
        "MPLCONFIGDIR": str(CLI_HOME / "matplotlib"),
        **extra,
    }


QUICKSTART = ROOT / "experiments" / "quickstart.yaml"


def run(config: ExperimentConfig, directory: Path, **options: Any) -> RunResult:
    """Play an experiment synchronously (``options`` go to :func:`run_experiment`)."""
    return asyncio.run(run_experiment(config, directory, **options))


def quickstart(*overrides: str) -> ExperimentConfig:
    """The quickstart config with overrides."""
    return load_config(QUICKSTART, list(overrides))


def games_without_times(directory: Path) -> list[dict[str, Any]]:
    """games.jsonl with the timestamps removed."""
    games = read_games(directory)
    for game in games:
        game.pop("started_at")
        game.pop("finished_at")
    return games


@pytest.fixture
def small_run(tmp_path: Path) -> RunResult:
    """A finished quickstart run of 6 runs x 3 rounds."""
    return run(quickstart("runs=6", "rounds=3", "concurrency=3"), tmp_path / "run")
