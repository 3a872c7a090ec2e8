"""How a feedback source registers: the :class:`FeedbackSource` record, the
:func:`feedback_source` decorator, and the lookup of sources by name.

A source is an async function that, after a round, returns the improved player's
:class:`Feedback`, decorated with :func:`feedback_source`; the decorator also says what the
engine needs to know about it (whether it pauses for a person, whether it may be a paired arm,
whether it calls the critic model, which files it reads before a game)::

    from icl_aif.engine.feedback import Feedback, feedback_source

    @feedback_source("cheer")
    async def cheer(ctx, rounds):
        line = f"Round {rounds[-1]['round']} is over: keep going."
        return Feedback("cheer", line, [line])

Ours register in :mod:`icl_aif.engine.feedback.sources`. Another package adds its own from a module named in its
``icl_aif.feedback_sources`` entry point; such modules are imported on the first lookup of a name
that is not registered. ``feedback.source: cheer`` and ``arms: [none, cheer]`` then name it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.plugins import Registry
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.context import GameContext
from icl_aif.engine.protocol import PlayedRound

__all__ = [
    "ENTRY_POINT_GROUP",
    "FEEDBACK_SOURCES",
    "Feedback",
    "FeedbackSource",
    "feedback_source",
    "find_source",
    "forget_plugins",
    "load_plugins",
    "source_problem",
]


ENTRY_POINT_GROUP = "icl_aif.feedback_sources"
"""The entry point group through which another package adds feedback sources."""


@dataclass(frozen=True)
class Feedback:
    """The feedback shown to the improved player (``text`` is None for source ``none``)."""

    source: str
    text: str | None
    suggestions: list[str] = field(default_factory=list)


Give = Callable[[GameContext, Sequence[PlayedRound]], Awaitable[Feedback]]
Check = Callable[[ExperimentConfig, PromptLibrary], None]
GiveT = TypeVar("GiveT", bound=Give)


@dataclass(frozen=True)
class FeedbackSource:
    """One feedback source: how it gives feedback and what the engine needs to know about it.

    ``needs_person``: it pauses the game for a person at the terminal (LangGraph ``interrupt``);
    ``may_be_arm``: it may be one of ``arms`` (never a source that needs a person);
    ``calls_critic``: it calls the critic model (a role to build, preflight, estimate, record);
    ``check``: fails in one :class:`~icl_aif.core.errors.UsageError` line if a file it reads is
    missing or bad (run before any game). ``origin`` is the module that registered it.
    """

    name: str
    give: Give
    needs_person: bool = False
    may_be_arm: bool = True
    calls_critic: bool = False
    check: Check | None = None
    origin: str = ""


FEEDBACK_SOURCES: Registry[FeedbackSource] = Registry("feedback source", ENTRY_POINT_GROUP)
"""The registered sources by name: ours first, then plugins' as they are loaded."""


def feedback_source(
    name: str,
    *,
    needs_person: bool = False,
    may_be_arm: bool | None = None,
    calls_critic: bool = False,
    check: Check | None = None,
) -> Callable[[GiveT], GiveT]:
    """Register the decorated async function as the feedback source ``name``.

    The function takes the game's context and its rounds so far and returns a :class:`Feedback`.
    ``may_be_arm`` defaults to ``not needs_person``. A name taken by another module is an error;
    the same module registering again (a reload) replaces its entry.
    """
    if not name or name != name.strip() or any(c in name for c in ",[]:= "):
        raise ValueError(f"feedback source name {name!r}: use a non-empty word without spaces")
    if needs_person and may_be_arm:
        raise ValueError(f"feedback source {name!r}: a source that needs a person cannot be an arm")

    def register(give: GiveT) -> GiveT:
        origin = getattr(give, "__module__", "") or ""
        source = FeedbackSource(
            name=name,
            give=give,
            needs_person=needs_person,
            may_be_arm=not needs_person if may_be_arm is None else may_be_arm,
            calls_critic=calls_critic,
            check=check,
            origin=origin,
        )
        FEEDBACK_SOURCES.add(name, source)
        return give

    return register


def load_plugins() -> list[str]:
    """Import every ``icl_aif.feedback_sources`` entry point once; one line per plugin that
    failed."""
    return FEEDBACK_SOURCES.load_plugins()


def forget_plugins() -> None:
    """Unregister the sources loading the plugins registered (for tests)."""
    FEEDBACK_SOURCES.forget_plugins()


def find_source(name: str) -> FeedbackSource | None:
    """The source called ``name``: registered already, else a plugin's; None if unknown."""
    return FEEDBACK_SOURCES.find(name)


def source_problem(name: str, *, arm: bool = False) -> str | None:
    """Why ``name`` is not a registered feedback source (or, with ``arm``, not one that may be
    a paired arm), in one line listing the allowed ones; None if it is."""
    found = find_source(name)
    if found is not None and (found.may_be_arm or not arm):
        return None
    allowed = [n for n, s in FEEDBACK_SOURCES.items() if s.may_be_arm or not arm]
    return FEEDBACK_SOURCES.problem(name, allowed)
