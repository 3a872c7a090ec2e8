"""How much of a call's engine time is LangGraph's own: the round graph against a plain loop, and
what LangGraph's options and the graphs' shape change.

Two measurements, every model a simulator (``chaos:...``):

1. The quickstart as the engine plays it (``--runs`` games in flight, each call sleeping
   ``--latency`` seconds), twice: with the round graph, and with each round played by a plain loop
   over the same node functions (``open_round``, the speakers, ``moderate``; the Command each of
   ``open_round`` and ``moderate`` returns says who speaks next) instead of the round graph's
   Pregel loop. Both make the same model calls; the difference per call is what the round graph's
   supersteps cost. The plain loop is a measuring device for this script only, never a way the
   engine plays.
2. Variants, one game at a time at zero latency: ``--games`` games, each played ``--reps`` times
   by every variant in turn (interleaved, so a busy machine slows them alike); a variant's figure
   is the best time per call of each game, averaged over the games. The variants:

   - ``round_graph``: the engine as it is (openers and moderator route with ``Command``);
   - ``conditional_edges``: the round graph as it was, a conditional edge (``route_turn``)
     after the openers and after the moderator;
   - ``no_parent_config``: the round graph invoked without the ``play_round`` node's config (it
     runs as a graph of its own, not as the node's subgraph; pauses for a person need that link);
   - ``plain_loop``: the rounds without the round graph (as in 1.);
   - ``checkpointer_sync``, ``checkpointer_async``, ``checkpointer_exit``: the run graph with an
     in-memory checkpointer (``build_pausable_run_graph``, used only for games that pause for a
     person) under each ``durability``.

   ``same_games`` says whether every variant played the same games and calls (times aside).

    python bench/graph_overhead.py --runs 100 --latency 0.05 --games 3 --reps 4
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import Command
from throughput import bench_config  # the sibling script (run as python bench/...)

from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine import graphs, nodes
from icl_aif.engine.context import GameContext, judge_for
from icl_aif.engine.nodes import context_of
from icl_aif.engine.state import RoundState, RunState
from icl_aif.games.registry import get_game
from icl_aif.records.reader import read_games, read_jsonl

PRICE = get_game("price")
"""The game the benchmark plays (the quickstart's)."""

TIMES = ("started_at", "finished_at", "latency_s", "limit_wait_s")
"""Fields of the records that differ from one playing of a game to the next."""


class _Runtime:
    """What a node reads from LangGraph's runtime: the game's context."""

    def __init__(self, context: Any) -> None:
        self.context = context


def plain_loop_round_node(round_graph: Any) -> Any:
    """A ``play_round`` node that plays the round by calling the node functions in turn
    (``round_graph`` is not used)."""
    speakers = {side: nodes.speaker_node(side) for side in PRICE.seats}

    async def play_round(
        state: RunState, runtime: Runtime[GameContext], config: RunnableConfig
    ) -> dict[str, Any]:
        rounds = state.get("rounds", [])
        plain = _Runtime(runtime.context)
        current: dict[str, Any] = {"round": len(rounds) + 1, "history": state["history"]}
        current["turns"] = []

        def apply(update: dict[str, Any]) -> None:
            for key, value in update.items():  # turns add up, as the state's reducer does
                current[key] = current["turns"] + value if key == "turns" else value

        def then(command: Command[Any]) -> Any:
            apply(command.update or {})
            return command.goto

        speaker = then(await nodes.open_round(current, plain))  # type: ignore[arg-type]
        while speaker != END:
            apply(await speakers[speaker](current, plain))
            speaker = then(await nodes.moderate(current, plain))  # type: ignore[arg-type]
        game = context_of(runtime.context).game
        record = nodes.round_record(current, game)  # type: ignore[arg-type]
        update: dict[str, Any] = {"rounds": [*rounds, record]}
        if record["outcome"] == "error":
            update["error"] = record["reason"]
        return update

    return play_round


def unparented_round_node(round_graph: Any) -> Any:
    """A ``play_round`` node that invokes the round graph without the node's config."""

    async def play_round(
        state: RunState, runtime: Runtime[GameContext], config: RunnableConfig
    ) -> dict[str, Any]:
        rounds = state.get("rounds", [])
        start = {"round": len(rounds) + 1, "history": state["history"], "turns": []}
        result = await round_graph.ainvoke(start, context=runtime.context)
        record = nodes.round_record(result, context_of(runtime.context).game)
        update: dict[str, Any] = {"rounds": [*rounds, record]}
        if record["outcome"] == "error":
            update["error"] = record["reason"]
        return update

    return play_round


async def route_turn(state: RoundState) -> str:
    """The router of the conditional edges the round graph had: the next speaker, or the end."""
    if state.get("status") != "ongoing":
        return END
    return PRICE.seats.other(state["turns"][-1]["speaker"])


def update_only(node: Callable[..., Any]) -> Callable[..., Any]:
    """``node`` returning its Command's update alone (the route is left to an edge)."""

    async def plain(state: RoundState, runtime: Runtime[GameContext]) -> Any:
        return (await node(state, runtime)).update

    plain.__name__ = node.__name__
    return plain


def conditional_edges_round_graph(game: Any) -> Any:
    """The round graph as it was: a conditional edge after the openers and the moderator."""
    graph = StateGraph(RoundState, context_schema=GameContext)
    graph.add_node("open_round", update_only(nodes.open_round))
    for seat in game.seats:
        graph.add_node(seat, nodes.speaker_node(seat))
        graph.add_edge(seat, "moderate")
    graph.add_node("moderate", update_only(nodes.moderate))
    graph.add_edge(START, "open_round")
    for source in ("open_round", "moderate"):
        graph.add_conditional_edges(source, route_turn, [*game.seats, END])
    return graph.compile(name="negotiation")


@contextmanager
def patched(
    play_round_node: Callable[[Any], Any] | None = None,
    round_graph: Callable[[Any], Any] | None = None,
) -> Iterator[None]:
    """The graphs built inside use this ``play_round`` node and this round graph."""
    saved = nodes.play_round_node, graphs.build_round_graph
    if play_round_node is not None:
        nodes.play_round_node = play_round_node  # type: ignore[assignment]
    if round_graph is not None:
        graphs.build_round_graph = round_graph  # type: ignore[assignment]
    graphs.build_run_graph.cache_clear()
    try:
        yield
    finally:
        nodes.play_round_node, graphs.build_round_graph = saved
        graphs.build_run_graph.cache_clear()


# --- 1. the experiment, as the engine plays it ---------------------------------------------


def ms_per_call(runs: int, latency: float) -> tuple[float, list[dict[str, Any]]]:
    """Wall milliseconds per model call of the quickstart with ``runs`` games in flight, and
    the games (without their times)."""
    config = bench_config(runs, 5, latency, runs)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "run"
        started = time.perf_counter()
        asyncio.run(run_experiment(config, directory, probe_models=False))
        wall = time.perf_counter() - started
        calls = sum(1 for _ in read_jsonl(directory / "calls.jsonl"))
        games = read_games(directory)
    for game in games:
        game.pop("started_at")
        game.pop("finished_at")
    return 1000 * wall / calls, games


def best_ms_per_call(runs: int, latency: float, repeat: int) -> tuple[float, list[dict[str, Any]]]:
    """:func:`ms_per_call`, the best of ``repeat``."""
    measured = [ms_per_call(runs, latency) for _ in range(repeat)]
    return min(ms for ms, _ in measured), measured[0][1]


# --- 2. the variants, one game at a time -------------------------------------------------------

Variant = tuple[Any, dict[str, Any]]
"""A run graph and the keywords its ``ainvoke`` takes besides the input and the context."""


def variants() -> dict[str, Variant]:
    """The run graph of each variant (see the module's docstring)."""
    built: dict[str, Variant] = {"round_graph": (graphs.build_run_graph(PRICE), {})}
    with patched(round_graph=conditional_edges_round_graph):
        built["conditional_edges"] = (graphs.build_run_graph(PRICE), {})
    with patched(play_round_node=unparented_round_node):
        built["no_parent_config"] = (graphs.build_run_graph(PRICE), {})
    with patched(play_round_node=plain_loop_round_node):
        built["plain_loop"] = (graphs.build_run_graph(PRICE), {})
    for durability in ("sync", "async", "exit"):
        pausable = graphs.build_pausable_run_graph(PRICE, InMemorySaver())
        built[f"checkpointer_{durability}"] = (pausable, {"durability": durability})
    return built


def without_times(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` without the fields that differ from one playing to the next."""
    return {key: value for key, value in record.items() if key not in TIMES}


async def play_variants(
    config: ExperimentConfig, games: int, reps: int
) -> tuple[dict[str, float], bool]:
    """Each variant's best milliseconds per call (averaged over the games), and whether all
    played the same games."""
    prompts = PromptLibrary()
    judge = judge_for(config, prompts)
    built = variants()
    best: dict[str, list[float]] = {name: [float("inf")] * games for name in built}
    played: dict[tuple[str, int], Any] = {}
    for rep in range(reps):
        for index in range(games):
            for name, (graph, options) in built.items():
                ctx = GameContext(config=config, index=index, prompts=prompts, judge=judge)
                kwargs = dict(options)
                if graph.checkpointer is not None:
                    kwargs["config"] = {"configurable": {"thread_id": f"{rep}-{index}"}}
                started = time.perf_counter()
                state = await graph.ainvoke({}, context=ctx, **kwargs)
                elapsed = time.perf_counter() - started
                if graph.checkpointer is not None:
                    await graph.checkpointer.adelete_thread(f"{rep}-{index}")
                best[name][index] = min(best[name][index], 1000 * elapsed / len(ctx.calls))
                played[name, index] = (state, [without_times(call) for call in ctx.calls])
    same = all(played[name, index] == played["round_graph", index] for name, index in played)
    return {name: sum(times) / games for name, times in best.items()}, same


def main() -> None:
    """Measure both ways and print one figure per line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="games in flight (part 1)")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per model call")
    parser.add_argument("--repeat", type=int, default=1, help="part 1: best of this many")
    parser.add_argument("--games", type=int, default=3, help="part 2: games per variant")
    parser.add_argument("--reps", type=int, default=4, help="part 2: best of this many per game")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", message="`durability` has no effect")

    with_graph, games = best_ms_per_call(args.runs, args.latency, args.repeat)
    with patched(play_round_node=plain_loop_round_node):
        without, plain_games = best_ms_per_call(args.runs, args.latency, args.repeat)
    print(f"same_games: {str(games == plain_games).lower()}")  # the loop played the same games
    print(f"ms_per_call_round_graph: {with_graph:.2f}")
    print(f"ms_per_call_plain_loop: {without:.2f}")
    print(f"round_graph_ms_per_call: {with_graph - without:.2f}")

    config = bench_config(args.games, 5, 0.0, 1)
    figures, same = asyncio.run(play_variants(config, args.games, args.reps))
    print(f"variants_same_games: {str(same).lower()}")
    for name, ms in figures.items():
        print(f"variant_ms_per_call_{name}: {ms:.3f}")


if __name__ == "__main__":
    main()
