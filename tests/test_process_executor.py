"""The process executor: games in worker processes give the records and summary of the local
executor, a killed worker's games are played again, and a game that kills every worker stops
the run with one line."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.settings import RateLimit
from icl_aif.core.errors import UsageError
from icl_aif.models import limits
from icl_aif.records.reader import read_json, read_jsonl
from icl_aif.run import play
from icl_aif.run.processes import MAX_TRIES, ProcessExecutor
from tests.conftest import (
    EXECUTOR_DESIGNS,
    QUICKSTART,
    ROOT,
    assert_same_records,
    cli_env,
    games_without_times,
    quickstart,
    run,
)


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
@EXECUTOR_DESIGNS
def test_workers_write_the_records_and_summary_of_the_local_executor(
    tmp_path: Path, overrides: tuple[str, ...], start_method: str
) -> None:
    config = quickstart(*overrides)
    local = run(config, tmp_path / "local").directory
    executor = ProcessExecutor(2, start_method=start_method)
    try:
        executor.start()
        assert len(set(executor.pids)) == 2
        remote = run(config, tmp_path / "processes", executor=executor).directory
    finally:
        executor.close()
    assert_same_records(local, remote)


def test_a_killed_worker_is_replaced_and_its_games_are_played_again(tmp_path: Path) -> None:
    slow = "chaos:scripted:linear?latency=0.01"
    config = quickstart(
        "runs=8", "rounds=2", "concurrency=8", f"roles.seller.model={slow}", "seed=11"
    )
    local = run(config, tmp_path / "local").directory
    executor = ProcessExecutor(2, start_method="fork")
    recorded: list[int] = []

    async def kill_one_worker_after_the_first_game() -> None:
        while not recorded:
            await asyncio.sleep(0.01)
        os.kill(executor.pids[0] or 0, signal.SIGKILL)

    async def play() -> None:
        killer = asyncio.create_task(kill_one_worker_after_the_first_game())
        await run_experiment(
            config, tmp_path / "processes", executor=executor, progress=recorded.append
        )
        await killer

    try:
        executor.start()
        asyncio.run(play())
    finally:
        executor.close()
    assert executor.restarts == 1
    assert_same_records(local, tmp_path / "processes")


def stopped_run(executor: ProcessExecutor, *, runs: int, directory: Path) -> str:
    """The one-line error of a run (one game at a time) that ``executor`` cannot finish."""
    try:
        executor.start()
        with pytest.raises(UsageError) as raised:
            run(
                quickstart(f"runs={runs}", "rounds=2", "concurrency=1"),
                directory,
                executor=executor,
            )
    finally:
        executor.close()
    return str(raised.value)


def test_a_game_that_kills_every_worker_stops_the_run_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played = play.play_here

    async def deadly(cell: Any, index: int) -> Any:
        if index == 2:
            os._exit(9)  # a worker killed by its game, e.g. out of memory
        return await played(cell, index)

    monkeypatch.setattr(play, "play_here", deadly)  # forked workers inherit it
    executor = ProcessExecutor(2, start_method="fork")
    message = stopped_run(executor, runs=5, directory=tmp_path / "run")
    assert "\n" not in message
    assert f"game 2 killed its worker process {MAX_TRIES} times (last exit code 9)" in message
    assert "the run stopped with 2 of 5 games recorded" in message
    assert f"icl-aif run --resume {tmp_path / 'run'}" in message
    assert executor.restarts == MAX_TRIES
    assert read_json(tmp_path / "run" / "manifest.json")["status"] == "interrupted"
    assert len(list(read_jsonl(tmp_path / "run" / "games.jsonl"))) == 2


def test_a_result_that_cannot_be_sent_stops_the_run_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played = play.play_here

    async def unsendable(cell: Any, index: int) -> Any:
        records, calls = await played(cell, index)
        if index == 1:
            records[0]["oops"] = lambda: None  # pickle cannot carry it
        return records, calls

    monkeypatch.setattr(play, "play_here", unsendable)
    executor = ProcessExecutor(1, start_method="fork")
    message = stopped_run(executor, runs=3, directory=tmp_path / "run")
    assert message.startswith("the executor failed: WorkerError: worker 0: ")
    assert "the run stopped with 1 of 3 games recorded" in message
    assert "\n" not in message and executor.restarts == 0


def test_each_worker_holds_an_equal_share_of_the_rate_limits() -> None:
    async def buckets() -> tuple[float, float]:
        limiter = limits.ProviderLimiter.create(
            "openai", RateLimit(requests_per_minute=60, tokens_per_minute=1000)
        )
        assert limiter.requests is not None and limiter.tokens is not None
        return limiter.requests.max_rate, limiter.tokens.max_rate

    try:
        limits.set_process_share(0.5)
        assert asyncio.run(buckets()) == (30, 500)
    finally:
        limits.set_process_share(1.0)
    assert asyncio.run(buckets()) == (60, 1000)
    with pytest.raises(ValueError, match="a process share is in"):
        limits.set_process_share(0)


def test_icl_aif_run_with_worker_processes(tmp_path: Path) -> None:
    local = run(quickstart("runs=4", "rounds=2"), tmp_path / "local").directory
    out = tmp_path / "run"
    args = ["run", str(QUICKSTART), "--out", str(out), "--no-preflight", "--set", "runs=4"]
    args += ["--set", "rounds=2", "--executor", "processes", "--workers", "2"]
    result = subprocess.run(
        [sys.executable, "-m", "icl_aif.cli.app", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=cli_env(),
    )
    assert result.returncode == 0, result.stderr
    assert games_without_times(out) == games_without_times(local)
    assert read_json(out / "summary.json") == read_json(local / "summary.json")
    assert read_json(out / "manifest.json")["status"] == "finished"
