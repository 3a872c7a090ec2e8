"""The Ray executor: games as Ray tasks give the records and summary of the local executor.

One local Ray instance (2 CPUs, no dashboard) serves every test of the session.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
from typer.testing import CliRunner

from icl_aif.analysis.experiment import run_experiment
from icl_aif.cli.app import app
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.models import limits
from icl_aif.records.reader import read_json, read_jsonl
from icl_aif.run.executors import RAY_MISSING, RayExecutor, make_executor, play_in_worker
from tests.conftest import (
    EXECUTOR_DESIGNS,
    QUICKSTART,
    ROOT,
    assert_same_records,
    games_without_times,
    quickstart,
    run,
)


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    """A local Ray with 2 CPUs for the whole session (about 3 s to start)."""
    ray.init(num_cpus=2, include_dashboard=False)
    yield
    ray.shutdown()


def run_on_ray(config: ExperimentConfig, directory: Path, executor: RayExecutor) -> Path:
    return asyncio.run(run_experiment(config, directory, executor=executor)).directory


@pytest.mark.parametrize("actors", [None, 2], ids=["tasks", "actors"])
@EXECUTOR_DESIGNS
def test_ray_writes_the_records_and_summary_of_the_local_executor(
    local_ray: None, tmp_path: Path, overrides: tuple[str, ...], actors: int | None
) -> None:
    config = quickstart(*overrides)
    local = run(config, tmp_path / "local").directory
    executor = RayExecutor(actors=actors)
    try:
        remote = run_on_ray(config, tmp_path / "ray", executor)
    finally:
        executor.close()
    assert ray.is_initialized()  # the executor did not start Ray, so it left it running
    assert_same_records(remote, local)
    games = games_without_times(remote)
    assert len(games) == config.runs * len(config.cells()) * len(config.arms or [None])
    assert read_json(remote / "manifest.json")["status"] == "finished"


@pytest.mark.parametrize("actors", [None, 2], ids=["tasks", "actors"])
def test_rate_limits_are_shared_by_every_worker(
    local_ray: None, tmp_path: Path, actors: int | None
) -> None:
    config = quickstart(
        "runs=2", "rounds=1", "concurrency=2", "rate_limits.scripted.requests_per_minute=4"
    )
    # 4 requests per 0.25 s, for both workers
    executor = RayExecutor(limit_period_s=0.25, actors=actors)
    try:
        directory = run_on_ray(config, tmp_path / "run", executor)
        acquired = executor.acquisitions()
    finally:
        executor.close()
    calls = list(read_jsonl(directory / "calls.jsonl"))
    assert {c["game_id"] for c in calls} == {"g00000", "g00001"}
    assert acquired == {"scripted": len(calls)}  # every call of both games asked the one actor
    assert sum(c["limit_wait_s"] for c in calls) > 0  # and waited on the shared buckets
    assert limits._SHARED == []  # the driver itself never used the actor


@pytest.mark.parametrize("options", [(), ("--ray-actors", "2")], ids=["tasks", "actors"])
def test_icl_aif_run_executor_ray(
    local_ray: None, tmp_path: Path, options: tuple[str, ...]
) -> None:
    out = tmp_path / "run"
    args = ["run", str(QUICKSTART), "--out", str(out), "--set", "runs=4", "--set", "rounds=2"]
    result = CliRunner().invoke(app, [*args, "--executor", "ray", "--no-preflight", *options])
    assert result.exit_code == 0, result.output
    local = tmp_path / "local"
    run(quickstart("runs=4", "rounds=2"), local)
    assert games_without_times(out) == games_without_times(local)
    assert read_json(out / "summary.json") == read_json(local / "summary.json")


def test_a_failed_ray_task_stops_the_run_in_one_line(local_ray: None, tmp_path: Path) -> None:
    def fails_on_game_1(cell: Any, index: int, buckets: Any) -> Any:
        """Loses game 1, as a worker that dies past Ray's retries would (pickled by value)."""
        if index == 1:
            raise RuntimeError("worker lost\nwith a second line")
        return play_in_worker(cell, index, buckets)

    executor = RayExecutor()
    try:
        executor.start()
        executor._task = ray.remote(fails_on_game_1).options(num_cpus=1, max_retries=0)
        with pytest.raises(UsageError) as raised:
            run_on_ray(
                quickstart("runs=3", "rounds=2", "concurrency=1"), tmp_path / "run", executor
            )
    finally:
        executor.close()
    assert str(raised.value) == (
        "the executor failed: RuntimeError: worker lost: the run stopped with 1 of 3 games "
        f"recorded; fix it, then continue with: icl-aif run --resume {tmp_path / 'run'}"
    )
    assert read_json(tmp_path / "run" / "manifest.json")["status"] == "interrupted"


def test_executor_names_and_addresses_are_checked() -> None:
    assert make_executor("local") is None
    with pytest.raises(UsageError, match="unknown executor 'dask'; allowed: local, processes, ray"):
        make_executor("dask")
    with pytest.raises(UsageError, match="--ray-address needs --executor ray"):
        make_executor("local", "auto")
    with pytest.raises(UsageError, match="--ray-address needs --executor ray"):
        make_executor("processes", "auto")
    with pytest.raises(UsageError, match="--workers needs --executor processes"):
        make_executor("ray", None, 2)
    with pytest.raises(UsageError, match="--ray-actors needs --executor ray"):
        make_executor("processes", None, None, 2)


NO_RAY = textwrap.dedent(
    """
    import importlib.abc, sys

    class NoRay(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "ray":
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoRay())
    sys.argv = ["icl-aif", *sys.argv[1:]]
    from icl_aif.cli.app import main
    main()
    """
)


def test_without_ray_the_executor_is_one_line_and_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", str(QUICKSTART), "--out", str(out), "--executor", "ray"]
    result = subprocess.run(
        [sys.executable, "-c", NO_RAY, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 2
    assert result.stderr == f"error: {RAY_MISSING}\n"
    assert "pip install 'icl-aif[ray]'" in RAY_MISSING
    assert not out.exists()  # nothing was started or written
