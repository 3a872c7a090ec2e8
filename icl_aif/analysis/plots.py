"""Figures of a run, as PNG files in ``plots/`` of the run directory.

Figures are plain ``matplotlib.figure.Figure`` objects saved with the Agg renderer: no pyplot, no
display, no global backend switch.

Every figure takes a list of :class:`Series`, one line (or histogram) per series: today a run is
one series; a run whose games carry a ``cell`` (sweeps) or an ``arm`` key (paired feedback arms)
gives one series per cell and arm. File names are fixed (``PLOT_FILES``) so scripts and the
HTML report can rely on them, whatever the game; the same records give the same bytes.

The figures show the game's measure (:class:`~icl_aif.games.base.Measure`: the price game's deal
price, the pie split's payoff): its ``name`` keys the per-round values, its ``label`` words the
axes, and a measure in ``money`` gets $1 bins (even bins over a range of real listings' prices)
and dollar axes.
"""

from __future__ import annotations

import io
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from icl_aif.analysis.metrics import deal_values, round_metrics
from icl_aif.analysis.report import MeasureLike, measure_header
from icl_aif.games.registry import game_of

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from icl_aif.games.base import Measure

logger = logging.getLogger(__name__)

PLOTS = "plots"
HISTOGRAM = "price_histogram_first_last.png"
PRICE_DEAL_RATE = "price_and_deal_rate_by_round.png"
PRICE_VS_DEAL_RATE = "price_vs_deal_rate.png"
RESPONSE_CHARS = "response_chars_by_round.png"
PLOT_FILES = (HISTOGRAM, PRICE_DEAL_RATE, PRICE_VS_DEAL_RATE, RESPONSE_CHARS)
"""The files :func:`write_plots` writes, in the order the HTML report shows them."""
GAME_FIGURES = "game_figures_by_round.png"
"""One more file for a game with figures of its own (``Game.columns``): one panel per figure."""

_DPI = 100
_MAX_DOLLAR_TICKS = 25  # a histogram over a wider price range gets fewer whole-dollar ticks
_MAX_DOLLAR_BINS = 400  # a wider price range (real listings: $10 to $20,000) gets _BINS even bins
_BINS = 20  # a histogram of a measure that is not money: this many bins over its range
_PNG_METADATA = {"Software": None}  # no matplotlib version in the file: same records, same bytes


@dataclass(frozen=True)
class Series:
    """One line in every figure: a run, a feedback arm or a sweep cell.

    ``per_round`` holds ``summary.json``-style round objects (``round``, ``deal_rate``,
    ``mean_<name>``, ``<name>_ci95``, ``mean_response_chars``: ``mean_price`` and ``price_ci95``
    in the price game); ``values`` the measure of every deal, per round.
    """

    label: str
    per_round: tuple[dict[str, Any], ...]
    values: dict[int, tuple[float, ...]]


def series_of(
    games: Sequence[dict[str, Any]],
    *,
    label: str,
    rounds: int,
    improve: str,
    openers: int,
    seed: int,
    measure: Measure,
    per_round: Sequence[dict[str, Any]] | None = None,
) -> Series:
    """One series of ``measure`` from a set of games; ``per_round``
    (e.g. ``summary['per_round']``) if given."""
    if per_round is None:
        per_round = [
            round_metrics(
                games,
                k,
                total_runs=len(games),
                improve=improve,
                openers=openers,
                seed=seed,
                measure=measure,
            )
            for k in range(1, rounds + 1)
        ]
    return Series(
        label=label,
        per_round=tuple(per_round),
        values={k: deal_values(games, k, measure) for k in range(1, rounds + 1)},
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
    measure: Measure,
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
        "measure": measure,
    }
    if not labels:
        return [series_of(games, label=name, per_round=summary.get("per_round"), **options)]
    return [
        series_of([g for g in games if label(g) == key], label=key, **options) for key in labels
    ]


def plot_pngs(
    series: Sequence[Series],
    *,
    value_range: tuple[float, float],
    title: str,
    measure: MeasureLike,
) -> dict[str, bytes]:
    """Every figure of ``measure`` as PNG bytes, keyed by its file name (``PLOT_FILES`` order).

    ``value_range`` (:func:`measure_range`; the price game's: the scenario's [buyer_open,
    list_price]): the histogram's bins span it, and a measure's axis without a deal shows it.
    """
    figures: dict[str, Callable[[], Figure]] = {
        HISTOGRAM: lambda: histogram_figure(series, value_range, title, measure),
        PRICE_DEAL_RATE: lambda: price_deal_rate_figure(series, title, value_range, measure),
        PRICE_VS_DEAL_RATE: lambda: price_vs_deal_rate_figure(series, title, value_range, measure),
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


def measure_range(measure: MeasureLike, series: Sequence[Series] = ()) -> tuple[float, float]:
    """The range a figure of ``measure`` spans: the measure's ``span`` for a money measure (the
    price game's: the scenario's buyer's opening offer to its list price), else the values' own
    range, 0 to 1 for values that all lie there (a proportion, such as the pie split's payoff) or
    when there are none."""
    values = [v for s in series for vs in s.values.values() for v in vs]
    span: tuple[float, float] | None = getattr(measure, "span", None)
    if measure.money and span is not None:
        return span
    if not values or (min(values) >= 0.0 and max(values) <= 1.0):
        return 0.0, 1.0
    return min(values), max(values)


def run_plot_pngs(directory: Path) -> dict[str, bytes]:
    """The figures of the finished run in ``directory``, from its records, as PNG bytes: of the
    measure of its config's game (a run written before games: the deal price)."""
    from icl_aif.analysis.frames import run_config, run_measure
    from icl_aif.records.reader import read_games, read_manifest, read_summary

    manifest = read_manifest(directory)
    config = run_config(directory)
    measure = run_measure(config)
    summary = read_summary(directory)
    name = manifest.get("name", config.name)
    series = run_series(
        read_games(directory),
        summary,
        name=name,
        rounds=config.rounds,
        improve=config.improve,
        openers=len(config.scenario.openers),
        seed=config.seed,
        measure=measure,
    )
    title = f"{name} ({config.improve} improved)"
    pngs = plot_pngs(
        series, value_range=measure_range(measure, series), title=title, measure=measure
    )
    game = game_of(config)
    if game.columns_for(game.setup(config)):
        figure = game_figures_figure(config, read_games(directory), title)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=_DPI, metadata=_PNG_METADATA)
        pngs[GAME_FIGURES] = buffer.getvalue()
    return pngs


def game_figures_figure(config: Any, games: Sequence[dict[str, Any]], title: str) -> Figure:
    """The game's own per-round figures (``Game.columns``, from ``Game.round_metrics``): one
    panel per figure, one line per sweep cell and feedback arm (as the other figures)."""
    game = game_of(config)

    def label(record: dict[str, Any]) -> str:
        return "/".join(str(record[k]) for k in ("cell", "arm") if record.get(k) is not None)

    groups: dict[str, list[dict[str, Any]]] = {}
    for record in games:
        groups.setdefault(label(record) or str(config.name), []).append(record)
    from matplotlib.figure import Figure

    setup = game.setup(config)
    columns = game.columns_for(setup)
    ncols = min(3, len(columns))
    nrows = math.ceil(len(columns) / ncols)
    figure = Figure(figsize=(4.2 * ncols, 3.2 * nrows), dpi=_DPI, layout="constrained")
    axes = figure.subplots(nrows, ncols, squeeze=False).flatten()
    for spare in axes[len(columns) :]:
        spare.set_visible(False)
    rounds = range(1, config.rounds + 1)
    for axis, column in zip(axes, columns, strict=False):
        for key, mine in groups.items():
            points = [(n, game.round_metrics(setup, mine, n).get(column.key)) for n in rounds]
            xs = [n for n, v in points if v is not None]
            ys = [
                float(v) * (100 if column.kind == "rate" else 1) for n, v in points if v is not None
            ]
            axis.plot(xs, ys, marker="o", label=key)
        axis.set_title(column.header + (" (%)" if column.kind == "rate" else ""), fontsize="medium")
        axis.set_xticks(list(rounds))
        axis.set_xlabel("round")
        if len(groups) > 1:
            axis.legend(fontsize="small")
    figure.suptitle(f"{title}: the game's own figures")
    return figure


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


def _empty_price_axis(axis: Any, value_range: tuple[float, float] | None) -> None:
    """A measure's axis without a single deal: the measure's range (the price game's: the
    scenario's prices) and a "no deals" note."""
    if value_range is not None:
        low, high = sorted(value_range)
        axis.set_ylim(low, high if high > low else low + 1)
    _no_deals(axis)


def _unit(measure: MeasureLike) -> str:
    return " ($)" if measure.money else ""


def _plural(words: str) -> str:
    return words if words.endswith("s") else f"{words}s"


def dollar_bins(price_range: tuple[float, float]) -> tuple[int, int, list[float]]:
    """Whole dollars ``low``..``high`` spanning ``price_range`` and the edges of $1 bins centred
    on them (``k - 0.5`` to ``k + 0.5``)."""
    low, high = math.floor(min(price_range)), math.ceil(max(price_range))
    return low, high, [k - 0.5 for k in range(low, high + 2)]


def even_bins(
    value_range: tuple[float, float], count: int = _BINS
) -> tuple[float, float, list[float]]:
    """``count`` bins of equal width from the low end of ``value_range`` to its high end (one
    unit wide if the range is a point)."""
    low, high = float(min(value_range)), float(max(value_range))
    if high <= low:
        low, high = low - 0.5, low + 0.5
    step = (high - low) / count
    return low, high, [low + k * step for k in range(count)] + [high]


def histogram_figure(
    series: Sequence[Series],
    price_range: tuple[float, float],
    title: str,
    measure: MeasureLike,
) -> Figure:
    """The measure of every deal, round 1 (before) and the last round (after) on one y-scale; a
    1-round run has one panel. Money: $1 bins centred on whole dollars over ``price_range`` (up
    to :data:`_MAX_DOLLAR_BINS` of them); a wider range or another measure: :data:`_BINS` even
    bins over it."""
    from matplotlib.ticker import MaxNLocator

    low: float
    high: float
    edges: list[float]
    dollars = measure.money and max(price_range) - min(price_range) <= _MAX_DOLLAR_BINS
    if dollars:
        low, high, edges = dollar_bins(price_range)
    else:
        low, high, edges = even_bins(price_range)
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
            values = s.values.get(number, ())
            deals += len(values)
            axis.hist(
                [min(max(v, low), high) for v in values],  # outside the range: counted at its edge
                bins=edges,
                histtype="stepfilled" if len(series) == 1 else "step",
                alpha=0.7 if len(series) == 1 else 1.0,
                linewidth=1.5,
                label=f"{s.label} ({len(values)} deals)",
            )
        any_deal = any_deal or deals > 0
        if deals == 0:
            _no_deals(axis, f"no deals in round {number}")
        axis.set_title(f"{label}: {deals} deal{'' if deals == 1 else 's'}", fontsize="medium")
        axis.set_xlabel(f"{measure.label}{_unit(measure)}")
        axis.set_xlim(edges[0], edges[-1])
        if measure.money and high - low < _MAX_DOLLAR_TICKS:
            axis.set_xticks(range(int(low), int(high) + 1))
        elif measure.money:
            axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.yaxis.set_major_locator(MaxNLocator(integer=True))
        _legend(axis, series)
    axes[0].set_ylabel("deals")
    axes[0].set_ylim(0, None if any_deal else 1)  # shared by both panels
    bins = "$1 bins" if dollars else f"{len(edges) - 1} bins"
    figure.suptitle(f"{title}: {_plural(measure.label)}, {bins}")
    return figure


def price_deal_rate_figure(
    series: Sequence[Series],
    title: str,
    price_range: tuple[float, float] | None,
    measure: MeasureLike,
) -> Figure:
    """The mean measure with its 95% CI (left) and the deal rate (right), per round; without a
    deal the measure's axis spans ``price_range`` (the price game's: the scenario's) under a "no
    deals" note."""
    mean, ci95 = f"mean_{measure.name}", f"{measure.name}_ci95"
    figure, (price_axis, rate_axis) = _new_figure(2)
    if not any(_rounds(s, mean)[0] for s in series):
        _empty_price_axis(price_axis, price_range)
    for s in series:
        xs, ys = _rounds(s, mean)
        ci: dict[int, list[float]] = {int(r["round"]): r[ci95] for r in s.per_round if r.get(ci95)}
        lower = [y - ci[x][0] if x in ci else 0.0 for x, y in zip(xs, ys, strict=True)]
        upper = [ci[x][1] - y if x in ci else 0.0 for x, y in zip(xs, ys, strict=True)]
        price_axis.errorbar(xs, ys, yerr=[lower, upper], marker="o", capsize=3, label=s.label)
        rx, ry = _rounds(s, "deal_rate")
        rate_axis.plot(rx, [100 * y for y in ry], marker="o", label=s.label)
    price_axis.set_ylabel(f"mean {measure.label}{_unit(measure)}, 95% CI")
    price_axis.set_title(measure.label, fontsize="medium")
    rate_axis.set_ylabel("deal rate (%)")
    rate_axis.set_ylim(0, 100)
    unmoved = sum(int(r.get("no_moves") or 0) for s in series for r in s.per_round)
    left_out = f"; {unmoved} without a valid move left out" if unmoved else ""
    if not any(_rounds(s, "deal_rate")[0] for s in series):
        _no_deals(rate_axis, "no round ended in a deal or no deal")
    rate_axis.set_title(f"deal rate (rounds without an error{left_out})", fontsize="medium")
    for axis in (price_axis, rate_axis):
        _round_ticks(axis, series)
        axis.grid(alpha=0.3)
        _legend(axis, series)
    figure.suptitle(title)
    return figure


def price_vs_deal_rate_figure(
    series: Sequence[Series],
    title: str,
    price_range: tuple[float, float] | None,
    measure: MeasureLike,
) -> Figure:
    """The mean measure against deal rate, one point per round, joined in round order; without a
    deal the measure's axis spans ``price_range`` under a "no deals" note."""
    mean = f"mean_{measure.name}"
    figure, axes = _new_figure(1)
    axis = axes[0]
    if not any(_rounds(s, mean)[0] for s in series):
        _empty_price_axis(axis, price_range)
    for s in series:
        points = [
            (int(r["round"]), 100 * float(r["deal_rate"]), float(r[mean]))
            for r in s.per_round
            if r.get("deal_rate") is not None and r.get(mean) is not None
        ]
        axis.plot([p[1] for p in points], [p[2] for p in points], marker="o", label=s.label)
        for number, x, y in points:
            axis.annotate(str(number), (x, y), textcoords="offset points", xytext=(5, 4))
    axis.set_xlabel("deal rate (%)")
    axis.set_ylabel(f"mean {measure.label}{_unit(measure)}")
    axis.set_xlim(0, 100)
    axis.grid(alpha=0.3)
    _legend(axis, series)
    axis.set_title(
        f"{title}\n{measure_header(measure)} against deal rate (labels: round)", fontsize="medium"
    )
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


RANKING_PLOT = "ranking.png"
"""A tournament's ranking (``icl-aif rank``): each player's skills with their 95% intervals."""


def ranking_figure(entry: dict[str, Any]) -> Figure:
    """Each player's skill (overall, and per seat) with its 95% interval, best on top
    (``ranking.json``'s entry)."""
    first, second = entry["seats"]
    rows = entry["players"]
    figure, axes = _new_figure()
    axis = axes[0]
    figure.set_size_inches(6.4, 1.2 + 0.5 * len(rows))
    marks = [
        ("skill", "overall", "o", 0.0),
        (f"skill_{first}", f"as {first}", "^", 0.18),
        (f"skill_{second}", f"as {second}", "v", -0.18),
    ]
    for key, label, marker, offset in marks:
        ys, xs, lows, highs = [], [], [], []
        for position, row in enumerate(reversed(rows)):
            value, ci = row[key], row[f"{key}_ci95"]
            if value is None or ci is None:
                continue
            ys.append(position + offset)
            xs.append(value)
            lows.append(value - ci[0])
            highs.append(ci[1] - value)
        axis.errorbar(xs, ys, xerr=[lows, highs], fmt=marker, capsize=3, label=label)
    axis.axvline(0.0, color="grey", linewidth=0.8)
    axis.set_yticks(range(len(rows)), [row["player"] for row in reversed(rows)])
    axis.set_xlabel("skill (margin scale: payoff share minus the other seat's)")
    axis.set_title("Skills with 95% intervals (cluster bootstrap)")
    axis.legend(fontsize="small")
    return figure


def ranking_plot(entry: dict[str, Any], path: Path) -> Path:
    """Write :func:`ranking_figure` of ``entry`` as a PNG at ``path``."""
    buffer = io.BytesIO()
    ranking_figure(entry).savefig(buffer, format="png", dpi=_DPI, metadata=_PNG_METADATA)
    path.write_bytes(buffer.getvalue())
    return path
