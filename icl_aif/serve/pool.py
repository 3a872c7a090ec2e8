"""Pool building: finished games of a run shown to annotators, their suggestions kept in a pool.

Each finished game of a run directory is a task: the improved player's whole record, exactly as
the critic reads it after the last round. What an annotator submits is appended to the pool file
(one suggestion a line, the format ``feedback.pool`` reads: :func:`icl_aif.engine.feedback.sources.load_pool`),
and one line of provenance to the JSONL beside it (:func:`provenance_path`): the annotator, the
run and game, the hash of the transcript shown, the suggestions and when it was shown and
submitted. Each transcript is answered once; started again on the same files, the server offers
only the transcripts that have no provenance line yet.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_run_config
from icl_aif.engine.protocol import critic_transcript
from icl_aif.records.layout import CONFIG
from icl_aif.records.reader import read_games
from icl_aif.serve.journal import append_line, read_lines, transcript_hash
from icl_aif.serve.tasks import Submission, Task, TaskBoard, TaskProblem

logger = logging.getLogger(__name__)

__all__ = ["PoolTasks", "pool_line", "provenance_path"]


def provenance_path(pool_file: Path) -> Path:
    """``pool.txt`` -> ``pool.provenance.jsonl``, beside it."""
    return pool_file.with_name(f"{pool_file.stem}.provenance.jsonl")


def pool_line(suggestion: str) -> str:
    """One suggestion as a pool line: on one line, never read as a ``#`` comment."""
    return " ".join(suggestion.split()).lstrip("#").strip()


class PoolTasks:
    """The finished games of ``run_dir`` as tasks on ``board``; submissions go to ``pool_file``.

    ``total`` is how many transcripts the run has, ``answered_before`` how many of them an
    earlier session answered already (they are not offered again).
    """

    def __init__(self, board: TaskBoard, run_dir: Path, pool_file: Path) -> None:
        self.board = board
        self.run_dir = run_dir
        self.pool_file = pool_file
        self.provenance = provenance_path(pool_file)
        self._lock = asyncio.Lock()
        configs = _cell_configs(run_dir)
        sides = {c.improve for c in configs.values()}
        if len(sides) != 1:
            raise UsageError(
                f"{run_dir}: its cells improve both sides; a pool file holds one side's "
                "suggestions: build it from a run that improves one side"
            )
        (self.side,) = sides
        done = {(r.get("task"), r.get("transcript_hash")) for r in read_lines(self.provenance)}
        self.total = 0
        self.answered_before = 0
        for game in read_games(run_dir):
            config = configs.get(game.get("cell"))
            rounds = game.get("rounds") or []
            if config is None or game.get("status") != "complete" or not rounds:
                continue
            transcript = critic_transcript(config, rounds)
            task_id = "-".join(
                str(p) for p in (game.get("cell"), game["game_id"], game.get("arm")) if p
            )
            self.total += 1
            if (task_id, transcript_hash(transcript)) in done:
                self.answered_before += 1
                continue
            board.add(
                Task(
                    id=task_id,
                    kind="pool",
                    game_id=game["game_id"],
                    cell=game.get("cell"),
                    arm=game.get("arm"),
                    side=config.improve,
                    suggestions=config.feedback.suggestions,
                    transcript=transcript,
                    on_submit=self._keep,
                )
            )
        if self.total == 0:
            raise UsageError(f"{run_dir}: no finished game to show; play the run first")

    def remaining(self) -> int:
        """Transcripts still waiting for suggestions."""
        return sum(1 for t in self.board.tasks.values() if t.submission is None)

    def status(self) -> dict[str, Any]:
        """``GET /api/status`` of pool building."""
        return {
            "games": self.total,
            "done": self.total - self.remaining(),
            "pool": str(self.pool_file),
        }

    async def _keep(self, task: Task, submission: Submission) -> None:
        """Append the suggestions to the pool and their provenance beside it, on disk."""
        lines = [line for line in (pool_line(s) for s in submission.suggestions) if line]
        if not lines:
            raise TaskProblem(422, "write at least one suggestion that is not only '#'")
        record = {
            "task": task.id,
            "run": str(self.run_dir),
            "cell": task.cell,
            "game_id": task.game_id,
            "arm": task.arm,
            "side": task.side,
            "transcript_hash": transcript_hash(task.transcript),
            "suggestions": lines,
            "annotator": submission.annotator,
            "shown_at": submission.shown_at,
            "submitted_at": submission.submitted_at,
        }
        async with self._lock:  # two submissions never interleave their lines
            await asyncio.to_thread(self._append, lines, record)
        logger.info("%d suggestion(s) for %s added to %s", len(lines), task.id, self.pool_file)

    def _append(self, lines: list[str], record: dict[str, Any]) -> None:
        new = not self.pool_file.exists() or self.pool_file.stat().st_size == 0
        header = (
            [
                f"# suggestions for the {self.side} written with icl-aif serve --pool; "
                f"provenance: {self.provenance.name}"
            ]
            if new
            else []
        )
        self.pool_file.parent.mkdir(parents=True, exist_ok=True)
        with self.pool_file.open("a", encoding="utf-8") as file:
            file.write("".join(f"{line}\n" for line in [*header, *lines]))
            file.flush()
        append_line(self.provenance, record)


def _cell_configs(run_dir: Path) -> dict[str | None, ExperimentConfig]:
    """The config of each cell of the run in ``run_dir`` (one, id None, without a sweep)."""
    if not (run_dir / CONFIG).is_file():
        raise UsageError(f"{run_dir}: no {CONFIG} here; is this a run directory?")
    config = load_run_config(run_dir)
    return {cell.id: cell.config for cell in config.cells()}
