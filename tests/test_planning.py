"""How many games a claim needs (icl_aif/analysis/planning.py, icl-aif plan)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import t

from icl_aif.analysis.planning import (
    clustered_runs,
    detectable_clustered,
    detectable_paired,
    paired_runs,
    pilot_of_run,
)
from icl_aif.core.errors import UsageError
from tests.conftest import icl_aif, quickstart, run

ALPHA, POWER = 0.05, 0.8


def test_the_textbook_figures() -> None:
    # a paired t-test: half a standard deviation needs 34 pairs at 5% and 80%
    assert paired_runs(1.0, 0.5) == 34
    assert detectable_paired(1.0, 34) <= 0.5 < detectable_paired(1.0, 33)
    # two independent groups of single rounds: (1.96 + 0.84)^2 * 2 / 0.5^2 = 62.8
    assert clustered_runs(1.0, 0.0, 1, 0.5) == 63
    # rounds that repeat the run's level (icc 1) count as one; independent ones (icc 0) as five
    assert clustered_runs(1.0, 1.0, 5, 0.5) == 63
    assert clustered_runs(1.0, 0.0, 5, 0.5) == 13
    assert detectable_clustered(1.0, 0.0, 1, 63) <= 0.5


@pytest.mark.parametrize(("alpha", "power"), [(0.0, 0.8), (0.05, 1.0)])
def test_a_level_or_power_outside_zero_and_one_is_refused(alpha: float, power: float) -> None:
    with pytest.raises(UsageError, match="between 0 and 1"):
        paired_runs(1.0, 0.5, alpha, power)


@pytest.fixture(scope="module")
def pilot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Scripted players over five rounds of feedback: 160 runs."""
    directory = tmp_path_factory.mktemp("pilot") / "run"
    run(quickstart("runs=160", "seed=3"), directory)
    return directory


def test_planned_paired_runs_reach_the_stated_power_with_scripted_players(pilot: Path) -> None:
    """Draw experiments of the planned size from the scripted runs' own differences, shifted
    to a true difference of ``delta``: the share that a paired t-test finds is the power."""
    found = pilot_of_run(pilot, "rounds")
    pool = np.asarray(found.differences) - np.mean(found.differences)
    delta = 0.8 * float(np.std(pool, ddof=1))  # a difference of 0.8 standard deviations
    n = paired_runs(found.sd or 0.0, delta, ALPHA, POWER)
    rng = np.random.default_rng(0)
    drawn = pool[rng.integers(0, len(pool), size=(4000, n))] + delta
    statistic = drawn.mean(axis=1) / (drawn.std(axis=1, ddof=1) / math.sqrt(n))
    power = float(np.mean(np.abs(statistic) > t.ppf(1 - ALPHA / 2, n - 1)))
    assert abs(power - POWER) <= 0.05, (n, power)


def test_planned_clustered_runs_reach_the_stated_power_with_scripted_players(pilot: Path) -> None:
    found = pilot_of_run(pilot, "runs")
    from icl_aif.analysis.frames import run_config, run_measure
    from icl_aif.analysis.planning import _scores_by_run
    from icl_aif.records.reader import read_games

    config = run_config(pilot)
    scores = _scores_by_run(read_games(pilot), config.no_deal_value, run_measure(config))
    means = np.array([np.mean([s[r] for r in range(1, 6)]) for s in scores.values() if len(s) == 5])
    means -= means.mean()
    delta = 0.5 * float(found.sd or 0.0)
    n = clustered_runs(found.sd or 0.0, found.icc or 0.0, found.rounds, delta, ALPHA, POWER)
    rng = np.random.default_rng(1)
    a = means[rng.integers(0, len(means), size=(4000, n))]
    b = means[rng.integers(0, len(means), size=(4000, n))] + delta
    pooled = np.sqrt((a.var(axis=1, ddof=1) + b.var(axis=1, ddof=1)) / n)
    statistic = (b.mean(axis=1) - a.mean(axis=1)) / pooled
    power = float(np.mean(np.abs(statistic) > t.ppf(1 - ALPHA / 2, 2 * n - 2)))
    assert abs(power - POWER) <= 0.05, (n, power)


def test_plan_prints_the_runs_needed_and_the_detectable_difference(pilot: Path) -> None:
    shown = icl_aif("plan", pilot, "--difference", "1", "--runs", "50", columns=200)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert any(line.startswith("To detect a difference of 1: ") for line in lines)
    assert any(
        line.startswith("With 50 runs: the least detectable difference is ") for line in lines
    )
    stated = icl_aif("plan", "--sd", "1", "--correlation", "0.5", "--difference", "0.5")
    assert "To detect a difference of 0.5: 34 runs." in stated.stdout
    bad = icl_aif("plan", "--difference", "1")
    assert bad.returncode == 2
    assert (
        bad.stderr.strip()
        == "error: give a pilot run, or the spread to plan with: --sd (see --help)"
    )
