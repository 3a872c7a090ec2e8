"""Writing a run directory.

Every line is written through its record model (:mod:`icl_aif.records.schema`) and carries
``format_version``; readers accept records of this version and older ones, and refuse a newer
one in one line.

A finished game reaches the writer as :class:`GameLines`: its lines already validated and
serialised (:func:`encode_game`), by the worker process or Ray worker that played it, so that the
driver only appends bytes. :meth:`RunWriter.record` appends the games that finish while a write is
on its way together, in a thread, one write and one fsync per file for the whole batch.

Write order, so that a run killed at any moment can be resumed (:func:`repair_records`): the
calls of a batch of finished games are appended and fsync'ed first, then their line(s) in
``games.jsonl`` in one write, fsync'ed; only then is any of them recorded (the runner counts it,
its slot takes the next game). A game is recorded once all its lines are there; calls of a game
without its lines, and a torn last line, are dropped on resume.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import importlib.metadata
import json
import logging
import os
import platform
import re
import subprocess
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

from icl_aif._version import __version__
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.files import config_to_yaml
from icl_aif.core.errors import UsageError
from icl_aif.core.redaction import public_override
from icl_aif.records.layout import (
    CALLS,
    CONFIG,
    GAMES,
    LOCK,
    MANIFEST,
    SUMMARY,
    SUMMARY_MD,
    GameKey,
    game_key,
    now,
    record_order,
)
from icl_aif.records.reader import SkippedLines, record_lines, upgraded
from icl_aif.records.schema import (
    FORMAT_VERSION,
    SilentLines,
    call_line,
    format_version_of,
    game_line,
    manifest_text,
)

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: runs are not locked
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)


WRITE_CHECK_BYTES = 64 * 1024
"""Bytes written (then removed) to check a run directory can take data before anything is spent."""
BATCH_BYTES = 32 * 1024 * 1024
"""The bytes of finished games appended in one batch, at most (its last game may cross it): a
batch is copied into one buffer per file, and the games after it wait for the next."""

_PACKAGES = ("icl-aif", "langgraph", "langchain-core", "pydantic", "numpy")


def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages a result depends on."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in _PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_state(path: Path) -> dict[str, Any]:
    """The git commit of the source tree (and whether it had uncommitted changes), if any."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=path, capture_output=True, text=True, timeout=5
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=path, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None}
    if commit.returncode != 0:
        return {"commit": None, "dirty": None}
    return {"commit": commit.stdout.strip(), "dirty": bool(dirty.stdout.strip())}


def hash_files(root: Path) -> dict[str, str]:
    """SHA-256 of every file below ``root``, keyed by relative path."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


class GameLines(NamedTuple):
    """A finished game as the writer appends it (:func:`encode_game`): bytes, cheap to send from
    a worker process or a Ray worker to the driver, which appends them as they are."""

    games: bytes
    """Its ``games.jsonl`` line(s): one, or one per arm, in order."""
    calls: bytes
    """Its ``calls.jsonl`` lines, in the order the calls were made."""
    cost_usd: float = 0.0
    """The recorded cost of its calls (the runner's budget)."""


def encode_game(
    games: Iterable[dict[str, Any]],
    calls: Iterable[dict[str, Any]],
    cell: str | None = None,
    cost_usd: float = 0.0,
) -> GameLines:
    """The lines of a finished game: each record validated against its model and serialised
    (:func:`~icl_aif.records.schema.game_line`, :func:`~icl_aif.records.schema.call_line`), tagged
    with its sweep ``cell`` (right after ``game_id``, where the models put it) when it has one.

    Wherever a game is played, its lines are made here, so a run writes the same bytes whatever
    its executor; a record that does not fit its model raises before anything is written.
    """
    tag: dict[str, Any] = {} if cell is None else {"cell": cell}
    call_text = "".join(call_line({**call, **tag}) for call in calls)
    game_text = "".join(game_line({**game, **tag}) for game in games)
    return GameLines(game_text.encode("utf-8"), call_text.encode("utf-8"), cost_usd)


class _GroupCommit:
    """Appends finished games for a running event loop, those that finish while a write is on
    its way together: one write and one fsync per file for a whole batch, in a thread of its
    own, so that the loop goes on receiving games (and the disk's latency is paid once a batch).

    :meth:`append` returns once its game is on disk. A failed write fails its batch and every
    later game: nothing is appended after a failure (a full disk), which leaves at worst a torn
    last line. A game whose ``append`` is cancelled before its batch is taken is not written.
    """

    def __init__(self, write: Callable[[Sequence[GameLines]], None]) -> None:
        self._write = write
        self._queue: list[tuple[GameLines, asyncio.Future[None]]] = []
        self._drain: asyncio.Task[None] | None = None
        self._thread: ThreadPoolExecutor | None = None
        self._failure: BaseException | None = None

    async def append(self, game: GameLines) -> None:
        """Queue ``game`` and wait until its batch is written and fsync'ed."""
        if self._failure is not None:
            raise self._failure
        loop = asyncio.get_running_loop()
        written: asyncio.Future[None] = loop.create_future()
        self._queue.append((game, written))
        if self._drain is None or self._drain.done():
            self._drain = loop.create_task(self._drain_queue())
        await written

    async def _drain_queue(self) -> None:
        """Write batches until the queue is empty."""
        if self._thread is None:
            self._thread = ThreadPoolExecutor(1, thread_name_prefix="icl-aif-records")
        loop = asyncio.get_running_loop()
        while self._queue:
            batch = self._next_batch()
            if not batch:
                continue
            if self._failure is None:
                try:
                    games = [game for game, _ in batch]
                    await loop.run_in_executor(self._thread, self._write, games)
                except asyncio.CancelledError:
                    self._failure = RuntimeError("the run's records were closed")
                    _settle(batch, self._failure)
                    raise
                except Exception as exc:  # a full disk: this batch and every later one fail
                    logger.info("writing %d finished game(s) failed: %s", len(batch), exc)
                    self._failure = exc
            _settle(batch, self._failure)

    def _next_batch(self) -> list[tuple[GameLines, asyncio.Future[None]]]:
        """The games waiting, oldest first, up to :data:`BATCH_BYTES` (at least one); a game
        whose ``append`` was cancelled is left out."""
        batch: list[tuple[GameLines, asyncio.Future[None]]] = []
        size = taken = 0
        for game, written in self._queue:
            taken += 1
            if not written.done():
                batch.append((game, written))
                size += len(game.games) + len(game.calls)
            if size >= BATCH_BYTES:
                break
        del self._queue[:taken]
        return batch

    def close(self) -> None:
        """Wait for the batch being written (its games are on disk), then drop the others."""
        if self._thread is not None:
            self._thread.shutdown(wait=True)
            self._thread = None
        self._failure = self._failure or RuntimeError("the run's records were closed")
        for _, written in self._queue:
            written.cancel()
        self._queue = []
        if self._drain is not None and not self._drain.done():
            self._drain.cancel()


def _settle(
    batch: list[tuple[GameLines, asyncio.Future[None]]], failure: BaseException | None
) -> None:
    """Resolve the futures of a written batch, or fail them with ``failure``."""
    for _, written in batch:
        if written.done():
            continue
        if failure is None:
            written.set_result(None)
        else:
            written.set_exception(failure)


class RunWriter:
    """Writes one run directory; every finished game is on disk before it is counted.

    :meth:`open` takes the directory's lock and checks it can be written (before anything is
    spent); :meth:`create` starts a new run, :meth:`resume` continues one whose records
    :func:`repair_records` made consistent; :meth:`release` lets the lock go.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._games: int | None = None
        self._calls: int | None = None
        self._lock: int | None = None
        self._commit: _GroupCommit | None = None
        self._created = False  # open() made the directory
        self.manifest: dict[str, Any] = {}

    def check_new(self) -> None:
        """Refuse a directory that already holds a run (two runs must never mix)."""
        if (self.directory / GAMES).exists():
            raise UsageError(
                f"{self.directory} already holds a run; choose another --out directory, "
                f"or continue it with: icl-aif run --resume {self.directory}"
            )

    def open(self, *, resume: bool = False) -> None:
        """Make the directory (a new run), take its lock and check it takes data.

        Each problem is one line: a directory another process writes, one that cannot be
        written (permissions, read-only) or a full disk; and, for a new run, a directory that
        already holds one.
        """
        if self._lock is not None:
            return
        if resume and not self.directory.is_dir():
            raise UsageError(f"{self.directory}: no such run directory")
        self._created = not self.directory.exists()
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise directory_error(self.directory, exc) from None
        self._lock = lock_directory(self.directory)
        try:
            if not resume:
                self.check_new()
            check_writable(self.directory)
        except BaseException:
            self.release()
            raise

    def create(self, config: ExperimentConfig, manifest: dict[str, Any]) -> None:
        """Write the config and the manifest of a new run; refuse to mix two runs."""
        self.open()
        self.check_new()
        try:
            (self.directory / CONFIG).write_text(config_to_yaml(config), encoding="utf-8")
            self.manifest = manifest
            self.write_manifest()
            self._open_records()
        except OSError as exc:
            raise directory_error(self.directory, exc) from None

    def resume(self, manifest: dict[str, Any]) -> None:
        """Continue the run of the directory: ``manifest`` (updated by the caller) is written and
        the record files are opened for appending."""
        self.open(resume=True)
        try:
            self.manifest = manifest
            self.write_manifest()
            self._open_records()
        except OSError as exc:
            raise directory_error(self.directory, exc) from None

    def _open_records(self) -> None:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        self._games = os.open(self.directory / GAMES, flags, 0o644)
        self._calls = os.open(self.directory / CALLS, flags, 0o644)
        self._commit = _GroupCommit(self.append_lines)

    def write_manifest(self) -> None:
        """(Re)write ``manifest.json`` atomically, validated and stamped with the record format
        (:func:`icl_aif.records.schema.manifest_text`)."""
        text, self.manifest = manifest_text(self.manifest)
        _write_atomic(self.directory / MANIFEST, text)

    def append_game(self, game: dict[str, Any], calls: Iterable[dict[str, Any]]) -> None:
        """Append one finished run and its model calls, on disk when this returns."""
        self.append_games([game], calls)

    def append_games(self, games: list[dict[str, Any]], calls: Iterable[dict[str, Any]]) -> None:
        """Append the line(s) of one finished game (one per arm) after its calls, on disk when
        this returns; each line is validated against its record model first (:func:`encode_game`).
        """
        self.append_lines([encode_game(games, calls)])

    def append_lines(self, batch: Sequence[GameLines]) -> None:
        """Append finished games (:func:`encode_game`), on disk when this returns.

        The calls of every game are written and fsync'ed first, then the lines of every game in
        one write, fsync'ed: a game whose lines are all in ``games.jsonl`` has all its calls on
        disk. An ``OSError`` (a full disk) leaves at worst a torn last line, repaired on resume.
        """
        assert self._games is not None and self._calls is not None, "create() first"
        calls = b"".join(game.calls for game in batch)
        lines = b"".join(game.games for game in batch)
        if calls:
            _append(self._calls, calls)
        _append(self._games, lines)

    async def record(self, game: GameLines) -> None:
        """Append one finished game from a running event loop, on disk when this returns; the
        games that finish meanwhile are written with it, in one batch (:class:`_GroupCommit`)."""
        assert self._commit is not None, "create() first"
        await self._commit.append(game)

    def finish(self, summary: dict[str, Any], summary_md: str) -> None:
        """Sort the records by game id, write the summaries and close the files."""
        self.close()
        for name in (GAMES, CALLS):
            sort_jsonl(self.directory / name)
        _write_atomic(self.directory / SUMMARY, json.dumps(summary, indent=2) + "\n")
        _write_atomic(self.directory / SUMMARY_MD, summary_md)

    def stop(self, status: str) -> None:
        """Close the record files and mark the manifest ``status`` (e.g. ``interrupted``); a
        manifest that cannot be written (a full disk) keeps its last state."""
        self.close()
        if not self.manifest:
            return
        self.manifest["status"] = status
        try:
            self.write_manifest()
        except OSError as exc:
            logger.info("could not mark %s %s: %s", self.directory / MANIFEST, status, exc)

    def close(self) -> None:
        """Close the open record files, once the batch being written is on disk; the games
        still waiting for theirs are not written."""
        if self._commit is not None:
            self._commit.close()
            self._commit = None
        for fd in (self._games, self._calls):
            if fd is not None:
                os.close(fd)
        self._games = self._calls = None

    def release(self) -> None:
        """Close the record files and let the directory's lock go. When no manifest was written
        (the run stopped in its checks) the lock file goes too, and so does the directory if this
        writer made it."""
        self.close()
        if self._lock is not None:
            if not (self.directory / MANIFEST).exists():  # nothing recorded: leave no trace
                with contextlib.suppress(OSError):
                    (self.directory / LOCK).unlink()
                    if self._created:
                        self.directory.rmdir()  # fails, and stays, if something else is in it
            os.close(self._lock)  # closing the descriptor releases the flock
            self._lock = None


def lock_directory(directory: Path) -> int:
    """Take the exclusive lock of a run directory (``flock`` on ``.lock``) and return its
    descriptor, or fail in one line when another process holds it.

    The kernel releases the lock when its process ends, however it ends, so the lock of a
    killed run never blocks its resume.
    """
    path = directory / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise directory_error(directory, exc) from None
    if fcntl is None:  # no flock on this platform: no guard against a second process
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
        os.close(fd)
        if exc.errno not in (errno.EWOULDBLOCK, errno.EACCES, errno.EAGAIN):
            raise directory_error(directory, exc) from None
        pid = f" (pid {holder})" if holder.isdigit() else ""
        raise UsageError(
            f"{directory} is in use by another icl-aif process{pid}; "
            "wait for it to end, or choose another --out directory"
        ) from None
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError as exc:
        os.close(fd)
        raise directory_error(directory, exc) from None
    return fd


def check_writable(directory: Path) -> None:
    """Write and remove :data:`WRITE_CHECK_BYTES` in ``directory``, or fail in one line
    (:func:`directory_error`)."""
    probe = directory / ".write-check"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _append(fd, b"\n" * WRITE_CHECK_BYTES)
        finally:
            os.close(fd)
            probe.unlink(missing_ok=True)
    except OSError as exc:
        raise directory_error(directory, exc) from None


def directory_error(directory: Path, exc: OSError) -> UsageError:
    """The one-line error for ``exc`` raised while writing the run directory ``directory``."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return UsageError(f"{write_problem(directory, exc)}: free some space and run again")
    return UsageError(f"{write_problem(directory, exc)}; choose another --out directory")


def write_problem(directory: Path, exc: OSError) -> str:
    """What went wrong writing ``directory``: a full disk, or why it cannot be written."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"no space left on the disk of {directory}"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"cannot write to {directory}: {exc.strerror or 'permission denied'}"
    return f"cannot write the run directory {directory}: {exc.strerror or exc}"


def repair_records(
    directory: Path,
    lines_per_game: Callable[[str | None], int | None],
    seats: tuple[str, str],
    skipped: SkippedLines | None = None,
    silent: SilentLines | None = None,
) -> tuple[set[GameKey], float]:
    """Make the records of a stopped run consistent, for a resume; return the finished games and
    the recorded cost of their calls.

    A game is finished when ``games.jsonl`` holds all its lines: ``lines_per_game(cell)`` (one,
    or one per arm; None for a cell the config does not have). A torn last line (a write cut
    short by a kill or a full disk) and every other damaged line (:func:`record_lines`) are
    dropped, said in one warning per file and noted in ``skipped``; so are the lines of an
    unfinished game and every call of a game that is not finished. Both files are rewritten
    atomically, their kept lines byte for byte and in their order (a line of an earlier format
    upgraded to this one, in the game's ``seats``, its lines flagged ``silent``:
    :func:`upgraded`), so repairing twice changes nothing. The files are streamed, never held in
    memory.
    """
    counts: dict[GameKey, int] = {}
    if (directory / GAMES).is_file():  # a run killed before its first game may have none
        for _, game in record_lines(directory / GAMES, skipped, verb="dropped"):
            counts[game_key(game)] = counts.get(game_key(game), 0) + 1
    finished = {key for key, n in counts.items() if n == lines_per_game(key[0])}
    dropped = len(counts) - len(finished)
    if dropped:
        logger.info("%s: %d unfinished game(s) dropped, to be played again", directory, dropped)
    _keep_lines(
        directory / GAMES, finished, lambda r: game_line(upgraded(r, seats, silent)), skipped
    )
    cost = _keep_lines(
        directory / CALLS, finished, lambda r: call_line(upgraded(r, seats)), skipped
    )
    for leftover in directory.glob("*.tmp"):
        leftover.unlink(missing_ok=True)
    return finished, cost


def _keep_lines(
    path: Path,
    games: set[GameKey],
    upgrade: Callable[[dict[str, Any]], str],
    skipped: SkippedLines | None,
) -> float:
    """Rewrite ``path`` (atomically) with the readable lines of ``games`` only, a line of an
    older record format as ``upgrade`` writes it; return the sum of their ``cost_usd``."""
    cost = 0.0
    if not path.is_file():
        return cost
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("wb") as target:
            for raw, record in record_lines(path, skipped, verb="dropped"):
                if game_key(record) in games:
                    old = format_version_of(record) < FORMAT_VERSION
                    target.write(upgrade(record).encode("utf-8") if old else raw)
                    cost += float(record.get("cost_usd") or 0.0)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    return cost


# --- reading ---------------------------------------------------------------------------------

_LEADING_KEYS = re.compile(rb'^\{"game_id":"([^"\\]*)"(?:,"cell":"([^"\\]*)")?,"(?!cell")')


def _line_order(line: bytes) -> tuple[str, str]:
    """:func:`record_order` of one line, read from the keys our writer puts first (a line
    written otherwise is parsed whole)."""
    found = _LEADING_KEYS.match(line)
    if found is None:
        return record_order(json.loads(line))
    game, cell = found.groups()
    return ((cell or b"").decode(), game.decode())


def prompt_hashes(config: ExperimentConfig, prompts_root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``prompts/`` and of the data files ``config`` reads (the
    feedback pool, a model moderator's examples): the manifest's ``prompts``."""
    prompts = {f"prompts/{k}": v for k, v in hash_files(prompts_root).items()}
    if config.feedback.pool is not None and config.feedback.pool.is_file():
        prompts[str(config.feedback.pool)] = hashlib.sha256(
            config.feedback.pool.read_bytes()
        ).hexdigest()
    examples = config.roles.moderator.examples
    if config.roles.moderator.uses_model and examples is not None and examples.is_file():
        prompts[str(examples)] = hashlib.sha256(examples.read_bytes()).hexdigest()
    return prompts


def base_manifest(
    config: ExperimentConfig, prompts_root: Path, overrides: list[str], config_file: str | None
) -> dict[str, Any]:
    """The manifest as written when a run starts."""
    roles = config.roles
    prompts = prompt_hashes(config, prompts_root)
    return {
        "format_version": FORMAT_VERSION,
        "name": config.name,
        "game": config.game,
        "icl_aif_version": __version__,
        "versions": package_versions(),
        "git": git_state(Path(__file__).resolve().parent),
        "platform": platform.platform(),
        "config_file": config_file,
        "overrides": [public_override(item) for item in overrides],
        "seed": config.seed,
        "runs": config.runs,
        "rounds": config.rounds,
        "improve": config.improve,
        "models": {
            **{
                seat: "person" if config.person == seat else settings.model
                for seat, settings in roles.players.items()
            },
            "critic": roles.critic.model if config.calls_critic() else None,
            "moderator": roles.moderator.mode,
            "moderator_model": roles.moderator.model if roles.moderator.uses_model else None,
        },
        "feedback": {
            "source": config.feedback.source,
            "suggestions": config.feedback.suggestions,
            "constraints": list(config.feedback.constraints),
        },
        "context": {
            "mode": config.context,
            "last_rounds": config.last_rounds if config.context == "last_rounds" else None,
        },
        "person": config.person,
        "players": {  # what every player is told beside the game's brief (docs/records.md)
            "rival_persona": config.rival_persona,
            "countdown": config.countdown,
            "last_turn_accept": config.last_turn_accept,
            "move_retries": config.move_retries,
            "moves": config.moves,
            **({"personas": dict(config.personas)} if config.personas else {}),
            **(
                {"instructions": {s: config.instruction_of(s) for s in config.instructions}}
                if config.instructions
                else {}
            ),
        },
        "prompts": prompts,
        **_cache_settings(config),
        "started_at": now(),
        "finished_at": None,
        "status": "running",
    }


def _cache_settings(config: ExperimentConfig) -> dict[str, Any]:
    """The manifest's ``cache`` (its path and mode, never its contents); none without one."""
    if config.cache is None:
        return {}
    return {"cache": {"path": str(config.cache.path), "mode": config.cache.mode}}


def _append(fd: int, data: bytes) -> None:
    """Write all of ``data`` at the end of the open file ``fd`` and fsync it."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.fsync(fd)


def sort_jsonl(path: Path) -> None:
    """Rewrite a record file in :func:`record_order`, stably, without holding it in memory.

    One pass notes each line's sort key and byte span; a second copies the lines in order into a
    temporary file that replaces the original. ``calls.jsonl`` of a long run is hundreds of MB.
    """
    spans: list[tuple[tuple[str, str], int, int]] = []
    with path.open("rb") as source:
        offset = 0
        for line in source:
            if line.strip():
                spans.append((_line_order(line), offset, len(line)))
            offset += len(line)
    spans.sort(key=lambda span: span[0])  # stable: calls keep their order, arms theirs
    tmp = path.with_name(path.name + ".tmp")
    try:
        with path.open("rb") as source, tmp.open("wb") as target:
            for _, start, length in spans:
                source.seek(start)
                target.write(source.read(length))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
