"""Playing one game: the run graph invoked with the game's context, answering pauses for a person.

The runner (:mod:`icl_aif.run.runner`) plays games here in its own process; worker processes
(:mod:`icl_aif.run.processes`) and Ray workers (:mod:`icl_aif.run.executors`) play them through
:func:`play_here_recorded`, exactly as the runner would. Either way a finished game leaves as its
lines, validated and serialised (:func:`recorded`): in a worker, off the driver's core.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from icl_aif.config.experiment import Cell, ExperimentConfig
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.arms import play_branched_game
from icl_aif.engine.context import GameContext, judge_for
from icl_aif.engine.graphs import build_pausable_run_graph, build_run_graph
from icl_aif.models.pricing import total_cost
from icl_aif.records.layout import now
from icl_aif.records.schema import game_record
from icl_aif.records.writer import GameLines, encode_game

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    """A person's answer to a pause with notes about it: ``text`` resumes the game and, for a
    feedback pause, ``notes`` become keys of that round's record (who answered and when, e.g.
    ``annotator``, ``shown_at``, ``submitted_at``: docs/records.md)."""

    text: str
    notes: dict[str, Any] = field(default_factory=dict)


AskHuman = Callable[[dict[str, Any]], Awaitable["str | Answer"]]
"""Shows a pause's payload to a person and returns what they typed, or an :class:`Answer` with
notes for the record (see docs/protocol.md)."""

GameResult = tuple[list[dict[str, Any]], list[dict[str, Any]]]
"""One game's ``games.jsonl`` records (one, or one per arm) and its ``calls.jsonl`` records."""


async def play_game(
    ctx: GameContext,
    *,
    ask_human: AskHuman | None = None,
    graph: CompiledStateGraph[Any, Any, Any, Any] | None = None,
) -> dict[str, Any]:
    """Play one run of the multi-round experiment and return its ``games.jsonl`` record
    (:func:`icl_aif.records.schema.game_record`; the writer validates and versions it).

    With ``ask_human`` the game runs on ``graph`` (default: a pausable run graph with its own
    in-memory checkpointer) and every pause is answered by ``ask_human``.
    """
    started = now()
    try:
        with ctx.cache_scope():  # the config's response cache, for this game's calls
            if ask_human is None:
                state = await build_run_graph(ctx.game).ainvoke({}, context=ctx)
                if state.pop("__interrupt__", None):  # never silently a shorter game
                    state["error"] = "the game paused for a person, and no one was asked"
            else:
                pausable = graph or build_pausable_run_graph(ctx.game, InMemorySaver())
                state = await _play_with_pauses(pausable, ctx, ask_human)
        rounds, error = state.get("rounds", []), state.get("error")
    except Exception as exc:  # a defect, not a model failure: keep the other games going
        logger.exception("game %s failed", ctx.game_id)
        rounds, error = [], f"{type(exc).__name__}: {exc}"
    return game_record(
        game_id=ctx.game_id,
        seed=ctx.seed,
        drawn=ctx.drawn,
        rounds=rounds,
        error=error,
        started_at=started,
        finished_at=now(),
    )


async def _play_with_pauses(
    graph: CompiledStateGraph[Any, Any, Any, Any], ctx: GameContext, ask_human: AskHuman
) -> dict[str, Any]:
    """Invoke ``graph`` on the game's own thread, answering each pause until the game ends."""
    # a sweep's cells reuse game ids: the thread is the cell's game (and the arm's)
    thread_id = ":".join(part for part in (ctx.cell, ctx.game_id, ctx.arm) if part)
    thread: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    payload: Any = {}
    notes: dict[int, dict[str, Any]] = {}  # a feedback pause's notes, by round
    try:
        while True:
            state: dict[str, Any] = await graph.ainvoke(payload, config=thread, context=ctx)
            pauses = state.pop("__interrupt__", None)
            if not pauses:
                return _with_notes(state, notes)
            answers = {}
            for pause in pauses:  # one at a time: a game has one node running at once
                answer = await ask_human({**pause.value, "game_id": ctx.game_id})
                if isinstance(answer, Answer):
                    if answer.notes and pause.value.get("kind") == "feedback":
                        notes[pause.value["round"]] = answer.notes
                    answer = answer.text
                answers[pause.id] = answer
            payload = Command(resume=answers)
    finally:
        if graph.checkpointer is not None and not isinstance(graph.checkpointer, bool):
            await graph.checkpointer.adelete_thread(ctx.game_id)


def _with_notes(state: dict[str, Any], notes: dict[int, dict[str, Any]]) -> dict[str, Any]:
    """``state`` with each feedback answer's notes added to the round it followed."""
    if notes:
        state["rounds"] = [
            {**record, **notes.get(record["round"], {})} for record in state.get("rounds", [])
        ]
    return state


async def play_cell(
    cell: Cell,
    index: int,
    prompts: PromptLibrary,
    judge: Any,
    contexts: list[GameContext],
    ask_human: AskHuman | None,
    graph: CompiledStateGraph[Any, Any, Any, Any] | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One game of a cell: its records (one, or one per arm) and its calls. Each game's context
    is appended to ``contexts`` while it plays (the runner reads the cost of games in flight)."""
    config = cell.config
    if config.arms:
        return await play_branched_game(
            config, index, prompts, judge, contexts=contexts, cell=cell.id
        )
    ctx = GameContext(config=config, index=index, prompts=prompts, judge=judge, cell=cell.id)
    contexts.append(ctx)
    asked = ask_human if config.needs_person else None
    if asked is not None and cell.id is not None:  # a sweep: game ids repeat across cells
        asked = _in_cell(asked, cell.id)
    game = await play_game(ctx, ask_human=asked, graph=graph)
    return [game], ctx.calls


def _in_cell(ask_human: AskHuman, cell_id: str) -> AskHuman:
    """``ask_human`` given each pause's payload with ``cell``: the sweep cell of the game."""

    async def ask(payload: dict[str, Any]) -> str | Answer:
        return await ask_human({**payload, "cell": cell_id})

    return ask


def recorded(cell: Cell, result: GameResult) -> GameLines:
    """A finished game of ``cell`` as the run writer appends it: its lines, tagged with the
    cell in a sweep (:func:`icl_aif.records.writer.encode_game`), and the cost of its calls."""
    games, calls = result
    return encode_game(games, calls, cell.id, total_cost(calls))


async def play_recorded(
    cell: Cell,
    index: int,
    prompts: PromptLibrary,
    judge: Any,
    contexts: list[GameContext],
    ask_human: AskHuman | None,
    graph: CompiledStateGraph[Any, Any, Any, Any] | None,
) -> GameLines:
    """:func:`play_cell`, the game's lines ready to append (:func:`recorded`)."""
    return recorded(cell, await play_cell(cell, index, prompts, judge, contexts, ask_human, graph))


# --- in a worker process ---------------------------------------------------------------------

_WORKER: dict[str, Any] = {}  # the worker's prompt library and judges


def _worker_judge(config: ExperimentConfig, prompts: Any) -> Any:
    """One judge per config in this worker (a model-backed one keeps its parse path)."""
    judges: dict[str, Any] = _WORKER.setdefault("judges", {})
    key = config.model_dump_json()  # as the runner: one judge per cell
    if key not in judges:
        judges[key] = judge_for(config, prompts)
    return judges[key]


async def play_here(cell: Cell, index: int) -> GameResult:
    """Play game ``index`` of ``cell`` in this worker process, as the local executor does."""
    prompts = _WORKER.get("prompts")
    if prompts is None:
        prompts = _WORKER["prompts"] = PromptLibrary()
    judge = _worker_judge(cell.config, prompts)
    return await play_cell(cell, index, prompts, judge, [], None, None)


async def play_here_recorded(cell: Cell, index: int) -> GameLines:
    """:func:`play_here`, the game's lines ready to append: what a worker sends the driver."""
    return recorded(cell, await play_here(cell, index))
