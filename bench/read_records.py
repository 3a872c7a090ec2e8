"""The records reader on a big ``calls.jsonl``: its speed against bare ``json.loads``, and its memory.

Every reader of a run directory goes through :func:`icl_aif.records.reader.record_lines`, which checks
each line (JSON, an object, the shape of its record, the format version) so that a damaged line
is skipped and said instead of crashing a report. This prints what that costs on a long run's
calls: a quickstart run (the scripted simulators, about 75 calls a game) is played once, its
``calls.jsonl`` repeated up to ``--mb`` megabytes, then read three ways, each timed as the best
of ``--repeat``:

- ``bare``: ``json.loads`` of every line (no check at all: what the readers did before);
- ``reader``: :func:`icl_aif.records.reader.read_records`;
- ``reader_peak_mb``: the reader's peak Python memory (tracemalloc): it streams.

    python bench/read_records.py             # 200 MB in a temporary directory
    python bench/read_records.py --mb 1000
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from icl_aif.analysis.experiment import run_experiment
from icl_aif.engine.configs import load_config
from icl_aif.records.layout import CALLS
from icl_aif.records.reader import read_records

ROOT = Path(__file__).resolve().parents[1]


def big_calls(directory: Path, megabytes: int) -> Path:
    """A ``calls.jsonl`` of about ``megabytes`` MB: a quickstart run's calls, repeated."""
    config = load_config(ROOT / "experiments" / "quickstart.yaml", ["runs=8", "rounds=5"])
    played = asyncio.run(run_experiment(config, directory / "run", probe_models=False))
    chunk = (played.directory / CALLS).read_bytes()
    target = directory / CALLS
    with target.open("wb") as handle:
        for _ in range(max(1, megabytes * 1_000_000 // len(chunk))):
            handle.write(chunk)
    return target


def best_of(repeat: int, read: Callable[[], int]) -> tuple[float, int]:
    """The shortest of ``repeat`` timings of ``read`` and what it counted."""
    timings = []
    count = 0
    for _ in range(repeat):
        start = time.perf_counter()
        count = read()
        timings.append(time.perf_counter() - start)
    return min(timings), count


def bare(path: Path) -> int:
    with path.open("rb") as source:
        return sum(1 for line in source if line.strip() and json.loads(line) is not None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=200, help="size of calls.jsonl to read")
    parser.add_argument("--repeat", type=int, default=3, help="timings of each reading")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = big_calls(Path(tmp), args.mb)
        size = path.stat().st_size / 1e6
        bare_s, calls = best_of(args.repeat, lambda: bare(path))
        reader_s, read = best_of(args.repeat, lambda: sum(1 for _ in read_records(path)))
        assert read == calls, (read, calls)
        tracemalloc.start()
        sum(1 for _ in read_records(path))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    print(f"calls_mb {size:.0f}")
    print(f"calls {calls}")
    print(f"bare_mb_per_s {size / bare_s:.0f}")
    print(f"reader_mb_per_s {size / reader_s:.0f}")
    print(f"reader_over_bare {reader_s / bare_s:.2f}")
    print(f"reader_peak_mb {peak / 1e6:.2f}")


if __name__ == "__main__":
    main()
