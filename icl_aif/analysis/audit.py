"""Audit a finished run's outcomes: re-judge every recorded round with another judge.

``icl-aif audit RUN`` plays nothing. It replays each recorded round's lines as the game said them
and asks a judge (``rules``, ``llm`` or ``hybrid``, built by the run's game from the run's own
config with the moderator settings changed) what it makes of them, then lists the rounds where
it disagrees with the recorded outcome.

The replay follows the engine (:func:`icl_aif.engine.nodes.moderate`):

- the judge reads a window of the last ``roles.moderator.window`` turns (or ``window``) after
  every line past the openers; the first terminal verdict ends the round (the later lines are
  not judged);
- a round whose every window the judge finds ``ongoing`` is ``ongoing`` up to its last line,
  unless the game itself ended it: the exchange cap (a ``truncated`` round, or a round that
  reached ``2 * max_exchanges`` lines) is ``no_deal`` for both, as in the run;
- a round that ended because a side made no valid move (reason ``invalid_moves``) is recorded
  ``no_move``: its refused lines (``refused``) were never judged in the run, so the audit judge
  reads each in its window, as if it had been on the table; one it reads as an agreement or an
  end disputes the record (``no_move_to_deal``, ``no_move_to_no_deal``: the player meant to
  close, the moves did not let it), and a round where it reads none is ``no_move`` for both;
- rounds that ended in an ``error`` are skipped (counted);
- each game plays the scenario it drew (``Game.game_scenario``); a rules judge of a game that
  draws its scenario is built per game, as the run built it; a model judge is built once per
  sweep cell and shared;
- paired arms: the shared rounds are audited once (their ``arm`` is null), each arm's own rounds
  once per arm.

A disagreement is one of :data:`KINDS`. The disputed rounds go to ``RUN/audit.jsonl`` (or
``out``), one object per round; a model judge's calls to ``RUN/audit_calls.jsonl``, labelled as
``calls.jsonl`` labels them (``game_id``, ``cell``, ``arm``, ``round``).
"""

from __future__ import annotations

import asyncio
import json
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from icl_aif.analysis.frames import run_config
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import ModeratorConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Turn
from icl_aif.engine.context import judge_for
from icl_aif.engine.protocol import judge_window
from icl_aif.games.base import Game, Judge
from icl_aif.games.registry import game_of
from icl_aif.models.calls import ModelCallError
from icl_aif.records.reader import SkippedLines, read_games
from icl_aif.records.schema import failed_to_move, is_truncated, upgrade_game

__all__ = [
    "AUDIT",
    "AUDIT_CALLS",
    "KINDS",
    "MODES",
    "AuditPlan",
    "AuditResult",
    "Replayed",
    "audit_config",
    "audit_line",
    "audit_rows",
    "audit_run",
    "dispute_kind",
    "plan_audit",
    "replay_round",
    "run_audit",
    "same_terms",
]

AUDIT = "audit.jsonl"
"""The disputed rounds, in the run directory unless ``out`` says otherwise."""

AUDIT_CALLS = "audit_calls.jsonl"
"""A model judge's calls, in the run directory."""

MODES = ("rules", "llm", "hybrid")

KINDS: dict[str, str] = {
    "deal_to_no_deal": "recorded deal, audit no_deal",
    "deal_to_ongoing": "recorded deal, audit ongoing",
    "no_deal_to_deal": "recorded no_deal, audit deal",
    "no_deal_to_ongoing": "recorded no_deal, audit ongoing",
    "terms": "same outcome, other terms",
    "no_move_to_deal": "recorded no valid move, audit deal",
    "no_move_to_no_deal": "recorded no valid move, audit no_deal",
}
"""Each kind of disagreement (the ``kind`` of an ``audit.jsonl`` line) and its table label."""

GAME_ENDED = ("cap", "invalid_moves")
"""The reasons of a round the game ended, not the judge."""

NO_MOVE = "no_move"
"""The recorded outcome, in an audit, of a round that ended for want of a valid move."""


@dataclass(frozen=True)
class Replayed:
    """What the audit judge made of one recorded round.

    ``outcome`` is ``deal``, ``no_deal``, ``ongoing`` (never ended), ``no_move`` (a round the
    game ended for want of a valid move, whose refused lines the judge read as no end either)
    or ``error`` (a model call failed: ``reason``). ``line`` is the 1-based number of the line after which the judge decided
    (openers counted), None when it never did; ``window`` the turns it read then (else the last
    window it read)."""

    outcome: str
    terms: dict[str, Any] | None
    reason: str | None
    line: int | None
    window: list[Turn]
    decided_by: str | None
    parse: str | None = None


@dataclass
class AuditResult:
    """The counts of an audit and the disputed rounds (each an ``audit.jsonl`` line)."""

    run_dir: Path
    out: Path
    mode: str
    model: str | None
    audited: int = 0
    agreements: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    errors: int = 0
    """Rounds the audit judge could not judge (a model call failed)."""
    skipped: int = 0
    """Recorded rounds that ended in an error (not audited)."""
    disputes: list[dict[str, Any]] = field(default_factory=list)
    calls_file: Path | None = None
    """Where a model judge's calls were written (None for a judge that makes none)."""
    calls: int = 0

    @property
    def disputed(self) -> int:
        """Rounds whose audit disagrees with the record."""
        return sum(self.kinds.values())


# --- the judge ------------------------------------------------------------------------------


def audit_config(
    config: ExperimentConfig,
    mode: str = "rules",
    *,
    model: str | None = None,
    base_url: str | None = None,
    window: int | None = None,
    params: Mapping[str, Any] | None = None,
) -> ExperimentConfig:
    """``config`` with the audit judge's moderator settings: ``mode``, and ``model``,
    ``base_url``, ``window`` and ``params`` where given. The run's other moderator settings stay
    (temperature, examples, timeout, ...); its ``params`` and ``base_url`` stay only with its own
    model. A mode the game has no judge for, or a model judge without a model, is a
    :class:`UsageError`."""
    if mode not in MODES:
        raise UsageError(f"--moderator {mode!r}: allowed values: {', '.join(MODES)}")
    game = game_of(config)
    if mode not in game.judges:
        raise UsageError(
            f"--moderator {mode}: game {config.game!r} has no {mode} judge; "
            f"allowed values: {', '.join(game.judges)}"
        )
    recorded = config.roles.moderator
    settings = recorded.model_dump()
    settings["mode"] = mode
    if model is not None and model != recorded.model:
        settings.update(model=model, params={}, base_url=None)
    if base_url is not None:
        settings["base_url"] = base_url
    if window is not None:
        settings["window"] = window
    if params is not None:
        settings["params"] = dict(params)
    if mode != "rules" and not settings.get("model"):
        raise UsageError(
            f"--moderator {mode} needs --model provider:model (the run's moderator has none)"
        )
    try:
        moderator = ModeratorConfig.model_validate(settings)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "moderator"
        message = str(error["msg"]).removeprefix("Value error, ")
        raise UsageError(f"audit judge: {where}: {message}") from None
    roles = config.roles.model_copy(update={"moderator": moderator})
    return config.model_copy(update={"roles": roles})


# --- one round ------------------------------------------------------------------------------


async def replay_round(
    judge: Judge,
    turns: Sequence[Turn],
    *,
    openers: int,
    window: int,
    info: dict[str, Any] | None,
    cap: int,
    ended_by: str | None = None,
    calls: list[dict[str, Any]] | None = None,
    refused: Sequence[Mapping[str, Any]] = (),
) -> Replayed:
    """Judge ``turns`` line by line as the game did (see the module's rules).

    ``openers`` lines open the round; ``cap`` is the number of lines at which the exchange cap
    ends a round (``2 * max_exchanges``); ``ended_by`` is the recorded reason when the game ended
    the round (``cap`` or ``invalid_moves``), else None; ``refused`` the round's refused lines
    (judged for an ``invalid_moves`` round). A failed model call gives an ``error``.
    """
    last = len(turns)
    if ended_by == "invalid_moves":  # the invalid try on the table was never judged
        last -= 1
    seen: list[Turn] = []
    decided_by: str | None = None
    parse: str | None = None
    for end in range(max(openers + 1, 1), last + 1):
        seen = judge_window(turns[:end], window)
        try:
            verdict = await judge.aclassify(seen, info, calls)
        except ModelCallError as exc:
            return Replayed("error", None, str(exc), end, seen, None)
        decided_by, parse = verdict.decided_by or judge.name, verdict.parse
        if verdict.terminal:
            terms = verdict.terms if verdict.state == "deal" else None
            return Replayed(verdict.state, terms, verdict.reason, end, seen, decided_by, parse)
        if end >= cap:  # the cap: no deal, whatever comes after
            return Replayed("no_deal", None, "cap", None, seen, decided_by, parse)
    if ended_by == "invalid_moves":
        return await _replay_refused(judge, turns, refused, window=window, info=info, calls=calls)
    if ended_by is not None:
        return Replayed("no_deal", None, ended_by, None, seen, decided_by, parse)
    return Replayed("ongoing", None, None, None, seen, decided_by, parse)


async def _replay_refused(
    judge: Judge,
    turns: Sequence[Turn],
    refused: Sequence[Mapping[str, Any]],
    *,
    window: int,
    info: dict[str, Any] | None,
    calls: list[dict[str, Any]] | None,
) -> Replayed:
    """The judge's reading of a no-move round's refused lines, each in its window as if it had
    been on the table: the first it reads as an agreement or an end, else ``no_move``."""
    seen: list[Turn] = []
    decided_by: str | None = None
    parse: str | None = None
    for line in refused:
        at = int(line.get("at", len(turns)))
        tried = Turn(speaker=line["speaker"], text=line["text"])
        seen = judge_window([*turns[:at], tried], window)
        try:
            verdict = await judge.aclassify(seen, info, calls)
        except ModelCallError as exc:
            return Replayed("error", None, str(exc), at + 1, seen, None)
        decided_by, parse = verdict.decided_by or judge.name, verdict.parse
        if verdict.terminal:
            terms = verdict.terms if verdict.state == "deal" else None
            return Replayed(verdict.state, terms, verdict.reason, at + 1, seen, decided_by, parse)
    return Replayed(NO_MOVE, None, "invalid_moves", None, seen, decided_by, parse)


def same_terms(a: Any, b: Any) -> bool:
    """Terms equal as data, numbers within float noise (15 and 15.0 are the same price)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        keys = set(a) | set(b)
        return all(same_terms(a.get(k), b.get(k)) for k in keys)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_terms(x, y) for x, y in zip(a, b, strict=True))
    if _number(a) and _number(b):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    return bool(a == b)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def dispute_kind(recorded: str, recorded_terms: Any, audit: str, audit_terms: Any) -> str | None:
    """The kind of disagreement (:data:`KINDS`) between a recorded outcome (``deal``,
    ``no_deal`` or ``no_move``) and the audit's (``deal``, ``no_deal``, ``ongoing`` or
    ``no_move``), None when they agree."""
    if recorded == audit:
        if recorded == "deal" and not same_terms(recorded_terms, audit_terms):
            return "terms"
        return None
    return f"{recorded}_to_{audit}"


# --- a run ----------------------------------------------------------------------------------


@dataclass
class _Job:
    """One recorded round to audit, with what its replay needs."""

    labels: dict[str, Any]
    record: dict[str, Any]
    judge: Judge
    openers: int
    window: int
    info: dict[str, Any] | None
    cap: int


@dataclass
class AuditPlan:
    """An audit ready to run: the rounds to judge (:attr:`size`), their judges built, the
    counts of what is not judged (:attr:`result`)."""

    result: AuditResult
    jobs: list[_Job]
    concurrency: int
    uses_model: bool

    @property
    def size(self) -> int:
        """How many rounds the audit judges."""
        return len(self.jobs)


def plan_audit(
    run_dir: str | Path,
    mode: str = "rules",
    *,
    model: str | None = None,
    base_url: str | None = None,
    window: int | None = None,
    params: Mapping[str, Any] | None = None,
    out: str | Path | None = None,
    concurrency: int | None = None,
    skipped: SkippedLines | None = None,
) -> AuditPlan:
    """Read ``run_dir`` and build the ``mode`` judge (see :func:`audit_run`); nothing is judged
    yet. Bad input (no such run, no ``games.jsonl``, a mode the game lacks) is a
    :class:`UsageError`; damaged lines of ``games.jsonl`` are skipped with a warning and noted
    in ``skipped``."""
    directory = Path(run_dir)
    if not directory.is_dir():
        raise UsageError(f"{directory}: no such run directory")
    games = [upgrade_game(g) for g in read_games(directory, skipped)]
    config = run_config(directory)
    settings: dict[str, Any] = {
        "mode": mode,
        "model": model,
        "base_url": base_url,
        "window": window,
        "params": params,
    }
    audited = audit_config(config, **settings).roles.moderator
    target = Path(out) if out is not None else directory / AUDIT
    result = AuditResult(directory, target, mode, audited.model if audited.uses_model else None)
    jobs = _jobs(config, settings, games, result)
    limit = concurrency if concurrency is not None else config.concurrency
    return AuditPlan(result, jobs, max(1, limit), audited.uses_model)


def run_audit(plan: AuditPlan, progress: Callable[[int], None] | None = None) -> AuditResult:
    """Judge the planned rounds (``progress`` is told of each one done), write the disputed
    ones and a model judge's calls, and return the counts."""
    result = plan.result
    replays = asyncio.run(_replay_all(plan.jobs, plan.concurrency, progress))
    calls: list[dict[str, Any]] = []
    for job, (replayed, job_calls) in zip(plan.jobs, replays, strict=True):
        calls.extend({**job.labels, **call} for call in job_calls)
        _tally(result, job, replayed)
    _write_jsonl(result.out, result.disputes)
    if plan.uses_model:
        result.calls_file = result.run_dir / AUDIT_CALLS
        result.calls = len(calls)
        _write_jsonl(result.calls_file, calls)
    return result


def audit_run(
    run_dir: str | Path,
    mode: str = "rules",
    *,
    model: str | None = None,
    base_url: str | None = None,
    window: int | None = None,
    params: Mapping[str, Any] | None = None,
    out: str | Path | None = None,
    concurrency: int | None = None,
    progress: Callable[[int], None] | None = None,
    skipped: SkippedLines | None = None,
) -> AuditResult:
    """Re-judge every recorded round of ``run_dir`` with the ``mode`` judge; write the disputed
    rounds to ``out`` (default ``RUN/audit.jsonl``) and a model judge's calls to
    ``RUN/audit_calls.jsonl``.

    ``model``, ``base_url``, ``window`` and ``params`` change the run's moderator settings
    (:func:`audit_config`). ``concurrency`` rounds are judged at once (default: the run's
    ``concurrency``); ``progress`` is told of each round done. Bad input (no such run, no
    ``games.jsonl``, a mode the game lacks) is a :class:`UsageError`; damaged lines of
    ``games.jsonl`` are skipped with a warning and noted in ``skipped``.
    """
    plan = plan_audit(
        run_dir,
        mode,
        model=model,
        base_url=base_url,
        window=window,
        params=params,
        out=out,
        concurrency=concurrency,
        skipped=skipped,
    )
    return run_audit(plan, progress)


def _jobs(
    config: ExperimentConfig,
    settings: Mapping[str, Any],
    games: Sequence[dict[str, Any]],
    result: AuditResult,
) -> list[_Job]:
    """One job per round to audit: shared rounds of paired arms once, error rounds skipped.
    ``settings`` are :func:`audit_config`'s, applied to each sweep cell's config."""
    game = game_of(config)
    prompts = PromptLibrary()
    cells = {cell.id: audit_config(cell.config, **settings) for cell in config.cells()}
    shared_judges: dict[str | None, Judge] = {}
    seen_shared: set[tuple[str | None, str, int]] = set()
    arms = bool(config.arms)
    jobs: list[_Job] = []
    for record in games:
        cell = record.get("cell")
        cell_config = cells.get(cell)
        if cell_config is None:
            raise UsageError(f"{record['game_id']}: cell {cell!r} is not in the run's config")
        scenario = game.game_scenario(game.scenario_of(cell_config), record)
        judge = _judge(game, cell_config, scenario, record, shared_judges, cell, prompts)
        moderator = cell_config.roles.moderator
        for round_record in record.get("rounds", []):
            number = int(round_record["round"])
            shared = bool(round_record.get("shared"))
            if shared:
                key = (cell, str(record["game_id"]), number)
                if key in seen_shared:
                    continue
                seen_shared.add(key)
            if round_record.get("outcome") not in ("deal", "no_deal"):
                result.skipped += 1
                continue
            labels: dict[str, Any] = {"game_id": record["game_id"]}
            if cell is not None:
                labels["cell"] = cell
            if arms:
                labels["arm"] = None if shared else record.get("arm")
            labels["round"] = number
            jobs.append(
                _Job(
                    labels=labels,
                    record=round_record,
                    judge=judge,
                    openers=len(game.opening_turns(scenario)),
                    window=moderator.window,
                    info=game.judge_info(scenario),
                    cap=2 * scenario.max_exchanges,
                )
            )
    return jobs


def _judge(
    game: Game[Any, Any],
    config: ExperimentConfig,
    scenario: Any,
    record: Mapping[str, Any],
    shared: dict[str | None, Judge],
    cell: str | None,
    prompts: PromptLibrary,
) -> Judge:
    """The judge of one recorded game, as the run built it: a rules judge of a drawn scenario is
    the game's own; any other judge is built once per cell."""
    if record.get("scenario") is not None and config.roles.moderator.mode == "rules":
        return judge_for(config.model_copy(update={"scenario": scenario}), prompts)
    if cell not in shared:
        shared[cell] = judge_for(config, prompts)
    return shared[cell]


async def _replay_all(
    jobs: Sequence[_Job], concurrency: int, progress: Callable[[int], None] | None
) -> list[tuple[Replayed, list[dict[str, Any]]]]:
    """Every job's replay and the model calls it made, in the order of ``jobs``."""
    gate = asyncio.Semaphore(concurrency)

    async def one(job: _Job) -> tuple[Replayed, list[dict[str, Any]]]:
        calls: list[dict[str, Any]] = []
        async with gate:
            replayed = await replay_round(
                job.judge,
                job.record.get("turns", []),
                openers=job.openers,
                window=job.window,
                info=job.info,
                cap=job.cap,
                ended_by=_ended_by(job.record),
                calls=calls,
                refused=job.record.get("refused") or (),
            )
        if progress is not None:
            progress(1)
        return replayed, calls

    return list(await asyncio.gather(*(one(job) for job in jobs)))


def _ended_by(record: Mapping[str, Any]) -> str | None:
    """``cap`` or ``invalid_moves`` when the game ended the recorded round, else None."""
    if is_truncated(dict(record)):
        return "cap"
    reason = record.get("reason")
    return reason if record.get("outcome") == "no_deal" and reason in GAME_ENDED else None


def _tally(result: AuditResult, job: _Job, replayed: Replayed) -> None:
    """Count one audited round; keep it when it is disputed or could not be judged."""
    record = job.record
    result.audited += 1
    recorded = NO_MOVE if failed_to_move(record) else str(record["outcome"])
    recorded_terms = record.get("terms") if recorded == "deal" else None
    if replayed.outcome == "error":
        result.errors += 1
        kind: str | None = "audit_error"
    else:
        kind = dispute_kind(recorded, recorded_terms, replayed.outcome, replayed.terms)
        if kind is None:
            result.agreements += 1
            return
        result.kinds[kind] += 1
    turns = record.get("turns", [])
    result.disputes.append(
        {
            **job.labels,
            "kind": kind,
            "recorded_outcome": recorded,
            "recorded_terms": recorded_terms,
            "recorded_reason": record.get("reason"),
            "recorded_decided_by": record.get("decided_by"),
            "audit_outcome": replayed.outcome,
            "audit_terms": replayed.terms,
            "audit_reason": replayed.reason,
            "audit_decided_by": replayed.decided_by,
            "audit_parse": replayed.parse,
            "audit_line": replayed.line,
            "audit_window": replayed.window,
            "lines": len(turns),
            "turns": turns,
            **({"refused": record["refused"]} if record.get("refused") else {}),
        }
    )


def _write_jsonl(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Write ``rows`` as JSONL (an unwritable place is one line)."""
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write: {exc.strerror or exc}") from None


# --- what the command prints ----------------------------------------------------------------


def _share(count: int, of: int) -> str:
    return f"{100 * count / of:.1f}%" if of else "-"


def audit_rows(result: AuditResult) -> list[tuple[str, str, str]]:
    """The table of an audit: (what, rounds, share of the rounds audited)."""
    n = result.audited
    rows = [
        ("rounds audited", str(n), ""),
        ("agreements", str(result.agreements), _share(result.agreements, n)),
        ("disagreements", str(result.disputed), _share(result.disputed, n)),
    ]
    rows += [
        (f"  {label}", str(result.kinds[k]), _share(result.kinds[k], n))
        for k, label in KINDS.items()
    ]
    if result.errors:
        rows.append(
            ("not judged (model call failed)", str(result.errors), _share(result.errors, n))
        )
    if result.skipped:
        rows.append(("skipped (recorded error)", str(result.skipped), ""))
    return rows


def audit_line(result: AuditResult) -> str:
    """The command's last line: how many rounds are disputed and where to read them."""
    line = (
        f"audit: {result.disputed} of {result.audited} rounds disputed "
        f"({_share(result.disputed, result.audited)}): see {result.out}"
    )
    if result.errors:
        line += f" ({result.errors} not judged: a model call failed)"
    if result.calls_file is not None:
        line += f"; {result.calls} judge call(s) in {result.calls_file}"
    return line
