"""Figures of a run, as PNG files in ``plots/`` of the run directory.

Figures are plain ``matplotlib.figure.Figure`` objects saved with the Agg renderer: no pyplot, no
display, no global backend switch.

Every figure takes a list of :class:`Series`, one line (or histogram) per series: today a run is
one series; a run whose games carry a ``cell`` (sweeps) or an ``arm`` key (paired feedback arms)
gives one series per cell and arm. File names are fixed (``PLOT_FILES``) so scripts and the
HTML report can rely on them; the same records give the same bytes.
"""

from __future__ import annotations

import io
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from icl_aif.metrics import round_metrics

if TYPE_CHECKING:
    from matplotlib.figure import Figure

logger = logging.getLogger(__name__)

PLOTS = "plots"
HISTOGRAM = "price_histogram_first_last.png"
PRICE_DEAL_RATE = "price_and_deal_rate_by_round.png"
PRICE_VS_DEAL_RATE = "price_vs_deal_rate.png"
RESPONSE_CHARS = "response_chars_by_round.png"
PLOT_FILES = (HISTOGRAM, PRICE_DEAL_RATE, PRICE_VS_DEAL_RATE, RESPONSE_CHARS)
"""The files :func:`write_plots` writes, in the order the HTML report shows them."""

_DPI = 100
_MAX_DOLLAR_TICKS = 25  # a histogram over a wider price range gets fewer whole-dollar ticks
_PNG_METADATA = {"Software": None}  # no matplotlib version in the file: same records, same bytes


@dataclass(frozen=True)
class Series:
    """One line in every figure: a run, a feedback arm or a sweep cell.

    ``per_round`` holds ``summary.json``-style round objects (``round``, ``deal_rate``,
    ``mean_price``, ``price_ci95``, ``mean_response_chars``); ``prices`` the deal prices per round.
    """

    label: str
    per_round: tuple[dict[str, Any], ...]
    prices: dict[int, tuple[float, ...]]


def deal_prices(games: Sequence[dict[str, Any]], number: int) -> tuple[float, ...]:
    """The deal prices of round ``number`` over ``games``."""
    return tuple(
        float(r["price"])
        for g in games
        for r in g["rounds"]
        if r["round"] == number and r["outcome"] == "deal" and r.get("price") is not None
    )


def series_of(
    games: Sequence[dict[str, Any]],
    *,
    label: str,
    rounds: int,
    improve: str,
    openers: int,
    seed: int,
    per_round: Sequence[dict[str, Any]] | None = None,
) -> Series:
    """One series from a set of games; ``per_round`` (e.g. ``summary['per_round']``) if given."""
    if per_round is None:
        per_round = [
            round_metrics(
                games, k, total_runs=len(games), improve=improve, openers=openers, seed=seed
            )
            for k in range(1, rounds + 1)
        ]
    return Series(
        label=label,
        per_round=tuple(per_round),
        prices={k: deal_prices(games, k) for k in range(1, rounds + 1)},
    )


def run_series(
    games: Sequence[dict[str, Any]],
    summary: dict[str, Any],
    *,
    name: str,
    rounds: int,
    improve: str,
    openers: int,
    seed: int,
) -> list[Series]:
    """The series of a run: one per sweep ``cell`` and feedback ``arm`` found in its games (label
    ``cell/arm``), else the whole run (with ``summary['per_round']``)."""

    def label(game: dict[str, Any]) -> str:
        return "/".join(str(game[k]) for k in ("cell", "arm") if game.get(k) is not None)

    labels = sorted({label(g) for g in games} - {""})
    options: dict[str, Any] = {
        "rounds": rounds,
        "improve": improve,
        "openers": openers,
        "seed": seed,
    }
    if not labels:
        return [series_of(games, label=name, per_round=summary.get("per_round"), **options)]
    return [
        series_of([g for g in games if label(g) == key], label=key, **options) for key in labels
    ]


def plot_pngs(
    series: Sequence[Series], *, price_range: tuple[float, float], title: str
) -> dict[str, bytes]:
    """Every figure as PNG bytes, keyed by its file name (``PLOT_FILES`` order).

    ``price_range`` is the scenario's [buyer_open, list_price]: the histogram's $1 bins span it,
    and a price axis without a deal shows it.
    """
    figures: dict[str, Callable[[], Figure]] = {
        HISTOGRAM: lambda: histogram_figure(series, price_range, title),
        PRICE_DEAL_RATE: lambda: price_deal_rate_figure(series, title, price_range),
        PRICE_VS_DEAL_RATE: lambda: price_vs_deal_rate_figure(series, title, price_range),
        RESPONSE_CHARS: lambda: response_chars_figure(series, title),
    }
    pngs: dict[str, bytes] = {}
    for name, make in figures.items():
        buffer = io.BytesIO()
        make().savefig(buffer, format="png", dpi=_DPI, metadata=_PNG_METADATA)
        pngs[name] = buffer.getvalue()
    return pngs


def write_plots(directory: Path, pngs: dict[str, bytes]) -> list[Path]:
    """Write ``pngs`` (from :func:`plot_pngs`) into ``directory / 'plots'``; returns the paths."""
    out = directory / PLOTS
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, data in pngs.items():
        path = out / name
        path.write_bytes(data)
        paths.append(path)
    logger.info("plots written to %s", out)
    return paths


def run_plot_pngs(directory: Path) -> dict[str, bytes]:
    """The figures of the finished run in ``directory``, from its records, as PNG bytes."""
    from icl_aif.analysis import run_config
    from icl_aif.records import SUMMARY, read_games, read_json, read_manifest

    manifest = read_manifest(directory)
    config = run_config(directory)
    summary = read_json(directory / SUMMARY)
    name = manifest.get("name", config.name)
    series = run_series(
        read_games(directory),
        summary,
        name=name,
        rounds=config.rounds,
        improve=config.improve,
        openers=len(config.scenario.openers),
        seed=config.seed,
    )
    scenario = config.scenario
    return plot_pngs(
        series,
        price_range=(float(scenario.buyer_open), float(scenario.list_price)),
        title=f"{name} ({config.improve} improved)",
    )


def plots_for_run(directory: Path) -> list[Path]:
    """Write the plots of the finished run in ``directory`` into its ``plots/`` folder."""
    return write_plots(directory, run_plot_pngs(directory))


# --- figures ---------------------------------------------------------------------------------


def _new_figure(ncols: int = 1, *, sharey: bool = False) -> tuple[Figure, Any]:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(5.2 * ncols, 3.8), dpi=_DPI, layout="constrained")
    axes = figure.subplots(1, ncols, squeeze=False, sharey=sharey)[0]
    return figure, axes


def _rounds(series: Series, key: str) -> tuple[list[int], list[float]]:
    xs, ys = [], []
    for r in series.per_round:
        value = r.get(key)
        if value is not None:
            xs.append(int(r["round"]))
            ys.append(float(value))
    return xs, ys


def _last_round(series: Sequence[Series]) -> int:
    return max((len(s.per_round) for s in series), default=1) or 1


def _round_ticks(axis: Any, series: Sequence[Series]) -> None:
    last = _last_round(series)
    axis.set_xticks(range(1, last + 1))
    axis.set_xlim(0.5, last + 0.5)
    axis.set_xlabel("round")


def _legend(axis: Any, series: Sequence[Series]) -> None:
    if len(series) > 1:
        axis.legend(fontsize="small")


def _no_deals(axis: Any, note: str = "no deals") -> None:
    """Say in the middle of ``axis`` that it has nothing to draw."""
    axis.text(
        0.5,
        0.5,
        note,
        transform=axis.transAxes,
        ha="center",
        va="center",
        color="0.4",
        fontsize="large",
    )


def _empty_price_axis(axis: Any, price_range: tuple[float, float] | None) -> None:
    """A price axis without a single deal: the scenario's price range and a "no deals" note."""
    if price_range is not None:
        low, high = sorted(price_range)
        axis.set_ylim(low, high if high > low else low + 1)
    _no_deals(axis)


def dollar_bins(price_range: tuple[float, float]) -> tuple[int, int, list[float]]:
    """Whole dollars ``low``..``high`` spanning ``price_range`` and the edges of $1 bins centred
    on them (``k - 0.5`` to ``k + 0.5``)."""
    low, high = math.floor(min(price_range)), math.ceil(max(price_range))
    return low, high, [k - 0.5 for k in range(low, high + 2)]


def histogram_figure(
    series: Sequence[Series], price_range: tuple[float, float], title: str
) -> Figure:
    """Deal prices in $1 bins centred on whole dollars over ``price_range``: round 1 (before) and
    the last round (after) on one y-scale; a 1-round run has one panel."""
    from matplotlib.ticker import MaxNLocator

    low, high, edges = dollar_bins(price_range)
    last = _last_round(series)
    panels = (
        [(1, "round 1")]
        if last == 1
        else [(1, "round 1 (before)"), (last, f"round {last} (after)")]
    )
    figure, axes = _new_figure(len(panels), sharey=True)
    any_deal = False
    for axis, (number, label) in zip(axes, panels, strict=True):
        deals = 0
        for s in series:
            prices = s.prices.get(number, ())
            deals += len(prices)
            axis.hist(
                [min(max(p, low), high) for p in prices],  # outside the range: counted at its edge
                bins=edges,
                histtype="stepfilled" if len(series) == 1 else "step",
                alpha=0.7 if len(series) == 1 else 1.0,
                linewidth=1.5,
                label=f"{s.label} ({len(prices)} deals)",
            )
        any_deal = any_deal or deals > 0
        if deals == 0:
            _no_deals(axis, f"no deals in round {number}")
        axis.set_title(f"{label}: {deals} deal{'' if deals == 1 else 's'}", fontsize="medium")
        axis.set_xlabel("deal price ($)")
        axis.set_xlim(edges[0], edges[-1])
        if high - low < _MAX_DOLLAR_TICKS:
            axis.set_xticks(range(low, high + 1))
        else:
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.yaxis.set_major_locator(MaxNLocator(integer=True))
        _legend(axis, series)
    axes[0].set_ylabel("deals")
    axes[0].set_ylim(0, None if any_deal else 1)  # shared by both panels
    figure.suptitle(f"{title}: deal prices, $1 bins")
    return figure


def price_deal_rate_figure(
    series: Sequence[Series], title: str, price_range: tuple[float, float] | None = None
) -> Figure:
    """Mean deal price with its 95% CI (left) and the deal rate (right), per round; without a deal
    the price axis spans ``price_range`` (the scenario's) under a "no deals" note."""
    figure, (price_axis, rate_axis) = _new_figure(2)
    if not any(_rounds(s, "mean_price")[0] for s in series):
        _empty_price_axis(price_axis, price_range)
    for s in series:
        xs, ys = _rounds(s, "mean_price")
        ci: dict[int, list[float]] = {
            int(r["round"]): r["price_ci95"] for r in s.per_round if r.get("price_ci95")
        }
        lower = [y - ci[x][0] if x in ci else 0.0 for x, y in zip(xs, ys, strict=True)]
        upper = [ci[x][1] - y if x in ci else 0.0 for x, y in zip(xs, ys, strict=True)]
        price_axis.errorbar(xs, ys, yerr=[lower, upper], marker="o", capsize=3, label=s.label)
        rx, ry = _rounds(s, "deal_rate")
        rate_axis.plot(rx, [100 * y for y in ry], marker="o", label=s.label)
    price_axis.set_ylabel("mean deal price ($), 95% CI")
    price_axis.set_title("deal price", fontsize="medium")
    rate_axis.set_ylabel("deal rate (%)")
    rate_axis.set_ylim(0, 100)
    rate_axis.set_title("deal rate (rounds without an error)", fontsize="medium")
    for axis in (price_axis, rate_axis):
        _round_ticks(axis, series)
        axis.grid(alpha=0.3)
        _legend(axis, series)
    figure.suptitle(title)
    return figure


def price_vs_deal_rate_figure(
    series: Sequence[Series], title: str, price_range: tuple[float, float] | None = None
) -> Figure:
    """Mean deal price against deal rate, one point per round, joined in round order; without a
    deal the price axis spans ``price_range`` under a "no deals" note."""
    figure, axes = _new_figure(1)
    axis = axes[0]
    if not any(_rounds(s, "mean_price")[0] for s in series):
        _empty_price_axis(axis, price_range)
    for s in series:
        points = [
            (int(r["round"]), 100 * float(r["deal_rate"]), float(r["mean_price"]))
            for r in s.per_round
            if r.get("deal_rate") is not None and r.get("mean_price") is not None
        ]
        axis.plot([p[1] for p in points], [p[2] for p in points], marker="o", label=s.label)
        for number, x, y in points:
            axis.annotate(str(number), (x, y), textcoords="offset points", xytext=(5, 4))
    axis.set_xlabel("deal rate (%)")
    axis.set_ylabel("mean deal price ($)")
    axis.set_xlim(0, 100)
    axis.grid(alpha=0.3)
    _legend(axis, series)
    axis.set_title(f"{title}\nprice against deal rate (labels: round)", fontsize="medium")
    return figure


def response_chars_figure(series: Sequence[Series], title: str) -> Figure:
    """Mean length in characters of the improved player's generated lines, per round."""
    figure, axes = _new_figure(1)
    axis = axes[0]
    for s in series:
        xs, ys = _rounds(s, "mean_response_chars")
        axis.plot(xs, ys, marker="o", label=s.label)
    axis.set_ylabel("mean characters per line")
    axis.set_ylim(bottom=0)
    _round_ticks(axis, series)
    axis.grid(alpha=0.3)
    _legend(axis, series)
    axis.set_title(f"{title}\nimproved player's response length", fontsize="medium")
    return figure
