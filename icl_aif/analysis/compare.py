"""Two runs side by side: per-round metrics of run A and run B, deltas (B - A) with 95% CIs.

The metrics are the deal rate and the game's measure (:class:`~icl_aif.games.base.Measure`: the
price game's deal price, the pie split's payoff; ``price_*`` fields of :class:`RoundComparison`
hold it, whatever the game). Runs of two different games are not compared.

The runs are treated as independent samples (different games, not paired): the measure's delta
CI is a percentile bootstrap that resamples A's and B's deal values separately; the deal-rate delta's
CI is Newcombe's hybrid score interval (method 10), built from the two Wilson intervals. Paired
feedback arms within one run call for paired statistics instead (the run's own arm table); a run
with arms or sweep cells is compared through one arm and one cell (``--arm``, ``--cell``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from icl_aif.analysis.metrics import BOOTSTRAP_RESAMPLES, deal_values
from icl_aif.analysis.report import MeasureLike, measure_header, signed_text, value_text
from icl_aif.core.errors import UsageError
from icl_aif.core.seeds import derive_seed

if TYPE_CHECKING:
    from icl_aif.games.base import Measure
    from icl_aif.records.reader import SkippedLines

Z95 = 1.959963984540054
COMPARE_SEED = 20230524
"""Seed of the bootstrap: the same two runs always give the same CI."""


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion; (0, 1) when ``n`` is 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_interval(
    successes_a: int, n_a: int, successes_b: int, n_b: int, z: float = Z95
) -> tuple[float, float] | None:
    """95% CI of p_B - p_A for two independent proportions (Newcombe 1998, method 10)."""
    if n_a == 0 or n_b == 0:
        return None
    p_a, p_b = successes_a / n_a, successes_b / n_b
    low_a, high_a = wilson_interval(successes_a, n_a, z)
    low_b, high_b = wilson_interval(successes_b, n_b, z)
    delta = p_b - p_a
    low = delta - math.sqrt((p_b - low_b) ** 2 + (high_a - p_a) ** 2)
    high = delta + math.sqrt((high_b - p_b) ** 2 + (p_a - low_a) ** 2)
    return low, high


def bootstrap_delta_ci(
    a: Sequence[float],
    b: Sequence[float],
    seed: int,
    resamples: int = BOOTSTRAP_RESAMPLES,
    level: float = 0.95,
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of mean(b) - mean(a), resampling each sample on its own.

    None when either sample has fewer than two values.
    """
    if len(a) < 2 or len(b) < 2:
        return None
    rng = np.random.default_rng(seed)
    data_a, data_b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    means_a = rng.choice(data_a, size=(resamples, data_a.size), replace=True).mean(axis=1)
    means_b = rng.choice(data_b, size=(resamples, data_b.size), replace=True).mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means_b - means_a, [tail, 1.0 - tail])
    return float(low), float(high)


@dataclass(frozen=True)
class RoundComparison:
    """One round of A and B: counts, rates, the measure (``price_*``: the deal price in the price
    game) and the deltas B - A with their 95% CIs."""

    round: int
    games_a: int
    games_b: int
    deals_a: int
    deals_b: int
    deal_rate_a: float | None
    deal_rate_b: float | None
    deal_rate_delta: float | None
    deal_rate_delta_ci: tuple[float, float] | None
    price_a: float | None
    price_b: float | None
    price_delta: float | None
    price_delta_ci: tuple[float, float] | None


def _round_counts(games: Sequence[dict[str, Any]], number: int) -> tuple[int, int]:
    """Rounds ``number`` that finished (a deal or a no deal; errors left out) and their deals."""
    records = [
        r for g in games for r in g["rounds"] if r["round"] == number and r["outcome"] != "error"
    ]
    return len(records), sum(r["outcome"] == "deal" for r in records)


def compare_round(
    games_a: Sequence[dict[str, Any]],
    games_b: Sequence[dict[str, Any]],
    number: int,
    measure: Measure,
) -> RoundComparison:
    """Round ``number`` of two independent sets of games, of ``measure`` (the game's)."""
    n_a, deals_a = _round_counts(games_a, number)
    n_b, deals_b = _round_counts(games_b, number)
    prices_a = deal_values(games_a, number, measure)
    prices_b = deal_values(games_b, number, measure)
    rate_a = deals_a / n_a if n_a else None
    rate_b = deals_b / n_b if n_b else None
    price_a = float(np.mean(prices_a)) if prices_a else None
    price_b = float(np.mean(prices_b)) if prices_b else None
    return RoundComparison(
        round=number,
        games_a=n_a,
        games_b=n_b,
        deals_a=deals_a,
        deals_b=deals_b,
        deal_rate_a=rate_a,
        deal_rate_b=rate_b,
        deal_rate_delta=rate_b - rate_a if rate_a is not None and rate_b is not None else None,
        deal_rate_delta_ci=newcombe_interval(deals_a, n_a, deals_b, n_b),
        price_a=price_a,
        price_b=price_b,
        price_delta=price_b - price_a if price_a is not None and price_b is not None else None,
        price_delta_ci=bootstrap_delta_ci(
            prices_a, prices_b, derive_seed(COMPARE_SEED, "compare", number)
        ),
    )


def compare_games(
    games_a: Sequence[dict[str, Any]],
    games_b: Sequence[dict[str, Any]],
    measure: Measure,
) -> list[RoundComparison]:
    """Every round that either set of games reached."""
    last = max((len(g["rounds"]) for g in [*games_a, *games_b]), default=0)
    return [compare_round(games_a, games_b, k, measure) for k in range(1, last + 1)]


def run_game_of(directory: Path) -> tuple[str, Measure]:
    """The game of the run in ``directory`` and its measure (its ``config.yaml``; a directory
    without one, a run written by hand, plays the default experiment's game)."""
    from icl_aif.analysis.frames import run_config, run_measure
    from icl_aif.engine.configs import config_from_dict
    from icl_aif.records.layout import CONFIG

    if (directory / CONFIG).is_file():
        config = run_config(directory)
    else:
        config = config_from_dict({}, f"{directory} (no {CONFIG}: the default experiment)")
    return config.game, run_measure(config)


def compared_measure(run_a: Path, run_b: Path) -> Measure:
    """The measure two runs of one game share, or a one-line :class:`UsageError` naming both
    games when they are runs of two games (even two that measure the same thing, as the pie
    split and Deal or No Deal both measure ``payoff``). The command line heads and formats the
    table with it (:func:`compare_headers`, :func:`comparison_rows`)."""
    (game_a, measure_a), (game_b, measure_b) = run_game_of(run_a), run_game_of(run_b)
    if game_a != game_b:
        raise UsageError(
            f"{run_a} is a run of the game {game_a}, {run_b} of {game_b}: "
            "compare two runs of one game"
        )
    if measure_a.name != measure_b.name:
        raise UsageError(
            f"{run_a} reports {measure_a.name}, {run_b} reports {measure_b.name}: runs of games "
            "with different measures cannot be compared"
        )
    return measure_a


def compare_runs(
    run_a: Path,
    run_b: Path,
    *,
    arm: str | None = None,
    cell: str | None = None,
    skipped: SkippedLines | None = None,
) -> list[RoundComparison]:
    """Compare two run directories (one-line :class:`UsageError` for a missing or invalid one,
    for runs of two games, or of games with different measures).

    A run with paired feedback arms or sweep cells holds several conditions, and an arm's shared
    rounds once per arm: pooling them would mix conditions and count games twice. Such a run is
    compared through one ``arm`` and one ``cell``; the choice applies to each run that has arms
    (cells) and must name one of them. Damaged lines of either ``games.jsonl`` are skipped with
    a warning and noted in ``skipped``.
    """
    from icl_aif.records.reader import read_games

    games = []
    for directory in (run_a, run_b):
        if not directory.is_dir():
            raise UsageError(f"{directory}: no such run directory")
        records = read_games(directory, skipped)
        for key, option, chosen in (("arm", "--arm", arm), ("cell", "--cell", cell)):
            records = _one_condition(directory, records, key, option, chosen)
        games.append(records)
    for key, option, chosen in (("arm", "--arm", arm), ("cell", "--cell", cell)):
        if chosen is not None and not any(g.get(key) is not None for gs in games for g in gs):
            raise UsageError(f"neither run has {key}s: drop {option}")
    return compare_games(games[0], games[1], compared_measure(run_a, run_b))


def _one_condition(
    directory: Path, games: list[dict[str, Any]], key: str, option: str, chosen: str | None
) -> list[dict[str, Any]]:
    """The games of condition ``chosen`` of ``key`` (arm or cell), when the run has that key."""
    values = list(dict.fromkeys(str(g[key]) for g in games if g.get(key) is not None))
    if not values:
        return games
    if chosen is None:
        raise UsageError(
            f"{directory} has {len(values)} {key}s ({', '.join(values)}): "
            f"compare one of them with {option} NAME"
        )
    if chosen not in values:
        raise UsageError(f"{directory}: no {key} {chosen!r}; allowed: {', '.join(values)}")
    return [g for g in games if str(g.get(key)) == chosen]


def _value(value: float | None, measure: MeasureLike, signed: bool = False) -> str:
    if value is None:
        return "-"
    return signed_text(value, measure) if signed else value_text(value, measure)


def _rate(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{100 * value:+.1f}" if signed else f"{value:.1%}"


def _interval(ci: tuple[float, float] | None, scale: float = 1.0, digits: int = 2) -> str:
    if ci is None:
        return "-"
    return f"[{scale * ci[0]:+,.{digits}f}, {scale * ci[1]:+,.{digits}f}]"


def compare_headers(measure: MeasureLike) -> tuple[str, ...]:
    """The headers of the comparison table of ``measure``."""
    name = measure_header(measure)
    return (
        "round",
        "games A/B",
        "rate A",
        "rate B",
        "Δ rate pt",
        "95% CI",
        f"{name} A",
        f"{name} B",
        f"Δ {name}",
        "95% CI",
    )


def comparison_rows(rows: Sequence[RoundComparison], measure: MeasureLike) -> list[list[str]]:
    """The table body of :func:`compare_runs`' result, formatted (``measure``: the runs')."""
    digits = 2 if measure.money else 3
    return [
        [
            str(r.round),
            f"{r.games_a}/{r.games_b}",
            _rate(r.deal_rate_a),
            _rate(r.deal_rate_b),
            _rate(r.deal_rate_delta, signed=True),
            _interval(r.deal_rate_delta_ci, 100, 1),
            _value(r.price_a, measure),
            _value(r.price_b, measure),
            _value(r.price_delta, measure, signed=True),
            _interval(r.price_delta_ci, digits=digits),
        ]
        for r in rows
    ]


_COMPARE_LEGEND = (
    "Δ = B - A; rate: deal rate over runs that finished the round (a round stopped by an error "
    "is left out); Δ rate in percentage points. "
    "Runs are independent samples: the Δ {name} CI is a percentile bootstrap resampling each "
    "run's {plural} separately (2,000 resamples, fixed seed); the Δ rate CI is Newcombe's "
    "hybrid score interval. {names} are mean {plural} over deals."
)


def compare_legend(measure: MeasureLike) -> str:
    """The legend of the comparison table of ``measure``."""
    name = measure_header(measure)
    plural = measure.label if measure.label.endswith("s") else f"{measure.label}s"
    names = name if name.endswith("s") else f"{name}s"
    return _COMPARE_LEGEND.format(name=name, plural=plural, names=names.capitalize())
