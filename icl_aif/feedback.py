"""Where the improved player's feedback comes from between rounds.

- ``ai``: the critic model reads the improved player's record and writes suggestions;
- ``human``: the game pauses (LangGraph ``interrupt``) with what the critic would read, and the
  text a person types, given back with ``Command(resume=text)``, is the feedback;
- ``human_pool``: ``suggestions`` lines sampled (seeded, per round) from a file of human-written advice;
- ``constant``: one fixed line;
- ``none``: no feedback, only the result and the next goal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from langgraph.types import interrupt

from icl_aif.config import ExperimentConfig
from icl_aif.context import GameContext
from icl_aif.errors import UsageError
from icl_aif.protocol import (
    RoundRecord,
    critic_messages,
    human_feedback_request,
    human_suggestions,
    parse_suggestions,
)


@dataclass(frozen=True)
class Feedback:
    """The feedback shown to the improved player (``text`` is None for source ``none``)."""

    source: str
    text: str | None
    suggestions: list[str] = field(default_factory=list)


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
        else prompts_root / "feedback" / f"{config.improve}_pool.txt"
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


async def give_feedback(ctx: GameContext, rounds: Sequence[RoundRecord]) -> Feedback:
    """Feedback after the last of ``rounds``.

    For source ``human`` this must run inside a graph node with a checkpointer: the first call
    pauses the graph, and the node runs again when it is resumed with the person's text.
    """
    settings = ctx.config.feedback
    if settings.source == "human":
        answer = interrupt(human_feedback_request(ctx.config, rounds))
        text = str(answer or "").strip()
        return Feedback("human", text or None, human_suggestions(text))
    if settings.source == "ai":
        messages = critic_messages(ctx.prompts, ctx.config, rounds)
        text = await ctx.call_model("critic", rounds[-1]["round"], messages)
        return Feedback("ai", text, parse_suggestions(text))
    if settings.source == "human_pool":
        check_pool(ctx.config, ctx.prompts.root)
        pool = load_pool(pool_path(ctx))
        lines = ctx.rng.sample(pool, settings.suggestions)
        return Feedback("human_pool", numbered(lines), lines)
    if settings.source == "constant":
        return Feedback("constant", settings.constant, [settings.constant])
    return Feedback("none", None)
