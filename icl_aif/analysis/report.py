"""Per-round tables for people: a rich table in the terminal and Markdown for ``summary.md``.

The tables show the game's measure (``summary.json``'s ``measure``: its ``name`` keys the
columns, ``label`` words the legends, ``money`` formats it as dollars; a summary of an earlier
record format names it once read, :func:`icl_aif.records.reader.read_summary`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rich import box
from rich.console import Console
from rich.table import Table


class MeasureLike(Protocol):
    """What a table needs to know of a measure (a :class:`MeasureInfo`, or the game's
    :class:`~icl_aif.games.base.Measure` itself)."""

    @property
    def name(self) -> str: ...

    @property
    def label(self) -> str: ...

    @property
    def money(self) -> bool: ...


@dataclass(frozen=True)
class MeasureInfo:
    """A measure as ``summary.json`` names it: the key stem, the words, dollars or not."""

    name: str
    label: str
    money: bool = False


def summary_measure(summary: dict[str, Any], default: MeasureLike | None = None) -> MeasureLike:
    """The measure ``summary`` (or a sweep's cell) names; ``default`` (a sweep's own) when it
    names none. A summary that names none and has no default is a :class:`ValueError`: every
    summary names its measure once read (:func:`icl_aif.records.reader.read_summary`)."""
    entry = summary.get("measure")
    if isinstance(entry, dict) and entry.get("name"):
        name = str(entry["name"])
        return MeasureInfo(
            name=name, label=str(entry.get("label") or name), money=bool(entry.get("money"))
        )
    if default is None:
        raise ValueError(
            "the summary names no measure: read it with icl_aif.records.reader.read_summary"
        )
    return default


def measure_header(measure: MeasureLike) -> str:
    """The measure's column header: its name in words (``price``, ``payoff``)."""
    return measure.name.replace("_", " ")


def _plural(words: str) -> str:
    return words if words.endswith("s") else f"{words}s"


def _digits(measure: MeasureLike) -> int:
    """Decimals of a value of the measure: cents, or three for a figure such as a share."""
    return 2 if measure.money else 3


def value_text(value: float, measure: MeasureLike) -> str:
    """A value of the measure: ``$15.00`` (``$13,500.00``) in money, else ``0.450``."""
    return f"${value:,.2f}" if measure.money else f"{value:.{_digits(measure)}f}"


def signed_text(value: float, measure: MeasureLike) -> str:
    """A difference of the measure: ``+1.50`` (money: cents, ``+1,250.00``), else ``+0.025``."""
    return f"{value:+,.{_digits(measure)}f}"


NO_MOVE_COLUMN = ("no move", "no_moves")
"""The column of the rounds that ended because a side made no valid move: shown where a summary
has any (:func:`has_no_moves`), beside ``errors``."""


def has_no_moves(summary: dict[str, Any]) -> bool:
    """True when a round of ``summary`` (any cell, any arm) ended for want of a valid move."""
    return any(r.get("no_moves") for *_, part in series(summary) for r in part["per_round"])


def _with_no_moves(
    columns: tuple[tuple[str, str], ...], no_moves: bool
) -> tuple[tuple[str, str], ...]:
    """``columns`` with :data:`NO_MOVE_COLUMN` after ``errors`` when ``no_moves``."""
    if not no_moves:
        return columns
    at = [key for _, key in columns].index("errors") + 1
    return (*columns[:at], NO_MOVE_COLUMN, *columns[at:])


def round_columns(measure: MeasureLike, *, no_moves: bool = False) -> tuple[tuple[str, str], ...]:
    """The per-round table's (header, ``summary.json`` key) of ``measure``; with ``no_moves``
    the column of rounds without a valid move too (:func:`has_no_moves`)."""
    n = measure.name
    return _with_no_moves(_round_columns(measure, n), no_moves)


def _round_columns(measure: MeasureLike, n: str) -> tuple[tuple[str, str], ...]:
    return (
        ("round", "round"),
        ("games", "games"),
        ("deals", "deals"),
        ("deal rate", "deal_rate"),
        ("cap", "truncations"),
        ("errors", "errors"),
        (measure_header(measure), f"mean_{n}"),
        ("95% CI", f"{n}_ci95"),
        ("median", f"median_{n}"),
        ("chars", "mean_response_chars"),
        ("exch.", "mean_exchanges"),
    )


def terminal_columns(
    measure: MeasureLike, *, no_moves: bool = False
) -> tuple[tuple[str, str], ...]:
    """The terminal's per-round table: 80 columns wide (a little wider with ``no_moves``); the
    median is in summary.md and summary.json."""
    columns = round_columns(measure, no_moves=no_moves)
    return tuple(c for c in columns if c[1] != f"median_{measure.name}")


_LEGEND = (
    "deal rate: deals over the rounds that ended in a deal or no deal; cap: no-deal rounds the "
    "exchange cap ended, truncated (- in a summary written before this count); errors: rounds "
    "ended by an error (a failed model call), left out of the deal rate; {header}: mean {label} "
    "over deals, with a 95% bootstrap CI over that round's runs (per round){median}; chars: mean "
    "length of the improved player's "
    "replies; exch.: mean exchanges (a line from each seat) per round that ended in a deal or no deal."
)


NO_MOVE_LEGEND = (
    " no move: rounds ended because a side made no valid move within its tries (its lines are "
    'in games.jsonl "refused"), left out of the deal rate, the {label} and the exchanges, as '
    "errors are."
)


def legend(measure: MeasureLike, *, terminal: bool = False, no_moves: bool = False) -> str:
    """The per-round table's legend (``terminal``: the table without the median; ``no_moves``:
    with the column of rounds without a valid move)."""
    median = " (summary.md also has the median)" if terminal else ""
    text = _LEGEND.format(header=measure_header(measure), label=measure.label, median=median)
    return text + (NO_MOVE_LEGEND.format(label=measure.label) if no_moves else "")


MAX_ERROR_KINDS = 3
"""Kinds of error whose first message the failed-games line quotes (it lists every kind)."""
EXAMPLE_SHOWN = 80
"""Characters of a kind's first message the failed-games line shows."""


def cell(key: str, value: Any, measure: MeasureLike) -> str:
    """One formatted table cell (``measure``: the summary's)."""
    if value is None:
        return "-"
    n = measure.name
    if key == f"{n}_ci95":
        digits = _digits(measure)
        return f"{value[0]:,.{digits}f}-{value[1]:,.{digits}f}"
    if key == "deal_rate":
        return f"{value:.1%}"
    if key in (f"mean_{n}", f"median_{n}"):
        return value_text(value, measure)
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def rows(
    per_round: Sequence[dict[str, Any]],
    columns: Sequence[tuple[str, str]],
    measure: MeasureLike,
) -> list[list[str]]:
    """The table body: ``columns`` (:func:`round_columns` of ``measure``, say) of each round."""
    return [[cell(key, r.get(key), measure) for _, key in columns] for r in per_round]


def round_table(
    summary: dict[str, Any], title: str | None = None, measure: MeasureLike | None = None
) -> Table:
    """The per-round table of a summary, as the terminal shows it (:func:`terminal_columns`)."""
    measure = measure or summary_measure(summary)
    columns = terminal_columns(measure, no_moves=has_no_moves(summary))
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for heading, _ in columns:
        table.add_column(heading, justify="right", no_wrap=True)
    for row in rows(summary["per_round"], columns, measure):
        table.add_row(*row)
    return table


USAGE_COLUMNS = (
    ("role", None),
    ("calls", "calls"),
    ("failed", "failed_calls"),
    ("input tokens", "input_tokens"),
    ("cached", "cached_input_tokens"),
    ("output tokens", "output_tokens"),
    ("cost (USD)", "cost_usd"),
)


def usd(value: float | None) -> str:
    """A dollar amount with enough digits for small costs."""
    if value is None:
        return "-"
    if value >= 100:
        return f"${value:,.2f}"
    return f"${value:.4f}" if value == 0 or value >= 0.0001 else f"${value:.6f}"


def cost_line(summary: dict[str, Any]) -> str | None:
    """One line with the run's cost and tokens, or None when no model reported token usage."""
    from icl_aif.models.usage import has_tokens

    usage = summary.get("usage")
    if not has_tokens(usage):
        return None
    assert usage is not None
    roles = usage["roles"].values()
    tokens = {k: sum(r[k] for r in roles) for k in ("input_tokens", "cached_input_tokens")}
    output = sum(r["output_tokens"] for r in roles)
    line = (
        f"Cost: {usd(usage['total_cost_usd'])} for {tokens['input_tokens']:,} input tokens "
        f"({tokens['cached_input_tokens']:,} cached) and {output:,} output tokens"
    )
    if usage["unpriced_models"]:
        line += f"; no price for {', '.join(usage['unpriced_models'])} (add it under prices)"
    return line


def cache_line(summary: dict[str, Any]) -> str | None:
    """The response cache's line (``cache: N hits, M misses, $X saved``), or None when the run
    had no cache."""
    cache = summary.get("cache")
    if not cache:
        return None
    return (
        f"cache: {cache['hits']:,} hits, {cache['misses']:,} misses, "
        f"{usd(cache['saved_usd'])} saved"
    )


def budget_line(summary: dict[str, Any]) -> str | None:
    """The line saying the budget stopped the run, or None when it did not."""
    if summary.get("stopped_by") != "max_usd":
        return None
    usage = summary["usage"]
    return (
        f"Budget max_usd {usd(usage['max_usd'])} reached (recorded cost "
        f"{usd(usage['total_cost_usd'])}): no new run started; "
        f"{summary['finished_runs']} of {summary['runs']} runs finished."
    )


def runs_line(summary: dict[str, Any], noun: str = "Finished runs") -> str:
    """``Finished runs: 28 of 30; 2 failed with an error (...).``: the runs (``noun``) that
    finished without an error, and the failed ones (a sweep's cells added up)."""
    failed, finished, _ = failures(summary)
    planned = (summary.get("runs") or 0) * len(summary.get("cells") or [summary])
    line = f"{noun}: {finished - failed} of {planned}"
    if failed:
        line += (
            f"; {failed} failed with an error (rounds ended by an error are left out of deal rates)"
        )
    return line + "."


def failures(summary: dict[str, Any]) -> tuple[int, int, list[dict[str, Any]]]:
    """(failed games, finished games, error kinds) of any summary, a sweep's cells added up.

    A summary written before ``error_kinds`` existed gives no kinds."""
    parts = summary.get("cells") or [summary]
    kinds: dict[str, dict[str, Any]] = {}
    for part in parts:
        for kind in part.get("error_kinds") or ():
            kinds.setdefault(kind["kind"], {**kind, "games": 0})["games"] += kind["games"]
    failed = sum(part.get("errored_runs") or 0 for part in parts)
    return failed, sum(part.get("finished_runs") or 0 for part in parts), list(kinds.values())


def failure_line(summary: dict[str, Any]) -> str | None:
    """``3 of 30 games failed: seller APIConnectionError x3 (Connection error.); see games.jsonl
    "error"``, or None when no game failed. Lists every kind of error with its count, the
    first :data:`MAX_ERROR_KINDS` with their first message."""
    failed, finished, kinds = failures(summary)
    if not failed:
        return None
    shown = []
    for number, kind in enumerate(kinds):
        example = (kind.get("example") or "") if number < MAX_ERROR_KINDS else ""
        if len(example) > EXAMPLE_SHOWN:
            example = example[: EXAMPLE_SHOWN - 1] + "…"
        shown.append(f"{kind['kind']} x{kind['games']}" + (f" ({example})" if example else ""))
    named = f": {', '.join(shown)}" if shown else ""
    return f'{failed} of {finished} games failed{named}; see games.jsonl "error"'


def no_moves(summary: dict[str, Any]) -> tuple[int, list[dict[str, Any]]]:
    """(rounds that ended for want of a valid move, their kinds) of any summary, a sweep's cells
    added up; none in a summary written before these counts."""
    kinds: dict[tuple[str, str], dict[str, Any]] = {}
    for part in summary.get("cells") or [summary]:
        for kind in part.get("no_move_kinds") or ():
            key = (kind["side"], kind["kind"])
            kinds.setdefault(key, {**kind, "rounds": 0})["rounds"] += kind["rounds"]
    rounds = sum(part.get("no_move_rounds") or 0 for part in summary.get("cells") or [summary])
    return rounds, list(kinds.values())


NO_MOVE_HINT = {
    "no_move": "the model gave no move in a form it was asked for: try moves: text, or a model "
    "with tool calling",
}
"""What to try, by kind of refusal, in :func:`no_move_line`."""


def no_move_line(summary: dict[str, Any]) -> str | None:
    """``12 rounds ended because a side made no valid move (...): seller x12, no move could be
    read ...; see games.jsonl "refused"``, or None when none did."""
    from icl_aif.engine.protocol import REFUSALS

    rounds, kinds = no_moves(summary)
    if not rounds:
        return None
    shown = [
        f"{kind['side']} x{kind['rounds']}: {REFUSALS.get(kind['kind'], kind['kind'])}"
        for kind in kinds
    ]
    hints = [
        NO_MOVE_HINT[k] for k in dict.fromkeys(kind["kind"] for kind in kinds) if k in NO_MOVE_HINT
    ]
    return (
        f"{rounds} round{'s' if rounds != 1 else ''} ended because a side made no valid move "
        f'(left out of deal rates): {"; ".join(shown)}; see games.jsonl "refused"'
        + (f" ({'; '.join(hints)})" if hints else "")
    )


def failure_markdown(summary: dict[str, Any]) -> list[str]:
    """``summary.md``'s paragraphs of failed games (:func:`failure_line`) and of rounds without
    a valid move (:func:`no_move_line`), empty when there are none."""
    lines = [line for line in (failure_line(summary), no_move_line(summary)) if line]
    return [part for line in lines for part in (line, "")]


def usage_markdown(summary: dict[str, Any]) -> list[str]:
    """``summary.md``'s usage section: one row per role and the total (empty for old summaries)."""
    usage = summary.get("usage")
    if not usage:
        return []
    header = "| " + " | ".join(h for h, _ in USAGE_COLUMNS) + " |"
    rule = "|" + "---|" * len(USAGE_COLUMNS)
    body = [
        "| "
        + " | ".join(
            role if key is None else usd(row[key]) if key == "cost_usd" else f"{row[key]:,}"
            for _, key in USAGE_COLUMNS
        )
        + " |"
        for role, row in usage["roles"].items()
    ]
    total = f"Total cost: {usd(usage['total_cost_usd'])}."
    if usage["unpriced_models"]:
        total += f" No price for {', '.join(usage['unpriced_models'])}: the total leaves them out."
    budget = budget_line(summary)
    return ["## Usage", "", header, rule, *body, "", total, *([budget] if budget else []), ""]


def summary_markdown(summary: dict[str, Any], name: str) -> str:
    """``summary.md``: both per-round tables as Markdown."""
    measure = summary_measure(summary)
    unmoved = has_no_moves(summary)
    columns = round_columns(measure, no_moves=unmoved)

    def table(per_round: Sequence[dict[str, Any]]) -> list[str]:
        return _markdown([h for h, _ in columns], rows(per_round, columns, measure))

    over = _plural(measure_header(measure)).capitalize()
    lines = [
        f"# {name}",
        "",
        f"Improved player: {summary['improve']}. {runs_line(summary)} {over} are over deals; "
        "the CI is a 95% percentile bootstrap of the mean.",
        "",
        *failure_markdown(summary),
        legend(measure, no_moves=unmoved),
        "",
        "## All runs",
        "",
        *table(summary["per_round"]),
        "",
        f"## Effective runs (every round a deal: {summary['effective_runs']} runs)",
        "",
        *table(summary["per_round_effective"]),
        "",
        *game_figures_markdown(summary, summary["per_round"]),
        *usage_markdown(summary),
    ]
    return "\n".join(lines)


def game_cell(kind: str, value: Any) -> str:
    """One cell of the game's own figures (:class:`icl_aif.games.base.Column` ``kind``)."""
    if value is None:
        return "-"
    if kind == "rate":
        return f"{value:.1%}"
    if kind == "money":
        return f"${value:,.2f}"
    if kind == "count":
        return str(int(value))
    return f"{value:.3f}"


def game_figures(
    summary: dict[str, Any], per_round: Sequence[dict[str, Any]]
) -> tuple[list[str], list[list[str]]]:
    """The game's own per-round figures (``game_columns`` of the summary): headers and rows;
    no headers for a game without any."""
    columns = summary.get("game_columns") or []
    if not columns:
        return [], []
    headers = ["round", *(c["header"] for c in columns)]
    body = [
        [str(r["round"]), *(game_cell(c["kind"], r.get(c["key"])) for c in columns)]
        for r in per_round
    ]
    return headers, body


GAME_FIGURES_LEGEND = "the game's own figures per round (docs/games.md says each)"


def game_figures_markdown(
    summary: dict[str, Any], per_round: Sequence[dict[str, Any]]
) -> list[str]:
    """The game's own figures per round as a Markdown section; none without any."""
    headers, body = game_figures(summary, per_round)
    if not headers:
        return []
    return ["### The game's own figures per round", "", *_markdown(headers, body), ""]


def game_figures_table(summary: dict[str, Any], title: str | None = None) -> Table | None:
    """The game's own figures per round for the terminal, or None for a game without any."""
    headers, body = game_figures(summary, summary["per_round"])
    if not headers:
        return None
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    return _filled(table, headers, body)


def sweep_game_figures(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """A sweep's game figures: one row per cell (without paired arms) and round, headed by the
    first cell's columns; no headers when no cell has any."""
    headers: list[str] = []
    body: list[list[str]] = []
    for c in summary.get("cells") or []:
        if "arms" in c:
            continue
        own, rows_ = game_figures(c, c["per_round"])
        if own and not headers:
            headers = ["cell", *own]
        body += [[str(c["cell"]), *row] for row in rows_ if own]
    return headers, body


def sweep_game_figures_table(summary: dict[str, Any], title: str) -> Table | None:
    """:func:`sweep_game_figures` for the terminal, or None without any."""
    headers, body = sweep_game_figures(summary)
    if not headers:
        return None
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    return _filled(table, headers, body)


# --- paired arms and sweeps --------------------------------------------------------------------


def arm_columns(measure: MeasureLike) -> tuple[tuple[str, str], ...]:
    """Table 1's (header, key) of ``measure``: one row per arm."""
    n = measure.name
    return (
        ("arm", "arm"),
        ("games", "games"),
        ("before", f"{n}_before"),
        ("after", f"{n}_after"),
        ("paired Δ", "delta"),
        ("95% CI", "delta_ci95"),
        ("pairs", "paired_games"),
        ("DR bef.", "deal_rate_before"),
        ("DR aft.", "deal_rate_after"),
        ("score Δ", "score_delta"),
        ("vs none", "vs_none_delta"),
        ("p Holm", "vs_none_p_holm"),
    )


def terminal_arm_keys(measure: MeasureLike) -> tuple[str, ...]:
    """The keys of the terminal's Table 1 (summary.md has every column)."""
    return tuple(
        k for _, k in arm_columns(measure) if k not in ("games", "score_delta", "vs_none_delta")
    )


ARM_LEGEND = (
    "before/after: mean {label} over deals in rounds {b} and {a}; paired Δ: mean after-minus-"
    "before {header} over the games that dealt in both rounds (pairs), 95% paired bootstrap CI; "
    "DR: deal rate over the games whose round ended in a deal or no deal (not in an error); "
    "score Δ: the same paired mean for the unconditional score (a no deal scores {nd}); vs none: "
    "mean round-{a} {header} difference from arm none over the games that dealt in both arms, p: "
    "two-sided paired sign-flip permutation test, Holm-corrected across arms."
)
TERMINAL_ARM_LEGEND = (
    "before/after: mean {label} over deals in rounds {b} and {a}; paired Δ: mean after-minus-"
    "before {header} over the games that dealt in both rounds (pairs), 95% paired bootstrap CI; "
    "DR: deal rate over the games whose round ended in a deal or no deal (not in an error); "
    "p Holm: two-sided paired sign-flip permutation test of the round-{a} {header} against arm "
    "none over the games that dealt in both arms, Holm-corrected across arms. summary.md and "
    "summary.json also hold the paired score Δ (a no deal scores {nd}) and the {header} "
    "difference from arm none."
)


def sweep_columns(measure: MeasureLike, *, no_moves: bool = False) -> tuple[tuple[str, str], ...]:
    """The combined table of a sweep: (header, key) after the cell's settings and arm; with
    ``no_moves`` the column of rounds without a valid move too."""
    n = measure.name
    return _with_no_moves(_sweep_columns(measure, n), no_moves)


def _sweep_columns(measure: MeasureLike, n: str) -> tuple[tuple[str, str], ...]:
    return (
        ("round", "round"),
        ("games", "games"),
        ("deal rate", "deal_rate"),
        ("cap", "truncations"),
        ("errors", "errors"),
        ("DR all", "deal_rate_all_runs"),
        (measure_header(measure), f"mean_{n}"),
        ("95% CI", f"{n}_ci95"),
        ("score", "mean_score"),
        ("chars", "mean_response_chars"),
    )


_SWEEP_LEGEND = (
    "One row per cell (and arm) and round. deal rate: over the runs whose round ended in a deal or "
    "no deal; cap: no-deal rounds the exchange cap ended (truncated); errors: rounds ended by an "
    "error, left out of the deal rate; DR all: over all finished runs, failed ones counted as no "
    "deal; {header}: mean over deals, 95% bootstrap CI over the round's runs (per round); score: "
    "mean unconditional score ({header} "
    "if deal, the no-deal value otherwise)."
)


def sweep_legend(measure: MeasureLike, *, no_moves: bool = False) -> str:
    """The legend of the combined table of a sweep (``no_moves``: with the column of rounds
    without a valid move)."""
    text = _SWEEP_LEGEND.format(header=measure_header(measure))
    return text + (NO_MOVE_LEGEND.format(label=measure.label) if no_moves else "")


def arm_cell(key: str, value: Any, measure: MeasureLike) -> str:
    """One formatted cell of the arms table."""
    if value is None:
        return "-"
    n = measure.name
    if key == "delta_ci95":
        digits = _digits(measure)
        return f"{value[0]:+,.{digits}f}..{value[1]:+,.{digits}f}"
    if key == f"{n}_ci95":
        return cell(key, value, measure)
    if key.startswith("deal_rate"):
        return f"{value:.1%}"
    if key in (f"{n}_before", f"{n}_after"):
        return value_text(value, measure)
    if key in ("delta", "score_delta", "vs_none_delta"):
        return signed_text(value, measure)
    if key == "vs_none_p_holm":
        return f"{value:.3f}"
    return str(value)


def arm_rows(
    summary: dict[str, Any],
    keys: Sequence[str] | None = None,
    measure: MeasureLike | None = None,
) -> list[list[str]]:
    """The body of the arms table (the columns ``keys``; default: every column)."""
    measure = measure or summary_measure(summary)
    keys = keys if keys is not None else [key for _, key in arm_columns(measure)]
    return [[arm_cell(key, row.get(key), measure) for key in keys] for row in summary["arms"]]


def arm_legend(
    summary: dict[str, Any], *, terminal: bool = False, measure: MeasureLike | None = None
) -> str:
    """The arms table's legend with its rounds and no-deal value (``terminal``: the legend of
    :func:`arm_table`, which leaves two columns to ``summary.md``), and its error rounds if any."""
    measure = measure or summary_measure(summary)
    b = summary["branch_after"]
    template = TERMINAL_ARM_LEGEND if terminal else ARM_LEGEND
    text = template.format(
        b=b,
        a=b + 1,
        nd=short_value(summary.get("no_deal_value"), measure),
        label=measure.label,
        header=measure_header(measure),
    )
    errors = [line for row in summary["arms"] if (line := _arm_counts(row, b, "errors"))]
    unmoved = [line for row in summary["arms"] if (line := _arm_counts(row, b, "no_moves"))]
    if errors:
        text += f" Rounds ended by an error (not in DR): {'; '.join(errors)}."
    if unmoved:
        text += (
            f" Rounds ended because a side made no valid move (not in DR): {'; '.join(unmoved)}."
        )
    return text


def _arm_counts(row: dict[str, Any], before: int, counted: str) -> str:
    """``ai 3 in round 1``: an arm's rounds ended by an error (``counted``: ``errors``) or for
    want of a valid move (``no_moves``), before and after the branch; empty without any (or in
    a summary written before these counts)."""
    counts = (
        (before, row.get(f"{counted}_before")),
        (before + 1, row.get(f"{counted}_after")),
    )
    shown = [f"{n} in round {k}" for k, n in counts if n]
    return f"{row['arm']} {', '.join(shown)}" if shown else ""


def short_value(value: float | None, measure: MeasureLike) -> str:
    """A value of ``measure`` (``$8.00`` in money, else ``0.500``), or ``-``."""
    return "-" if value is None else value_text(value, measure)


def arm_table(
    summary: dict[str, Any], title: str | None = None, measure: MeasureLike | None = None
) -> Table:
    """Table 1 of a paired-arms summary for the terminal: one row per arm (``summary.md`` and
    ``summary.json`` also hold the paired score delta)."""
    measure = measure or summary_measure(summary)
    keys = terminal_arm_keys(measure)
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    body = arm_rows(summary, keys, measure)
    headers = [h for h, k in arm_columns(measure) if k in keys]
    return _filled(table, headers, body)


def _filled(table: Table, headers: Sequence[str], body: Sequence[Sequence[str]]) -> Table:
    """``table`` with ``headers`` and ``body``, values never wrapped (print it at its natural
    width: :func:`natural_width`)."""
    for number, heading in enumerate(headers):
        table.add_column(heading, justify="left" if number == 0 else "right", no_wrap=True)
    for row in body:
        table.add_row(*row)
    return table


def series(
    summary: dict[str, Any],
) -> list[tuple[str | None, str | None, dict[str, Any], dict[str, Any]]]:
    """(cell, arm, settings, per-round summary) for every cell and arm of a summary."""
    cells = summary.get("cells") or [{"cell": None, "settings": {}, **summary}]
    out: list[tuple[str | None, str | None, dict[str, Any], dict[str, Any]]] = []
    for c in cells:
        if "per_arm" in c:
            out.extend((c["cell"], a["arm"], c["settings"], a) for a in c["per_arm"])
        else:
            out.append((c["cell"], None, c["settings"], c))
    return out


def short_setting(path: str) -> str:
    """``roles.seller.model`` -> ``seller.model``; ``scenario.item`` -> ``item``."""
    return path.removeprefix("roles.").removeprefix("scenario.")


def _cell_measures(summary: dict[str, Any]) -> dict[str | None, MeasureLike]:
    """The measure of each cell of a sweep: its own, else the summary's."""
    top = summary_measure(summary)
    return {c.get("cell"): summary_measure(c, top) for c in summary.get("cells") or ()}


def sweep_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Headers and body of the combined table of a sweep: one row per cell (x arm) x round."""
    all_series = series(summary)
    top = summary_measure(summary)
    measures = _cell_measures(summary)
    unmoved = has_no_moves(summary)
    paths = list(dict.fromkeys(p for _, _, settings, _ in all_series for p in settings))
    with_arms = any(arm is not None for _, arm, _, _ in all_series)
    headers = ["cell", *map(short_setting, paths), *(["arm"] if with_arms else [])]
    headers += [h for h, _ in sweep_columns(top, no_moves=unmoved)]
    body = []
    for cell_id, arm, settings, part in all_series:
        measure = measures.get(cell_id, top)
        columns = sweep_columns(measure, no_moves=unmoved)
        for r in part["per_round"]:
            lead = [cell_id or "-", *(str(settings.get(p, "-")) for p in paths)]
            lead += [arm or "-"] if with_arms else []
            values = [
                cell("deal_rate", r.get(key), measure)
                if key == "deal_rate_all_runs"
                else short_value(r.get(key), measure)
                if key == "mean_score"
                else cell(key, r.get(key), measure)
                for _, key in columns
            ]
            body.append(lead + values)
    return headers, body


def rival_axis(summary: dict[str, Any]) -> str | None:
    """The sweep's one axis when it varies only the rival (``rival_persona`` or
    ``roles.<rival>.model``, the improved player fixed: cross-play), else None."""
    cells = [c for c in summary.get("cells", []) if "per_round" in c]
    if not cells or len(cells) != len(summary.get("cells", [])):
        return None
    paths = {p for c in cells for p in c["settings"]}
    if len(paths) != 1:
        return None
    (path,) = paths
    axis = str(path)
    if axis == "rival_persona":
        return axis
    parts = axis.split(".")
    rival = len(parts) == 3 and parts[0] == "roles" and parts[2] == "model"
    if rival and parts[1] not in (cells[0].get("improve"), "critic", "moderator"):
        return axis
    return None


def cross_play_rows(summary: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Cross-play (:func:`rival_axis`): one row per rival, the first and the last round side by
    side, each with its deal rate and mean measure (95% bootstrap CI); no headers for another
    sweep."""
    axis = rival_axis(summary)
    if axis is None:
        return [], []
    top = summary_measure(summary)
    measures = _cell_measures(summary)
    header = measure_header(top)
    first, last = 1, len(summary["cells"][0]["per_round"])
    headers = [short_setting(axis), "games"]
    for number in (first, last):
        headers += [f"DR r{number}", f"{header} r{number}", "95% CI"]
    body = []
    for c in summary["cells"]:
        measure = measures.get(c.get("cell"), top)
        n = measure.name
        by_round = {r["round"]: r for r in c["per_round"]}
        row = [str(c["settings"][axis]), str(by_round[first].get("games", "-"))]
        for number in (first, last):
            r = by_round.get(number, {})
            row += [
                cell("deal_rate", r.get("deal_rate"), measure),
                cell(f"mean_{n}", r.get(f"mean_{n}"), measure),
                cell(f"{n}_ci95", r.get(f"{n}_ci95"), measure),
            ]
        body.append(row)
    return headers, body


CROSS_PLAY_LEGEND = (
    "Cross-play: one row per rival, the improved player fixed. DR: deal rate of the round (rN: "
    "round N) over the runs whose round ended in a deal or no deal; {header}: mean {label} over "
    "deals with its 95% bootstrap CI."
)


def cross_play_table(summary: dict[str, Any], title: str | None = None) -> Table | None:
    """The cross-play table of a sweep over the rival only, or None for another sweep."""
    headers, body = cross_play_rows(summary)
    if not headers:
        return None
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    return _filled(table, headers, body)


def sweep_table(summary: dict[str, Any], title: str | None = None) -> Table:
    """The combined table of a sweep (:func:`sweep_rows`)."""
    headers, body = sweep_rows(summary)
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    return _filled(table, headers, body)


def natural_width(console: Console, table: Table) -> int:
    """The width ``table`` needs unwrapped, at least the console's (to print it uncut)."""
    from rich.measure import Measurement

    wide = Measurement.get(console, console.options.update_width(1000), table)
    return max(console.width, wide.maximum)


def summary_tables(summary: dict[str, Any], title: str) -> list[tuple[Table, str]]:
    """The tables of any summary for the terminal, each with its legend: the per-round table of a
    plain run, Table 1 of paired arms, or a sweep's combined table and its cells' arms tables."""
    measure = summary_measure(summary)
    if "cells" in summary:
        heading = f"{title}: {len(summary['cells'])} cells"
        unmoved = has_no_moves(summary)
        tables = [(sweep_table(summary, heading), sweep_legend(measure, no_moves=unmoved))]
        crossed = cross_play_table(summary, f"{title}: cross-play, one row per rival")
        if crossed is not None:
            legend_text = CROSS_PLAY_LEGEND.format(
                header=measure_header(measure), label=measure.label
            )
            tables.append((crossed, legend_text))
        figures = sweep_game_figures_table(summary, f"{title}: the game's own figures")
        if figures is not None:
            tables.append((figures, GAME_FIGURES_LEGEND))
        measures = _cell_measures(summary)
        for c in summary["cells"]:
            if "arms" in c:
                own = measures.get(c.get("cell"), measure)
                heading = f"cell {c['cell']}: feedback arms, {c['finished_runs']} games"
                tables.append(
                    (arm_table(c, heading, own), arm_legend(c, terminal=True, measure=own))
                )
        return tables
    if "arms" in summary:
        title = f"{title}: feedback arms, {summary['finished_runs']} games"
        return [(arm_table(summary, title), arm_legend(summary, terminal=True))]
    unmoved = has_no_moves(summary)
    tables = [(round_table(summary, title=title), legend(measure, terminal=True, no_moves=unmoved))]
    figures = game_figures_table(summary, f"{title}: the game's own figures")
    if figures is not None:
        tables.append((figures, GAME_FIGURES_LEGEND))
    return tables


def _markdown(headers: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    return [
        "| " + " | ".join(headers) + " |",
        "|" + "---|" * len(headers),
        *("| " + " | ".join(r) + " |" for r in body),
    ]


def _arms_markdown(summary: dict[str, Any], measure: MeasureLike) -> list[str]:
    columns = round_columns(measure, no_moves=has_no_moves(summary))
    lines = [
        f"Paired feedback arms: rounds 1-{summary['branch_after']} played once per game, then "
        f"every arm from the identical state. {runs_line(summary, 'Games')}",
        "",
        *_markdown([h for h, _ in arm_columns(measure)], arm_rows(summary, measure=measure)),
        "",
        arm_legend(summary, measure=measure),
        "",
    ]
    for part in summary["per_arm"]:
        lines += [f"### Arm {part['arm']}: per round", ""]
        lines += [*_markdown([h for h, _ in columns], rows(part["per_round"], columns, measure))]
        lines += ["", *game_figures_markdown(summary, part["per_round"])]
    return lines


def experiment_markdown(summary: dict[str, Any], name: str) -> str:
    """``summary.md`` for any summary: as :func:`summary_markdown` for a plain run; Table 1 and
    per-arm rounds for paired arms; the combined table and each cell's arms for a sweep."""
    if "cells" not in summary and "arms" not in summary:
        return summary_markdown(summary, name)
    measure = summary_measure(summary)
    lines = [f"# {name}", "", *failure_markdown(summary)]
    if "cells" in summary:
        headers, body = sweep_rows(summary)
        lines += ["## Sweep: every cell", "", *_markdown(headers, body), ""]
        lines += [sweep_legend(measure, no_moves=has_no_moves(summary)), ""]
        crossed, crossed_body = cross_play_rows(summary)
        if crossed:
            lines += ["## Cross-play: one row per rival", "", *_markdown(crossed, crossed_body), ""]
            lines += [CROSS_PLAY_LEGEND.format(header=measure_header(measure), label=measure.label)]
            lines += [""]
        measures = _cell_measures(summary)
        for c in summary["cells"]:
            own = measures.get(c.get("cell"), measure)
            shown = ", ".join(f"{k}={v}" for k, v in c["settings"].items())
            lines += [f"## Cell {c['cell']}: {shown}", ""]
            if "arms" in c:
                lines += _arms_markdown(c, own)
            else:
                columns = round_columns(own, no_moves=has_no_moves(summary))
                lines += [*_markdown([h for h, _ in columns], rows(c["per_round"], columns, own))]
                lines += ["", *game_figures_markdown(c, c["per_round"])]
    else:
        lines += [f"Improved player: {summary['improve']}.", "", *_arms_markdown(summary, measure)]
    lines += usage_markdown(summary)
    return "\n".join(lines)
