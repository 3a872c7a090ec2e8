"""Scheduling runs: ``concurrency`` games in flight, each recorded the moment it finishes.

Nothing here knows about prompts or the protocol: a game is the run graph invoked with its context
(:mod:`icl_aif.run.play`). Nor does it compute the summary: a summarizer handed in does, once the games
are written (:func:`icl_aif.analysis.summary.summarize_run` unless the caller passes another).
A game that pauses for a person (``config.needs_person``) runs on the run graph with an in-memory
checkpointer, one thread per game; each pause's payload goes to the caller's ``ask_human``
callback and its answer resumes the game. Every other game runs without a checkpointer (faster).
Every game derives its randomness from the experiment seed and its index, so results do not
depend on the concurrency or on the order in which games finish. The runner does keep the books:
with ``max_usd`` set it starts no new game once the cost of the calls recorded so far (finished
games and games in flight) reaches the budget; games in flight finish and are recorded.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from icl_aif.config.experiment import Cell, ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.seeds import game_id_for
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.context import GameContext, judge_for
from icl_aif.engine.graphs import build_pausable_run_graph
from icl_aif.games.registry import game_of, silent_lines
from icl_aif.models.pricing import check_budget_prices, total_cost
from icl_aif.records.layout import MANIFEST, GameKey, now
from icl_aif.records.reader import SkippedLines, read_manifest
from icl_aif.records.writer import (
    GameLines,
    RunWriter,
    base_manifest,
    directory_error,
    package_versions,
    prompt_hashes,
    repair_records,
    write_problem,
)
from icl_aif.run.checks import check_inputs
from icl_aif.run.collector import fewer_collections
from icl_aif.run.executors import Executor
from icl_aif.run.play import AskHuman, play_game, play_recorded
from icl_aif.run.preflight import preflight
from icl_aif.run.resume import check_prompts, resume_command, version_changes

logger = logging.getLogger(__name__)

__all__ = ["AskHuman", "RunResult", "Summarize", "play_game", "run_experiment"]

Progress = Callable[[int], None]
Summarize = Callable[[ExperimentConfig, list[Cell], Path, str | None], tuple[dict[str, Any], str]]
"""A finished run's summary (``summary.json``) and its markdown (``summary.md``), from the
config, its cells, the run directory and what stopped the run early (``max_usd``, or None)."""


@dataclass(frozen=True)
class RunResult:
    """Where a run was written and its summary."""

    directory: Path
    summary: dict[str, Any]
    dropped_lines: dict[str, int] = field(default_factory=dict)
    """A resume only: the damaged lines its repair dropped, per record file
    (``{"games.jsonl": 2}``; :func:`icl_aif.records.writer.repair_records`)."""


def person_needed(config: ExperimentConfig) -> str:
    """The one-line error for a config that pauses for a person when none can answer."""
    if config.feedback_needs_person:
        return (
            f"feedback.source {config.feedback.source} needs a person: use icl-aif run in a "
            "terminal, or icl-aif serve for critics on a web page"
        )
    return f"person: {config.person} needs a person at the terminal: use icl-aif play in a terminal"


async def run_experiment(
    config: ExperimentConfig,
    directory: Path,
    *,
    overrides: list[str] | None = None,
    config_file: str | None = None,
    progress: Progress | None = None,
    probe_models: bool = True,
    ask_human: AskHuman | None = None,
    offline: dict[str, Any] | None = None,
    resume: bool = False,
    executor: Executor | None = None,
    summarize: Summarize,
) -> RunResult:
    """Play ``config.runs`` games of every cell of ``config`` into ``directory``; write the summary.

    Before any game, :func:`icl_aif.run.preflight.preflight` checks every role of every cell (and,
    with ``probe_models``, sends each vendor model one short request). With ``max_usd`` set, games
    stop being started once the recorded cost reaches it: the manifest then says
    ``status: budget_reached`` and the summary ``stopped_by: max_usd``.

    A sweep (lists in the config) plays each cell's games in the same directory, each record
    tagged with its ``cell``; an experiment with ``arms`` plays each game's shared rounds once and
    then every arm (:mod:`icl_aif.engine.arms`). ``offline`` is what ``icl-aif run --offline`` replaced
    (recorded in the manifest).

    A config whose games pause for a person (``config.needs_person``) needs ``ask_human``: it is
    awaited with each pause's payload and returns the person's text. Calls to it may overlap when
    ``concurrency`` > 1; the callback serializes them if one person answers them all.

    The directory is locked for the run's lifetime (a second process on it is refused) and
    checked to take data before the preflight and any game. With ``resume`` the run already in
    ``directory`` (played with this ``config``: :func:`icl_aif.run.resume.resume_config`) continues:
    its records are repaired (:func:`icl_aif.records.writer.repair_records`), finished games are kept
    and the others are played; the manifest gets the time in ``resumed_at``. The games are the
    ones an uninterrupted run writes. Cancelled (Ctrl-C), the games in flight are abandoned and
    the manifest says ``interrupted``; a full disk stops the run the same way with a one-line
    :class:`UsageError`. Either way ``resume`` continues it.

    ``executor`` plays each game elsewhere (:class:`icl_aif.run.executors.RayExecutor`: Ray tasks;
    :class:`icl_aif.run.processes.ProcessExecutor`: worker processes), which sends back its lines
    ready to append (:class:`icl_aif.records.writer.GameLines`); this process still schedules the
    games and writes every record. The caller closes it.

    ``summarize`` computes ``summary.json`` and ``summary.md`` once the games are written: the
    analysis side's (above the runner) :func:`icl_aif.analysis.summary.summarize_run`, which
    :func:`icl_aif.analysis.experiment.run_experiment` passes.
    """
    writer = RunWriter(directory)
    try:
        return await _run_locked(
            config,
            writer,
            overrides=overrides,
            config_file=config_file,
            progress=progress,
            probe_models=probe_models,
            ask_human=ask_human,
            offline=offline,
            resume=resume,
            executor=executor,
            summarize=summarize,
        )
    except KeyboardInterrupt:
        # SIGTERM while Ctrl-C is ignored (a background job) raises wherever the loop was, not
        # always as a cancellation the schedule sees: the run stops the same way and says so
        if writer.manifest.get("status") in {"running", "resumed"}:
            writer.stop("interrupted")
        raise
    finally:
        writer.release()


async def _run_locked(
    config: ExperimentConfig,
    writer: RunWriter,
    *,
    overrides: list[str] | None,
    config_file: str | None,
    progress: Progress | None,
    probe_models: bool,
    ask_human: AskHuman | None,
    offline: dict[str, Any] | None,
    resume: bool,
    executor: Executor | None,
    summarize: Summarize,
) -> RunResult:
    """:func:`run_experiment` with ``writer``, whose lock the caller releases."""
    cells = config.cells()
    needs_person = any(cell.config.needs_person for cell in cells)
    if needs_person and ask_human is None:
        raise UsageError(person_needed(next(c.config for c in cells if c.config.needs_person)))
    prompts = PromptLibrary()
    check_inputs(config, prompts)  # every file and template a game reads: before anything exists
    for cell in cells:
        check_budget_prices(cell.config)
    writer.open(resume=resume)  # lock, new or not, writable: before anything is spent
    dropped = SkippedLines()  # damaged lines the repair of a resume drops
    earlier, done, kept_cost = _repaired(config, cells, writer, prompts, dropped, resume=resume)
    probes = await _probes(cells, prompts, probe_models)
    if earlier is not None:
        writer.resume(_resumed_manifest(earlier, config))
    else:
        manifest = base_manifest(config, prompts.root, overrides or [], config_file)
        manifest.update(_design_manifest(config, cells, offline))
        if resume:  # killed between config.yaml and manifest.json: the manifest starts again
            writer.resume({**manifest, "preflight": probes, "resumed_at": [now()]})
        else:
            writer.create(config, {**manifest, "preflight": probes})
    graph = build_pausable_run_graph(game_of(config), InMemorySaver()) if needs_person else None
    schedule = _Schedule(
        config=config,
        cells=cells,
        writer=writer,
        play=_player(cells, prompts, ask_human, graph, executor),
        pending=_pending_games(cells, done),  # lazily: memory does not grow
        progress=progress,
        spent=kept_cost,
        recorded=len(done),
        remote=executor is not None,
    )
    if done and progress is not None:
        progress(len(done))
    await schedule.run()
    return _finished(schedule, summarize, dropped)


def _repaired(
    config: ExperimentConfig,
    cells: list[Cell],
    writer: RunWriter,
    prompts: PromptLibrary,
    dropped: SkippedLines,
    *,
    resume: bool,
) -> tuple[dict[str, Any] | None, set[GameKey], float]:
    """What a resume keeps: the manifest of the run being resumed (None without one), the
    finished games and the cost of their calls, after the prompts they used are checked and
    the records repaired (:func:`~icl_aif.records.writer.repair_records`); nothing for a new run."""
    directory = writer.directory
    if not resume:
        return None, set(), 0.0
    earlier: dict[str, Any] | None = None
    if (directory / MANIFEST).is_file():  # the prompts the finished games used
        earlier = read_manifest(directory)
        used = dict(earlier.get("prompts") or {})  # under today's paths (read_manifest)
        check_prompts(directory, used, prompt_hashes(config, prompts.root))
    lines = {cell.id: len(cell.config.arms or ()) or 1 for cell in cells}
    try:
        done, kept_cost = repair_records(
            directory, lines.get, config.seats.ids, dropped, silent_lines(config)
        )
    except OSError as exc:
        raise directory_error(directory, exc) from None
    return earlier, done, kept_cost


async def _probes(
    cells: list[Cell], prompts: PromptLibrary, probe_models: bool
) -> list[dict[str, Any]]:
    """The preflight of every cell's models (:func:`~icl_aif.run.preflight.preflight`), each model
    of a role probed once."""
    probes: list[dict[str, Any]] = []
    for cell in cells:
        probed = {(p["model"], p.get("role")) for p in probes}
        probes.extend(
            p
            for p in await preflight(cell.config, prompts, send=probe_models)
            if (p["model"], p.get("role")) not in probed
        )
    return probes


def _resumed_manifest(earlier: dict[str, Any], config: ExperimentConfig) -> dict[str, Any]:
    """The manifest of a resumed run, rewritten in this record format (today's prompt paths,
    the game), with when it was resumed and the package versions that changed."""
    manifest = {**earlier, "game": config.game}
    resumed = now()
    manifest["resumed_at"] = [*manifest.get("resumed_at", []), resumed]
    changes = version_changes(manifest.get("versions") or {}, package_versions())
    if changes:
        logger.warning("resuming with other package versions: %s", changes)
        manifest["resumed_with"] = [
            *manifest.get("resumed_with", []),
            {"at": resumed, "versions": changes},
        ]
    manifest.update(status="resumed", finished_at=None)
    return manifest


PlayGame = Callable[[int, Cell, int, list[GameContext]], Awaitable[GameLines]]
"""How the schedule plays game ``index`` of the cell at a position, its contexts filled in."""


def _player(
    cells: list[Cell],
    prompts: PromptLibrary,
    ask_human: AskHuman | None,
    graph: Any,
    executor: Executor | None,
) -> PlayGame:
    """Play a game here (one judge per cell, shared by its games) or on ``executor``
    (:mod:`icl_aif.run.executors`: elsewhere, e.g. a Ray task)."""
    judges = [judge_for(cell.config, prompts) for cell in cells]

    async def play(position: int, cell: Cell, index: int, contexts: list[GameContext]) -> GameLines:
        if executor is not None:
            return await executor.play(cell, index)
        judge = judges[position]
        return await play_recorded(cell, index, prompts, judge, contexts, ask_human, graph)

    return play


@dataclass
class _Schedule:
    """The games of a run, played ``config.concurrency`` at a time and recorded as each ends.

    ``spent`` (the recorded cost, with the kept games' on resume) stops the run at
    ``config.max_usd`` (``stopped_by``); a failed write, or an executor that lost a game, stops
    every game (``failure``: the first one), the directory staying resumable.
    """

    config: ExperimentConfig
    cells: list[Cell]
    writer: RunWriter
    play: PlayGame
    pending: Iterator[tuple[int, int]]
    progress: Progress | None
    spent: float
    recorded: int
    remote: bool
    failure: Exception | None = None
    stopped_by: str | None = None
    in_flight: dict[tuple[int, int], list[GameContext]] = field(default_factory=dict)
    task: asyncio.Task[Any] | None = None

    @property
    def total(self) -> int:
        """The games of the run."""
        return sum(cell.config.runs for cell in self.cells)

    def over_budget(self) -> bool:
        """The recorded cost and the calls of the games in flight reach ``max_usd``."""
        budget = self.config.max_usd
        if budget is None:
            return False
        running = sum(total_cost(c.calls) for cs in self.in_flight.values() for c in cs)
        return self.spent + running >= budget

    def stop(self, exc: Exception) -> None:
        """Stop every game (the first failure is the one reported)."""
        self.failure = self.failure or exc
        if self.task is not None:
            self.task.cancel()

    async def worker(self) -> None:
        """Play the pending games one after another until none is left or the run stops."""
        while (game := next(self.pending, None)) is not None:
            if self.over_budget():
                self.stopped_by = "max_usd"
                return
            position, index = game
            contexts: list[GameContext] = []
            self.in_flight[position, index] = contexts
            try:
                lines = await self.play(position, self.cells[position], index, contexts)
            except Exception as exc:  # the executor lost the game (a worker died for good)
                if not self.remote or isinstance(exc, UsageError):
                    raise
                self.stop(exc)
                return
            finally:
                del self.in_flight[position, index]
            if self.failure is not None:
                return
            self.spent += lines.cost_usd  # counted now: the games that start meanwhile see it
            try:
                await self.writer.record(lines)  # on disk, with the games finished meanwhile
            except OSError as exc:  # a full disk: stop every game, keep the directory resumable
                self.stop(exc)
                return
            self.recorded += 1
            if self.progress is not None:
                self.progress(1)

    async def run(self) -> None:
        """Every pending game; the games in flight are abandoned (none half-written) when the
        run stops, a failure raised as one line."""
        self.task = asyncio.current_task()
        workers = min(self.config.concurrency, self.total)
        try:
            with fewer_collections():
                await asyncio.gather(*(self.worker() for _ in range(workers)))
        except asyncio.CancelledError:
            self.writer.stop("interrupted")
            if self.failure is None or self.task is None:
                raise
            self.task.uncancel()
            raise _stopped(self.writer.directory, self.failure, self.recorded, self.total) from None
        finally:
            self.writer.close()


def _finished(schedule: _Schedule, summarize: Summarize, dropped: SkippedLines) -> RunResult:
    """Summarize the run ``schedule`` played and write its summary and final manifest."""
    config, writer = schedule.config, schedule.writer
    directory = writer.directory
    summary, markdown = summarize(config, schedule.cells, directory, schedule.stopped_by)
    if schedule.stopped_by is not None:
        logger.info(
            "budget max_usd=%s reached ($%.4f recorded): stopped after %d of %d runs",
            config.max_usd,
            schedule.spent,
            schedule.recorded,
            schedule.total,
        )
    status = "budget_reached" if schedule.stopped_by == "max_usd" else "finished"
    try:
        writer.finish(summary, markdown)
        writer.manifest.update(finished_at=now(), status=status)
        writer.write_manifest()
    except OSError as exc:
        writer.stop("interrupted")
        raise _stopped(directory, exc, schedule.recorded, schedule.total) from None
    return RunResult(directory=directory, summary=summary, dropped_lines=dropped.counts())


def _pending_games(cells: list[Cell], done: set[GameKey]) -> Iterator[tuple[int, int]]:
    """(cell position, game index) of every game still to play, cell by cell (each its own
    ``runs``), made one at a time as workers ask for them."""
    for position, cell in enumerate(cells):
        for index in range(cell.config.runs):
            if (cell.id, game_id_for(index)) not in done:
                yield position, index


def _stopped(directory: Path, exc: Exception, recorded: int, total: int) -> UsageError:
    """The one-line error of a run stopped by a failed write (a full disk) or a failed executor,
    with how to resume."""
    if isinstance(exc, OSError):
        problem = write_problem(directory, exc)
    else:  # a Ray task error carries the worker's exception and a traceback in its text
        cause = getattr(exc, "cause", None) or exc
        lines = [line.strip() for line in str(cause).splitlines() if line.strip()]
        problem = f"the executor failed: {type(cause).__name__}: {lines[0] if lines else ''}"
    return UsageError(
        f"{problem}: the run stopped with {recorded} of {total} games "
        f"recorded; fix it, then continue with: {resume_command(directory)}"
    )


def _design_manifest(
    config: ExperimentConfig, cells: list[Cell], offline: dict[str, Any] | None
) -> dict[str, Any]:
    """Manifest keys of a sweep (``cells``), of paired arms (``arms``, ``branch_after``) and of
    ``--offline`` (``offline``); none of them for a plain run."""
    extra: dict[str, Any] = {}
    if config.has_cells:
        extra["cells"] = [
            {
                "cell": cell.id,
                "settings": cell.settings,
                **({"players": cell.players} if cell.players is not None else {}),
                "models": {
                    **{
                        seat: settings.model for seat, settings in cell.config.roles.players.items()
                    },
                    "critic": cell.config.roles.critic.model
                    if cell.config.calls_critic(arms=True)
                    else None,
                },
            }
            for cell in cells
        ]
    if config.arms:
        extra.update(arms=list(config.arms), branch_after=config.branch_after)
    if offline is not None:
        extra["offline"] = {"replaced": offline}
    return extra
