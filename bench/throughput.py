"""How fast the engine plays: wall time against the ideal, calls per second, overhead, memory.

Plays the quickstart experiment with every model a simulator behind ``chaos:...?latency=L`` (each
call sleeps L seconds, standing in for the network) and prints one figure per line:

- ``wall_s``: the experiment's wall time;
- ``ideal_s``: the best a perfect engine could do: calls of a run are sequential and at most
  ``concurrency`` runs are in flight, so the longest run's calls x the latency, or every run's
  calls x the latency / concurrency when that is longer (more runs than slots);
- ``efficiency``: ideal / wall;
- ``calls_per_s``: model calls per second of wall time;
- ``overhead_ms_per_call``: wall time per call of the same experiment at zero latency, i.e. what
  the engine itself (graph, protocol, moderator, records) costs a call;
- ``peak_rss_mb``: peak resident memory: this process's; with ``--workers``, the peak of the
  proportional set size (PSS) of this process and its workers together, sampled every 0.2 s
  (forked workers share pages with this process, which a sum of resident sizes counts again),
  with ``driver_peak_rss_mb`` and ``worker_peak_rss_mb`` (the largest worker's) beside it.

``--workers N`` plays the games in N worker processes (``icl-aif run --executor processes``);
the default, 1, plays them in this process (``--executor local``).

    python bench/throughput.py --runs 200 --rounds 5 --latency 0.05 --concurrency 200 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.engine.configs import load_config
from icl_aif.records.reader import read_jsonl
from icl_aif.run.processes import ProcessExecutor

QUICKSTART = Path(__file__).resolve().parents[1] / "experiments" / "quickstart.yaml"


def bench_config(runs: int, rounds: int, latency: float, concurrency: int) -> ExperimentConfig:
    """The quickstart with every model a simulator that takes ``latency`` seconds a call."""
    delay = f"?latency={latency}" if latency else ""
    return load_config(
        QUICKSTART,
        [
            f"runs={runs}",
            f"rounds={rounds}",
            f"concurrency={concurrency}",
            f"roles.seller.model=chaos:scripted:linear{delay}",
            f"roles.buyer.model=chaos:scripted:linear{delay}",
            f"roles.critic.model=chaos:scripted:critic{delay}",
        ],
    )


def play(
    runs: int, rounds: int, latency: float, concurrency: int, workers: int
) -> tuple[float, Counter[str]]:
    """Wall seconds of one experiment (worker start-up included) and its calls per game."""
    config = bench_config(runs, rounds, latency, concurrency)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "run"
        started = time.perf_counter()
        executor = ProcessExecutor(workers) if workers > 1 else None
        sampler = PssSampler(executor)
        try:
            if executor is not None:
                executor.start()
                sampler.start()
            asyncio.run(run_experiment(config, directory, probe_models=False, executor=executor))
        finally:
            sampler.stop()
            if executor is not None:
                executor.close()
        wall = time.perf_counter() - started
        calls = Counter(call["game_id"] for call in read_jsonl(directory / "calls.jsonl"))
    return wall, calls


class PssSampler(threading.Thread):
    """Samples the summed PSS of this process and the executor's workers (Linux ``/proc``)."""

    peak_kb = 0  # over every sampler of the process

    def __init__(self, executor: ProcessExecutor | None) -> None:
        super().__init__(daemon=True)
        self.executor = executor
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.2):
            self.sample()

    def sample(self) -> None:
        pids = ["self", *(str(p) for p in (self.executor.pids if self.executor else []) if p)]
        total = 0
        for pid in pids:
            try:
                rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
            except OSError:  # gone, or not Linux
                return
            total += next(
                int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:")
            )
        PssSampler.peak_kb = max(PssSampler.peak_kb, total)

    def stop(self) -> None:
        if self.is_alive():
            self.sample()
            self.done.set()
            self.join()


def main() -> None:
    """Parse the flags, play the experiment at the latency (and at zero latency), print figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per model call")
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument(
        "--workers", type=int, default=1, help="worker processes (1: games in this process)"
    )
    parser.add_argument(
        "--no-overhead", action="store_true", help="skip the zero-latency run (overhead figure)"
    )
    args = parser.parse_args()

    wall, calls = play(args.runs, args.rounds, args.latency, args.concurrency, args.workers)
    total = sum(calls.values())
    slots = min(args.concurrency, args.runs)
    ideal = max(max(calls.values()), total / slots) * args.latency
    overhead = None
    if not args.no_overhead:
        bare_wall, bare_calls = play(args.runs, args.rounds, 0.0, args.concurrency, args.workers)
        overhead = 1000 * bare_wall / sum(bare_calls.values())
    driver_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    worker_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if args.workers > 1 else 0
    peak_kb = PssSampler.peak_kb if args.workers > 1 else driver_kb

    print(f"runs: {args.runs}")
    print(f"rounds: {args.rounds}")
    print(f"latency_s: {args.latency}")
    print(f"concurrency: {args.concurrency}")
    print(f"workers: {args.workers}")
    print(f"calls: {total}")
    print(f"wall_s: {wall:.2f}")
    print(f"ideal_s: {ideal:.2f}")
    print(f"efficiency: {ideal / wall:.2f}")
    print(f"calls_per_s: {total / wall:.0f}")
    if overhead is not None:
        print(f"overhead_ms_per_call: {overhead:.2f}")
    print(f"peak_rss_mb: {peak_kb / 1024:.0f}")
    if args.workers > 1:
        print(f"driver_peak_rss_mb: {driver_kb / 1024:.0f}")
        print(f"worker_peak_rss_mb: {worker_kb / 1024:.0f}")


if __name__ == "__main__":
    main()
