"""The LangGraph state machines: one round, and one run of rounds with feedback in between.

``graphs/negotiation.py`` and ``graphs/icl_aif.py`` expose these for ``langgraph dev``, which
refuses graphs compiled with their own checkpointer (it brings its own): the entry points use the
graphs without one. Games that pause for a person (LangGraph ``interrupt()``: human feedback, a side
a person plays) need a checkpointer: :func:`build_pausable_run_graph` compiles the run graph with
one. The round graph never has its own; inside the run graph it shares the run graph's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, cast

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from icl_aif.config.checks import ConfigChecks
from icl_aif.engine import nodes
from icl_aif.engine.configs import CHECKS
from icl_aif.engine.context import GameContext
from icl_aif.engine.state import RoundState, RunState
from icl_aif.games.base import Game


@dataclass
class StudioContext(GameContext):
    """A game's context as ``langgraph dev`` builds it from the JSON it is given: a config given
    as plain data is read with the package's checks (:data:`icl_aif.engine.configs.CHECKS`)."""

    checks: ConfigChecks | None = field(default_factory=lambda: CHECKS)


_STUDIO = cast(type[GameContext], StudioContext)
"""The graphs' context schema: the nodes read a :class:`GameContext`, of which it is one."""


@cache
def build_round_graph(
    game: Game[Any, Any],
) -> CompiledStateGraph[RoundState, GameContext, RoundState, RoundState]:
    """openers -> one seat <-> the other, with the moderator after every utterance: one node per
    seat of ``game``, named by its id (the price game's ``seller`` and ``buyer``).

    The openers and the moderator send the round on themselves (``Command(goto=...)``, see
    :func:`icl_aif.engine.nodes.routed`): the same edges as a conditional edge after each, drawn from
    their return types, at less cost a step.
    """
    graph = StateGraph(RoundState, context_schema=_STUDIO)
    graph.add_node("open_round", nodes.open_round, destinations=(*game.seats, END))
    for seat in game.seats:
        graph.add_node(seat, nodes.speaker_node(seat))
        graph.add_edge(seat, "moderate")
    graph.add_node("moderate", nodes.moderate, destinations=(*game.seats, END))
    graph.add_edge(START, "open_round")
    return graph.compile(name="negotiation")


@cache
def build_run_graph(
    game: Game[Any, Any],
) -> CompiledStateGraph[RunState, GameContext, RunState, RunState]:
    """round -> feedback -> next-round instruction and acknowledgement -> round ... (the rounds
    of ``game``; its context plays a config of that game)."""
    return _run_graph(game).compile(name="icl_aif")


def build_pausable_run_graph(
    game: Game[Any, Any],
    checkpointer: BaseCheckpointSaver[str],
) -> CompiledStateGraph[RunState, GameContext, RunState, RunState]:
    """The run graph with ``checkpointer``, so that its games can pause for a person and resume.

    Invoke it with one ``thread_id`` per game; a pause comes back as ``__interrupt__`` in the
    result and the game goes on with ``Command(resume=answer)`` on the same thread.
    Checkpoints cost time: use it only for games that pause.
    """
    return _run_graph(game).compile(name="icl_aif", checkpointer=checkpointer)


def _run_graph(game: Game[Any, Any]) -> StateGraph[RunState, GameContext, RunState, RunState]:
    graph = StateGraph(RunState, context_schema=_STUDIO)
    graph.add_node("start_run", nodes.start_run)
    graph.add_node("play_round", nodes.play_round_node(build_round_graph(game)))
    graph.add_node("feedback", nodes.feedback)
    graph.add_node("next_round", nodes.next_round)
    graph.add_edge(START, "start_run")
    graph.add_conditional_edges(
        "start_run", nodes.route_after_start, ["play_round", "feedback", END]
    )
    graph.add_conditional_edges("play_round", nodes.route_after_round, ["feedback", END])
    graph.add_conditional_edges("feedback", nodes.route_after_feedback, ["next_round", END])
    graph.add_conditional_edges("next_round", nodes.route_after_next_round, ["play_round", END])
    return graph
