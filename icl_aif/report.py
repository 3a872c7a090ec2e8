"""Per-round tables for people: a rich table in the terminal and Markdown for ``summary.md``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.table import Table

COLUMNS = (
    ("round", "round"),
    ("games", "games"),
    ("deals", "deals"),
    ("deal rate", "deal_rate"),
    ("price", "mean_price"),
    ("95% CI", "price_ci95"),
    ("median", "median_price"),
    ("chars", "mean_response_chars"),
    ("exch.", "mean_exchanges"),
)
LEGEND = (
    "price: mean deal price over deals, with a 95% bootstrap CI; chars: mean length of the improved "
    "player's replies; exch.: mean seller-buyer exchanges per round."
)


def cell(key: str, value: Any) -> str:
    """One formatted table cell."""
    if value is None:
        return "-"
    if key == "price_ci95":
        return f"{value[0]:.2f}-{value[1]:.2f}"
    if key == "deal_rate":
        return f"{value:.1%}"
    if key in ("mean_price", "median_price"):
        return f"${value:.2f}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def rows(per_round: Sequence[dict[str, Any]]) -> list[list[str]]:
    """The table body."""
    return [[cell(key, r.get(key)) for _, key in COLUMNS] for r in per_round]


def round_table(summary: dict[str, Any], title: str | None = None) -> Table:
    """The per-round table of a summary."""
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for header, _ in COLUMNS:
        table.add_column(header, justify="right", no_wrap=True)
    for row in rows(summary["per_round"]):
        table.add_row(*row)
    return table


def summary_markdown(summary: dict[str, Any], name: str) -> str:
    """``summary.md``: both per-round tables as Markdown."""

    def table(per_round: Sequence[dict[str, Any]]) -> list[str]:
        header = "| " + " | ".join(h for h, _ in COLUMNS) + " |"
        rule = "|" + "---|" * len(COLUMNS)
        return [header, rule, *("| " + " | ".join(r) + " |" for r in rows(per_round))]

    lines = [
        f"# {name}",
        "",
        f"Improved player: {summary['improve']}. Finished runs: {summary['finished_runs']} of "
        f"{summary['runs']} ({summary['errored_runs']} stopped by an error). Prices are over deals; "
        "the CI is a 95% percentile bootstrap of the mean.",
        "",
        LEGEND,
        "",
        "## All runs",
        "",
        *table(summary["per_round"]),
        "",
        f"## Effective runs (every round a deal: {summary['effective_runs']} runs)",
        "",
        *table(summary["per_round_effective"]),
        "",
    ]
    return "\n".join(lines)
