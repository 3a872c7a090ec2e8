"""How many games a claim needs: sample sizes and detectable differences (``icl-aif plan``).

A claim compares the game's **score** (the unconditional score of a round: the measure when it
ended in a deal, the no-deal value otherwise; docs/results.md) under two conditions, and a plan
says how many runs make a difference ``delta`` detectable with a two-sided test at level
``alpha`` with probability ``power`` (Miller 2024, "Adding Error Bars to Evals"):

- **paired** designs compare two conditions within each run, so each run gives one difference:
  the first round against the last (``rounds``: does the improved player learn?) or two feedback
  arms of the same runs (``arms``: the arms replay the shared rounds from the same state). With
  ``sd`` the spread of the per-run differences, the runs needed are the least ``n`` with
  ``(t[n-1, 1 - alpha/2] + t[n-1, power]) * sd / sqrt(n) <= delta``; from two conditions' own
  spreads and their correlation ``r``, ``sd = sqrt(sd1^2 + sd2^2 - 2 r sd1 sd2)``;
- **clustered** designs compare two independent runs (``runs``: two models, two configs) by the
  mean score over all their rounds. A run's rounds are correlated (intraclass correlation
  ``icc``), so ``m`` rounds count as ``m / (1 + (m - 1) icc)`` independent ones (the design
  effect); each run then needs ``n = (z[1 - alpha/2] + z[power])^2 * 2 * sd^2 * (1 + (m - 1)
  icc) / (m * delta^2)`` runs (normal approximation).

The minimum detectable difference of ``n`` runs inverts the same formula. A pilot run gives the
spreads and the correlation; they are estimates, so a plan from a small pilot is itself
uncertain (the plan says from how many runs it came).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
from scipy.stats import norm, t

from icl_aif.analysis.metrics import round_score
from icl_aif.core.errors import UsageError

__all__ = [
    "Design",
    "Pilot",
    "Plan",
    "clustered_runs",
    "detectable_clustered",
    "detectable_paired",
    "paired_runs",
    "pilot_of_run",
    "plan",
]

Design = Literal["rounds", "arms", "runs"]
MAX_RUNS = 1_000_000


def paired_runs(sd: float, delta: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """The least number of runs whose paired differences (spread ``sd``) detect ``delta``."""
    _check(alpha, power)
    if delta <= 0:
        raise UsageError("the difference to detect must be positive")
    if sd <= 0:
        return 2
    n = 2
    while n < MAX_RUNS:
        if detectable_paired(sd, n, alpha, power) <= delta:
            return n
        n = n + 1 if n < 1000 else int(n * 1.01) + 1
    raise UsageError(f"a difference of {delta:g} needs more than {MAX_RUNS:,} runs at sd {sd:g}")


def detectable_paired(sd: float, runs: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The least difference ``runs`` paired runs detect (spread of the differences ``sd``)."""
    _check(alpha, power)
    if runs < 2:
        raise UsageError("a paired test needs at least 2 runs")
    df = runs - 1
    return float((t.ppf(1 - alpha / 2, df) + t.ppf(power, df)) * sd / math.sqrt(runs))


def clustered_runs(
    sd: float, icc: float, rounds: int, delta: float, alpha: float = 0.05, power: float = 0.8
) -> int:
    """Runs per condition for two independent conditions compared by the mean score over
    ``rounds`` rounds a run (spread ``sd`` of one round's score, intraclass correlation
    ``icc``)."""
    _check(alpha, power)
    if delta <= 0:
        raise UsageError("the difference to detect must be positive")
    z = norm.ppf(1 - alpha / 2) + norm.ppf(power)
    effect = 1 + (rounds - 1) * min(max(icc, 0.0), 1.0)
    return max(2, math.ceil(float(z**2 * 2 * sd**2 * effect / (rounds * delta**2))))


def detectable_clustered(
    sd: float, icc: float, rounds: int, runs: int, alpha: float = 0.05, power: float = 0.8
) -> float:
    """The least difference ``runs`` runs per condition detect (clustered design)."""
    _check(alpha, power)
    z = norm.ppf(1 - alpha / 2) + norm.ppf(power)
    effect = 1 + (rounds - 1) * min(max(icc, 0.0), 1.0)
    return float(z * math.sqrt(2 * sd**2 * effect / (rounds * runs)))


def _check(alpha: float, power: float) -> None:
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must lie between 0 and 1; got {alpha:g}")
    if not 0 < power < 1:
        raise UsageError(f"power must lie between 0 and 1; got {power:g}")


@dataclass(frozen=True)
class Pilot:
    """What a pilot run says about the spread of the score: ``differences`` (one per run, for
    a paired design), or the rounds' ``sd`` and ``icc`` (clustered), and how many runs."""

    design: Design
    runs: int
    rounds: int
    differences: tuple[float, ...] = ()
    sd: float | None = None
    icc: float | None = None
    mean_difference: float | None = None
    labels: tuple[str, str] = ("", "")


def _scores_by_run(
    games: Sequence[dict[str, Any]], no_deal_value: float, measure: Any
) -> dict[str, dict[int, float]]:
    """Each run's score by round (rounds without one left out)."""
    runs: dict[str, dict[int, float]] = {}
    for game in games:
        if game.get("status") == "error":
            continue
        scores = {}
        for record in game.get("rounds") or []:
            score = round_score(record, no_deal_value, measure)
            if score is not None:
                scores[int(record["round"])] = score
        if scores:
            runs[str(game["game_id"])] = scores
    return runs


def icc_of(rows: Sequence[Sequence[float]]) -> float:
    """The one-way intraclass correlation of equal-length rows (each a run's rounds), at least
    0."""
    data = np.asarray(rows, dtype=float)
    n, m = data.shape
    if n < 2 or m < 2:
        return 0.0
    grand = data.mean()
    between = m * ((data.mean(axis=1) - grand) ** 2).sum() / (n - 1)
    within = ((data - data.mean(axis=1, keepdims=True)) ** 2).sum() / (n * (m - 1))
    if between + (m - 1) * within <= 0:
        return 0.0
    return max(0.0, float((between - within) / (between + (m - 1) * within)))


def pilot_of_run(
    directory: Path, design: Design, arms: tuple[str, str] | None = None, cell: str | None = None
) -> Pilot:
    """The pilot figures of the run in ``directory`` for ``design``: ``rounds`` (first against
    last round), ``arms`` (two of its feedback arms, ``arms``; default its first two) or
    ``runs`` (the rounds' spread and intraclass correlation)."""
    from icl_aif.analysis.frames import run_config, run_measure
    from icl_aif.records.reader import read_games

    config = run_config(directory)
    games = read_games(directory)
    if cell is not None:
        games = [g for g in games if g.get("cell") == cell]
        config = next((c.config for c in config.cells() if c.id == cell), config)
    elif config.has_cells:
        raise UsageError(
            f"{directory} has cells: choose one with --cell (e.g. {config.cells()[0].id})"
        )
    measure = run_measure(config)
    no_deal = config.no_deal_value
    if design == "arms":
        if not config.arms or len(config.arms) < 2:
            raise UsageError(f"{directory}: no two feedback arms to compare (the config's arms:)")
        first, second = arms or (config.arms[0], config.arms[1])
        for arm in (first, second):
            if arm not in config.arms:
                raise UsageError(
                    f"--arms: {arm!r} is not an arm of the run; arms: {', '.join(config.arms)}"
                )
        means: dict[str, dict[str, float]] = {first: {}, second: {}}
        for arm in (first, second):
            mine = [g for g in games if g.get("arm") == arm]
            for run_id, scores in _scores_by_run(mine, no_deal, measure).items():
                after = [v for r, v in scores.items() if r > config.branch_after]
                if after:
                    means[arm][run_id] = sum(after) / len(after)
        shared = sorted(set(means[first]) & set(means[second]))
        differences = tuple(means[second][r] - means[first][r] for r in shared)
        return _paired_pilot("arms", differences, config.rounds, (first, second))
    runs = _scores_by_run(games, no_deal, measure)
    last = config.rounds
    if design == "rounds":
        if last < 2:
            raise UsageError(
                f"{directory}: one round a run; the rounds design compares round 1 with the last"
            )
        differences = tuple(s[last] - s[1] for s in runs.values() if 1 in s and last in s)
        return _paired_pilot("rounds", differences, last, ("round 1", f"round {last}"))
    rows = [[s[r] for r in range(1, last + 1)] for s in runs.values() if len(s) == last]
    if len(rows) < 2:
        raise UsageError(f"{directory}: fewer than 2 runs with a score in every round")
    flat = [v for row in rows for v in row]
    return Pilot(
        "runs", runs=len(rows), rounds=last, sd=float(np.std(flat, ddof=1)), icc=icc_of(rows)
    )


def _paired_pilot(
    design: Design, differences: tuple[float, ...], rounds: int, labels: tuple[str, str]
) -> Pilot:
    if len(differences) < 2:
        raise UsageError(f"fewer than 2 runs give a {design} difference; a pilot needs more")
    return Pilot(
        design,
        runs=len(differences),
        rounds=rounds,
        differences=differences,
        sd=float(np.std(differences, ddof=1)),
        mean_difference=float(np.mean(differences)),
        labels=labels,
    )


@dataclass(frozen=True)
class Plan:
    """A plan: the runs a difference needs and the difference some runs detect."""

    design: Design
    alpha: float
    power: float
    sd: float
    icc: float | None
    rounds: int
    difference: float | None
    runs_needed: int | None
    runs: int | None
    detectable: float | None
    pilot_runs: int | None
    observed: float | None


def plan(
    design: Design,
    *,
    sd: float,
    icc: float | None = None,
    rounds: int = 1,
    difference: float | None = None,
    runs: int | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    pilot: Pilot | None = None,
) -> Plan:
    """The runs ``difference`` needs and the difference ``runs`` detect (either may be None)."""
    if difference is None and runs is None:
        raise UsageError("say what to plan: a --difference to detect, --runs to judge, or both")
    paired = design != "runs"
    needed = detectable = None
    if difference is not None:
        needed = (
            paired_runs(sd, difference, alpha, power)
            if paired
            else clustered_runs(sd, icc or 0.0, rounds, difference, alpha, power)
        )
    if runs is not None:
        detectable = (
            detectable_paired(sd, runs, alpha, power)
            if paired
            else detectable_clustered(sd, icc or 0.0, rounds, runs, alpha, power)
        )
    return Plan(
        design=design,
        alpha=alpha,
        power=power,
        sd=sd,
        icc=icc,
        rounds=rounds,
        difference=difference,
        runs_needed=needed,
        runs=runs,
        detectable=detectable,
        pilot_runs=pilot.runs if pilot else None,
        observed=pilot.mean_difference if pilot else None,
    )
