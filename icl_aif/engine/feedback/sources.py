"""Where the improved player's feedback comes from between rounds.

- ``ai``: the critic model reads the improved player's record and writes suggestions;
- ``human``: the game pauses (LangGraph ``interrupt``) with what the critic would read, and the
  text a person types, given back with ``Command(resume=text)``, is the feedback;
- ``human_pool``: ``suggestions`` lines sampled (seeded, per round) from a file of human-written advice;
- ``constant``: one fixed line;
- ``none``: no feedback, only the result and the next goal.

Each registers with :func:`icl_aif.engine.feedback.feedback_source`, as another package's sources
do (through the ``icl_aif.feedback_sources`` entry point group); :func:`give_feedback` calls the
configured one.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

from langgraph.types import interrupt

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.context import GameContext
from icl_aif.engine.feedback.registry import Feedback, feedback_source, find_source, source_problem
from icl_aif.engine.protocol import (
    PlayedRound,
    critic_messages,
    human_feedback_request,
    human_suggestions,
    parse_suggestions,
)
from icl_aif.games.critics import rounds_in_view

__all__ = [
    "Feedback",
    "check_pool",
    "find_source",
    "give_feedback",
    "load_pool",
    "numbered",
    "pool_file",
    "pool_path",
    "source_problem",
]


def numbered(lines: Sequence[str]) -> str:
    """``1. first\\n2. second``."""
    return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))


@cache
def load_pool(path: Path) -> tuple[str, ...]:
    """The suggestions in a pool file: one a line; blank lines and ``#`` comments are skipped."""
    if not path.is_file():
        raise UsageError(
            f"feedback.pool: no such file {path}; give a file of suggestions, one a line"
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"feedback.pool: cannot read {path} ({exc})") from None
    lines = [ln.strip() for ln in text.splitlines()]
    pool = tuple(ln for ln in lines if ln and not ln.startswith("#"))
    if not pool:
        raise UsageError(f"feedback.pool: {path} holds no suggestions; write one suggestion a line")
    return pool


def pool_path(ctx: GameContext) -> Path:
    """The configured pool, or the shipped pool for the improved side."""
    return pool_file(ctx.config, ctx.prompts.root)


def pool_file(config: ExperimentConfig, prompts_root: Path) -> Path:
    """``feedback.pool``, or the shipped pool for the improved side under ``prompts_root``."""
    configured = config.feedback.pool
    return (
        configured
        if configured is not None
        else prompts_root / config.game / "feedback" / f"{config.improve}_pool.txt"
    )


def check_pool(config: ExperimentConfig, prompts_root: Path) -> None:
    """Fail in one line unless the pool exists and holds at least ``feedback.suggestions`` lines."""
    pool = load_pool(pool_file(config, prompts_root))
    wanted = config.feedback.suggestions
    if wanted > len(pool):
        raise UsageError(
            f"feedback.suggestions is {wanted} but the pool "
            f"{pool_file(config, prompts_root)} has {len(pool)} line(s); "
            "add suggestions to the pool or lower feedback.suggestions"
        )


async def give_feedback(ctx: GameContext, rounds: Sequence[PlayedRound]) -> Feedback:
    """Feedback after the last of ``rounds``, from the configured source.

    For a source that needs a person (``human``) this must run inside a graph node with a
    checkpointer: the first call pauses the graph, and the node runs again when it is resumed
    with the person's text.
    """
    name = ctx.config.feedback.source
    found = find_source(name)
    if found is None:  # the config's check makes this unreachable for a loaded config
        raise UsageError(f"feedback.source: unknown source {name!r}")
    return await found.give(ctx, rounds)


# --- our sources, in the order they are listed -----------------------------------------------


@feedback_source("ai", calls_critic=True)
async def critic_feedback(ctx: GameContext, rounds: Sequence[PlayedRound]) -> Feedback:
    """The critic model reads the improved player's record and writes suggestions."""
    messages = critic_messages(ctx.prompts, ctx.config, rounds)
    with rounds_in_view(rounds):  # a scripted critic reads the records, not the text
        text = await ctx.call_model("critic", rounds[-1]["round"], messages)
    return Feedback("ai", text, parse_suggestions(text))


@feedback_source("human", needs_person=True)
async def human_feedback(ctx: GameContext, rounds: Sequence[PlayedRound]) -> Feedback:
    """The game pauses with what the critic would read; the person's text is the feedback."""
    answer = interrupt(human_feedback_request(ctx.config, rounds))
    text = str(answer or "").strip()
    return Feedback("human", text or None, human_suggestions(text))


def _check_pool_source(config: ExperimentConfig, prompts: PromptLibrary) -> None:
    check_pool(config, prompts.root)


@feedback_source("human_pool", check=_check_pool_source)
async def pool_feedback(ctx: GameContext, rounds: Sequence[PlayedRound]) -> Feedback:
    """``feedback.suggestions`` lines of the pool, sampled with the game's (or arm's) seed."""
    check_pool(ctx.config, ctx.prompts.root)
    pool = load_pool(pool_path(ctx))
    lines = ctx.rng.sample(pool, ctx.config.feedback.suggestions)
    return Feedback("human_pool", numbered(lines), lines)


@feedback_source("constant")
async def constant_feedback(ctx: GameContext, rounds: Sequence[PlayedRound]) -> Feedback:
    """``feedback.constant``, every time."""
    line = ctx.config.feedback.constant
    return Feedback("constant", line, [line])


@feedback_source("none")
async def no_feedback(ctx: GameContext, rounds: Sequence[PlayedRound]) -> Feedback:
    """No feedback: the next-round instruction gives only the result and the goal."""
    return Feedback("none", None)
