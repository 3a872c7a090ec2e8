"""Plugins: the one registry of named things that our code and installed packages add to
icl-aif (games, model providers, feedback sources; our own games come in as plugins do).

A :class:`Registry` maps names to entries that carry the module that registered them
(``origin``). A name another module holds is refused; the same module registering again (a
reload) replaces its entry. Each registry loads its entry point group once, on the first name it
does not know; a plugin that fails to import is one line naming it and its package, never a
traceback, and the others still load.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Any, Protocol, TypeVar

logger = logging.getLogger(__name__)

__all__ = ["Registry", "load_entry_points", "quoted"]


class Registered(Protocol):
    """An entry of a :class:`Registry`: it knows the module that registered it."""

    @property
    def origin(self) -> str: ...


EntryT = TypeVar("EntryT", bound=Registered)


class Registry(dict[str, EntryT]):
    """The entries of one ``kind`` (``game``, ``provider``, ``feedback source``) by name, in the
    order they were registered, and the entry point ``group`` through which other packages add
    theirs. ``loaded`` receives what each entry point names (a module that registers its entries
    on import, or an object to register).

    Reading it as a dict sees what is registered so far; :meth:`find` and :meth:`problem` load
    the plugins first when a name is unknown, and :meth:`everything` loads them all. A registry
    is a module's global and is never pickled (a worker process loads its own): refer to its
    entries by name, through module-level functions.
    """

    def __init__(self, kind: str, group: str, loaded: Callable[[Any], None] | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.group = group
        self._loaded = loaded
        self._lock = threading.RLock()  # a plugin may look names up while it loads
        self._failures: list[str] | None = None  # None: the plugins are not loaded yet
        self._from_plugins: set[str] = set()  # the names that loading the plugins registered

    def __reduce__(self) -> Any:
        raise TypeError(f"the {self.kind} registry is not pickled: look its entries up by name")

    def add(self, name: str, entry: EntryT) -> None:
        """Register ``entry`` as ``name``: a :class:`ValueError` when another module holds it
        (entries carry their ``origin`` module); the same module registering again (a reload)
        replaces its entry."""
        taken = self.get(name)
        if taken is not None and taken.origin != entry.origin:
            raise ValueError(
                f"{self.kind} {name!r} is registered already by {taken.origin}; choose another name"
            )
        self[name] = entry

    def load_plugins(self) -> list[str]:
        """Import every entry point of :attr:`group` once; one line per plugin that failed."""
        with self._lock:
            if self._failures is None:
                before = set(self)
                self._failures = []  # set first: a plugin's own lookups load nothing
                self._failures.extend(load_entry_points(self.group, self.kind, self._loaded))
                self._from_plugins.update(set(self) - before)
            return list(self._failures)

    def forget_plugins(self) -> None:
        """Unregister what loading the plugins registered, and load them again on the next
        lookup (for tests)."""
        with self._lock:
            for name in self._from_plugins:
                self.pop(name, None)
            self._from_plugins.clear()
            self._failures = None

    def find(self, name: str) -> EntryT | None:
        """The entry called ``name``: registered already, else a plugin's; None if unknown."""
        found = self.get(name)
        if found is None:
            self.load_plugins()
            found = self.get(name)
        return found

    def everything(self) -> dict[str, EntryT]:
        """Every entry, the plugins' loaded (one that failed to load is left out)."""
        self.load_plugins()
        return dict(self)

    def problem(self, name: str, allowed: Sequence[str] | None = None) -> str:
        """Why ``name`` is not one of ``allowed`` (default: every name), in one line listing
        them and the plugins that failed to load."""
        failures = self.load_plugins()  # first: the names then include the plugins'
        names = list(self) if allowed is None else list(allowed)
        return "; ".join([f"got {name!r}; allowed values: {quoted(names)}", *failures])


def quoted(names: Sequence[str]) -> str:
    """``'a', 'b' or 'c'``: allowed values as the config's messages list them."""
    shown = [repr(n) for n in names]
    if len(shown) < 2:
        return "".join(shown)
    return f"{', '.join(shown[:-1])} or {shown[-1]}"


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
