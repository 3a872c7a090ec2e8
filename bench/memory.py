"""Memory a game: the resident memory of a long run, sampled as it plays, and its slope.

Plays ``--games`` games of an experiment (the quickstart by default: the scripted simulators, 5
rounds) exactly as ``icl-aif run`` does (:func:`icl_aif.run.runner.run_experiment`, records written
to a temporary directory) and reads the resident set size (``VmRSS`` of ``/proc/PID/status``)
every ``--every`` recorded games: of this process (the driver) and, with ``--executor
processes``, of each worker process. Prints one sample a line, then the slopes in KB a game,
fitted by least squares to the samples after the first ``--warmup`` games (caches, arenas and
the interpreter's own pools fill up there):

- ``driver_kb_per_game``: this process;
- ``workers_kb_per_game``: the workers' resident sizes summed (with ``--executor processes``);
- ``memory_kb_per_game``: everything together, the last line: what a run's memory grows by with
  each game it plays. Flat memory prints a figure near 0.

The run stops once ``--games`` games are recorded (the run is cancelled, as by Ctrl-C), so no
summary is computed and the records are not sorted: only the playing is measured.

    python bench/memory.py                                   # 20,000 quickstart games, one process
    python bench/memory.py --executor processes --workers 2  # games in 2 worker processes
    python bench/memory.py --games 5000 --every 250 --warmup 1000
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.engine.configs import load_config
from icl_aif.run.processes import ProcessExecutor
from icl_aif.testing.memory import memory_kib

QUICKSTART = Path(__file__).resolve().parents[1] / "experiments" / "quickstart.yaml"


@dataclass(frozen=True)
class Sample:
    """Resident memory after ``games`` recorded games, in KB."""

    games: int
    seconds: float
    driver_kb: int
    workers_kb: tuple[int, ...]

    @property
    def total_kb(self) -> int:
        """The driver's and the workers' resident sizes together."""
        return self.driver_kb + sum(self.workers_kb)


def rss_kb(pid: int | str = "self") -> int:
    """The resident set size of process ``pid`` in KB (``VmRSS``; 0 for a process gone)."""
    return memory_kib(pid).get("VmRSS", 0)


def slope(points: list[tuple[int, int]]) -> float:
    """The least-squares slope of ``(x, y)`` points (0 with fewer than two distinct x)."""
    if len({x for x, _ in points}) < 2:
        return 0.0
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def bench_config(path: Path, games: int, overrides: list[str]) -> ExperimentConfig:
    """The experiment at ``path`` with the overrides and more runs than ``games``: the run is
    stopped while games are still being played, never at its end."""
    return load_config(path, [*overrides, f"runs={2 * games}"])


def measure(
    config: ExperimentConfig, games: int, every: int, executor: ProcessExecutor | None
) -> list[Sample]:
    """Play ``config`` until ``games`` games are recorded; the samples taken on the way."""
    samples: list[Sample] = []
    started = time.perf_counter()
    recorded = 0

    def sample() -> None:
        pids = [pid for pid in (executor.pids if executor else []) if pid]
        samples.append(
            Sample(
                games=recorded,
                seconds=time.perf_counter() - started,
                driver_kb=rss_kb(),
                workers_kb=tuple(rss_kb(pid) for pid in pids),
            )
        )
        print(_sample_line(samples[-1]), flush=True)

    async def play(directory: Path) -> None:
        enough = asyncio.Event()

        def progress(n: int) -> None:
            nonlocal recorded
            recorded += n
            if recorded % every == 0 or recorded >= games:
                if not enough.is_set():
                    sample()
                if recorded >= games:
                    enough.set()

        run = asyncio.create_task(
            run_experiment(
                config,
                directory,
                probe_models=False,
                executor=executor,
                progress=progress,
                summarize=_no_summary,
            )
        )
        waiting = asyncio.create_task(enough.wait())
        await asyncio.wait({run, waiting}, return_when=asyncio.FIRST_COMPLETED)
        waiting.cancel()
        if not run.done():
            run.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await run

    with tempfile.TemporaryDirectory() as tmp:
        sample()
        asyncio.run(play(Path(tmp) / "run"))
    return samples


def _no_summary(*_: Any) -> tuple[dict[str, Any], str]:
    return {}, ""


def _sample_line(sample: Sample) -> str:
    workers = ",".join(f"{kb / 1024:.1f}" for kb in sample.workers_kb)
    line = (
        f"games={sample.games} seconds={sample.seconds:.0f} "
        f"driver_rss_mb={sample.driver_kb / 1024:.1f}"
    )
    return line + (f" workers_rss_mb={workers}" if workers else "")


def main() -> None:
    """Parse the flags, play the games, print the samples and the slopes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000, help="games to play")
    parser.add_argument("--config", type=Path, default=QUICKSTART, help="the experiment")
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], help="a config override, a.b=c"
    )
    parser.add_argument("--executor", choices=("local", "processes"), default="local")
    parser.add_argument("--workers", type=int, default=None, help="worker processes (processes)")
    parser.add_argument("--every", type=int, default=500, help="games between samples")
    parser.add_argument("--warmup", type=int, default=2000, help="games left out of the slope")
    args = parser.parse_args()
    if not Path("/proc/self/status").is_file():
        sys.exit("error: bench/memory.py reads /proc/PID/status: run it on Linux")
    if args.warmup + 2 * args.every > args.games:
        sys.exit("error: --games must leave at least two samples after --warmup")
    config = bench_config(args.config, args.games, args.overrides)
    executor = ProcessExecutor(args.workers) if args.executor == "processes" else None
    try:
        if executor is not None:
            executor.start()  # before the event loop: the workers are forked
        samples = measure(config, args.games, args.every, executor)
    finally:
        if executor is not None:
            executor.close()
    fitted = [s for s in samples if s.games >= args.warmup]
    print(f"executor: {args.executor}")
    print(f"games: {samples[-1].games}")
    print(f"seconds: {samples[-1].seconds:.0f}")
    print(f"driver_rss_mb: {samples[0].driver_kb / 1024:.1f} -> {samples[-1].driver_kb / 1024:.1f}")
    print(f"driver_kb_per_game={slope([(s.games, s.driver_kb) for s in fitted]):.3f}")
    if executor is not None:
        workers = [(s.games, sum(s.workers_kb)) for s in fitted]
        print(f"workers_kb_per_game={slope(workers):.3f}")
    print(f"memory_kb_per_game={slope([(s.games, s.total_kb) for s in fitted]):.3f}")


if __name__ == "__main__":
    main()
