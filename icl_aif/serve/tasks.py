"""The task board of ``icl-aif serve``: what waits for an annotator, who holds what, what is done.

A :class:`Task` is one transcript to write suggestions for: a paused game's feedback step (run
mode) or a finished game (pool-building mode). An annotator claims a task by opening it (the page,
or ``GET /api/tasks/{id}``); the claim lasts ``claim_timeout`` seconds, after which the task is
open to anyone again (a claim abandoned without a submission returns to the queue). A
submission ends the task and is handed to the task's ``on_submit`` callback (the run mode resumes
the game with it, the pool-building mode appends it to the pool file).

Everything here runs on the server's event loop: no locks are needed.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from icl_aif.records.layout import now

logger = logging.getLogger(__name__)

__all__ = [
    "MAX_ANNOTATOR",
    "MAX_SUGGESTION_CHARS",
    "Submission",
    "Task",
    "TaskBoard",
    "TaskProblem",
    "clean_annotator",
    "clean_suggestions",
]

MAX_ANNOTATOR = 100
"""Characters of an annotator id."""
MAX_SUGGESTION_CHARS = 1000
"""Characters of one suggestion (after its whitespace is folded to single spaces). A suggestion
is a line of advice for the next round; how many a submission may hold is the task's own
``suggestions`` (the run's ``feedback.suggestions``)."""


class TaskProblem(Exception):
    """Why a claim or a submission is refused; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Submission:
    """What an annotator submitted for a task, with when it was shown and submitted."""

    annotator: str
    suggestions: list[str]
    shown_at: str | None
    submitted_at: str


@dataclass
class Task:
    """One transcript waiting for suggestions.

    ``kind`` is ``feedback`` (a paused game: the improved player's record after ``round``) or
    ``pool`` (a finished game, for a pool file). ``transcript`` is exactly what the critic
    reads; ``suggestions`` how many suggestions are asked for.
    """

    id: str
    kind: str
    game_id: str
    side: str
    suggestions: int
    transcript: str
    round: int | None = None
    cell: str | None = None
    arm: str | None = None
    created_at: str = field(default_factory=now)
    claimed_by: str | None = None
    shown_at: str | None = None
    claim_expires: float = 0.0  # time.monotonic() when the claim lapses
    submission: Submission | None = None
    on_submit: Callable[[Task, Submission], Awaitable[None]] | None = field(
        default=None, repr=False
    )

    def claimed(self, at: float) -> bool:
        """Whether an annotator holds the task at monotonic time ``at``."""
        return self.claimed_by is not None and at < self.claim_expires

    def summary(self, at: float) -> dict[str, Any]:
        """The task as ``GET /api/tasks`` lists it (no transcript)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "game_id": self.game_id,
            "cell": self.cell,
            "arm": self.arm,
            "round": self.round,
            "side": self.side,
            "suggestions": self.suggestions,
            "created_at": self.created_at,
            "claimed_by": self.claimed_by if self.claimed(at) else None,
            "done": self.submission is not None,
        }

    def detail(self, at: float) -> dict[str, Any]:
        """The task as ``GET /api/tasks/{id}`` shows it: with the transcript and the claim."""
        left = max(0.0, self.claim_expires - at) if self.claimed(at) else None
        return {
            **self.summary(at),
            "transcript": self.transcript,
            "shown_at": self.shown_at if self.claimed(at) else None,
            "claim_seconds_left": None if left is None else round(left, 1),
        }


def clean_annotator(value: Any) -> str:
    """An annotator id as given, trimmed; a :class:`TaskProblem` (422) if missing or too long."""
    if not isinstance(value, str) or not value.strip():
        raise TaskProblem(422, "give your annotator id (a non-empty string)")
    text = " ".join(value.split())
    if len(text) > MAX_ANNOTATOR:
        raise TaskProblem(422, f"the annotator id is longer than {MAX_ANNOTATOR} characters")
    return text


def clean_suggestions(value: Any, most: int) -> list[str]:
    """The suggestions, each on one line (inner line breaks become spaces).

    A :class:`TaskProblem` (422) saying what is wrong unless ``value`` is a list of 1 to ``most``
    strings, none of them empty and none longer than :data:`MAX_SUGGESTION_CHARS`.
    """
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TaskProblem(422, '"suggestions" must be a list of strings')
    if not value:
        raise TaskProblem(422, "write at least one suggestion")
    if len(value) > most:
        raise TaskProblem(422, f"{len(value)} suggestions given; this task takes at most {most}")
    lines = [" ".join(v.split()) for v in value]
    for number, line in enumerate(lines, start=1):
        if not line:
            raise TaskProblem(422, f"suggestion {number} is empty: write it or leave it out")
        if len(line) > MAX_SUGGESTION_CHARS:
            raise TaskProblem(
                422,
                f"suggestion {number} has {len(line):,} characters; "
                f"at most {MAX_SUGGESTION_CHARS:,} are allowed",
            )
    return lines


class TaskBoard:
    """The tasks of one server, oldest first; claims lapse after ``claim_timeout`` seconds.

    ``clock`` is the monotonic clock (a test may pass its own).
    """

    def __init__(self, claim_timeout: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.claim_timeout = claim_timeout
        self.clock = clock
        self.tasks: dict[str, Task] = {}

    def add(self, task: Task) -> Task:
        """Put ``task`` in the queue (its id must be new)."""
        if task.id in self.tasks:
            raise ValueError(f"task {task.id} exists already")
        self.tasks[task.id] = task
        logger.info("task %s open", task.id)
        return task

    def remove(self, task_id: str) -> None:
        """Take a task off the board (its game went away)."""
        self.tasks.pop(task_id, None)

    def open_tasks(self, annotator: str | None = None) -> list[Task]:
        """The tasks waiting for suggestions that no one holds, and those ``annotator`` holds."""
        at = self.clock()
        return [
            t
            for t in self.tasks.values()
            if t.submission is None
            and (not t.claimed(at) or (annotator is not None and t.claimed_by == annotator))
        ]

    def get(self, task_id: str) -> Task:
        """The task ``task_id``; a :class:`TaskProblem` (404) if there is none."""
        task = self.tasks.get(task_id)
        if task is None:
            raise TaskProblem(404, f"no task {task_id}")
        return task

    def claim(self, task_id: str, annotator: str) -> Task:
        """Give ``task_id`` to ``annotator`` for ``claim_timeout`` seconds (again: the claim is
        renewed, ``shown_at`` stays). Refused (409) if done or held by someone else."""
        task = self.get(task_id)
        at = self.clock()
        if task.submission is not None:
            raise TaskProblem(409, f"task {task_id} has been answered already")
        if task.claimed(at) and task.claimed_by != annotator:
            raise TaskProblem(409, f"task {task_id} is being answered by another annotator")
        if not task.claimed(at) or task.claimed_by != annotator:
            task.claimed_by, task.shown_at = annotator, now()
            logger.info("task %s claimed", task_id)
        task.claim_expires = at + self.claim_timeout
        return task

    async def submit(self, task_id: str, annotator: str, suggestions: Any) -> Submission:
        """End ``task_id`` with ``annotator``'s suggestions and hand them to its ``on_submit``.

        Refused (409) if done, or unless ``annotator`` opened it last (:meth:`claim`): a claim
        that lapsed still counts while no one else has opened the task since. ``suggestions``
        are checked against the task (:func:`clean_suggestions`, 422). A failure to record them
        (``OSError`` from ``on_submit``) is a 503: the task stays open.
        """
        task = self.get(task_id)
        if task.submission is not None:
            raise TaskProblem(409, f"task {task_id} has been answered already")
        if task.claimed_by is None:
            raise TaskProblem(
                409, f"task {task_id} has not been opened: open it first, then answer it"
            )
        if task.claimed_by != annotator:
            raise TaskProblem(
                409, f"task {task_id} was opened by another annotator: only they can answer it"
            )
        lines = clean_suggestions(suggestions, task.suggestions)
        submission = Submission(annotator, lines, task.shown_at, now())
        task.submission = submission
        if task.on_submit is not None:
            try:
                await task.on_submit(task, submission)
            except OSError as exc:
                task.submission = None  # not recorded: the task stays open
                logger.error("task %s: the submission could not be recorded: %s", task_id, exc)
                raise TaskProblem(
                    503, f"not recorded: the server cannot write it ({exc.strerror or exc})"
                ) from None
            except BaseException:
                task.submission = None
                raise
        logger.info("task %s answered", task_id)
        return submission

    def counts(self) -> dict[str, int]:
        """Tasks ``waiting`` (no one holds them), ``in_progress`` (held) and ``answered``."""
        at = self.clock()
        waiting = in_progress = answered = 0
        for task in self.tasks.values():
            if task.submission is not None:
                answered += 1
            elif task.claimed(at):
                in_progress += 1
            else:
                waiting += 1
        return {"waiting": waiting, "in_progress": in_progress, "answered": answered}
