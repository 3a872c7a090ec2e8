"""Per-round statistics over finished runs: deal rate, deal price with a bootstrap CI, lengths.

A round counts for a run once the run reached it. Prices are over deals only; deal rates are given
over the runs that reached the round and over all runs, so survivor bias stays visible.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from icl_aif.context import derive_seed

BOOTSTRAP_RESAMPLES = 2000


def bootstrap_ci(
    values: Sequence[float], seed: int, resamples: int = BOOTSTRAP_RESAMPLES, level: float = 0.95
) -> list[float] | None:
    """Percentile bootstrap CI of the mean; None for fewer than two values."""
    if len(values) < 2:
        return None
    rng = np.random.default_rng(seed)
    data = np.asarray(values, dtype=float)
    means = rng.choice(data, size=(resamples, data.size), replace=True).mean(axis=1)
    tail = (1.0 - level) / 2.0
    low, high = np.quantile(means, [tail, 1.0 - tail])
    return [round(float(low), 4), round(float(high), 4)]


def _mean(values: Sequence[float]) -> float | None:
    return round(float(np.mean(values)), 4) if values else None


def _median(values: Sequence[float]) -> float | None:
    return round(float(np.median(values)), 4) if values else None


def round_metrics(
    games: Sequence[dict[str, Any]],
    number: int,
    *,
    total_runs: int,
    improve: str,
    openers: int,
    seed: int,
) -> dict[str, Any]:
    """Metrics of round ``number`` over ``games`` (the finished runs)."""
    records = [r for g in games for r in g["rounds"] if r["round"] == number]
    deals = [r for r in records if r["outcome"] == "deal"]
    prices = [float(r["price"]) for r in deals if r.get("price") is not None]
    improved_lines = [
        len(t["text"]) for r in records for t in r["turns"][openers:] if t["speaker"] == improve
    ]
    reasons = Counter(r.get("reason") or "unknown" for r in records if r["outcome"] == "no_deal")
    n = len(records)
    return {
        "round": number,
        "games": n,
        "deals": len(deals),
        "no_deals": sum(r["outcome"] == "no_deal" for r in records),
        "errors": sum(r["outcome"] == "error" for r in records),
        "deal_rate": round(len(deals) / n, 4) if n else None,
        "deal_rate_all_runs": round(len(deals) / total_runs, 4) if total_runs else None,
        "mean_price": _mean(prices),
        "price_ci95": bootstrap_ci(prices, derive_seed(seed, "bootstrap", number)),
        "median_price": _median(prices),
        "deals_without_price": len(deals) - len(prices),
        "mean_response_chars": _mean(improved_lines),
        "mean_exchanges": _mean([len(r["turns"]) / 2 for r in records]),
        "no_deal_reasons": dict(sorted(reasons.items())),
    }


def summarize(
    games: Sequence[dict[str, Any]],
    *,
    rounds: int,
    runs: int,
    improve: str,
    openers: int,
    seed: int,
) -> dict[str, Any]:
    """``summary.json``: per-round metrics over all runs and over effective runs."""
    effective = [
        g
        for g in games
        if len(g["rounds"]) == rounds and all(r["outcome"] == "deal" for r in g["rounds"])
    ]
    return {
        "runs": runs,
        "finished_runs": len(games),
        "errored_runs": sum(g.get("status") == "error" for g in games),
        "effective_runs": len(effective),
        "improve": improve,
        "per_round": [
            round_metrics(
                games, k, total_runs=len(games), improve=improve, openers=openers, seed=seed
            )
            for k in range(1, rounds + 1)
        ],
        "per_round_effective": [
            round_metrics(
                effective, k, total_runs=len(effective), improve=improve, openers=openers, seed=seed
            )
            for k in range(1, rounds + 1)
        ],
    }
