"""Judge a moderator on labelled windows: label accuracy, precision/recall, price accuracy.

The labelled file is JSON Lines, one window per line::

    {"turns": [{"speaker": "seller", "text": "..."}, ...], "label": "deal", "price": 15,
     "scenario": {"item": "...", "list_price": 20, "buyer_open": 12}, "id": "w001", "trap": "..."}

``scenario``, ``id`` and any other keys are optional.

:func:`evaluate` runs a synchronous moderator (the rules); :func:`aevaluate` any moderator with an
``aclassify`` (the ``llm`` and ``hybrid`` modes), several windows at a time, counting the model
calls and how each verdict was reached.
"""

from __future__ import annotations

import asyncio
import json
import math
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, cast

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from icl_aif.core.errors import UsageError
from icl_aif.core.transcript import STATES, State, Turn, format_money
from icl_aif.games.price.scenario import SEATS
from icl_aif.games.price.verdict import PriceVerdict

__all__ = [
    "MISTAKE_KINDS",
    "AsyncPriceJudge",
    "ClassStats",
    "EvalReport",
    "LabelledWindow",
    "SyncJudge",
    "aevaluate",
    "evaluate",
    "kinds_line",
    "load_labelled",
    "mistake_kind",
    "mistake_kinds",
    "parse_labelled",
    "render_report",
    "score",
    "write_failures",
]

PRICE_TOLERANCE = 0.005

MISTAKE_KINDS = (
    "deal never called",
    "deal at the wrong price",
    "no deal called a deal",
    "premature verdict",
    "late verdict",
)
"""The kinds of a wrong verdict, worst first (:func:`mistake_kind`)."""


def mistake_kind(gold: str, predicted: str) -> str:
    """The kind of a wrong verdict, from the gold label and the predicted one.

    A deal recorded as no deal is a deal never called; a deal called at another price is a deal
    at the wrong price; a no deal called a deal is one of its own; a round that goes on but is
    called over is premature; a round that ended but is left going on is late. (A whole dialog
    is never left going on: a replay without a terminal verdict predicts no deal.)
    """
    if gold == "deal":
        return {"deal": "deal at the wrong price", "no_deal": "deal never called"}.get(
            predicted, "late verdict"
        )
    if gold == "no_deal":
        return "no deal called a deal" if predicted == "deal" else "late verdict"
    return "premature verdict"


def mistake_kinds(pairs: Sequence[tuple[str, str]]) -> dict[str, int]:
    """How many wrong verdicts of each kind, from their (gold, predicted) labels."""
    counts = Counter(mistake_kind(gold, predicted) for gold, predicted in pairs)
    return {kind: counts[kind] for kind in MISTAKE_KINDS}


class SyncJudge(Protocol):
    """Anything that can label a window of turns."""

    def classify(
        self, window: Sequence[Turn], scenario: Mapping[str, Any] | None = None
    ) -> PriceVerdict:
        """The state after the last turn of ``window``."""
        ...


class AsyncPriceJudge(Protocol):
    """A moderator judged through its coroutine, which may call a model and record the calls."""

    name: str

    async def aclassify(
        self,
        window: list[Turn],
        scenario: dict[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> PriceVerdict:
        """The state after the last turn of ``window``; model calls are appended to ``calls``."""
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

    def to_record(self) -> dict[str, Any]:
        """The window as one line of a labelled file (``id`` first when it has one)."""
        record: dict[str, Any] = {} if self.id is None else {"id": self.id}
        record.update(turns=[dict(t) for t in self.turns], label=self.label, price=self.price)
        if self.scenario is not None:
            record["scenario"] = dict(self.scenario)
        record.update(self.extra)
        return record


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
    failures: list[dict[str, Any]] = field(default_factory=list)  # labelled shape + "predicted"
    kinds: dict[str, int] = field(default_factory=dict)  # mistakes by kind (MISTAKE_KINDS)
    moderator: str = "rules"
    calls: int = 0  # model calls made, failed ones included
    llm_windows: int = 0  # windows on which the model was called
    decided_by: dict[str, int] = field(default_factory=dict)
    parse: dict[str, int] = field(default_factory=dict)
    cost_usd: float | None = None  # known cost of the calls; None when no call had a price
    seconds: float = 0.0


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


def _fail(path: Path | str, line_no: int, what: str) -> UsageError:
    return UsageError(f"{path}:{line_no}: {what}")


def _parse_turns(raw: Any, path: Path | str, line_no: int) -> tuple[Turn, ...]:
    if not isinstance(raw, list) or not raw:
        raise _fail(path, line_no, '"turns" must be a non-empty list')
    turns: list[Turn] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise _fail(path, line_no, f"turn {i} must be an object with speaker and text")
        speaker, text = item.get("speaker"), item.get("text")
        if not isinstance(speaker, str) or speaker not in SEATS:
            raise _fail(path, line_no, f'turn {i} has speaker {speaker!r}; use "seller" or "buyer"')
        if not isinstance(text, str):
            raise _fail(path, line_no, f'turn {i} needs a string "text"')
        turns.append(Turn(speaker=speaker, text=text))
    return tuple(turns)


def parse_line(line: str, path: Path | str, line_no: int) -> LabelledWindow:
    """One line of a labelled file; a bad line raises :class:`UsageError` naming file and line."""
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
    items = parse_labelled(content, path)
    if not items:
        raise UsageError(f"{path}: no labelled windows in the file")
    return items


def parse_labelled(content: str, source: Path | str) -> list[LabelledWindow]:
    """The labelled windows in JSONL ``content`` (blank lines skipped); ``source`` names errors."""
    return [
        parse_line(line, source, line_no)
        for line_no, line in enumerate(content.splitlines(), start=1)
        if line.strip()
    ]


# ---------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------


def _price_ok(gold: float | None, predicted: float | None) -> bool:
    return gold is not None and predicted is not None and abs(gold - predicted) < PRICE_TOLERANCE


def evaluate(moderator: SyncJudge, items: Sequence[LabelledWindow]) -> EvalReport:
    """Run ``moderator`` on every window and compare with the gold labels and prices (:func:`score`)."""
    started = time.perf_counter()
    report = score(items, [moderator.classify(list(item.turns), item.scenario) for item in items])
    report.seconds = time.perf_counter() - started
    return report


async def aevaluate(
    moderator: AsyncPriceJudge,
    items: Sequence[LabelledWindow],
    *,
    concurrency: int = 4,
    progress: Callable[[int], None] | None = None,
) -> EvalReport:
    """:func:`evaluate` for a moderator that may call a model: ``concurrency`` windows at a time.

    The report also counts the model calls, the windows that needed one, who decided
    (``decided_by``) and how replies were read (``parse``). A failed model call raises
    :class:`icl_aif.models.calls.ModelCallError`.
    """
    gate = asyncio.Semaphore(max(1, concurrency))
    started = time.perf_counter()

    async def one(item: LabelledWindow) -> tuple[PriceVerdict, list[dict[str, Any]]]:
        calls: list[dict[str, Any]] = []
        async with gate:
            scenario = None if item.scenario is None else dict(item.scenario)
            verdict = await moderator.aclassify(list(item.turns), scenario, calls)
        if progress is not None:
            progress(1)
        return verdict, calls

    done = await asyncio.gather(*(one(item) for item in items))
    report = score(items, [verdict for verdict, _ in done])
    report.moderator = moderator.name
    all_calls = [call for _, calls in done for call in calls]
    report.calls = len(all_calls)
    report.llm_windows = sum(1 for _, calls in done if calls)
    report.decided_by = dict(Counter(v.decided_by or moderator.name for v, _ in done))
    report.parse = dict(Counter(v.parse for v, _ in done if v.parse is not None))
    costs = [c["cost_usd"] for c in all_calls if c.get("cost_usd") is not None]
    report.cost_usd = sum(costs) if costs else None
    report.seconds = time.perf_counter() - started
    return report


def score(items: Sequence[LabelledWindow], verdicts: Sequence[PriceVerdict]) -> EvalReport:
    """Compare ``verdicts`` (one per window) with the gold labels and prices.

    ``price_accuracy`` is over gold deals: the fraction predicted ``deal`` with the gold price
    (within half a cent).  A gold deal whose price is ``null`` counts as right when the prediction
    is a deal without a price.
    """
    confusion: dict[str, dict[str, int]] = {g: dict.fromkeys(STATES, 0) for g in STATES}
    mistakes: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    correct = 0
    gold_deals = 0
    price_right = 0
    for index, (item, verdict) in enumerate(zip(items, verdicts, strict=True)):
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
                    "kind": mistake_kind(item.label, verdict.state),
                    "reason": verdict.reason,
                    "decided_by": verdict.decided_by,
                    "parse": verdict.parse,
                    **({"trap": item.extra["trap"]} if "trap" in item.extra else {}),
                }
            )
            failures.append({**item.to_record(), "predicted": _predicted(verdict)})
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
        failures=failures,
        kinds=mistake_kinds([(m["gold_label"], m["predicted_label"]) for m in mistakes]),
    )


def _predicted(verdict: PriceVerdict) -> dict[str, Any]:
    return {
        "label": verdict.state,
        "price": verdict.price,
        "reason": verdict.reason,
        "decided_by": verdict.decided_by,
        "parse": verdict.parse,
    }


def write_failures(report: EvalReport, path: Path) -> int:
    """Write the mistakes as a labelled file (gold ``label``/``price``, the answer under
    ``predicted``), ready to be corrected and added with ``icl-aif moderator-add``; their count."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with Path(path).open("w", encoding="utf-8") as handle:
            for failure in report.failures:
                handle.write(json.dumps(failure, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write the failures ({exc})") from None
    return len(report.failures)


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


def _money(amount: float | None) -> str:
    return "-" if amount is None else format_money(amount)


def _render_calls(report: EvalReport, console: Console) -> None:
    """Model calls, windows sent to the model, calls saved versus ``llm``, who decided, parse paths."""
    console.print(f"[bold]Model calls:[/bold] {report.calls} ({_cost(report.cost_usd)})")
    console.print(f"[bold]Windows sent to the model:[/bold] {report.llm_windows} of {report.n}")
    if report.moderator == "hybrid":
        saved = report.n - report.llm_windows
        share = saved / report.n if report.n else 0.0
        console.print(
            f"[bold]Calls saved versus llm[/bold] (one call a window): {saved} ({share:.0%})"
        )
    decided = ", ".join(f"{k} {v}" for k, v in sorted(report.decided_by.items())) or "-"
    console.print(f"[bold]Decided by:[/bold] {decided}")
    paths = ", ".join(f"{k} {v}" for k, v in sorted(report.parse.items())) or "-"
    console.print(f"[bold]Parse paths of model verdicts:[/bold] {paths}")


def _cost(cost: float | None) -> str:
    return "cost unknown" if cost is None else f"${cost:.4f}"


def kinds_line(kinds: Mapping[str, int]) -> str:
    """The mistakes by kind (:data:`MISTAKE_KINDS`, worst first) in one line."""
    return "mistakes by kind: " + ", ".join(f"{k} {kinds.get(k, 0)}" for k in MISTAKE_KINDS)


def render_report(report: EvalReport, console: Console) -> None:
    """Print the figures (the mistakes by kind among them), the per-class table, the confusion
    table and the mistakes."""
    console.print(f"[bold]Moderator:[/bold] {report.moderator}")
    console.print(f"[bold]Windows:[/bold] {report.n}")
    console.print(f"[bold]Label accuracy:[/bold] {report.accuracy:.3f}")
    console.print(f"[bold]Price accuracy (gold deals):[/bold] {report.price_accuracy:.3f}")
    console.print(kinds_line(report.kinds), markup=False, highlight=False, soft_wrap=True)
    if report.moderator != "rules":
        _render_calls(report, console)
    console.print(f"[bold]Wall time:[/bold] {report.seconds:.1f} s")

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
        if mistake.get("decided_by") and mistake["decided_by"] != "rules":
            predicted += f"\nvia {mistake['decided_by']} ({mistake.get('parse') or 'unread'})"
        mistakes.add_row(escape(str(mistake["id"])), escape(turns), gold_text, escape(predicted))
    console.print(mistakes)
