"""The figures of a run, inspected as matplotlib Figure objects (Agg, no pixels compared)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Polygon

from icl_aif.analysis.metrics import summarize
from icl_aif.analysis.plots import (
    Series,
    histogram_figure,
    price_deal_rate_figure,
    price_vs_deal_rate_figure,
    response_chars_figure,
    series_of,
)
from tests.conftest import PRICE_MEASURE

PRICE_RANGE = (10.0, 20.0)


def _series(*rounds: Sequence[float], label: str = "run") -> Series:
    """A series whose round k (from 1) has the deal prices ``rounds[k - 1]``."""
    per_round = tuple(
        {
            "round": k,
            "deal_rate": len(prices) / 4,
            "mean_price": sum(prices) / len(prices) if prices else None,
            "price_ci95": None,
            "mean_response_chars": 50.0,
        }
        for k, prices in enumerate(rounds, start=1)
    )
    return Series(
        label=label,
        per_round=per_round,
        values={k: tuple(prices) for k, prices in enumerate(rounds, start=1)},
    )


def _bars(axis: Axes) -> dict[float, float]:
    """The histogram's bars as {x centre: height}, read from its step outlines."""
    bars: dict[float, float] = {}
    for patch in axis.patches:
        assert isinstance(patch, Polygon)
        xy = patch.get_xy()
        for (x0, y0), (x1, y1) in itertools.pairwise(xy):
            if y0 == y1 > 0 and x1 > x0:
                bars[(x0 + x1) / 2] = bars.get((x0 + x1) / 2, 0.0) + float(y0)
    return bars


def _texts(axis: Axes) -> list[str]:
    return [t.get_text() for t in axis.texts]


def test_histogram_bars_are_centred_on_whole_dollars() -> None:
    figure = histogram_figure(
        [_series((15.0, 15.0, 12.0), (18.0,))], PRICE_RANGE, "t", PRICE_MEASURE
    )
    before, after = figure.axes
    assert _bars(before) == {12.0: 1.0, 15.0: 2.0}
    assert _bars(after) == {18.0: 1.0}
    assert before.get_xlim() == (9.5, 20.5)  # the end bins are whole too
    assert list(before.get_xticks()) == list(range(10, 21))


def test_histogram_bins_of_two_series_and_prices_outside_the_range() -> None:
    figure = histogram_figure(
        [_series((9.0, 10.4), (21.0,), label="a"), _series((19.6,), (20.0,), label="b")],
        PRICE_RANGE,
        "t",
        PRICE_MEASURE,
    )
    before, after = figure.axes
    assert _bars(before) == {10.0: 2.0, 20.0: 1.0}  # $9 counted at the $10 edge
    assert _bars(after) == {20.0: 2.0}


def test_histogram_panels_share_one_y_scale() -> None:
    figure = histogram_figure([_series((15.0,) * 5, (16.0,))], PRICE_RANGE, "t", PRICE_MEASURE)
    before, after = figure.axes
    assert before.get_ylim() == after.get_ylim()
    assert before.get_ylim()[0] == 0 and before.get_ylim()[1] >= 5
    assert before.get_shared_y_axes().joined(before, after)
    assert [a.get_title() for a in figure.axes] == [
        "round 1 (before): 5 deals",
        "round 2 (after): 1 deal",
    ]


def test_a_one_round_run_has_one_histogram_panel() -> None:
    figure = histogram_figure([_series((14.0, 15.0))], PRICE_RANGE, "t", PRICE_MEASURE)
    (axis,) = figure.axes
    assert axis.get_title() == "round 1: 2 deals"
    assert _bars(axis) == {14.0: 1.0, 15.0: 1.0}


def _all_limits(figure: Figure) -> list[tuple[float, float]]:
    return [lim for a in figure.axes for lim in (a.get_xlim(), a.get_ylim())]


def test_no_deal_at_all_draws_a_readable_empty_state() -> None:
    series = [_series((), (), ())]
    histogram = histogram_figure(series, PRICE_RANGE, "t", PRICE_MEASURE)
    for axis, number in zip(histogram.axes, (1, 3), strict=True):
        assert axis.get_xlim() == (9.5, 20.5) and axis.get_ylim() == (0.0, 1.0)
        assert _texts(axis) == [f"no deals in round {number}"]
        assert list(axis.get_yticks()) == [0, 1]  # whole deals, no fake scale
    price_axis, rate_axis = price_deal_rate_figure(series, "t", PRICE_RANGE, PRICE_MEASURE).axes
    assert price_axis.get_ylim() == PRICE_RANGE and _texts(price_axis) == ["no deals"]
    assert price_axis.get_xlim() == (0.5, 3.5) and rate_axis.get_ylim() == (0.0, 100.0)
    (versus,) = price_vs_deal_rate_figure(series, "t", PRICE_RANGE, PRICE_MEASURE).axes
    assert versus.get_ylim() == PRICE_RANGE and _texts(versus) == ["no deals"]
    figures = [histogram, price_deal_rate_figure(series, "t", PRICE_RANGE, PRICE_MEASURE)]
    figures += [
        price_vs_deal_rate_figure(series, "t", PRICE_RANGE, PRICE_MEASURE),
        response_chars_figure(series, "t"),
    ]
    for figure in figures:
        assert all(high - low >= 1 for low, high in _all_limits(figure))  # no -0.04..0.04 scale


def test_deals_in_one_round_only_keep_the_data_scale() -> None:
    figure = histogram_figure([_series((), (15.0, 15.0, 15.0))], PRICE_RANGE, "t", PRICE_MEASURE)
    before, after = figure.axes
    assert _texts(before) == ["no deals in round 1"] and _texts(after) == []
    assert before.get_ylim() == after.get_ylim() and after.get_ylim()[1] >= 3
    price_axis, _ = price_deal_rate_figure(
        [_series((), (15.0,))], "t", PRICE_RANGE, PRICE_MEASURE
    ).axes
    assert _texts(price_axis) == []


def _game(index: int, *outcomes: tuple[str, float | None]) -> dict[str, Any]:
    return {
        "game_id": f"g{index:05d}",
        "status": "complete",
        "rounds": [
            {"round": k, "turns": [], "outcome": outcome, "price": price, "reason": None}
            for k, (outcome, price) in enumerate(outcomes, start=1)
        ],
    }


@pytest.mark.parametrize("from_summary", [True, False])
def test_the_plotted_deal_rate_is_the_summarys_error_rounds_alike(from_summary: bool) -> None:
    """A run's series reads summary.json; a sweep cell's or arm's computes from its games: both
    must give summary.json's deal rate, however rounds that ended in an error are counted."""
    games = [
        _game(0, ("deal", 15.0), ("error", None)),
        _game(1, ("no_deal", None), ("deal", 16.0)),
        _game(2, ("error", None), ("deal", 17.0)),
        _game(3, ("deal", 14.0), ("no_deal", None)),
    ]
    options: dict[str, Any] = {
        "improve": "seller",
        "openers": 0,
        "seed": 7,
        "measure": PRICE_MEASURE,
    }
    summary = summarize(games, rounds=2, runs=4, **options)
    per_round = summary["per_round"] if from_summary else None
    series = series_of(games, label="run", rounds=2, per_round=per_round, **options)
    _, rate_axis = price_deal_rate_figure([series], "t", PRICE_RANGE, PRICE_MEASURE).axes
    (line,) = rate_axis.get_lines()
    expected = [100 * r["deal_rate"] for r in summary["per_round"]]
    assert np.asarray(line.get_ydata(), dtype=float).tolist() == pytest.approx(expected)
    assert expected == pytest.approx([100 * round(2 / 3, 4)] * 2)  # deals / (deals + no deals)
    assert [r["errors"] for r in summary["per_round"]] == [1, 1]
