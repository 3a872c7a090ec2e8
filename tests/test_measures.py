"""The statistics and reports of a game's measure: the metrics core names no game field.

A made-up measure that is not money (``payoff``, read from ``terms``) must give ``mean_payoff``
and the other keys named after it, tables headed and formatted for it; a summary written before
games had measures (no ``measure``) must read as the price game's deal price.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from rich.console import Console

from icl_aif.analysis.compare import compare_games, compare_headers, compare_legend, comparison_rows
from icl_aif.analysis.frames import rounds_frame, runs_frame
from icl_aif.analysis.html_report import render_html
from icl_aif.analysis.metrics import (
    arm_row,
    round_metrics,
    round_score,
    summarize,
    summarize_arms,
    with_scores,
)
from icl_aif.analysis.plots import histogram_figure, price_deal_rate_figure, series_of
from icl_aif.analysis.report import (
    MeasureInfo,
    experiment_markdown,
    round_columns,
    summary_measure,
    summary_tables,
)
from icl_aif.cli.terminal import outcome_text
from icl_aif.games.base import Measure, Round
from icl_aif.games.registry import get_game
from icl_aif.records.reader import read_summary
from tests.conftest import PRICE_MEASURE

ROOT = Path(__file__).resolve().parents[1]
V0 = ROOT / "tests" / "data" / "run_v0"


def payoff_of(record: Round) -> float | None:
    """The made-up game's figure: ``terms["payoff"]`` of an agreement."""
    terms = record.get("terms")
    if record.get("outcome") != "deal" or not isinstance(terms, Mapping):
        return None
    value = terms.get("payoff")
    return float(value) if value is not None else None


PAYOFF = Measure(name="payoff", label="payoff", of=payoff_of, no_deal_value=0.0, money=False)
INFO: dict[str, Any] = {"name": "payoff", "label": "payoff", "money": False}


def _game(
    game_id: str, *rounds: tuple[str, float | None], arm: str | None = None
) -> dict[str, Any]:
    """A game from (outcome, payoff) per round; a deal's terms hold the payoff and no price."""
    return {
        "game_id": game_id,
        "status": "complete",
        **({"arm": arm} if arm else {}),
        "rounds": [
            {
                "round": k,
                "turns": [{"speaker": "seller", "text": "x" * 10}],
                "outcome": outcome,
                "terms": {"payoff": value, "share": 0.5} if outcome == "deal" else None,
                "reason": None if outcome == "deal" else "cap",
            }
            for k, (outcome, value) in enumerate(rounds, start=1)
        ],
    }


GAMES = [
    _game("g0", ("deal", 0.4), ("deal", 0.6)),
    _game("g1", ("deal", 0.5), ("no_deal", None)),
    _game("g2", ("no_deal", None), ("deal", 0.8)),
    _game("g3", ("deal", None), ("deal", 0.7)),  # an agreement whose terms hold no payoff
]
OPTIONS: dict[str, Any] = {"improve": "seller", "openers": 0, "seed": 3}


def test_round_metrics_are_named_after_the_measure() -> None:
    first = round_metrics(GAMES, 1, total_runs=4, measure=PAYOFF, **OPTIONS)
    assert first["mean_payoff"] == pytest.approx(0.45)
    assert first["median_payoff"] == pytest.approx(0.45)
    assert first["payoff_ci95"] is not None and len(first["payoff_ci95"]) == 2
    assert first["deals_without_payoff"] == 1
    assert (first["deals"], first["deal_rate"]) == (3, 0.75)
    assert not [k for k in first if "price" in k]
    # the same records read with the price game's measure: no price in their terms
    price = round_metrics(GAMES, 1, total_runs=4, measure=PRICE_MEASURE, **OPTIONS)
    assert price["mean_price"] is None and price["deals_without_price"] == 3


def test_summary_scores_and_arms_of_the_measure() -> None:
    summary = summarize(GAMES, rounds=2, runs=4, measure=PAYOFF, **OPTIONS)
    with_scores(summary, GAMES, no_deal_value=0.1, seed=3, measure=PAYOFF)
    second = summary["per_round"][1]
    assert second["mean_payoff"] == pytest.approx(0.7)
    # scores: 0.6, 0.1 (no deal), 0.8, 0.7
    assert second["mean_score"] == pytest.approx(0.55) and second["scored"] == 4
    assert round_score(GAMES[1]["rounds"][1], 0.1, PAYOFF) == 0.1
    assert round_score(GAMES[3]["rounds"][0], 0.1, PAYOFF) is None

    row = arm_row("ai", GAMES, branch_after=1, no_deal_value=0.0, seed=3, measure=PAYOFF)
    assert row["payoff_before"] == pytest.approx(0.45)
    assert row["payoff_after"] == pytest.approx(0.7)
    assert row["paired_games"] == 1 and row["delta"] == pytest.approx(0.2)  # g0 only
    assert "price_before" not in row

    armed = [
        *(_game(f"g{i}", ("deal", 0.5), ("deal", 0.6 + i / 10), arm="ai") for i in range(3)),
        *(_game(f"g{i}", ("deal", 0.5), ("deal", 0.5), arm="none") for i in range(3)),
    ]
    arms = summarize_arms(
        armed,
        arms=["ai", "none"],
        branch_after=1,
        rounds=2,
        runs=3,
        no_deal_value=0.0,
        measure=PAYOFF,
        **OPTIONS,
    )
    ai, none = arms["arms"]
    assert ai["vs_none_games"] == 3 and ai["vs_none_delta"] == pytest.approx(0.2)
    assert none["payoff_after"] == 0.5
    assert arms["per_arm"][0]["per_round"][1]["mean_payoff"] == pytest.approx(0.7)


def _payoff_summary() -> dict[str, Any]:
    summary = summarize(GAMES, rounds=2, runs=4, measure=PAYOFF, **OPTIONS)
    with_scores(summary, GAMES, no_deal_value=0.0, seed=3, measure=PAYOFF)
    return {**summary, "no_deal_value": 0.0, "measure": INFO}


def test_tables_of_a_measure_that_is_not_money() -> None:
    summary = _payoff_summary()
    assert summary_measure(summary) == MeasureInfo(**INFO)
    markdown = experiment_markdown(summary, "pie")
    assert "| round | games | deals | deal rate | cap | errors | payoff | 95% CI | median |" in (
        markdown
    )
    assert "| 2 | 4 | 3 | 75.0% | 1 | 0 | 0.700 | 0.600-0.800 | 0.700 |" in markdown
    assert "payoff: mean payoff over deals" in markdown and "Payoffs are over deals" in markdown
    assert "$" not in markdown and "price" not in markdown
    (table, legend), *_ = summary_tables(summary, "pie")
    assert [c.header for c in table.columns][6] == "payoff"
    assert "price" not in legend


def test_arm_and_sweep_tables_of_the_measure() -> None:
    armed = [
        *(_game(f"g{i}", ("deal", 0.5), ("deal", 0.6), arm="ai") for i in range(2)),
        *(_game(f"g{i}", ("deal", 0.5), ("no_deal", None), arm="none") for i in range(2)),
    ]
    arms = summarize_arms(
        armed,
        arms=["ai", "none"],
        branch_after=1,
        rounds=2,
        runs=2,
        no_deal_value=0.25,
        measure=PAYOFF,
        **OPTIONS,
    )
    summary = {**arms, "no_deal_value": 0.25, "measure": INFO}
    markdown = experiment_markdown(summary, "pie arms")
    assert "| ai | 2 | 0.500 | 0.600 | +0.100 |" in markdown
    assert "before/after: mean payoff over deals in rounds 1 and 2" in markdown
    assert "(a no deal scores 0.250)" in markdown
    assert "$" not in markdown and "price" not in markdown
    sweep = {"runs": 2, "cells": [{"cell": "c1", "settings": {"improve": "seller"}, **summary}]}
    sweep["measure"] = INFO
    markdown = experiment_markdown(sweep, "pie sweep")
    assert "| payoff | 95% CI | score |" in markdown
    assert "$" not in markdown and "price" not in markdown
    for _, legend in summary_tables(sweep, "pie sweep"):
        assert "price" not in legend


def test_a_summary_without_measure_is_read_as_the_deal_price() -> None:
    raw = json.loads((V0 / "summary.json").read_text(encoding="utf-8"))
    assert "measure" not in raw
    with pytest.raises(ValueError, match="names no measure"):
        summary_measure(raw)
    old = read_summary(V0)  # the upgrade step names the measure of formats 0 and 1
    assert summary_measure(old) == MeasureInfo(name="price", label="deal price", money=True)
    markdown = experiment_markdown(old, "old")
    assert "| price | 95% CI | median |" in markdown and "| $15.00 |" in markdown
    assert "Prices are over deals" in markdown
    (table, legend), *_ = summary_tables(old, "old")
    assert [c.header for c in table.columns][6] == "price"
    assert "price: mean deal price over deals" in legend
    console = Console(width=120, record=True)
    console.print(table)
    assert "$15.00" in console.export_text()
    assert round_columns(summary_measure(old))[6] == ("price", "mean_price")


def test_figures_of_a_measure_that_is_not_money() -> None:
    series = series_of(GAMES, label="pie", rounds=2, measure=PAYOFF, **OPTIONS)
    assert series.values == {1: (0.4, 0.5), 2: (0.6, 0.8, 0.7)}
    histogram = histogram_figure([series], (0.0, 1.0), "t", PAYOFF)
    assert [a.get_xlabel() for a in histogram.axes] == ["payoff", "payoff"]
    assert histogram.axes[0].get_xlim() == (0.0, 1.0)
    assert "$" not in (histogram.get_suptitle() or "")
    price_axis, _ = price_deal_rate_figure([series], "t", (0.0, 1.0), PAYOFF).axes
    assert price_axis.get_ylabel() == "mean payoff, 95% CI"
    (line, *_) = price_axis.get_lines()
    assert np.asarray(line.get_ydata(), dtype=float).tolist() == pytest.approx([0.45, 0.7])


def test_frames_compare_outcomes_and_html_of_the_measure() -> None:
    runs = runs_frame(GAMES, measure=PAYOFF)
    assert "mean_payoff" in runs.columns and "mean_price" not in runs.columns
    assert runs["mean_payoff"].tolist()[0] == pytest.approx(0.5)
    rounds = rounds_frame(GAMES, improve="seller", openers=0, measure=PAYOFF)
    assert rounds["payoff"].tolist()[:2] == pytest.approx([0.4, 0.6])

    (first, _) = compare_games(GAMES[:2], GAMES[2:], PAYOFF)
    assert first.price_a == pytest.approx(0.45) and first.price_b is None
    assert compare_headers(PAYOFF)[6:9] == ("payoff A", "payoff B", "Δ payoff")
    assert comparison_rows([first], PAYOFF)[0][6:8] == ["0.450", "-"]
    assert "price" not in compare_legend(PAYOFF)

    deal = GAMES[0]["rounds"][0]
    assert outcome_text(deal, PAYOFF) == "deal: payoff 0.4"
    assert outcome_text(deal, PRICE_MEASURE) == "deal: payoff 0.4, share 0.5"  # terms, no price
    priced = {"outcome": "deal", "terms": {"price": 15.0}, "price": 15.0}
    assert outcome_text(priced, PRICE_MEASURE) == "deal at $15"
    assert outcome_text({"outcome": "deal", "price": 15.0}, PRICE_MEASURE) == "deal at $15"

    page = render_html(
        manifest={"name": "pie"},
        summary=_payoff_summary(),
        config={"game": "pie_split", "scenario": {"pie": 1.0, "discount": 0.9}},
        games=GAMES,
        pngs={},
        game=get_game("pie_split"),
        measure=PAYOFF,
    )
    assert "deal (payoff 0.400)" in page and "pie_split: pie 1.0, discount 0.9" in page
    assert '<th class="">payoff</th>' in page and "$" not in page


def test_the_price_games_measure_is_the_deal_price() -> None:
    measure = PRICE_MEASURE
    assert (measure.name, measure.label, measure.money) == ("price", "deal price", True)
    assert measure.of({"outcome": "deal", "terms": {"price": 15}, "price": 15}) == 15.0
    assert measure.of({"outcome": "deal", "price": 14.0}) == 14.0  # a record before terms


def test_runs_without_a_config_compare_as_the_default_game(tmp_path: Path) -> None:
    from icl_aif.analysis.compare import compared_measure

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    assert compared_measure(tmp_path / "a", tmp_path / "b").name == "price"
