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
    from icl_aif.usage import has_tokens

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
        *usage_markdown(summary),
    ]
    return "\n".join(lines)
