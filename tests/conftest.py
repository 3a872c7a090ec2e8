"""Shared helpers for the test suite (all offline)."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.engine.configs import config_from_dict, load_config
from icl_aif.games.base import Measure
from icl_aif.games.registry import measure_of
from icl_aif.records.reader import read_games, read_json, read_jsonl
from icl_aif.run.runner import RunResult

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


CLI = Path(sys.executable).parent / "icl-aif"
"""The ``icl-aif`` script of the environment the tests run in."""


def icl_aif(
    *args: str | Path,
    cwd: Path = ROOT,
    columns: int = 100,
    env: dict[str, str] | None = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess[str]:
    """``icl-aif ARGS`` in a subprocess, as a user runs it, in a clean environment
    (:func:`cli_env` of ``columns`` with ``env`` added); its output captured as text."""
    return subprocess.run(
        [str(CLI), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=cli_env(columns, **(env or {})),
    )


QUICKSTART = ROOT / "experiments" / "quickstart.yaml"
PRICE_MEASURE: Measure = measure_of(config_from_dict({"game": "price"}, "tests"))
"""The price game's measure, the deal price (what the tests of hand-written price games read)."""


def run(config: ExperimentConfig, directory: Path, **options: Any) -> RunResult:
    """Play an experiment synchronously (``options`` go to :func:`run_experiment`)."""
    return asyncio.run(run_experiment(config, directory, **options))


def resume_without_first_game(run_dir: Path, out: Path) -> None:
    """Copy the run in ``run_dir`` to ``out`` without its first game's line (as a kill loses
    it) and resume it there: the game is played again."""
    from icl_aif.run.resume import resume_config

    shutil.copytree(run_dir, out)
    games = (out / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "games.jsonl").write_text("".join(games[1:]))
    run(resume_config(out), out, resume=True)


def quickstart(*overrides: str) -> ExperimentConfig:
    """The quickstart config with overrides."""
    return load_config(QUICKSTART, list(overrides))


def make_package(
    root: Path,
    module: str,
    source: str,
    entry_points: dict[str, str],
    version: str = "0.1",
    group: str = "icl_aif.providers",
) -> None:
    """A package importable from ``root``: ``module.py`` and ``NAME-VERSION.dist-info`` whose
    ``entry_points.txt`` declares ``entry_points`` in ``group``."""
    (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = root / f"{module}-{version}.dist-info"
    info.mkdir()
    name = module.replace("_", "-")
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = [f"{key} = {value}" for key, value in entry_points.items()]
    (info / "entry_points.txt").write_text(
        f"[{group}]\n" + "\n".join(lines) + "\n", encoding="utf-8"
    )


EXECUTOR_DESIGNS = pytest.mark.parametrize(
    "overrides",
    [
        ("runs=6", "rounds=3", "concurrency=3"),
        # a sweep of two cells, each with paired feedback arms
        ("runs=3", "rounds=2", "concurrency=2", "improve=[seller,buyer]", "arms=[ai,none]"),
    ],
    ids=["plain", "sweep-arms"],
)
"""The designs on which an executor must write what the local executor writes."""

TIMING_KEYS = ("latency_s", "limit_wait_s")


def calls_without_timing(directory: Path) -> list[dict[str, Any]]:
    """calls.jsonl without the keys that measure time."""
    rows = list(read_jsonl(directory / "calls.jsonl"))
    for row in rows:
        for key in TIMING_KEYS:
            row.pop(key, None)
    return rows


def assert_same_records(directory: Path, reference: Path) -> None:
    """Two runs wrote the same games, calls and summary (times aside)."""
    assert games_without_times(directory) == games_without_times(reference)
    assert calls_without_timing(directory) == calls_without_timing(reference)
    assert read_json(directory / "summary.json") == read_json(reference / "summary.json")


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


CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
CHROMIUM_INSTALL = (
    "apt-get install -y chromium chromium-driver (make test does it when run as root)"
)


@contextmanager
def headless_chromium(profile: Path, window: str = "1280,1000") -> Iterator[Any]:
    """Headless Chromium driven by chromedriver, with its profile in ``profile``; skips, saying
    what to install, without them. Nothing leaves the machine: no Selenium Manager download, no
    background networking."""
    if not CHROMIUM.is_file() or not CHROMEDRIVER.is_file():
        pytest.skip(f"headless Chromium not installed: {CHROMIUM_INSTALL}")
    webdriver = pytest.importorskip("selenium.webdriver", reason="pip install -e '.[dev]'")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        f"--user-data-dir={profile}",
        f"--window-size={window}",
    ):
        options.add_argument(flag)
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager download a driver
    driver = webdriver.Chrome(options=options, service=Service(str(CHROMEDRIVER)))
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def servers() -> Iterator[list[Any]]:
    """Server subprocesses a test starts (each with its ``process``): any still running at the
    test's end is killed."""
    started: list[Any] = []
    yield started
    for server in started:
        if server.process.poll() is None:
            server.process.kill()
            server.process.wait(timeout=30)
