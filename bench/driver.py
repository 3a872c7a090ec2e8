"""The driver's ceiling alone: how many finished games (and their calls) it records a second.

The driver is the ``icl-aif run`` process: it schedules the games and records each one the
moment it comes back from wherever it was played. Here nothing is played while the clock runs:
a stand-in executor hands the driver finished games as fast as it takes them, each one as a
worker process sends it (unpickled off the pipe, as :class:`icl_aif.run.processes.ProcessExecutor`
and Ray do: :func:`worker_payload`), and the driver does everything else it does in a run:
append and fsync the records, count the game, keep the books. Prints one figure per line,
``driver_games_per_s`` and ``driver_calls_per_s`` among them; the clock runs from the first game
handed over to the last one recorded (the final sort and the summary are left out: they happen
once per run). ``--dir`` puts the run directory on the disk to measure (default: a temporary
directory): with large records the disk's write bandwidth is the ceiling (``driver_mb_per_s``).

The games are real: a few quickstart games (5 rounds, a sweep of two cells, the scripted
simulators) are played once before the clock starts, then handed over again and again. Two
sizes of game, as ``--profile`` picks:

- ``quickstart``: the records as the quickstart writes them (about 75 calls and 250 KB a game);
- ``vendor``: the same games as a 5-round vendor run writes them: every reply shorter than
  :data:`VENDOR_REPLY_CHARS` characters made that much longer (a chat model's sentence or two),
  a vendor model id, token usage and a cost on every call (about 2.5 times the bytes);
- ``mix`` (default): the two alternately.

    python bench/driver.py                      # 2,000 games into a temporary directory
    python bench/driver.py --games 4000 --dir /mnt/disk/tmp --profile vendor
"""

from __future__ import annotations

import argparse
import asyncio
import pickle
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.experiment import Cell, ExperimentConfig
from icl_aif.engine.configs import load_config
from icl_aif.records.writer import GameLines
from icl_aif.run.play import play_here, recorded

QUICKSTART = Path(__file__).resolve().parents[1] / "experiments" / "quickstart.yaml"
DISTINCT_GAMES = 4
"""Games played for real per cell; the driver is handed them again and again."""
VENDOR_REPLY_CHARS = 220
"""The shortest reply of the ``vendor`` profile (a chat model's one or two sentences)."""
VENDOR_MODEL = "openai:gpt-4o-mini"
_FILLER = (
    " I appreciate the offer and I understand where you are coming from, but the balloon is in"
    " excellent condition, brightly coloured and sturdy, and I am confident the price is fair"
    " for what you get; let us find a number that works for both of us."
)


def bench_config(games: int, concurrency: int) -> ExperimentConfig:
    """The quickstart as a sweep of two cells (as the vendor runs of fig6 are)."""
    return load_config(
        QUICKSTART,
        [f"runs={games}", "rounds=5", f"concurrency={concurrency}", "improve=[seller,buyer]"],
    )


GameResult = tuple[list[dict[str, Any]], list[dict[str, Any]]]


def real_games(cells: list[Cell]) -> list[tuple[Cell, GameResult]]:
    """:data:`DISTINCT_GAMES` games of each cell, played as a worker plays them."""

    async def play_all() -> list[tuple[Cell, GameResult]]:
        return [
            (cell, await play_here(cell, index))
            for cell in cells
            for index in range(DISTINCT_GAMES)
        ]

    return asyncio.run(play_all())


def _longer(text: str) -> str:
    return text if len(text) >= VENDOR_REPLY_CHARS else text + _FILLER[:VENDOR_REPLY_CHARS]


def as_vendor(result: GameResult) -> GameResult:
    """The game as a vendor run records it: longer replies, a vendor model, usage and cost."""
    records, calls = result
    vendor_calls = []
    for call in calls:
        messages = [
            m if m["role"] == "system" else {**m, "content": _longer(m["content"])}
            for m in call["messages"]
        ]
        output = _longer(call["output"] or "")
        tokens_in = sum(len(m["content"]) for m in messages) // 4
        tokens_out = len(output) // 4
        usage = {"input_tokens": tokens_in, "output_tokens": tokens_out, "cached_input_tokens": 0}
        cost = round(tokens_in * 0.15e-6 + tokens_out * 0.6e-6, 8)
        vendor_calls.append(
            {
                **call,
                "model": VENDOR_MODEL,
                "messages": messages,
                "output": output,
                "usage": usage,
                "cost_usd": cost,
                "latency_s": 1.234567,
            }
        )
    return records, vendor_calls


def payloads(games: list[tuple[Cell, GameResult]], profile: str) -> list[tuple[Cell, bytes, int]]:
    """What a worker sends back for each game (pickled), with its cell and number of calls."""
    sizes = {"quickstart": [False], "vendor": [True], "mix": [False, True]}[profile]
    sent = []
    for vendor in sizes:
        for cell, result in games:
            shaped = as_vendor(result) if vendor else result
            sent.append((cell, pickle.dumps(worker_payload(cell, shaped)), len(shaped[1])))
    if profile != "mix":
        return sent
    half = len(sent) // 2  # alternate the sizes
    return [sent[i] for pair in zip(range(half), range(half, len(sent)), strict=True) for i in pair]


def worker_payload(cell: Cell, result: GameResult) -> GameLines:
    """A game as a worker returns it to the driver: its lines (:func:`icl_aif.run.play.recorded`)."""
    return recorded(cell, result)


class FeedExecutor:
    """An executor whose games are already played: each ``play`` unpickles the next payload."""

    name = "feed"

    def __init__(self, sent: list[tuple[Cell, bytes, int]]) -> None:
        self._cycle = _cycle(sent)
        self.calls = 0
        self.started: float | None = None

    def start(self) -> None:
        """Nothing to start."""

    async def play(self, cell: Cell, index: int) -> GameLines:
        """The next finished game (of whichever cell it was played in)."""
        if self.started is None:
            self.started = time.perf_counter()
        _, blob, calls = next(self._cycle)
        self.calls += calls
        lines: GameLines = pickle.loads(blob)
        return lines

    def close(self) -> None:
        """Nothing to close."""


def _cycle(sent: list[tuple[Cell, bytes, int]]) -> Iterator[tuple[Cell, bytes, int]]:
    while True:
        yield from sent


def measure(games: int, concurrency: int, profile: str, root: Path | None) -> dict[str, float]:
    """Feed ``games`` finished games to a run's driver; its figures."""
    config = bench_config(games // 2, concurrency)  # two cells
    sent = payloads(real_games(config.cells()), profile)
    executor = FeedExecutor(sent)
    recorded: list[float] = []

    def summarize(*_: Any) -> tuple[dict[str, Any], str]:
        return {}, ""

    with tempfile.TemporaryDirectory(dir=root) as tmp:
        directory = Path(tmp) / "run"
        began = time.perf_counter()
        asyncio.run(
            run_experiment(
                config,
                directory,
                probe_models=False,
                executor=executor,
                summarize=summarize,
                progress=lambda n: recorded.append(time.perf_counter()),
            )
        )
        total = time.perf_counter() - began
        size = sum(p.stat().st_size for p in directory.glob("*.jsonl"))
    assert executor.started is not None and recorded
    seconds = recorded[-1] - executor.started
    return {
        "games": len(recorded),
        "calls": executor.calls,
        "seconds": seconds,
        "run_s": total,
        "mb": size / 1e6,
    }


def main() -> None:
    """Parse the flags, feed the driver, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="finished games handed over")
    parser.add_argument("--concurrency", type=int, default=200)
    parser.add_argument("--profile", choices=("mix", "quickstart", "vendor"), default="mix")
    parser.add_argument("--dir", type=Path, default=None, help="where the run directory goes")
    args = parser.parse_args()
    figures = measure(args.games, args.concurrency, args.profile, args.dir)
    seconds = figures["seconds"]
    print(f"profile: {args.profile}")
    print(f"games: {figures['games']:.0f}")
    print(f"calls: {figures['calls']:.0f}")
    print(f"records_mb: {figures['mb']:.0f}")
    print(f"bytes_per_call: {1e6 * figures['mb'] / figures['calls']:.0f}")
    print(f"seconds: {seconds:.2f}")
    print(f"run_s: {figures['run_s']:.2f}")
    print(f"driver_mb_per_s: {figures['mb'] / seconds:.0f}")
    print(f"driver_games_per_s: {figures['games'] / seconds:.0f}")
    print(f"driver_calls_per_s: {figures['calls'] / seconds:.0f}")


if __name__ == "__main__":
    main()
