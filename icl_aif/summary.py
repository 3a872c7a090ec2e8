"""A finished run's summary: ``summary.json`` (statistics per round, scores or paired arms, usage)
and ``summary.md``, computed from the run's records.

:func:`icl_aif.runner.run_experiment` calls :func:`summarize_run` once the games are written; the
runner itself computes and renders nothing (the package wires this in: ``icl_aif/__init__.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from icl_aif.config import Cell, ExperimentConfig
from icl_aif.metrics import BOOTSTRAP_RESAMPLES, summarize, summarize_arms, with_scores
from icl_aif.records import CALLS, read_games, read_jsonl
from icl_aif.report import experiment_markdown
from icl_aif.usage import summarize_usage


def summarize_run(
    config: ExperimentConfig, cells: list[Cell], directory: Path, stopped_by: str | None
) -> tuple[dict[str, Any], str]:
    """``summary.json`` and ``summary.md`` of the run in ``directory``; ``stopped_by`` is what
    stopped it early (``max_usd``), or None."""
    summary = summarize_experiment(config, cells, read_games(directory))
    summary["usage"] = summarize_usage(read_jsonl(directory / CALLS), config.prices, config.max_usd)
    summary["stopped_by"] = stopped_by
    return summary, experiment_markdown(summary, config.name)


def summarize_cell(config: ExperimentConfig, games: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary of one cell's games: per-round metrics with scores, or paired arms."""
    seed = config.bootstrap_seed
    openers = len(config.scenario.openers)
    if config.arms:
        summary = summarize_arms(
            games,
            arms=config.arms,
            branch_after=config.branch_after,
            rounds=config.rounds,
            runs=config.runs,
            improve=config.improve,
            openers=openers,
            seed=seed,
            no_deal_value=config.no_deal_value,
        )
    else:
        summary = summarize(
            games,
            rounds=config.rounds,
            runs=config.runs,
            improve=config.improve,
            openers=openers,
            seed=seed,
        )
        with_scores(summary, games, no_deal_value=config.no_deal_value, seed=seed)
    summary["no_deal_value"] = config.no_deal_value
    return summary


def summarize_experiment(
    config: ExperimentConfig, cells: list[Cell], games: list[dict[str, Any]]
) -> dict[str, Any]:
    """``summary.json`` without usage: one cell's summary, or ``cells`` for a sweep."""
    if config.sweep:
        by_cell = [(cell, [g for g in games if g.get("cell") == cell.id]) for cell in cells]
        summary: dict[str, Any] = {
            "runs": config.runs,
            "cells": [
                {"cell": cell.id, "settings": cell.settings, **summarize_cell(cell.config, mine)}
                for cell, mine in by_cell
            ],
        }
    else:
        summary = summarize_cell(config, games)
    summary["bootstrap"] = {
        "seed": config.bootstrap_seed,
        "resamples": BOOTSTRAP_RESAMPLES,
        "level": 0.95,
        "method": "percentile",
    }
    return summary
