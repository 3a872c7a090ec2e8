"""A run whose human feedback is written on a web page: :class:`WebCritics` answers the pauses.

:class:`WebCritics` is the ``ask_human`` callback of :func:`icl_aif.run.runner.run_experiment`, as
:class:`icl_aif.cli.terminal.TerminalPerson` is for ``icl-aif run``: each feedback pause (LangGraph
``interrupt``) becomes a :class:`~icl_aif.serve.tasks.Task` on the board, and the game waits
until an annotator submits suggestions; the game then resumes with them (``Command(resume=...)``)
and the round's record gets the annotator, ``shown_at`` and ``submitted_at``.

Every submission is appended to ``RUN_DIR/annotations.jsonl`` (flushed to disk) before the game
resumes. A run killed and resumed plays its unfinished games again from the start, as
``icl-aif run --resume`` does; a replayed game that pauses with the very transcript an annotator
already answered (same cell, game, round and transcript hash) gets that answer back from the
journal instead of a new task, so no submitted feedback is lost.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icl_aif.core.errors import UsageError
from icl_aif.run.play import Answer
from icl_aif.serve.journal import append_line, read_lines, transcript_hash
from icl_aif.serve.tasks import Submission, Task, TaskBoard

logger = logging.getLogger(__name__)

__all__ = ["ANNOTATIONS", "RunProgress", "WebCritics", "task_id_for"]

ANNOTATIONS = "annotations.jsonl"
"""The run directory's journal of submitted feedback (one line per submission)."""

JournalKey = tuple[str | None, str, int, str]  # cell, game, round, transcript hash


@dataclass
class RunProgress:
    """How far the served run is: games in it, recorded, and whether it is over."""

    games: int
    done: int = 0
    finished: bool = False
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def advance(self, games: int) -> None:
        """``games`` more games recorded (the runner's progress callback)."""
        self.done += games


def task_id_for(payload: dict[str, Any]) -> str:
    """``g00001-r1`` (``c2-g00001-r1`` in a sweep): the task of a feedback pause."""
    parts = [payload.get("cell"), payload["game_id"], f"r{payload['round']}"]
    return "-".join(str(p) for p in parts if p)


class WebCritics:
    """Answers the feedback pauses of a run with what annotators submit on the board."""

    def __init__(self, board: TaskBoard, directory: Path) -> None:
        self.board = board
        self.journal = directory / ANNOTATIONS
        self._earlier: dict[JournalKey, list[dict[str, Any]]] = {}
        for record in read_lines(self.journal):
            try:
                key = _key(record, record["transcript_hash"])
            except (KeyError, TypeError, ValueError):
                logger.warning("%s: a line without its game, round or hash; skipped", self.journal)
                continue
            self._earlier.setdefault(key, []).append(record)

    async def __call__(self, payload: dict[str, Any]) -> Answer:
        """The annotator's suggestions for one feedback pause (waits until they are submitted)."""
        if payload.get("kind") != "feedback":
            raise UsageError(
                f"icl-aif serve answers feedback pauses only, not {payload.get('kind')!r}"
            )
        digest = transcript_hash(payload["transcript"])
        earlier = self._earlier.get(_key(payload, digest))
        if earlier:  # a game replayed after a restart: the answer it got before
            record = earlier.pop(0)
            logger.info("%s answered from %s", task_id_for(payload), self.journal.name)
            return _answer(record["suggestions"], record)
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[Submission] = loop.create_future()

        async def on_submit(task: Task, submission: Submission) -> None:
            line = {
                "task": task.id,
                "cell": payload.get("cell"),
                "game_id": payload["game_id"],
                "round": payload["round"],
                "side": payload["side"],
                "transcript_hash": digest,
                "suggestions": submission.suggestions,
                "annotator": submission.annotator,
                "shown_at": submission.shown_at,
                "submitted_at": submission.submitted_at,
            }
            await asyncio.to_thread(
                append_line, self.journal, line
            )  # on disk before the game goes on
            if not answered.done():
                answered.set_result(submission)

        task = self.board.add(
            Task(
                id=self._free_id(task_id_for(payload)),
                kind="feedback",
                game_id=payload["game_id"],
                cell=payload.get("cell"),
                round=payload["round"],
                side=payload["side"],
                suggestions=int(payload.get("suggestions", 3)),
                transcript=payload["transcript"],
                on_submit=on_submit,
            )
        )
        try:
            submission = await answered
        except asyncio.CancelledError:  # the run stopped: the task goes with its game
            self.board.remove(task.id)
            raise
        return _answer(
            submission.suggestions,
            {
                "annotator": submission.annotator,
                "shown_at": submission.shown_at,
                "submitted_at": submission.submitted_at,
            },
        )

    def _free_id(self, wanted: str) -> str:
        """``wanted``, or ``wanted-2``, ... if a task by that name exists."""
        name, number = wanted, 1
        while name in self.board.tasks:
            number += 1
            name = f"{wanted}-{number}"
        return name


def _key(payload: dict[str, Any], digest: str) -> JournalKey:
    return (payload.get("cell"), str(payload["game_id"]), int(payload["round"]), digest)


def _answer(suggestions: list[str], record: dict[str, Any]) -> Answer:
    """The game's answer: one suggestion a line; the round's notes: who and when."""
    notes = {k: record.get(k) for k in ("annotator", "shown_at", "submitted_at")}
    return Answer("\n".join(suggestions), notes)
