"""How much of a call's engine time is LangGraph's own: the round graph against a plain loop.

Plays the quickstart (simulators behind ``chaos:...?latency=L``) twice: as the engine does,
and with each round played by a plain loop over the same node functions (``open_round``, the
speakers, ``moderate``, ``route_turn``) instead of the round graph's Pregel loop. Both make the
same model calls; the difference per call is what the round graph's supersteps cost. The plain
loop is a measuring device for this script only, never a way the engine plays.

    python bench/graph_overhead.py --runs 100 --latency 0.05
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END
from langgraph.runtime import Runtime
from throughput import bench_config  # the sibling script (run as python bench/...)

from icl_aif import graphs, nodes
from icl_aif.context import GameContext, context_of
from icl_aif.records import read_games, read_jsonl
from icl_aif.runner import run_experiment
from icl_aif.state import RunState


class _Runtime:
    """What a node reads from LangGraph's runtime: the game's context."""

    def __init__(self, context: Any) -> None:
        self.context = context


def plain_loop_round_node(round_graph: Any) -> Any:
    """A ``play_round`` node that plays the round by calling the node functions in turn
    (``round_graph`` is not used)."""
    speakers = {side: nodes.speaker_node(side) for side in ("seller", "buyer")}

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

        apply(await nodes.open_round(current, plain))  # type: ignore[arg-type]
        speaker = await nodes.route_turn(current)  # type: ignore[arg-type]
        while speaker != END:
            apply(await speakers[speaker](current, plain))
            apply(await nodes.moderate(current, plain))  # type: ignore[arg-type]
            speaker = await nodes.route_turn(current)  # type: ignore[arg-type]
        game = context_of(runtime.context).game
        record = nodes.round_record(current, game)  # type: ignore[arg-type]
        update: dict[str, Any] = {"rounds": [*rounds, record]}
        if record["outcome"] == "error":
            update["error"] = record["reason"]
        return update

    return play_round


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


def main() -> None:
    """Measure both ways and print one figure per line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per model call")
    args = parser.parse_args()
    with_graph, games = ms_per_call(args.runs, args.latency)
    nodes.play_round_node = plain_loop_round_node
    graphs.build_run_graph.cache_clear()  # built again, with the plain-loop round node
    without, plain_games = ms_per_call(args.runs, args.latency)
    print(f"same_games: {str(games == plain_games).lower()}")  # the loop played the same games
    print(f"ms_per_call_round_graph: {with_graph:.2f}")
    print(f"ms_per_call_plain_loop: {without:.2f}")
    print(f"round_graph_ms_per_call: {with_graph - without:.2f}")


if __name__ == "__main__":
    main()
