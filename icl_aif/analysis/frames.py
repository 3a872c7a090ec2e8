"""Analysis API: a run directory as tidy pandas DataFrames.

```python
import icl_aif

run = icl_aif.load_run("runs/quickstart-20250101-120000")
run.rounds.groupby("round")["price"].mean()          # mean deal price per round
run.rounds.query("outcome == 'no_deal'").reason.value_counts()
run.calls.groupby("role")[["input_tokens", "cost_usd"]].sum()
```

Four frames, one row per game (``runs``), per game and round (``rounds``), per line (``turns``) and
per model call (``calls``). Every frame has a ``cell`` column (the sweep cell of a record, else
null) and an ``arm`` column (the feedback arm of a record with paired arms, else null): with
arms, a game has one record per arm that repeats the shared rounds. Column meanings follow
docs/records.md.

The game's measure (:class:`~icl_aif.games.base.Measure`, ``Run.measure``) names two columns:
``rounds[<name>]`` (the measure of a round that ended in a deal) and ``runs["mean_<name>"]``:
``price`` and ``mean_price`` in the price game (and in a run written before games), ``payoff``
and ``mean_payoff`` in the pie split.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_run_config
from icl_aif.games.base import Measure
from icl_aif.games.registry import measure_of
from icl_aif.records.layout import CALLS, CONFIG
from icl_aif.records.reader import SkippedLines, read_calls, read_games, read_manifest, read_summary
from icl_aif.records.schema import format_version_of, is_truncated


def run_columns(name: str) -> tuple[str, ...]:
    """The columns of ``Run.runs`` for the measure called ``name``."""
    return (
        "game_id",
        "cell",
        "arm",
        "seed",
        "status",
        "error",
        "rounds",
        "deals",
        f"mean_{name}",
        "started_at",
        "finished_at",
        "format_version",
    )


def round_columns(name: str) -> tuple[str, ...]:
    """The columns of ``Run.rounds`` for the measure called ``name``."""
    return tuple(name if column == MEASURE_COLUMN else column for column in ROUND_COLUMNS)


MEASURE_COLUMN = "<measure>"
"""The place of the measure's column in :data:`ROUND_COLUMNS` (``price`` in the price game)."""
ROUND_COLUMNS: tuple[str, ...] = (
    "game_id",
    "cell",
    "arm",
    "round",
    "shared",
    "outcome",
    MEASURE_COLUMN,
    "reason",
    "truncated",
    "decided_by",
    "parse",
    "feedback_source",
    "feedback",
    "suggestions",
    "instruction",
    "acknowledgement",
    "n_turns",
    "exchanges",
    "improved_lines",
    "improved_chars",
    "improved_mean_chars",
)
"""``Run.rounds``' columns, the measure's at :data:`MEASURE_COLUMN` (:func:`round_columns`)."""
TURN_COLUMNS = (
    "game_id",
    "cell",
    "arm",
    "round",
    "turn",
    "speaker",
    "text",
    "chars",
    "opener",
    "improved",
)
CALL_COLUMNS = (
    "game_id",
    "cell",
    "arm",
    "round",
    "role",
    "model",
    "n_messages",
    "output_chars",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cost_usd",
    "latency_s",
    "limit_wait_s",
    "attempts",
    "error",
)


@dataclass(frozen=True)
class Run:
    """One run directory, loaded: four tidy frames plus the manifest, the summary, the config and
    the measure of its game."""

    path: Path
    runs: pd.DataFrame
    """One row per game (``games.jsonl`` line): :func:`run_columns` of the measure."""
    rounds: pd.DataFrame
    """One row per game and round: outcome, the measure (``price`` in the price game), reason,
    feedback, the improved player's lines."""
    turns: pd.DataFrame
    """One row per line of every round (``turn`` is its 0-based index, openers first)."""
    calls: pd.DataFrame
    """One row per model call: role, model, tokens, cost, latency, error (messages left out)."""
    manifest: dict[str, Any]
    summary: dict[str, Any]
    config: ExperimentConfig
    measure: Measure
    """The game's per-round figure (:meth:`icl_aif.games.base.Game.measure`): ``measure.name``
    names the measure's columns."""
    damaged_lines: dict[str, int] = field(default_factory=dict)
    """Damaged lines skipped per record file, ``{"games.jsonl": 2}`` (a warning names them);
    empty when every line was read."""


def load_run(path: str | Path, *, calls: bool = True) -> Run:
    """Load the run directory ``path`` (see docs/records.md) into a :class:`Run`.

    ``calls=False`` skips reading ``calls.jsonl`` (large for long runs): ``Run.calls`` is then an
    empty frame with the usual columns. A missing file raises :class:`UsageError` naming it.
    Runs of every record format up to :data:`icl_aif.records.schema.FORMAT_VERSION` load (``truncated``
    of a format-0 round: its reason is ``cap``); a newer one is a one-line :class:`UsageError`.
    Damaged lines of ``games.jsonl`` and ``calls.jsonl`` are skipped with one warning per file
    and counted in ``Run.damaged_lines``.
    """
    directory = Path(path)
    if not directory.is_dir():
        raise UsageError(f"{directory}: no such run directory")
    skipped = SkippedLines()
    games = read_games(directory, skipped)
    manifest = read_manifest(directory)
    summary = read_summary(directory)
    config = run_config(directory)
    measure = run_measure(config)
    openers = len(config.scenario.openers)
    reads_calls = calls and (directory / CALLS).is_file()
    call_rows = calls_frame(read_calls(directory, skipped) if reads_calls else ())
    return Run(
        path=directory,
        runs=runs_frame(games, measure=measure),
        rounds=rounds_frame(games, improve=config.improve, openers=openers, measure=measure),
        turns=turns_frame(games, improve=config.improve, openers=openers),
        calls=call_rows,
        manifest=manifest,
        summary=summary,
        config=config,
        measure=measure,
        damaged_lines=skipped.counts(),
    )


def run_config(directory: Path) -> ExperimentConfig:
    """The resolved config a run wrote (``config.yaml``), or a one-line error."""
    path = directory / CONFIG
    if not path.is_file():
        raise UsageError(f"{path}: no such file; is {directory} a run directory?")
    return load_run_config(directory)


def run_measure(config: ExperimentConfig) -> Measure:
    """The measure of the game a run's ``config`` names (a config written before games: the
    price game's deal price)."""
    return measure_of(config)


def _deal_value(record: dict[str, Any], measure: Measure) -> float | None:
    if record["outcome"] != "deal":
        return None
    value = measure.of(record)
    return float(value) if value is not None else None


def _frame(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=list(columns))


def runs_frame(games: Sequence[dict[str, Any]], *, measure: Measure) -> pd.DataFrame:
    """One row per game; ``mean_<name>``: the mean ``measure`` over its deals."""
    mean = f"mean_{measure.name}"
    rows = []
    for game in games:
        values = [v for r in game["rounds"] if (v := _deal_value(r, measure)) is not None]
        rows.append(
            {
                "game_id": game["game_id"],
                "cell": game.get("cell"),
                "arm": game.get("arm"),
                "seed": game.get("seed"),
                "status": game.get("status"),
                "error": game.get("error"),
                "rounds": len(game["rounds"]),
                "deals": sum(r["outcome"] == "deal" for r in game["rounds"]),
                mean: sum(values) / len(values) if values else None,
                "started_at": game.get("started_at"),
                "finished_at": game.get("finished_at"),
                "format_version": format_version_of(game),
            }
        )
    frame = _frame(rows, run_columns(measure.name))
    frame[mean] = frame[mean].astype(float)
    return frame


def rounds_frame(
    games: Sequence[dict[str, Any]], *, improve: str, openers: int, measure: Measure
) -> pd.DataFrame:
    """One row per game and round; ``<name>``: the ``measure`` of a round that ended in a deal;
    ``improved_*`` count the improved player's generated lines."""
    rows = []
    for game in games:
        for record in game["rounds"]:
            lines = [len(t["text"]) for t in record["turns"][openers:] if t["speaker"] == improve]
            rows.append(
                {
                    "game_id": game["game_id"],
                    "cell": game.get("cell"),
                    "arm": game.get("arm"),
                    "round": record["round"],
                    "shared": record.get("shared"),
                    "outcome": record["outcome"],
                    measure.name: _deal_value(record, measure),
                    "reason": record.get("reason"),
                    "truncated": is_truncated(record),
                    "decided_by": record.get("decided_by"),
                    "parse": record.get("parse"),
                    "feedback_source": record.get("feedback_source"),
                    "feedback": record.get("feedback"),
                    "suggestions": len(record.get("suggestions") or []),
                    "instruction": record.get("instruction"),
                    "acknowledgement": record.get("acknowledgement"),
                    "n_turns": len(record["turns"]),
                    "exchanges": len(record["turns"]) / 2,
                    "improved_lines": len(lines),
                    "improved_chars": sum(lines),
                    "improved_mean_chars": sum(lines) / len(lines) if lines else None,
                }
            )
    frame = _frame(rows, round_columns(measure.name))
    for column in (measure.name, "improved_mean_chars"):
        frame[column] = frame[column].astype(float)
    return frame


def turns_frame(games: Sequence[dict[str, Any]], *, improve: str, openers: int) -> pd.DataFrame:
    """One row per line; ``opener`` marks the scripted openers, ``improved`` the improved side."""
    rows = [
        {
            "game_id": game["game_id"],
            "cell": game.get("cell"),
            "arm": game.get("arm"),
            "round": record["round"],
            "turn": index,
            "speaker": turn["speaker"],
            "text": turn["text"],
            "chars": len(turn["text"]),
            "opener": index < openers,
            "improved": turn["speaker"] == improve,
        }
        for game in games
        for record in game["rounds"]
        for index, turn in enumerate(record["turns"])
    ]
    return _frame(rows, TURN_COLUMNS)


def calls_frame(
    calls: Iterable[dict[str, Any]], arms: dict[str, Any] | None = None
) -> pd.DataFrame:
    """One row per model call, without the messages (``n_messages`` counts them)."""
    arms = arms or {}
    rows = []
    for call in calls:
        usage = call.get("usage") or {}
        output = call.get("output")
        rows.append(
            {
                "game_id": call.get("game_id"),
                "cell": call.get("cell"),
                "arm": call.get("arm"),
                "round": call.get("round"),
                "role": call.get("role"),
                "model": call.get("model"),
                "n_messages": len(call.get("messages") or []),
                "output_chars": len(output) if output is not None else None,
                "input_tokens": usage.get("input_tokens"),
                "output_tokens": usage.get("output_tokens"),
                "cached_input_tokens": usage.get("cached_input_tokens"),
                "cost_usd": call.get("cost_usd"),
                "latency_s": call.get("latency_s"),
                "limit_wait_s": call.get("limit_wait_s"),
                "attempts": call.get("attempts"),
                "error": call.get("error"),
            }
        )
    frame = _frame(rows, CALL_COLUMNS)
    for column in ("input_tokens", "output_tokens", "cached_input_tokens", "output_chars"):
        frame[column] = frame[column].astype("Int64")
    for column in ("cost_usd", "latency_s", "limit_wait_s"):
        frame[column] = frame[column].astype(float)
    return frame
