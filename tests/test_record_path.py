"""The record path (issue 15): games reach the driver as their lines, made wherever they were
played; the driver appends them in batches, each game on disk before it is counted and before
any later game's line is written."""

from __future__ import annotations

import asyncio
import errno
import os
import re
from pathlib import Path
from typing import Any

import pytest

from icl_aif.config.experiment import Cell
from icl_aif.records import writer
from icl_aif.records.writer import GameLines, _GroupCommit
from icl_aif.run.play import play_here_recorded
from icl_aif.run.processes import ProcessExecutor
from tests.conftest import EXECUTOR_DESIGNS, assert_same_records, quickstart, run

_TIMING = re.compile(rb'"(started_at|finished_at|latency_s|limit_wait_s)":("[^"]*"|[0-9.eE+-]+)')


def lines_without_timing(path: Path) -> list[bytes]:
    """The lines of a record file, byte for byte but for the values that measure time."""
    return [_TIMING.sub(rb'"\1":0', line) for line in path.read_bytes().splitlines()]


@EXECUTOR_DESIGNS
def test_worker_processes_write_the_bytes_of_the_local_executor(
    tmp_path: Path, overrides: tuple[str, ...]
) -> None:
    config = quickstart(*overrides)
    local = run(config, tmp_path / "local").directory
    executor = ProcessExecutor(2, start_method="fork")
    try:
        executor.start()
        remote = run(config, tmp_path / "processes", executor=executor).directory
    finally:
        executor.close()
    for name in ("games.jsonl", "calls.jsonl"):  # key order and number formats included
        assert lines_without_timing(remote / name) == lines_without_timing(local / name)


class _FileOps:
    """Every write and fsync of the run's record files, with the games whose lines each write
    carries, and every game the run counted, in the order they happened (the writes come from
    the writer's thread)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events: list[tuple[str, str, list[str]]] = []
        real_write, real_fsync = os.write, os.fsync

        def write(fd: int, data: Any) -> int:
            written = real_write(fd, data)
            self._note(fd, "write", _GAME_ID.findall(bytes(data[:written])))
            return written

        def fsync(fd: int) -> None:
            real_fsync(fd)
            self._note(fd, "fsync", [])

        monkeypatch.setattr(os, "write", write)
        monkeypatch.setattr(os, "fsync", fsync)

    def _note(self, fd: int, op: str, games: list[bytes]) -> None:
        name = Path(os.readlink(f"/proc/self/fd/{fd}")).name
        if name in ("games.jsonl", "calls.jsonl"):
            self.events.append((name, op, [game.decode() for game in games]))

    def counted(self, _: int) -> None:
        self.events.append(("run", "counted", []))


_GAME_ID = re.compile(rb'^\{"game_id":"([^"]+)"', re.MULTILINE)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="names open files through /proc")
def test_a_game_is_on_disk_before_it_is_counted_and_before_the_next_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ops = _FileOps(monkeypatch)
    run(quickstart("runs=6", "rounds=2", "concurrency=3"), tmp_path / "run", progress=ops.counted)
    written: dict[str, list[str]] = {"games.jsonl": [], "calls.jsonl": []}  # not fsync'ed yet
    durable: dict[str, set[str]] = {"games.jsonl": set(), "calls.jsonl": set()}
    counted = 0
    for name, op, games in ops.events:
        if op == "write" and name == "games.jsonl":
            assert set(games) <= durable["calls.jsonl"], "a game's line before its calls' fsync"
            assert not written[name], "a game's line before the last one's fsync"
        if op == "write":
            written[name] += games
        if op == "fsync":
            durable[name].update(written[name])
            written[name] = []
        if op == "counted":
            counted += 1
            assert counted <= len(durable["games.jsonl"]), "a game counted before its fsync"
    assert counted == len(durable["games.jsonl"]) == 6


class _Prerecorded:
    """An executor whose games were played before the run: each comes back at once."""

    name = "prerecorded"

    def __init__(self, games: dict[tuple[str | None, int], GameLines]) -> None:
        self.games = games

    def start(self) -> None:
        """Nothing to start."""

    async def play(self, cell: Cell, index: int) -> GameLines:
        return self.games[cell.id, index]

    def close(self) -> None:
        """Nothing to close."""


def test_games_that_finish_together_are_written_in_one_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = quickstart("runs=8", "rounds=2", "concurrency=4", "arms=[ai,none]")

    async def play_all() -> dict[tuple[str | None, int], GameLines]:
        return {
            (cell.id, index): await play_here_recorded(cell, index)
            for cell in config.cells()
            for index in range(config.runs)
        }

    executor = _Prerecorded(asyncio.run(play_all()))
    reference = run(config, tmp_path / "reference").directory
    syncs: list[str] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (syncs.append("fsync"), real_fsync(fd))[1])
    batched = run(config, tmp_path / "batched", executor=executor).directory
    assert len(syncs) < 2 * config.runs  # a pair of fsyncs per batch, not per game
    assert_same_records(batched, reference)


def test_nothing_is_appended_after_a_failed_write() -> None:
    written: list[int] = []

    def write(batch: Any) -> None:
        if not written:
            written.append(len(batch))
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(len(batch))  # pragma: no cover - the failure must stop every write

    async def record() -> list[BaseException | None]:
        commit = _GroupCommit(write)
        game = GameLines(b"{}\n", b"")
        first = await asyncio.gather(
            *(commit.append(game) for _ in range(3)), return_exceptions=True
        )
        later = await asyncio.gather(commit.append(game), return_exceptions=True)
        commit.close()
        return [*first, *later]

    outcomes = asyncio.run(record())
    assert written == [3]  # the three games of the failed batch, then nothing
    assert all(isinstance(o, OSError) and o.errno == errno.ENOSPC for o in outcomes)


def test_a_batch_ends_past_batch_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(writer, "BATCH_BYTES", 25)
    batches: list[int] = []

    async def record() -> None:
        commit = _GroupCommit(lambda batch: batches.append(len(batch)))
        game = GameLines(b'{"game_id":"g"}\n', b"{}\n")  # 19 bytes
        await asyncio.gather(*(commit.append(game) for _ in range(5)))
        commit.close()

    asyncio.run(record())
    assert batches == [2, 2, 1]  # each batch takes games until 25 bytes are reached
