"""Games in worker processes of this machine: ``icl-aif run --executor processes --workers N``.

One Python process plays games on one core: at high concurrency against fast models the event
loop, not the network, is what a run waits on (``bench/throughput.py``). :class:`ProcessExecutor`
starts ``workers`` processes (one per core by default); each runs its own event loop and plays
every game the driver sends it, as many at once as the driver sends, exactly as the local executor
would (:func:`icl_aif.run.play.play_here`), and sends back its lines, validated and serialised
(:func:`icl_aif.run.play.play_here_recorded`). The driver keeps scheduling (``concurrency`` games in
flight in all), sends each game to the least busy worker, and appends every game's lines the
moment it comes back, so the run directory, records and summary are those of the local executor.

Messages go over two pipes per worker (games out, results back), read by the event loops
(``add_reader``): no polling. A cell's config goes to a worker once; a game is then a message of a
few bytes, so the driver never waits on a full pipe while a worker sends it a result.

Workers are forked when this process has no other thread and no running event loop (they start
in milliseconds and share the imported code), else spawned (each imports the package, about a
second): :meth:`ProcessExecutor.start` before ``asyncio.run`` forks, a replacement worker is
spawned.

Rate limits: each worker holds ``1 / workers`` of every provider's allowance
(:func:`icl_aif.models.limits.set_process_share`), so all of them together stay within it; a worker
that is busier than the others does not borrow the others' share (Ray's executor shares one
set of buckets instead).

A worker that dies (killed, out of memory) is started again and its games in flight are sent
again, at most :data:`MAX_TRIES` times per game: every game derives its randomness from the
seed, so a replayed game is the game it would have been. A game that kills its worker every
time stops the run (:class:`WorkerError`), which ``--resume`` continues.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import signal
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

from icl_aif.config.experiment import Cell
from icl_aif.core.errors import UsageError
from icl_aif.models import limits
from icl_aif.records.writer import GameLines

logger = logging.getLogger(__name__)

MAX_TRIES = 3
"""Times a game is sent to a worker before a worker death stops the run."""


class WorkerError(RuntimeError):
    """A worker process failed a game: it died on it :data:`MAX_TRIES` times, or raised."""


# --- in a worker process ---------------------------------------------------------------------


def serve(
    jobs: Connection, results: Connection, workers: int, inherited: Sequence[int] = ()
) -> None:
    """The body of a worker process: play the games the driver sends on ``jobs`` until it sends
    None, each game's result going back on ``results``.

    ``inherited`` are the driver's ends of the pipes, which a forked worker holds copies of: they
    are closed first, so that the driver's death closes every pipe and its workers leave.
    """
    for fd in inherited:
        with contextlib.suppress(OSError):
            os.close(fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the driver's SIGTERM handler is not ours
    limits.set_process_share(1 / workers)
    asyncio.run(_serve(jobs, results))


def _watch(loop: asyncio.AbstractEventLoop, conn: Connection, callback: Any, *args: Any) -> None:
    """Call ``callback(*args)`` whenever ``conn`` has data. The pipe stays blocking: a reader
    takes whole messages, and some event loops (uvloop) make the descriptors they watch
    non-blocking, which would cut a long message short."""
    loop.add_reader(conn.fileno(), callback, *args)
    os.set_blocking(conn.fileno(), True)


async def _serve(jobs: Connection, results: Connection) -> None:
    from icl_aif.run import play  # play.play_here looked up at each game: tests replace it
    from icl_aif.run.collector import fewer_collections

    loop = asyncio.get_running_loop()
    closed = asyncio.Event()
    games: set[asyncio.Task[GameLines]] = set()
    cells: dict[int, Cell] = {}

    def reply(job: int, task: asyncio.Task[GameLines]) -> None:
        games.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        try:
            if error is None:
                try:
                    results.send((job, True, task.result()))
                    return
                except (BrokenPipeError, OSError):
                    raise
                except Exception as unsendable:  # a result pickle cannot carry
                    error = unsendable
            results.send((job, False, f"{type(error).__name__}: {error}"))
        except (BrokenPipeError, OSError):  # the driver is gone
            closed.set()

    def receive() -> None:
        try:
            message = jobs.recv()
        except (EOFError, OSError):
            message = None
        if message is None:  # the driver closed the pool, or died
            loop.remove_reader(jobs.fileno())
            closed.set()
            return
        if message[0] == "cell":  # a cell's config, sent once before its first game
            cells[message[1]] = message[2]
            return
        _, job, key, index = message
        task = loop.create_task(play.play_here_recorded(cells[key], index))
        games.add(task)
        task.add_done_callback(functools.partial(reply, job))

    with fewer_collections():
        _watch(loop, jobs, receive)
        await closed.wait()
        for task in list(games):
            task.cancel()


# --- in the driver ---------------------------------------------------------------------------


@dataclass
class _Worker:
    number: int
    process: BaseProcess
    jobs: Connection  # the driver writes games here
    results: Connection  # and reads what the worker sends back here
    games: dict[int, tuple[Cell, int]] = field(default_factory=dict)  # games in flight
    cells: set[int] = field(default_factory=set)  # keys of the cells it has been sent


class ProcessExecutor:
    """Plays games in ``workers`` local processes; see the module docstring."""

    name = "processes"

    def __init__(self, workers: int | None = None, *, start_method: str | None = None) -> None:
        if workers is not None and workers < 1:
            raise UsageError(f"--workers must be at least 1, got {workers}")
        self.workers = workers or os.cpu_count() or 1
        self.start_method = start_method  # fork or spawn; None: fork where it is safe
        self._pool: list[_Worker] = []
        self._futures: dict[int, asyncio.Future[GameLines]] = {}
        self._tries: dict[int, int] = {}
        self._cells: dict[int, Cell] = {}
        self._jobs = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self.restarts = 0

    def start(self) -> None:
        """Start the worker processes; idempotent."""
        if self._pool:
            return
        logger.info("starting %d worker processes", self.workers)
        self._pool = [self._spawn(number) for number in range(self.workers)]

    @property
    def pids(self) -> list[int | None]:
        """The worker processes' ids (empty before :meth:`start`)."""
        return [worker.process.pid for worker in self._pool]

    def _spawn(self, number: int) -> _Worker:
        method = self.start_method or ("fork" if _can_fork() else "spawn")
        context: Any = multiprocessing.get_context(method)
        jobs_in, jobs_out = context.Pipe(duplex=False)
        results_in, results_out = context.Pipe(duplex=False)
        theirs = [c for w in self._pool for c in (w.jobs, w.results) if not c.closed]
        inherited = (
            [c.fileno() for c in (jobs_out, results_in, *theirs)] if method == "fork" else []
        )
        process: BaseProcess = context.Process(
            target=serve,
            args=(jobs_in, results_out, self.workers, inherited),
            name=f"icl-aif-worker-{number}",
            daemon=True,
        )
        process.start()
        jobs_in.close()
        results_out.close()
        return _Worker(number=number, process=process, jobs=jobs_out, results=results_in)

    async def play(self, cell: Cell, index: int) -> GameLines:
        """Game ``index`` of ``cell``, played by the least busy worker."""
        if cell.config.needs_person:
            raise UsageError("a game with a person runs in this process: drop --executor")
        self.start()
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new event loop (a new asyncio.run): read the pipes on it
            self._loop = loop
            for worker in self._pool:
                _watch(loop, worker.results, self._receive, worker)
        self._jobs += 1
        job = self._jobs
        future: asyncio.Future[GameLines] = loop.create_future()
        self._futures[job] = future
        self._tries[job] = 0
        try:
            self._send(job, cell, index)
            return await future
        finally:
            self._futures.pop(job, None)
            self._tries.pop(job, None)
            for worker in self._pool:
                worker.games.pop(job, None)

    def _send(self, job: int, cell: Cell, index: int) -> None:
        self._tries[job] += 1
        worker = min(self._pool, key=lambda w: len(w.games))
        worker.games[job] = (cell, index)
        key = id(cell)
        self._cells[key] = cell  # held for the executor's life: an id is never reused for another
        if key not in worker.cells:  # configs travel once: a game's message stays tiny
            worker.jobs.send(("cell", key, cell))
            worker.cells.add(key)
        worker.jobs.send(("game", job, key, index))

    def _receive(self, worker: _Worker) -> None:
        try:
            job, ok, payload = worker.results.recv()
        except Exception as exc:  # EOF: the worker died; anything else: its pipe is unreadable
            if not isinstance(exc, (EOFError, OSError)):
                logger.warning("worker %d sent an unreadable message: %s", worker.number, exc)
                worker.process.kill()
            try:
                self._replace(worker)
            except Exception as failed:  # no new worker: its games fail, the run stops
                for job in worker.games:
                    future = self._futures.get(job)
                    if future is not None and not future.done():
                        future.set_exception(WorkerError(f"cannot replace worker: {failed}"))
            return
        worker.games.pop(job, None)
        future = self._futures.get(job)
        if future is None or future.done():
            return
        if ok:
            future.set_result(payload)
        else:
            future.set_exception(WorkerError(f"worker {worker.number}: {payload}"))

    def _replace(self, dead: _Worker) -> None:
        """Start a new worker in place of ``dead`` and send its games in flight again."""
        assert self._loop is not None
        self._loop.remove_reader(dead.results.fileno())
        dead.jobs.close()
        dead.results.close()
        dead.process.join(timeout=1)
        code = dead.process.exitcode
        logger.warning("worker %d died (exit code %s); starting another", dead.number, code)
        fresh = self._spawn(dead.number)
        self._pool[self._pool.index(dead)] = fresh
        self.restarts += 1
        _watch(self._loop, fresh.results, self._receive, fresh)
        for job, (cell, index) in dead.games.items():
            future = self._futures.get(job)
            if future is None or future.done():
                continue
            if self._tries[job] >= MAX_TRIES:
                future.set_exception(
                    WorkerError(
                        f"game {index} killed its worker process {MAX_TRIES} times "
                        f"(last exit code {code})"
                    )
                )
                continue
            self._send(job, cell, index)

    def close(self) -> None:
        """Stop the workers (games still in flight are abandoned)."""
        for worker in self._pool:
            if self._loop is not None and not self._loop.is_closed():
                self._loop.remove_reader(worker.results.fileno())
            with contextlib.suppress(BrokenPipeError, OSError):
                worker.jobs.send(None)
        for worker in self._pool:
            worker.process.join(timeout=5)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(timeout=5)
            worker.jobs.close()
            worker.results.close()
        self._pool = []
        self._loop = None


def _can_fork() -> bool:
    """Fork only where it is safe: on Linux, from a process with no other thread and outside a
    running event loop (a replacement worker is spawned)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return (
            "fork" in multiprocessing.get_all_start_methods()
            and os.uname().sysname == "Linux"
            and threading.active_count() == 1
        )
    return False
