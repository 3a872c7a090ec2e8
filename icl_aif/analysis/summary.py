"""A finished run's summary: ``summary.json`` (statistics per round, scores or paired arms, usage)
and ``summary.md``, computed from the run's records.

The statistics are of the game's measure (:meth:`icl_aif.games.base.Game.measure`: the price
game's deal price, the pie split's payoff); ``summary.json`` names it under ``measure``
(``name``, ``label``, ``money``) for the readers (``summary.md``, ``icl-aif report``, the HTML
report).

:func:`icl_aif.run.runner.run_experiment` calls :func:`summarize_run` once the games are written; the
runner itself computes and renders nothing (:func:`icl_aif.analysis.experiment.run_experiment` passes it).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from icl_aif.analysis.metrics import BOOTSTRAP_RESAMPLES, summarize, summarize_arms, with_scores
from icl_aif.analysis.report import experiment_markdown
from icl_aif.config.experiment import Cell, ExperimentConfig
from icl_aif.games.base import Measure
from icl_aif.games.registry import game_of, measure_of, silent_lines
from icl_aif.models.cache import cache_counts
from icl_aif.models.usage import role_order, summarize_usage
from icl_aif.records.reader import read_calls, read_games


def summarize_run(
    config: ExperimentConfig, cells: list[Cell], directory: Path, stopped_by: str | None
) -> tuple[dict[str, Any], str]:
    """``summary.json`` and ``summary.md`` of the run in ``directory``; ``stopped_by`` is what
    stopped it early (``max_usd``), or None."""
    games = read_games(directory, silent=silent_lines(config))
    summary = summarize_experiment(config, cells, games)
    summary["usage"] = summarize_usage(
        read_calls(directory), config.prices, config.max_usd, role_order(config.seats)
    )
    if config.cache is not None:  # the response cache: hits, misses and what the hits saved
        summary["cache"] = cache_counts(read_calls(directory))
    summary["stopped_by"] = stopped_by
    return summary, experiment_markdown(summary, config.name)


def config_measure(config: ExperimentConfig) -> Measure:
    """The measure of ``config``'s game for its improved side."""
    return measure_of(config)


def measure_entry(measure: Measure) -> dict[str, Any]:
    """``summary.json``'s ``measure``: what its readers need to name and format it."""
    return {"name": measure.name, "label": measure.label, "money": measure.money}


def summarize_cell(config: ExperimentConfig, games: list[dict[str, Any]]) -> dict[str, Any]:
    """The summary of one cell's games: per-round metrics with scores, or paired arms, of the
    measure of the cell's game."""
    measure = config_measure(config)
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
            no_deal_value=measure.no_deal_value,
            measure=measure,
        )
    else:
        summary = summarize(
            games,
            rounds=config.rounds,
            runs=config.runs,
            improve=config.improve,
            openers=openers,
            seed=seed,
            measure=measure,
        )
        with_scores(summary, games, no_deal_value=measure.no_deal_value, seed=seed, measure=measure)
    summary["no_deal_value"] = measure.no_deal_value
    add_game_figures(summary, config, games)
    return summary


def add_game_figures(
    summary: dict[str, Any], config: ExperimentConfig, games: list[dict[str, Any]]
) -> None:
    """The game's own per-round figures (:meth:`icl_aif.games.base.Game.round_metrics`) on every
    per-round row, each arm's from its own games, and ``game_columns`` saying how to show them;
    nothing for a game without any."""
    game = game_of(config)
    setup = game.setup(config)
    columns = game.columns_for(setup)
    if not columns:
        return
    summary["game_columns"] = [asdict(column) for column in columns]
    if config.arms:
        parts = [
            (part, [g for g in games if g.get("arm") == part["arm"]]) for part in summary["per_arm"]
        ]
    else:
        parts = [(summary, games)]
    for part, mine in parts:
        for row in part["per_round"]:
            row.update(game.round_metrics(setup, mine, row["round"]))


def summarize_experiment(
    config: ExperimentConfig, cells: list[Cell], games: list[dict[str, Any]]
) -> dict[str, Any]:
    """``summary.json`` without usage: one cell's summary, or ``cells`` for a sweep, and the
    measure of the experiment's game (``measure``; a sweep's cell whose measure differs, as a
    game's may by improved side, has its own)."""
    measure = measure_entry(config_measure(config))
    if config.has_cells:
        by_cell = [(cell, [g for g in games if g.get("cell") == cell.id]) for cell in cells]
        parts = []
        for cell, mine in by_cell:
            # a tournament's pairing is shown by its players, a sweep's cell by its settings
            settings = cell.settings if cell.players is None else dict(cell.players)
            part = {"cell": cell.id, "settings": settings, **summarize_cell(cell.config, mine)}
            own = measure_entry(config_measure(cell.config))
            if own != measure:
                part["measure"] = own
            parts.append(part)
        summary: dict[str, Any] = {"runs": config.runs, "cells": parts}
    else:
        summary = summarize_cell(config, games)
    summary["measure"] = measure
    summary["bootstrap"] = {
        "seed": config.bootstrap_seed,
        "resamples": BOOTSTRAP_RESAMPLES,
        "level": 0.95,
        "method": "percentile",
    }
    return summary
