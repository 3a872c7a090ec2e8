"""Paired feedback arms (the paper's Table 1 design): one shared prefix, then one branch per arm.

A run of an experiment with ``arms`` plays rounds 1..``branch_after`` once, with the configured
``feedback.source`` between them, on the run graph. The graph's state is plain data (the improved
player's history and the rounds so far), so branching needs no checkpoint: each arm invokes the
same run graph again, starting from a deep copy of that state, with a config whose feedback source
is the arm's. The run graph resumes such a state with the feedback on its last round
(:func:`icl_aif.engine.nodes.route_after_start`), then plays on to ``rounds``. The rival is reset by
construction: it only ever sees its brief and the current round.

Seeds. The prefix is the game's own (the seeds of a run without arms). Each arm gets a
:class:`~icl_aif.engine.context.GameContext` with ``arm`` set: its models keep the game's private values
(a simulator's floor, ceiling and concession exponent, drawn from the game's seed), so the improved
player is the same player in every arm and the rival the same rival; every random choice after the
branch, the models' and the protocol's (pool sampling), comes from a seed derived from the game's
seed and the arm's name. Arms therefore reproduce from the seed whatever the concurrency and
whichever arms are configured.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, cast

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_run_graph
from icl_aif.engine.state import RunState
from icl_aif.games.base import Judge
from icl_aif.records.layout import now
from icl_aif.records.schema import game_record

logger = logging.getLogger(__name__)


async def _invoke(ctx: GameContext, start: dict[str, Any]) -> dict[str, Any]:
    """The run graph from ``start`` to its end; a defect becomes the state's error."""
    try:
        with ctx.cache_scope():  # the config's response cache, for this arm's calls
            state: dict[str, Any] = await build_run_graph(ctx.game).ainvoke(
                cast(RunState, start), context=ctx
            )
        if state.pop("__interrupt__", None):
            state["error"] = "the game paused for a person, and no one was asked"
        return state
    except Exception as exc:  # a defect, not a model failure: keep the other games going
        logger.exception("game %s (arm %s) failed", ctx.game_id, ctx.arm)
        return {**start, "error": f"{type(exc).__name__}: {exc}"}


def prefix_config(config: ExperimentConfig) -> ExperimentConfig:
    """The config that plays the shared rounds: ``branch_after`` rounds, no feedback after the last."""
    return config.model_copy(update={"rounds": config.branch_after})


def arm_config(config: ExperimentConfig, arm: str) -> ExperimentConfig:
    """The config of one arm: the experiment's, with the arm as the feedback source."""
    return config.model_copy(
        update={"feedback": config.feedback.model_copy(update={"source": arm})}
    )


def mark_shared(rounds: list[dict[str, Any]], branch_after: int) -> list[dict[str, Any]]:
    """Each round with ``shared``: true for the rounds played once for every arm."""
    return [{**r, "shared": r["round"] <= branch_after} for r in rounds]


async def play_branched_game(
    config: ExperimentConfig,
    index: int,
    prompts: PromptLibrary,
    judge: Judge = None,  # type: ignore[assignment]  # None: each context builds the config's
    *,
    contexts: list[GameContext] | None = None,
    cell: str | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Play game ``index`` of an experiment with ``arms``: one record per arm, and every call.

    The calls are the prefix's (``arm``: null) then each arm's, in the arms' order. Every context
    made is appended to ``contexts`` when given, so a caller can watch the cost of a game in flight.
    ``cell`` is the game's sweep cell (the response cache's replicate identity).
    """
    assert config.arms, "an experiment with arms"
    started = now()
    prefix = GameContext(
        config=prefix_config(config), index=index, prompts=prompts, judge=judge, cell=cell
    )
    if contexts is not None:
        contexts.append(prefix)
    shared = await _invoke(prefix, {})
    calls = [{**c, "arm": None} for c in prefix.calls]
    records: list[dict[str, Any]] = []
    for arm in config.arms:
        start = {
            "history": copy.deepcopy(shared.get("history", [])),
            "rounds": copy.deepcopy(shared.get("rounds", [])),
            "error": shared.get("error"),
        }
        if start["error"]:  # the prefix failed: the arm cannot be played
            state, arm_seed = start, None
        else:
            ctx = GameContext(
                config=arm_config(config, arm),
                index=index,
                arm=arm,
                prompts=prompts,
                judge=judge,
                cell=cell,
            )
            if contexts is not None:
                contexts.append(ctx)
            state, arm_seed = await _invoke(ctx, start), ctx.arm_seed
            calls.extend({**c, "arm": arm} for c in ctx.calls)
        error = state.get("error")
        records.append(
            game_record(
                game_id=prefix.game_id,
                seed=prefix.seed,
                drawn=prefix.drawn,  # every arm plays the game's own draws
                arm=arm,
                arm_seed=arm_seed,
                branch_after=config.branch_after,
                rounds=mark_shared(state.get("rounds", []), config.branch_after),
                error=error,
                started_at=started,
                finished_at=now(),
            )
        )
    return records, calls
