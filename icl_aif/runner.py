"""Scheduling runs: ``concurrency`` games in flight, each recorded the moment it finishes.

Nothing here knows about prompts or the protocol: a game is the run graph invoked with its context.
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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from icl_aif.config import ExperimentConfig
from icl_aif.context import GameContext, build_moderator
from icl_aif.errors import UsageError
from icl_aif.graphs import build_pausable_run_graph, build_run_graph
from icl_aif.metrics import summarize
from icl_aif.preflight import preflight
from icl_aif.pricing import check_budget_prices, total_cost
from icl_aif.records import CALLS, RunWriter, base_manifest, now, read_games, read_jsonl
from icl_aif.report import summary_markdown
from icl_aif.templates import PromptLibrary
from icl_aif.usage import summarize_usage

logger = logging.getLogger(__name__)

Progress = Callable[[int], None]
AskHuman = Callable[[dict[str, Any]], Awaitable[str]]
"""Shows a pause's payload to a person and returns what they typed (see docs/protocol.md)."""


@dataclass(frozen=True)
class RunResult:
    """Where a run was written and its summary."""

    directory: Path
    summary: dict[str, Any]


async def play_game(
    ctx: GameContext,
    *,
    ask_human: AskHuman | None = None,
    graph: CompiledStateGraph[Any, Any, Any, Any] | None = None,
) -> dict[str, Any]:
    """Play one run of the multi-round experiment and return its ``games.jsonl`` record.

    With ``ask_human`` the game runs on ``graph`` (default: a pausable run graph with its own
    in-memory checkpointer) and every pause is answered by ``ask_human``.
    """
    started = now()
    try:
        if ask_human is None:
            state = await build_run_graph().ainvoke({}, context=ctx)
            if state.pop("__interrupt__", None):  # never silently a shorter game
                state["error"] = "the game paused for a person, and no one was asked"
        else:
            pausable = graph or build_pausable_run_graph(InMemorySaver())
            state = await _play_with_pauses(pausable, ctx, ask_human)
        rounds, error = state.get("rounds", []), state.get("error")
    except Exception as exc:  # a defect, not a model failure: keep the other games going
        logger.exception("game %s failed", ctx.game_id)
        rounds, error = [], f"{type(exc).__name__}: {exc}"
    return {
        "game_id": ctx.game_id,
        "seed": ctx.seed,
        "status": "error" if error else "complete",
        "error": error,
        "rounds": rounds,
        "started_at": started,
        "finished_at": now(),
    }


def person_needed(config: ExperimentConfig) -> str:
    """The one-line error for a config that pauses for a person when none can answer."""
    if config.feedback.source == "human":
        return "feedback.source human needs a person at the terminal: use icl-aif run in a terminal"
    return f"person: {config.person} needs a person at the terminal: use icl-aif play in a terminal"


async def _play_with_pauses(
    graph: CompiledStateGraph[Any, Any, Any, Any], ctx: GameContext, ask_human: AskHuman
) -> dict[str, Any]:
    """Invoke ``graph`` on the game's own thread, answering each pause until the game ends."""
    thread: RunnableConfig = {"configurable": {"thread_id": ctx.game_id}}
    payload: Any = {}
    try:
        while True:
            state: dict[str, Any] = await graph.ainvoke(payload, config=thread, context=ctx)
            pauses = state.pop("__interrupt__", None)
            if not pauses:
                return state
            answers = {}
            for pause in pauses:  # one at a time: a game has one node running at once
                answers[pause.id] = await ask_human({**pause.value, "game_id": ctx.game_id})
            payload = Command(resume=answers)
    finally:
        if graph.checkpointer is not None and not isinstance(graph.checkpointer, bool):
            await graph.checkpointer.adelete_thread(ctx.game_id)


async def run_experiment(
    config: ExperimentConfig,
    directory: Path,
    *,
    overrides: list[str] | None = None,
    config_file: str | None = None,
    progress: Progress | None = None,
    probe_models: bool = True,
    ask_human: AskHuman | None = None,
) -> RunResult:
    """Play ``config.runs`` games into ``directory`` and write the summary.

    Before any game, :func:`icl_aif.preflight.preflight` checks every role (and, with
    ``probe_models``, sends each vendor model one short request). With ``max_usd`` set, games stop
    being started once the recorded cost reaches it: the manifest then says
    ``status: budget_reached`` and the summary ``stopped_by: max_usd``.

    A config whose games pause for a person (``config.needs_person``) needs ``ask_human``: it is
    awaited with each pause's payload and returns the person's text. Calls to it may overlap when
    ``concurrency`` > 1; the callback serializes them if one person answers them all.
    """
    if config.needs_person and ask_human is None:
        raise UsageError(person_needed(config))
    prompts = PromptLibrary()
    check_budget_prices(config)
    writer = RunWriter(directory)
    writer.check_new()
    probes = await preflight(config, prompts, send=probe_models)
    manifest = base_manifest(config, prompts.root, overrides or [], config_file)
    writer.create(config, {**manifest, "preflight": probes})
    moderator = build_moderator(config, prompts)
    graph = build_pausable_run_graph(InMemorySaver()) if config.needs_person else None
    queue: asyncio.Queue[int] = asyncio.Queue()
    for index in range(config.runs):
        queue.put_nowait(index)
    budget = config.max_usd
    spent = 0.0  # cost of the finished games
    in_flight: dict[int, GameContext] = {}
    stopped_by: str | None = None

    def over_budget() -> bool:
        if budget is None:
            return False
        return spent + sum(total_cost(c.calls) for c in in_flight.values()) >= budget

    async def worker() -> None:
        nonlocal spent, stopped_by
        while True:
            if not queue.empty() and over_budget():
                stopped_by = "max_usd"
                return
            try:
                index = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            ctx = GameContext(config=config, index=index, prompts=prompts, moderator=moderator)
            in_flight[index] = ctx
            try:
                game = await play_game(
                    ctx, ask_human=ask_human if config.needs_person else None, graph=graph
                )
            finally:
                del in_flight[index]
            writer.append_game(game, ctx.calls)
            spent += total_cost(ctx.calls)
            if progress is not None:
                progress(1)

    try:
        await asyncio.gather(*(worker() for _ in range(min(config.concurrency, config.runs))))
    finally:
        writer.close()
    games = read_games(directory)
    summary = summarize(
        games,
        rounds=config.rounds,
        runs=config.runs,
        improve=config.improve,
        openers=len(config.scenario.openers),
        seed=config.seed,
    )
    summary["usage"] = summarize_usage(read_jsonl(directory / CALLS), config.prices, budget)
    summary["stopped_by"] = stopped_by
    if stopped_by is not None:
        logger.info(
            "budget max_usd=%s reached ($%.4f recorded): stopped after %d of %d runs",
            budget,
            summary["usage"]["total_cost_usd"],
            len(games),
            config.runs,
        )
    writer.finish(summary, summary_markdown(summary, config.name))
    status = "budget_reached" if stopped_by == "max_usd" else "finished"
    writer.manifest.update(finished_at=now(), status=status)
    writer.write_manifest()
    return RunResult(directory=directory, summary=summary)
