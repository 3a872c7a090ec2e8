"""The response cache (``cache: {path, mode}``; off without it): a resumed or repeated run reuses
every model call it already paid for, and independent samples never merge.

A call is keyed (SHA-256 of a canonical JSON) on

- the provider and the ``provider:model`` id;
- the exact messages sent;
- the role's decoding settings: ``temperature``, ``top_p``, ``max_tokens``, ``seed`` and its
  ``params`` (names that look like credentials, such as ``api_key`` or ``default_headers``,
  left out), and the call's reply budget; never a key, a header nor the ``base_url``;
- the game's replicate identity: the game and its scenario, ``game_id``, the game's seed, the
  sweep ``cell``, the ``arm``, the ``role``, the ``round`` (player and critic calls), the
  request form (``method``, for structured moves and the llm moderator), and the call's index:
  the n-th call with these labels in this game (and arm).

So two replicates whose prompts are identical (two games, two cells, two arms) are two keys: at
temperature > 0 they stay independent samples. A game played again (a resume replays an
unfinished game from its start; a repeated run) asks the same calls in the same order, and each
one is a hit: the reply comes from the cache, and the game plays exactly as it did.

The engine binds the identity of the game being played around it (:func:`bind`, from the game's
context); :func:`icl_aif.models.calls.invoke` consults the bound cache for the calls that say who asks.
Without a bound cache nothing changes, not even the keys of ``calls.jsonl``; with one every call
record gets ``cache``: ``hit`` or ``miss`` (:func:`cache_counts` sums them for the summary).

The file holds one JSON line per stored call: its key, who made it (model, game, role, round,
index) and what reproduces the call's record: the output, usage, cost, attempts and the parsed
value of a structured reply. Failed calls are never stored. A ``read_write`` cache appends each
reply the moment it arrives (one ``write`` of one line on a file opened with ``O_APPEND``, under an
exclusive ``flock``), so a killed run keeps what it paid for, and several processes on one machine
(``--workers``) share one file safely. Each process reads the file once, then only the lines added
since, when a call misses. A run on Ray across machines needs the path on a filesystem every
machine shares. ``read_only`` uses hits and stores nothing.

Writers that race agree: the first reply stored under a key is the one every reader gets. A
writer reads the lines added since its last read under the file's lock before it appends, stores
nothing when the key is there already, and its call then goes on with the stored reply (the call
stays a ``miss``: it was paid for). So two runs writing one cache at once, then a ``read_only``
repeat, give the repeat the games of the run whose replies were stored first.

A hit is indistinguishable from the call downstream. A model that keeps state between calls
(:func:`icl_aif.models.base.keeps_state`: a simulator's random stream, a replay's position) is
still asked on a hit, at no cost, so that its state moves exactly as in a run without the cache;
its reply is the stored one. Without that, a hit would shift every later draw of a simulator, and
a resumed run would play other games than an uninterrupted one.

A line of the wrong shape (not JSON, no key, no text ``output``) is skipped and counted, with one
warning per read; a torn last line of a killed writer is skipped without a word (the next write
starts a new line). :func:`check_cache` refuses, before any game, a cache that cannot be read or
written (one line, exit 2).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from icl_aif.config.settings import CacheConfig, CacheMode
from icl_aif.core.errors import UsageError
from icl_aif.core.redaction import is_credential
from icl_aif.core.transcript import Message
from icl_aif.models.keys import redact

__all__ = [
    "Replicate",
    "ResponseCache",
    "bind",
    "cache_counts",
    "check_cache",
    "decoding",
    "digest",
    "open_cache",
    "scope",
]

logger = logging.getLogger(__name__)

KEY_VERSION = 1
"""Part of every key: a change in what a key means starts a new cache."""

DECODING = ("temperature", "top_p", "max_tokens", "seed")
"""A role's settings that change its replies (its ``params`` too)."""


def _public(value: Any) -> Any:
    """``value`` without what may be a credential: keys whose name looks like one, strings
    that :func:`icl_aif.models.keys.redact` would change."""
    if isinstance(value, Mapping):
        return {str(k): _public(v) for k, v in value.items() if not is_credential(str(k))}
    if isinstance(value, list | tuple):
        return [_public(v) for v in value]
    if isinstance(value, str) and redact(value) != value:
        return "[redacted]"
    return value


def decoding(role_config: Any) -> dict[str, Any]:
    """The settings of a role (a :class:`~icl_aif.config.settings.RoleConfig` or the moderator's) that
    go into its calls' keys: :data:`DECODING` and its ``params``, credentials left out."""
    settings = {name: getattr(role_config, name, None) for name in DECODING}
    params = getattr(role_config, "params", None) or {}
    return {**settings, "params": _public(dict(params))}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)


def digest(value: Any) -> str:
    """A short SHA-256 of ``value``'s canonical JSON (a game's scenario in its identity)."""
    return hashlib.sha256(_canonical(value).encode("utf-8")).hexdigest()[:16]


def _jsonable(parsed: Any) -> tuple[bool, Any]:
    """``(True, JSON value)`` of a structured reply's parsed value; ``(False, None)`` when it has
    none (the call is then not stored)."""
    if isinstance(parsed, BaseModel):
        return True, parsed.model_dump(mode="json")
    try:
        return True, json.loads(json.dumps(parsed))
    except (TypeError, ValueError):
        return False, None


class ResponseCache:
    """One cache file, as this process sees it (:func:`open_cache` gives one per path and mode)."""

    def __init__(self, path: Path, mode: CacheMode) -> None:
        self.path = path
        self.mode: CacheMode = mode
        self._entries: dict[str, dict[str, Any]] = {}
        self._read_to = 0
        self._lines = 0  # complete lines read so far (line numbers of warnings)
        self._file: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._write_failed = False
        self.skipped = 0
        """Lines of the wrong shape skipped so far."""

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored call of ``key``, or None (the lines other processes added are read first)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None and self._refresh():
                entry = self._entries.get(key)
            return entry

    def put(self, key: str, entry: dict[str, Any]) -> dict[str, Any]:
        """Store ``entry`` under ``key`` (``read_write`` only: one line appended at once) and
        return the entry that holds for ``key``: ``entry``, or the one another writer stored
        first (then nothing is appended)."""
        if self.mode != "read_write":
            return entry
        line = (_canonical({"key": key, **entry}) + "\n").encode("utf-8")
        with self._lock:
            if self._write_failed:
                return self._entries.setdefault(key, entry)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    self._refresh()  # under the lock: no writer is halfway through a line
                    stored = self._entries.get(key)
                    if stored is not None:  # another writer was first: its reply holds
                        return stored
                    size = os.fstat(fd).st_size
                    if size and os.pread(fd, 1, size - 1) != b"\n":  # a killed writer's torn line
                        line = b"\n" + line
                    view = memoryview(line)
                    while view:
                        view = view[os.write(fd, view) :]
                finally:
                    os.close(fd)  # releases the lock
            except OSError as exc:
                self._write_failed = True
                logger.warning(
                    "response cache %s: cannot write (%s); storing no more", self.path, exc
                )
            return self._entries.setdefault(key, entry)

    def _refresh(self) -> bool:
        """Read the complete lines added since the last read (all of them after the file was
        replaced or cut); True if any was read."""
        try:
            status = os.stat(self.path)
        except FileNotFoundError:
            return False
        except OSError as exc:
            logger.warning("response cache %s: cannot read (%s)", self.path, exc)
            return False
        identity = (status.st_dev, status.st_ino)
        if identity != self._file or status.st_size < self._read_to:
            self._entries.clear()
            self._file, self._read_to, self._lines = identity, 0, 0
        if status.st_size <= self._read_to:
            return False
        try:
            with open(self.path, "rb") as file:
                file.seek(self._read_to)
                data = file.read(status.st_size - self._read_to)
        except OSError as exc:
            logger.warning("response cache %s: cannot read (%s)", self.path, exc)
            return False
        end = data.rfind(b"\n") + 1  # a line still being written is read next time
        lines = data[:end].split(b"\n")[:-1]
        bad: list[int] = []
        for number, line in enumerate(lines, start=self._lines + 1):
            stored = _entry(line)
            if stored is None:
                if line.strip() and not _torn(line):
                    bad.append(number)
                continue
            key, value = stored
            self._entries.setdefault(key, value)  # the first stored wins
        self._lines += len(lines)
        self._read_to += end
        if bad:
            self.skipped += len(bad)
            logger.warning(
                "response cache %s: %d line(s) of the wrong shape skipped (line %s)",
                self.path,
                len(bad),
                ", ".join(map(str, bad[:5])) + (", ..." if len(bad) > 5 else ""),
            )
        return end > 0


def _entry(line: bytes) -> tuple[str, dict[str, Any]] | None:
    """``(key, stored call)`` of one cache line, or None when the line is not one: not a JSON
    object, no text ``key``, or a stored call that cannot stand for a reply (``output`` not
    text, ``usage`` not token counts, ``cost_usd`` or ``attempts`` not numbers)."""
    try:
        stored = json.loads(line)
    except ValueError:
        return None
    if not isinstance(stored, dict):
        return None
    key = stored.pop("key", None)
    if not isinstance(key, str) or not isinstance(stored.get("output"), str):
        return None
    usage = stored.get("usage")
    if usage is not None and not (
        isinstance(usage, dict) and all(isinstance(v, int) for v in usage.values())
    ):
        return None
    cost = stored.get("cost_usd")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | float)):
        return None
    attempts = stored.get("attempts", 1)
    if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
        return None
    return key, stored


def _torn(line: bytes) -> bool:
    """A line cut short by a killed writer, which the next writer ended with its own newline:
    the start of a cache line that never closed."""
    return line.lstrip().startswith(b'{"') and not line.rstrip().endswith(b"}")


def check_cache(config: CacheConfig) -> None:
    """Refuse, in one line, a cache that cannot be used, before any game: ``read_write`` needs
    a file it can append to (made, with its folder, when missing), ``read_only`` one it can
    read."""
    path = config.path
    where = f"cache.path {path}"
    if config.mode == "read_only":
        if not path.is_file():
            raise UsageError(
                f"{where}: no such file; a read_only cache reuses a cache written before "
                "(mode read_write makes one)"
            )
        try:
            with open(path, "rb") as file:
                file.read(1)
        except OSError as exc:
            raise UsageError(f"{where}: cannot be read ({exc.strerror or exc})") from None
        return
    made = not path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        os.close(fd)
    except OSError as exc:
        raise UsageError(
            f"{where}: cannot be written ({exc.strerror or exc}); choose a file in a folder "
            "you can write to"
        ) from None
    if made:
        path.unlink(missing_ok=True)  # made on the first stored call, as before


_OPEN: dict[tuple[Path, CacheMode], ResponseCache] = {}
_OPEN_LOCK = threading.Lock()


def open_cache(config: CacheConfig) -> ResponseCache:
    """This process's view of the cache ``config`` names (one per path and mode)."""
    with _OPEN_LOCK:
        key = (config.path, config.mode)
        cache = _OPEN.get(key)
        if cache is None:
            cache = _OPEN[key] = ResponseCache(config.path, config.mode)
        return cache


@dataclass
class Replicate:
    """The cache bound to one game (or one arm of it) being played, the game's identity and its
    roles' decoding settings; it counts the calls made so far, per labels."""

    cache: ResponseCache
    labels: dict[str, Any]
    settings: dict[str, dict[str, Any]]
    counts: dict[str, int] = field(default_factory=dict)

    def key(
        self,
        model_id: str,
        messages: Sequence[Message],
        asked: Mapping[str, Any],
        max_tokens: int | None,
    ) -> tuple[str, dict[str, Any]]:
        """The key of the next call with ``asked`` (``role``, ``round``, ``method``), and who
        made it (the labels stored beside it)."""
        who = {**self.labels, **asked}
        labels = _canonical(who)
        index = self.counts.get(labels, 0)
        self.counts[labels] = index + 1
        who["index"] = index
        body = {
            "version": KEY_VERSION,
            "provider": model_id.partition(":")[0],
            "model": model_id,
            "messages": [{"role": m["role"], "content": m["content"]} for m in messages],
            "decoding": {**self.settings.get(str(who.get("role")), {}), "budget": max_tokens},
            "replicate": who,
        }
        return hashlib.sha256(_canonical(body).encode("utf-8")).hexdigest(), who

    def entry(self, model_id: str, who: Mapping[str, Any], result: Any) -> dict[str, Any] | None:
        """What is stored of a call that returned ``result`` (a :class:`icl_aif.models.calls.CallResult`);
        None when it cannot be (a parsed value that is not data)."""
        ok, parsed = _jsonable(result.parsed)
        if not ok:
            return None
        return {
            "model": model_id,
            **{k: who.get(k) for k in ("game_id", "cell", "arm", "round", "role", "method")},
            "index": who["index"],
            "output": result.output,
            "usage": result.usage,
            "cost_usd": result.cost_usd,
            "attempts": result.attempts,
            "parsed": parsed,
        }


_SCOPE: ContextVar[Replicate | None] = ContextVar("icl_aif_cache_scope", default=None)


@contextlib.contextmanager
def bind(
    config: CacheConfig | None,
    labels: Mapping[str, Any],
    settings: Mapping[str, Mapping[str, Any]],
) -> Iterator[Replicate | None]:
    """Bind the cache ``config`` names to the calls made inside (the tasks they start included),
    as the calls of the game whose identity is ``labels``, with each role's decoding
    ``settings``; nothing without ``config``."""
    if config is None:
        yield None
        return
    replicate = Replicate(
        cache=open_cache(config),
        labels=dict(labels),
        settings={role: dict(values) for role, values in settings.items()},
    )
    token = _SCOPE.set(replicate)
    try:
        yield replicate
    finally:
        _SCOPE.reset(token)


def scope() -> Replicate | None:
    """The replicate bound to the calls being made now, if any."""
    return _SCOPE.get()


def cache_counts(calls: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """``summary.json``'s ``cache``: ``hits`` and ``misses`` among recorded calls, and
    ``saved_usd``, the recorded cost of the hits."""
    hits = misses = 0
    saved = 0.0
    for call in calls:
        state = call.get("cache")
        if state == "hit":
            hits += 1
            saved += float(call.get("cost_usd") or 0.0)
        elif state == "miss":
            misses += 1
    return {"hits": hits, "misses": misses, "saved_usd": round(saved, 6)}
