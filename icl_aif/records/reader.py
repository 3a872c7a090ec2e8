"""Reading a run directory.

Every reader of the record files goes through :func:`record_lines` (streamed), which
meets a damaged line the same way for all: a torn last line, a line that is not JSON, not an
object or not the shape of its record (:func:`~icl_aif.records.schema.game_problem`,
:func:`~icl_aif.records.schema.call_problem`) is skipped, said in one warning per file
(:data:`DAMAGE_LOG`) and counted in the command's :class:`SkippedLines`; a file with no readable
game, or a damaged ``manifest.json``, is a one-line :class:`UsageError`.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator
from json import JSONDecodeError
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from icl_aif.config.files import read_config_data
from icl_aif.core.errors import UsageError
from icl_aif.core.record_upgrade import format3_seats, upgrade_seats
from icl_aif.records.layout import CALLS, CONFIG, GAMES, MANIFEST, SUMMARY, record_order
from icl_aif.records.schema import (
    FORMAT1_MEASURE,
    FORMAT_VERSION,
    ManifestRecord,
    SilentLines,
    call_problem,
    check_format_version,
    format_version_of,
    game_problem,
    prompts_of,
    upgrade_game,
)

DAMAGE_LOG = "icl_aif.records.damaged"
"""The logger that warns of damaged record lines, once per file (the CLI prints its records as
``warning: ...`` lines)."""
TORN = "torn last line (a write cut short: a killed run)"
"""The problem of a last line without its newline."""
_SHOWN_LINES = 5
"""Line numbers a warning names per problem (the others are counted)."""
_said: set[tuple[str, int, int]] = set()
"""The damaged files (path, size, modification time) this process has warned of."""


class Damage:
    """The damaged lines one read of a record file met: what is wrong with each, by problem."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self._lines: dict[str, list[int]] = {}
        self._counts: dict[str, int] = {}

    def add(self, number: int, problem: str) -> None:
        """Note line ``number`` (1-based) as damaged by ``problem``."""
        self.count += 1
        self._counts[problem] = self._counts.get(problem, 0) + 1
        shown = self._lines.setdefault(problem, [])
        if len(shown) < _SHOWN_LINES:
            shown.append(number)

    def message(self, verb: str = "skipped") -> str:
        """One line naming the file and the damaged lines, e.g. ``runs/x/games.jsonl: 2 damaged
        lines skipped (line 7: not JSON; line 12: not a game record: no rounds)``."""
        return f"{self.path}: {_lines(self.count)} {verb} ({self.details()})"

    def details(self) -> str:
        """The damaged lines by problem: ``lines 7, 9: not JSON; line 12: ...``."""
        parts = []
        for problem, numbers in self._lines.items():
            count = self._counts[problem]
            named = ", ".join(map(str, numbers))
            more = f" and {count - len(numbers)} more" if count > len(numbers) else ""
            parts.append(f"{'line' if count == 1 else 'lines'} {named}{more}: {problem}")
        return "; ".join(parts)

    def refuse_if_unreadable(self, readable: int, what: str = "record") -> None:
        """A one-line :class:`UsageError` when no line of the file was readable but some were
        damaged: there is nothing to go on with."""
        if self.count and not readable:
            raise UsageError(
                f"{self.path}: no readable {what}, only {_lines(self.count)} ({self.details()})"
            )


class SkippedLines:
    """The damaged lines the readers of one command skipped, per record file: what the command
    shows in its output (:meth:`line`). A file read twice counts once."""

    def __init__(self) -> None:
        self.files: dict[Path, Damage] = {}

    def add(self, damage: Damage) -> None:
        """Note the damaged lines of one read of a file (none: nothing to note)."""
        if damage.count:
            self.files[damage.path] = damage

    @property
    def count(self) -> int:
        """Damaged lines skipped, all files together."""
        return sum(damage.count for damage in self.files.values())

    def counts(self) -> dict[str, int]:
        """Damaged lines skipped per file name (``{"games.jsonl": 2}``), for JSON outputs."""
        return {path.name: damage.count for path, damage in self.files.items()}

    def messages(self, verb: str = "skipped") -> list[str]:
        """Each damaged file's line (:meth:`Damage.message`): the lines it names."""
        return [damage.message(verb) for damage in self.files.values()]

    def line(self, verb: str = "skipped") -> str | None:
        """``3 damaged lines skipped in runs/x/games.jsonl``, with each file's count when there
        are several; None when no line was damaged."""
        if len(self.files) == 1:
            ((path, damage),) = self.files.items()
            return f"{_lines(damage.count)} {verb} in {path} (the warning names them)"
        if not self.files:
            return None
        where = ", ".join(f"{d.count} in {path}" for path, d in self.files.items())
        return f"{_lines(self.count)} {verb}: {where} (the warnings name them)"


def _lines(count: int) -> str:
    return f"{count} damaged line{'' if count == 1 else 's'}"


_SHAPES: dict[str, Callable[[dict[str, Any]], str | None]] = {
    GAMES: game_problem,
    CALLS: call_problem,
}
"""The shape check of each record file, by name (another JSONL file: any object)."""


def record_lines(
    path: Path, skipped: SkippedLines | None = None, *, verb: str = "skipped"
) -> Iterator[tuple[bytes, dict[str, Any]]]:
    """Each readable line of the JSONL record file ``path`` with its object, streamed.

    Every reader of records goes through here, and meets damaged lines the same way: a line that
    is not JSON, not an object or not the shape of its record (:func:`game_problem`,
    :func:`call_problem`), and a torn last line (no newline: a write cut short by a kill), are
    skipped, warned of in one line per file (once per process: :data:`DAMAGE_LOG`) once the file
    is read through, and noted in ``skipped``. A record of a newer ``format_version`` than this
    package reads is a one-line :class:`UsageError`. ``verb`` says what became of the damaged
    lines (``dropped`` where the file is rewritten without them).
    """
    damage = Damage(path)
    yield from _scan(path, damage)
    say_damage(damage, skipped, verb)


def _scan(
    path: Path, damage: Damage, *, records: bool = True
) -> Iterator[tuple[bytes, dict[str, Any]]]:
    """:func:`record_lines` without the warning: the damaged lines go to ``damage``. Without
    ``records``, any JSON object is read (no shape, no ``format_version``)."""
    shape = _SHAPES.get(path.name) if records else None
    with path.open("rb") as source:
        for number, raw in enumerate(source, start=1):
            if raw.isspace():  # an empty line: nothing lost
                continue
            if not raw.endswith(b"\n"):
                damage.add(number, TORN)
                return
            try:
                record = json.loads(raw)
            except ValueError:  # UnicodeDecodeError too
                damage.add(number, "not JSON")
                continue
            if not isinstance(record, dict):
                damage.add(number, "not a JSON object")
                continue
            if records and format_version_of(record) > FORMAT_VERSION:  # refused in one line
                check_format_version(record, f"{path} line {number}")
            problem = shape(record) if shape is not None else None
            if problem is not None:
                damage.add(number, problem)
                continue
            yield raw, record


def say_damage(damage: Damage, skipped: SkippedLines | None = None, verb: str = "skipped") -> None:
    """Warn of the damaged lines of ``damage``, once per file and process (a file that changed
    is warned of again), and note them in ``skipped``."""
    if skipped is not None:
        skipped.add(damage)
    if not damage.count:
        return
    try:
        stat = damage.path.stat()
        key = (str(damage.path.resolve()), stat.st_size, stat.st_mtime_ns)
    except OSError:
        key = (str(damage.path), -1, -1)
    if key in _said:
        return
    _said.add(key)
    logging.getLogger(DAMAGE_LOG).warning("%s", damage.message(verb))


def read_records(path: Path, skipped: SkippedLines | None = None) -> Iterator[dict[str, Any]]:
    """The records of ``games.jsonl`` or ``calls.jsonl`` as plain data, of any format version
    this package reads, streamed; damaged lines are skipped with one warning and noted in
    ``skipped`` (:func:`record_lines`); a record of a newer version is a one-line
    :class:`UsageError`."""
    for _, record in record_lines(path, skipped):
        yield record


def read_jsonl(path: Path, skipped: SkippedLines | None = None) -> Iterator[dict[str, Any]]:
    """The objects of a JSONL file, streamed, whatever their keys (:func:`read_records` reads
    records: their shape and format version checked). Lines that are not JSON objects, and a
    torn last line, are skipped with one warning and noted in ``skipped``."""
    damage = Damage(path)
    for _, record in _scan(path, damage, records=False):
        yield record
    say_damage(damage, skipped)


def count_records(path: Path, skipped: SkippedLines | None = None, what: str = "record") -> int:
    """How many readable records ``path`` holds, streamed: its damaged lines are warned of and
    noted in ``skipped`` as any reader does (:func:`record_lines`); a file whose every line is
    damaged is a one-line :class:`UsageError` (``what``: what the file holds, in the error)."""
    damage = Damage(path)
    count = sum(1 for _ in _scan(path, damage))
    damage.refuse_if_unreadable(count, what)
    say_damage(damage, skipped)
    return count


def upgraded(
    record: dict[str, Any], seats: tuple[str, str], silent: SilentLines | None = None
) -> dict[str, Any]:
    """A record of an earlier format (a ``games.jsonl`` or ``calls.jsonl`` line, a manifest, a
    summary) as this format writes it, in the game's ``seats``: the one upgrade step every reader
    goes through. Formats 0 and 1 (all of the price game) get ``terms`` and ``truncated`` on
    their rounds (:func:`~icl_aif.records.schema.upgrade_game`); a manifest's ``prompts`` take
    today's paths (:func:`~icl_aif.records.schema.prompts_of`); formats before 3 get the game's
    seat ids for ``seller`` and ``buyer`` (:func:`~icl_aif.core.record_upgrade.upgrade_seats`);
    before 4, a game's generated lines that state no terms get the game's ``silent`` flag when
    the reader passes it (a summary counts them: :class:`~icl_aif.records.schema.SilentLines`;
    without it the lines keep the flags they were written with). ``format_version`` still says
    the version the record was written in (a writer stamps its own). A current record is
    returned as it is."""
    version = format_version_of(record)
    if version >= FORMAT_VERSION:
        return record
    if version < 2 and isinstance(record.get("rounds"), list):
        record = upgrade_game(record)
    if isinstance(record.get("prompts"), dict):  # a manifest: its templates under today's paths
        record = {**record, "prompts": prompts_of(record)}
    if version < 3:
        record = upgrade_seats(record, seats)
    if silent is not None and isinstance(record.get("rounds"), list):
        record = silent.marked_game(record)
    return record


def run_seats(directory: Path) -> tuple[str, str]:
    """The seat ids format 3 gives the game the run in ``directory`` played
    (:func:`~icl_aif.core.record_upgrade.format3_seats` of its manifest's ``game``; the price game
    before format 2, or without a readable manifest)."""
    game = "price"
    path = directory / MANIFEST
    if path.is_file():
        with contextlib.suppress(UsageError):
            game = str(read_json(path).get("game") or "price")
    return format3_seats(game)


def read_games(
    directory: Path, skipped: SkippedLines | None = None, silent: SilentLines | None = None
) -> list[dict[str, Any]]:
    """All finished runs of a run directory, ordered by sweep cell and game id (a game's arms
    in the order of the config), as plain data (:class:`GameRecord` is their schema), lines of
    earlier formats upgraded to this one (:func:`upgraded`; ``silent``: the game's flag of the
    lines that state no terms, for a reader that counts them); a newer version than this package
    reads is a one-line :class:`UsageError`. Damaged lines are skipped with one warning and
    noted in ``skipped`` (:func:`record_lines`); a file whose every line is damaged is a
    one-line :class:`UsageError`."""
    path = directory / GAMES
    if not path.is_file():
        raise UsageError(f"{directory}: no {GAMES} here; is this a run directory?")
    seats = run_seats(directory)
    damage = Damage(path)
    games = [upgraded(record, seats, silent) for _, record in _scan(path, damage)]
    damage.refuse_if_unreadable(len(games), "game")
    say_damage(damage, skipped)
    return sorted(games, key=record_order)


def read_calls(directory: Path, skipped: SkippedLines | None = None) -> Iterator[dict[str, Any]]:
    """The ``calls.jsonl`` records of a run directory, streamed, lines of earlier formats
    upgraded to this one (:func:`upgraded`); damaged lines are skipped as :func:`read_records`
    does."""
    seats = run_seats(directory)
    for record in read_records(directory / CALLS, skipped):
        yield upgraded(record, seats)


def read_manifest(directory: Path) -> dict[str, Any]:
    """``manifest.json`` of a run directory, upgraded to this format (:func:`upgraded`): a
    one-line error when it is missing, damaged (not JSON, not a manifest) or written by a newer
    record format than this package reads."""
    path = directory / MANIFEST
    manifest = read_json(path)
    check_format_version(manifest, path)
    try:
        ManifestRecord.model_validate(manifest)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the file"
        raise UsageError(f"{path}: not a run manifest ({where}: {first['msg']})") from None
    return upgraded(manifest, run_seats(directory))


def read_summary(directory: Path) -> dict[str, Any]:
    """``summary.json`` of a run directory, in this format's seats, naming its ``measure`` (a
    summary carries no version: the manifest's says which it is; one of format 0 or 1 measured
    the deal price, :data:`~icl_aif.records.schema.FORMAT1_MEASURE`)."""
    summary = read_json(directory / SUMMARY)
    manifest = directory / MANIFEST
    version = format_version_of(read_json(manifest)) if manifest.is_file() else 0
    if version < 2 and "measure" not in summary:
        summary = {**summary, "measure": FORMAT1_MEASURE}
    if version >= 3:
        return summary
    mapped: dict[str, Any] = upgrade_seats(summary, run_seats(directory))
    return mapped


def read_run_config_data(directory: Path) -> dict[str, Any]:
    """``config.yaml`` of a run directory as plain data, in the game's seats (a run of an
    earlier format names them ``seller`` and ``buyer``); a one-line error when it is missing or
    not YAML."""
    mapped: dict[str, Any] = upgrade_seats(
        read_config_data(directory / CONFIG), run_seats(directory)
    )
    return mapped


def read_json(path: Path) -> dict[str, Any]:
    """A JSON object from disk, or a one-line error naming the file (missing, or damaged: not
    JSON, not an object)."""
    if not path.is_file():
        raise UsageError(f"{path}: no such file; is {path.parent} a run directory?")
    try:
        data = json.loads(path.read_bytes())
    except ValueError as exc:  # UnicodeDecodeError too
        where = (
            f" (line {exc.lineno}, column {exc.colno})" if isinstance(exc, JSONDecodeError) else ""
        )
        raise UsageError(f"{path}: damaged, not JSON{where}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: damaged, not a JSON object")
    return data
