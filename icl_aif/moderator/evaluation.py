"""Judge a moderator on labelled windows: label accuracy, precision/recall, price accuracy.

The labelled file is JSON Lines, one window per line::

    {"turns": [{"speaker": "seller", "text": "..."}, ...], "label": "deal", "price": 15,
     "scenario": {"item": "...", "list_price": 20, "buyer_open": 12}, "id": "w001", "trap": "..."}

``scenario``, ``id`` and any other keys are optional.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from rich.console import Console
from rich.table import Table

from icl_aif.errors import UsageError
from icl_aif.transcript import SPEAKERS, STATES, State, Turn, Verdict, format_money

__all__ = [
    "ClassStats",
    "EvalReport",
    "LabelledWindow",
    "Moderator",
    "evaluate",
    "load_labelled",
    "render_report",
]

PRICE_TOLERANCE = 0.005


class Moderator(Protocol):
    """Anything that can label a window of turns."""

    def classify(
        self, window: Sequence[Turn], scenario: Mapping[str, Any] | None = None
    ) -> Verdict:
        """The state after the last turn of ``window``."""
        ...


@dataclass(frozen=True)
class LabelledWindow:
    """One labelled window: the turns, the gold label and price, and optional context."""

    turns: tuple[Turn, ...]
    label: State
    price: float | None
    scenario: Mapping[str, Any] | None = None
    id: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ClassStats:
    """Precision, recall and support (gold count) of one label."""

    precision: float
    recall: float
    support: int


@dataclass
class EvalReport:
    """The result of :func:`evaluate`."""

    n: int
    accuracy: float
    per_class: dict[str, ClassStats]
    confusion: dict[str, dict[str, int]]
    price_accuracy: float
    mistakes: list[dict[str, Any]]


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


def _fail(path: Path, line_no: int, what: str) -> UsageError:
    return UsageError(f"{path}:{line_no}: {what}")


def _parse_turns(raw: Any, path: Path, line_no: int) -> tuple[Turn, ...]:
    if not isinstance(raw, list) or not raw:
        raise _fail(path, line_no, '"turns" must be a non-empty list')
    turns: list[Turn] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise _fail(path, line_no, f"turn {i} must be an object with speaker and text")
        speaker, text = item.get("speaker"), item.get("text")
        if speaker not in SPEAKERS:
            raise _fail(path, line_no, f'turn {i} has speaker {speaker!r}; use "seller" or "buyer"')
        if not isinstance(text, str):
            raise _fail(path, line_no, f'turn {i} needs a string "text"')
        turns.append(Turn(speaker=speaker, text=text))
    return tuple(turns)


def _parse_line(line: str, path: Path, line_no: int) -> LabelledWindow:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _fail(path, line_no, f"invalid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise _fail(path, line_no, "each line must be a JSON object")
    if "turns" not in record:
        raise _fail(path, line_no, 'missing "turns"')
    turns = _parse_turns(record["turns"], path, line_no)
    label = record.get("label")
    if label not in STATES:
        raise _fail(path, line_no, f'"label" is {label!r}; use one of {", ".join(STATES)}')
    price = record.get("price")
    if price is not None and (
        isinstance(price, bool) or not isinstance(price, int | float) or not math.isfinite(price)
    ):
        raise _fail(path, line_no, f'"price" is {price!r}; use a number or null')
    if label == "deal" and price is None and "price" not in record:
        raise _fail(path, line_no, 'a "deal" needs a "price" (a number, or null if unknown)')
    scenario = record.get("scenario")
    if scenario is not None and not isinstance(scenario, dict):
        raise _fail(path, line_no, '"scenario" must be an object')
    raw_id = record.get("id")
    extra = {
        k: v for k, v in record.items() if k not in {"turns", "label", "price", "scenario", "id"}
    }
    return LabelledWindow(
        turns=turns,
        label=cast(State, label),
        price=None if price is None else float(price),
        scenario=scenario,
        id=None if raw_id is None else str(raw_id),
        extra=extra,
    )


def load_labelled(path: Path) -> list[LabelledWindow]:
    """Read a JSONL file of labelled windows; blank lines are skipped.

    Raises :class:`UsageError` naming the file and line when the file is missing or a line is bad.
    """
    path = Path(path)
    try:
        content = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: labelled file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the labelled file ({exc})") from None
    items = [
        _parse_line(line, path, line_no)
        for line_no, line in enumerate(content.splitlines(), start=1)
        if line.strip()
    ]
    if not items:
        raise UsageError(f"{path}: no labelled windows in the file")
    return items


# ---------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------


def _price_ok(gold: float | None, predicted: float | None) -> bool:
    return gold is not None and predicted is not None and abs(gold - predicted) < PRICE_TOLERANCE


def evaluate(moderator: Moderator, items: Sequence[LabelledWindow]) -> EvalReport:
    """Run ``moderator`` on every window and compare with the gold labels and prices.

    ``price_accuracy`` is over gold deals: the fraction predicted ``deal`` with the gold price
    (within half a cent).  A gold deal whose price is ``null`` counts as right when the prediction
    is a deal without a price.
    """
    confusion: dict[str, dict[str, int]] = {g: dict.fromkeys(STATES, 0) for g in STATES}
    mistakes: list[dict[str, Any]] = []
    correct = 0
    gold_deals = 0
    price_right = 0
    for index, item in enumerate(items):
        verdict = moderator.classify(list(item.turns), item.scenario)
        confusion[item.label][verdict.state] += 1
        label_ok = verdict.state == item.label
        correct += label_ok
        price_ok = True
        if item.label == "deal":
            gold_deals += 1
            if verdict.state == "deal":
                price_ok = (
                    verdict.price is None
                    if item.price is None
                    else _price_ok(item.price, verdict.price)
                )
            else:
                price_ok = False
            price_right += price_ok
        if not label_ok or not price_ok:
            mistakes.append(
                {
                    "id": item.id if item.id is not None else f"#{index + 1}",
                    "turns": [dict(t) for t in item.turns],
                    "gold_label": item.label,
                    "gold_price": item.price,
                    "predicted_label": verdict.state,
                    "predicted_price": verdict.price,
                    "reason": verdict.reason,
                    **({"trap": item.extra["trap"]} if "trap" in item.extra else {}),
                }
            )
    per_class: dict[str, ClassStats] = {}
    for label in STATES:
        support = sum(confusion[label].values())
        predicted = sum(confusion[g][label] for g in STATES)
        hits = confusion[label][label]
        per_class[label] = ClassStats(
            precision=hits / predicted if predicted else 0.0,
            recall=hits / support if support else 0.0,
            support=support,
        )
    n = len(items)
    return EvalReport(
        n=n,
        accuracy=correct / n if n else 0.0,
        per_class=per_class,
        confusion=confusion,
        price_accuracy=price_right / gold_deals if gold_deals else 0.0,
        mistakes=mistakes,
    )


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


def _money(amount: float | None) -> str:
    return "-" if amount is None else format_money(amount)


def render_report(report: EvalReport, console: Console) -> None:
    """Print the figures, the per-class table, the confusion table and the mistakes."""
    console.print(f"[bold]Windows:[/bold] {report.n}")
    console.print(f"[bold]Label accuracy:[/bold] {report.accuracy:.3f}")
    console.print(f"[bold]Price accuracy (gold deals):[/bold] {report.price_accuracy:.3f}")

    classes = Table(title="Per class")
    classes.add_column("label")
    classes.add_column("precision", justify="right")
    classes.add_column("recall", justify="right")
    classes.add_column("support", justify="right")
    for label, stats in report.per_class.items():
        classes.add_row(label, f"{stats.precision:.3f}", f"{stats.recall:.3f}", str(stats.support))
    console.print(classes)

    confusion = Table(title="Confusion (rows: gold, columns: predicted)")
    confusion.add_column("gold \\ predicted")
    for label in STATES:
        confusion.add_column(label, justify="right")
    for gold in STATES:
        row = report.confusion.get(gold, {})
        confusion.add_row(gold, *(str(row.get(p, 0)) for p in STATES))
    console.print(confusion)

    if not report.mistakes:
        console.print("[green]No mistakes.[/green]")
        return
    mistakes = Table(title=f"Mistakes ({len(report.mistakes)})", show_lines=True)
    mistakes.add_column("id")
    mistakes.add_column("turns")
    mistakes.add_column("gold")
    mistakes.add_column("predicted")
    for mistake in report.mistakes:
        turns = "\n".join(f"{t['speaker']}: {t['text']}" for t in mistake["turns"])
        gold_text = f"{mistake['gold_label']} {_money(mistake['gold_price'])}"
        predicted = f"{mistake['predicted_label']} {_money(mistake['predicted_price'])}"
        if mistake.get("reason"):
            predicted += f"\n({mistake['reason']})"
        mistakes.add_row(str(mistake["id"]), turns, gold_text, predicted)
    console.print(mistakes)
