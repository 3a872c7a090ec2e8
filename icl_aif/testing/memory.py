"""A process's memory as Linux reports it, for the benchmarks and the tests that bound it."""

from __future__ import annotations

from pathlib import Path

__all__ = ["memory_kib"]


def memory_kib(pid: int | str = "self") -> dict[str, int]:
    """``VmRSS`` (resident now) and ``VmHWM`` (the peak) of process ``pid`` in KiB, read from
    ``/proc/PID/status``; empty for a process that is gone (or a system without ``/proc``)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    figures = {}
    for line in status.splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            figures[name] = int(value.split()[0])
    return figures
