"""Plugins: what installed packages add to icl-aif through entry points (games, providers,
feedback sources; our own games come in the same way).

Each registry loads its entry point group once, on the first name it does not know; a plugin
that fails to import is one line naming it and its package, never a traceback, and the others
still load.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

logger = logging.getLogger(__name__)

__all__ = ["claim", "load_entry_points"]


def load_entry_points(
    group: str, kind: str, loaded: Callable[[Any], None] | None = None
) -> list[str]:
    """Import every entry point of ``group``, by name, handing what each names to ``loaded``
    (a module that registers itself on import, or an object to register); one line per plugin
    that failed, naming it as a ``kind`` plugin (``game``, ``provider``, ``feedback source``)
    and its package."""
    failures: list[str] = []
    for entry in sorted(metadata.entry_points(group=group), key=lambda e: e.name):
        try:
            target = entry.load()
            if loaded is not None:
                loaded(target)
        except Exception as exc:
            dist = entry.dist
            package = f"{dist.name} {dist.version}" if dist is not None else entry.value
            reason = str(exc).splitlines()[0] if str(exc) else ""
            line = (
                f"{kind} plugin {entry.name!r} ({package}) failed to load: "
                f"{type(exc).__name__}: {reason}; fix or uninstall it"
            )
            logger.warning("%s", line)
            failures.append(line)
    return failures


def claim(registry: Mapping[str, Any], name: str, origin: str, kind: str) -> None:
    """Refuse ``name`` when another module registered it in ``registry`` already (entries carry
    their ``origin`` module); the same module registering again (a reload) may replace it."""
    taken = registry.get(name)
    if taken is not None and taken.origin != origin:
        raise ValueError(
            f"{kind} {name!r} is registered already by {taken.origin}; choose another name"
        )
