"""Python's garbage collector during a run: fewer, cheaper collections.

A run at high concurrency allocates millions of short-lived containers (graph states, messages,
callback managers). With the default thresholds the collector's youngest generation runs every
700 allocations and, with hundreds of games alive, its older generations keep re-scanning the
same long-lived objects: ``bench/throughput.py`` measured a third of the engine's time there.
:func:`fewer_collections` freezes what exists before the run (modules, configs, compiled graphs:
never garbage) and raises the youngest generation's threshold for the run's duration. Cyclic
garbage is still collected, in larger batches; memory stays within the benchmark's bound.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

GEN0_THRESHOLD = 200_000
"""Allocations between collections of the youngest generation during a run (Python: 700)."""


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Freeze the objects alive now and collect less often until the block ends.

    Nested uses are harmless: the outermost restores the thresholds it found.
    """
    thresholds = gc.get_threshold()
    if thresholds[0] >= GEN0_THRESHOLD:  # already inside a run
        yield
        return
    gc.freeze()
    gc.set_threshold(GEN0_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
