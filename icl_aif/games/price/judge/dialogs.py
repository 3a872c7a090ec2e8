"""Judge a moderator on whole dialogs, replayed line by line as a game would judge them.

The dialog file is JSON Lines, one dialog a line::

    {"id": "d1", "turns": [{"speaker": "buyer", "text": "..."}, ...], "label": "deal",
     "price": 15, "openers": 0, "scenario": {"item": "...", "list_price": 20, "buyer_open": 12}}

``id``, ``openers`` (default 0) and ``scenario`` are optional; ``label`` is ``deal`` or
``no_deal`` and ``price`` the agreed price (a number, or null when unknown or no deal).

:func:`replay` judges a dialog as the game does (``icl_aif.engine.nodes.moderate``): after every line past
the ``openers``, the last ``window`` turns go to ``judge.aclassify(window, scenario_info, calls)``,
``scenario_info`` being the public values of ``PriceGame.judge_info`` (``item``, ``list_price``,
``buyer_open``). The first terminal verdict (``deal`` or ``no_deal``) ends the replay. The end of
the dialog is treated like the game's exchange cap: a dialog with no terminal verdict by its last
line is predicted ``no_deal``.

:func:`evaluate_dialogs` scores the first terminal verdicts against the labels
(:class:`DialogReport`):

- outcome accuracy: the predicted outcome equals the label;
- price accuracy: over dialogs labelled ``deal``, the fraction predicted ``deal`` at the label's
  price (within :data:`~icl_aif.games.price.judge.evaluation.PRICE_TOLERANCE`, as for windows;
  a deal labelled with a null price is right when the predicted deal has none either);
- timing: ``early`` (the verdict came while more than one line of the dialog remained),
  ``penultimate`` (exactly one line remained), ``last`` (at the last line), ``none`` (no terminal
  verdict: predicted ``no_deal``). *Premature* verdicts are the ``early`` ones: the game would have
  ended the round while the people still had at least two lines to say; *late* ones are ``last``
  and ``none``. Each count also says how many of its dialogs are mistakes;
- mistakes: a wrong outcome, or a deal at a wrong price.
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
from typing import Any, Literal, cast

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from icl_aif.core.errors import UsageError
from icl_aif.core.transcript import Turn, format_money
from icl_aif.games.price.judge.evaluation import (
    PRICE_TOLERANCE,
    AsyncPriceJudge,
    _fail,
    _parse_turns,
    kinds_line,
    mistake_kind,
    mistake_kinds,
)
from icl_aif.games.price.verdict import PriceVerdict

__all__ = [
    "OUTCOMES",
    "TIMINGS",
    "Dialog",
    "DialogReport",
    "Outcome",
    "Replay",
    "Timing",
    "areplay",
    "evaluate_dialogs",
    "load_dialogs",
    "parse_dialogs",
    "render_dialog_report",
    "replay",
    "score_dialogs",
    "write_mistakes",
]

Outcome = Literal["deal", "no_deal"]
Timing = Literal["early", "penultimate", "last", "none"]

OUTCOMES: tuple[Outcome, ...] = ("deal", "no_deal")
TIMINGS: tuple[Timing, ...] = ("early", "penultimate", "last", "none")
JUDGE_INFO_KEYS = ("item", "list_price", "buyer_open")  # what PriceGame.judge_info shows the judge
SHOWN_MISTAKES = 5  # mistakes printed by render_dialog_report


@dataclass(frozen=True)
class Dialog:
    """One labelled dialog: every line, the outcome and price, and optional context."""

    turns: tuple[Turn, ...]
    label: Outcome
    price: float | None
    openers: int = 0
    scenario: Mapping[str, Any] | None = None
    id: str | None = None

    def judge_info(self) -> dict[str, Any] | None:
        """The scenario as the game passes it to the judge: only ``item``, ``list_price`` and
        ``buyer_open`` (those present); None without a scenario."""
        if self.scenario is None:
            return None
        return {k: self.scenario[k] for k in JUDGE_INFO_KEYS if k in self.scenario}


@dataclass(frozen=True)
class Replay:
    """A dialog replayed: its first terminal verdict, where it came, and the window judged then.

    ``line`` is the 1-based number of the line after which the verdict came (None when no verdict
    was terminal); ``window`` the turns judged then (the last window judged when none was terminal).
    """

    dialog: Dialog
    verdict: PriceVerdict | None
    line: int | None
    window: tuple[Turn, ...]
    judged: int  # windows sent to the judge
    calls: int = 0  # model calls made by the judge, failed ones included

    @property
    def predicted(self) -> Outcome:
        """The predicted outcome: the first terminal verdict, ``no_deal`` without one (the cap)."""
        return "no_deal" if self.verdict is None else cast(Outcome, self.verdict.state)

    @property
    def predicted_price(self) -> float | None:
        """The price of a predicted deal; None otherwise."""
        return self.verdict.price if self.verdict is not None and self.predicted == "deal" else None

    @property
    def remaining(self) -> int | None:
        """Lines of the dialog after the verdict; None without a terminal verdict."""
        return None if self.line is None else len(self.dialog.turns) - self.line

    @property
    def timing(self) -> Timing:
        """``early`` (more than one line remained), ``penultimate``, ``last`` or ``none``."""
        remaining = self.remaining
        if remaining is None:
            return "none"
        return "early" if remaining > 1 else "penultimate" if remaining == 1 else "last"

    @property
    def outcome_ok(self) -> bool:
        """The predicted outcome is the label."""
        return self.predicted == self.dialog.label

    @property
    def price_ok(self) -> bool | None:
        """On a dialog labelled ``deal``: predicted a deal at the label's price; None otherwise."""
        if self.dialog.label != "deal":
            return None
        if self.predicted != "deal":
            return False
        gold, found = self.dialog.price, self.predicted_price
        if gold is None:
            return found is None
        return found is not None and abs(gold - found) < PRICE_TOLERANCE

    @property
    def correct(self) -> bool:
        """Right outcome and, on a deal, right price."""
        return self.outcome_ok and self.price_ok is not False


@dataclass
class DialogReport:
    """The result of :func:`evaluate_dialogs` (see the module's docstring for each figure)."""

    n: int
    window: int
    outcome_accuracy: float
    price_accuracy: float
    deals: int  # dialogs labelled deal (price accuracy's denominator)
    confusion: dict[str, dict[str, int]]  # label -> predicted -> count
    no_verdict: dict[str, int]  # label -> dialogs without a terminal verdict (predicted no_deal)
    timing: dict[str, int]  # early / penultimate / last / none -> dialogs
    timing_wrong: dict[str, int]  # the same, mistakes only
    mistakes: list[dict[str, Any]]
    replays: list[Replay] = field(default_factory=list)
    kinds: dict[str, int] = field(default_factory=dict)
    """The mistakes by kind (:data:`MISTAKE_KINDS`): by outcome (never called, wrong price, no deal
    called a deal); premature and late count when the wrong verdicts came, across those."""
    moderator: str = "rules"
    calls: int = 0
    decided_by: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def premature(self) -> int:
        """Dialogs whose first terminal verdict came while more than one line remained."""
        return self.timing["early"]

    @property
    def premature_wrong(self) -> int:
        """Premature verdicts that are mistakes (wrong outcome, or a deal at a wrong price)."""
        return self.timing_wrong["early"]

    @property
    def late(self) -> int:
        """Dialogs whose first terminal verdict came only at the last line, or never."""
        return self.timing["last"] + self.timing["none"]

    @property
    def late_wrong(self) -> int:
        """Late verdicts that are mistakes."""
        return self.timing_wrong["last"] + self.timing_wrong["none"]


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


def _number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def parse_dialog(line: str, path: Path | str, line_no: int) -> Dialog:
    """One line of a dialog file; a bad line raises :class:`UsageError` naming file, line, field."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise _fail(path, line_no, f"invalid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise _fail(path, line_no, "each line must be a JSON object (one dialog)")
    if "turns" not in record:
        raise _fail(path, line_no, 'missing "turns"')
    turns = _parse_turns(record["turns"], path, line_no)
    label = record.get("label")
    if label not in OUTCOMES:
        raise _fail(path, line_no, f'"label" is {label!r}; use "deal" or "no_deal"')
    if "price" not in record and label == "deal":
        raise _fail(path, line_no, 'a "deal" needs a "price" (a number, or null if unknown)')
    price = record.get("price")
    if price is not None and not _number(price):
        raise _fail(path, line_no, f'"price" is {price!r}; use a number or null')
    openers = record.get("openers", 0)
    if isinstance(openers, bool) or not isinstance(openers, int) or openers < 0:
        raise _fail(path, line_no, f'"openers" is {openers!r}; use a whole number, 0 or more')
    if openers >= len(turns):
        raise _fail(
            path, line_no, f'"openers" is {openers} of {len(turns)} turns; no line left to judge'
        )
    scenario = record.get("scenario")
    if scenario is not None:
        if not isinstance(scenario, dict):
            raise _fail(path, line_no, '"scenario" must be an object')
        for key in ("list_price", "buyer_open"):
            if scenario.get(key) is not None and not _number(scenario[key]):
                raise _fail(path, line_no, f'"scenario.{key}" is {scenario[key]!r}; use a number')
    raw_id = record.get("id")
    return Dialog(
        turns=turns,
        label=cast(Outcome, label),
        price=None if price is None else float(price),
        openers=openers,
        scenario=scenario,
        id=None if raw_id is None else str(raw_id),
    )


def parse_dialogs(content: str, source: Path | str) -> list[Dialog]:
    """The dialogs in JSONL ``content`` (blank lines skipped); ``source`` names errors."""
    return [
        parse_dialog(line, source, line_no)
        for line_no, line in enumerate(content.splitlines(), start=1)
        if line.strip()
    ]


def load_dialogs(path: Path | str) -> list[Dialog]:
    """Read a JSONL file of labelled dialogs; blank lines are skipped.

    Raises :class:`UsageError` naming the file (and the line and field) when the file is missing,
    unreadable, empty, or a line is bad.
    """
    path = Path(path)
    try:
        content = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: dialog file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the dialog file ({exc})") from None
    dialogs = parse_dialogs(content, path)
    if not dialogs:
        raise UsageError(f"{path}: no dialogs in the file")
    return dialogs


# ---------------------------------------------------------------------------------------------
# Replaying
# ---------------------------------------------------------------------------------------------


def _window(turns: Sequence[Turn], end: int, size: int) -> list[Turn]:
    """The last ``size`` turns of ``turns[:end]``, as the game shows them (``judge_window``)."""
    return [Turn(speaker=t["speaker"], text=t["text"]) for t in turns[:end][-size:]]


async def areplay(
    judge: AsyncPriceJudge,
    dialog: Dialog,
    window: int = 4,
    calls: list[dict[str, Any]] | None = None,
) -> Replay:
    """Judge ``dialog`` after every line past its openers until the first terminal verdict.

    The judge sees the last ``window`` turns and the dialog's :meth:`Dialog.judge_info`; its model
    calls are appended to ``calls``. A failed model call raises
    :class:`icl_aif.models.calls.ModelCallError`.
    """
    if window < 1:
        raise UsageError(f"window {window}: judge at least one turn")
    made: list[dict[str, Any]] = [] if calls is None else calls
    before = len(made)
    info = dialog.judge_info()
    shown: list[Turn] = []
    judged = 0
    for end in range(dialog.openers + 1, len(dialog.turns) + 1):
        shown = _window(dialog.turns, end, window)
        verdict = await judge.aclassify(shown, None if info is None else dict(info), made)
        judged += 1
        if verdict.terminal:
            return Replay(dialog, verdict, end, tuple(shown), judged, len(made) - before)
    return Replay(dialog, None, None, tuple(shown), judged, len(made) - before)


def replay(judge: AsyncPriceJudge, dialog: Dialog, window: int = 4) -> Replay:
    """:func:`areplay` from synchronous code (not inside a running event loop)."""
    return asyncio.run(areplay(judge, dialog, window))


async def aevaluate_dialogs(
    judge: AsyncPriceJudge,
    dialogs: Sequence[Dialog],
    window: int = 4,
    *,
    concurrency: int = 4,
    progress: Callable[[int], None] | None = None,
) -> DialogReport:
    """:func:`evaluate_dialogs` inside an event loop: ``concurrency`` dialogs replayed at once."""
    gate = asyncio.Semaphore(max(1, concurrency))
    started = time.perf_counter()

    async def one(dialog: Dialog) -> Replay:
        async with gate:
            done = await areplay(judge, dialog, window)
        if progress is not None:
            progress(1)
        return done

    replays = await asyncio.gather(*(one(d) for d in dialogs))
    report = score_dialogs(replays, window)
    report.moderator = judge.name
    report.calls = sum(r.calls for r in replays)
    report.decided_by = dict(
        Counter(r.verdict.decided_by or judge.name for r in replays if r.verdict is not None)
    )
    report.seconds = time.perf_counter() - started
    return report


def evaluate_dialogs(
    judge: AsyncPriceJudge,
    dialogs: Sequence[Dialog],
    window: int = 4,
    *,
    concurrency: int = 4,
    progress: Callable[[int], None] | None = None,
) -> DialogReport:
    """Replay every dialog (:func:`replay`) and score the first terminal verdicts
    (:func:`score_dialogs`). Call from synchronous code; a model-backed judge replays
    ``concurrency`` dialogs at a time."""
    return asyncio.run(
        aevaluate_dialogs(judge, dialogs, window, concurrency=concurrency, progress=progress)
    )


# ---------------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------------


def _mistake(index: int, done: Replay) -> dict[str, Any]:
    d, verdict = done.dialog, done.verdict
    return {
        "id": d.id if d.id is not None else f"#{index + 1}",
        "label": d.label,
        "price": d.price,
        "predicted": done.predicted,
        "predicted_price": done.predicted_price,
        "line": done.line,
        "lines": len(d.turns),
        "timing": done.timing,
        "kind": mistake_kind(d.label, done.predicted),
        "reason": "no terminal verdict by the end" if verdict is None else verdict.reason,
        "decided_by": None if verdict is None else verdict.decided_by,
        "window": [dict(t) for t in done.window],
    }


def score_dialogs(replays: Sequence[Replay], window: int = 4) -> DialogReport:
    """Compare each replay's first terminal verdict with its dialog's label and price."""
    confusion: dict[str, dict[str, int]] = {g: dict.fromkeys(OUTCOMES, 0) for g in OUTCOMES}
    no_verdict: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    timing: dict[str, int] = dict.fromkeys(TIMINGS, 0)
    timing_wrong: dict[str, int] = dict.fromkeys(TIMINGS, 0)
    mistakes: list[dict[str, Any]] = []
    for index, done in enumerate(replays):
        label = done.dialog.label
        confusion[label][done.predicted] += 1
        no_verdict[label] += done.verdict is None
        timing[done.timing] += 1
        if not done.correct:
            timing_wrong[done.timing] += 1
            mistakes.append(_mistake(index, done))
    n = len(replays)
    deals = sum(1 for r in replays if r.dialog.label == "deal")
    return DialogReport(
        n=n,
        window=window,
        outcome_accuracy=sum(r.outcome_ok for r in replays) / n if n else 0.0,
        price_accuracy=sum(r.price_ok is True for r in replays) / deals if deals else 0.0,
        deals=deals,
        confusion=confusion,
        no_verdict=no_verdict,
        timing=timing,
        timing_wrong=timing_wrong,
        mistakes=mistakes,
        replays=list(replays),
        kinds={
            **mistake_kinds([(r.dialog.label, r.predicted) for r in replays if not r.correct]),
            "premature verdict": timing_wrong["early"],  # when the verdict came, across the kinds
            "late verdict": timing_wrong["last"] + timing_wrong["none"],
        },
    )


def write_mistakes(report: DialogReport, path: Path | str) -> int:
    """Write the mistakes, one JSON object a line (id, label, price, predicted, predicted_price,
    line, lines, timing, reason, decided_by, window); their count."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("w", encoding="utf-8") as handle:
            for mistake in report.mistakes:
                handle.write(json.dumps(mistake, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write the mistakes ({exc})") from None
    return len(report.mistakes)


# ---------------------------------------------------------------------------------------------
# Rendering
# ---------------------------------------------------------------------------------------------


def _outcome(label: str, price: float | None) -> str:
    return label if price is None else f"{label} {format_money(price)}"


def render_dialog_report(
    report: DialogReport, console: Console, *, shown: int = SHOWN_MISTAKES
) -> None:
    """Print the figures, the confusion and timing tables and the first ``shown`` mistakes."""

    def plain(text: str) -> None:
        console.print(text, markup=False, highlight=False, soft_wrap=True)

    plain(f"Moderator: {report.moderator}")
    plain(f"Dialogs: {report.n} ({report.deals} deals), window {report.window}")
    plain(f"outcome accuracy: {report.outcome_accuracy:.3f}")
    plain(f"price accuracy: {report.price_accuracy:.3f}")
    plain(kinds_line(report.kinds) + " (premature and late: when the wrong verdicts came)")
    plain(
        f"premature verdicts: {report.premature} ({report.premature_wrong} wrong): "
        "terminal while more than 1 line remained"
    )
    plain(
        f"late verdicts: {report.late} ({report.late_wrong} wrong): "
        f"at the last line {report.timing['last']}, none by the end {report.timing['none']}"
        " (none = predicted no_deal)"
    )
    if report.moderator != "rules":
        decided = ", ".join(f"{k} {v}" for k, v in sorted(report.decided_by.items())) or "-"
        plain(f"Model calls: {report.calls}; decided by: {decided}")
    plain(f"Wall time: {report.seconds:.1f} s")

    confusion = Table(title="Confusion (rows: label, columns: predicted)")
    confusion.add_column("label \\ predicted")
    for label in OUTCOMES:
        confusion.add_column(label, justify="right")
    confusion.add_column("of which no verdict", justify="right")
    for gold in OUTCOMES:
        row = report.confusion[gold]
        confusion.add_row(gold, *(str(row[p]) for p in OUTCOMES), str(report.no_verdict[gold]))
    console.print(confusion)

    timing = Table(title="When the first terminal verdict came")
    timing.add_column("timing")
    timing.add_column("dialogs", justify="right")
    timing.add_column("mistakes", justify="right")
    names = {
        "early": "early: >1 line left (premature)",
        "penultimate": "1 line left",
        "last": "at the last line (late)",
        "none": "none: no_deal (late)",
    }
    for key in TIMINGS:
        timing.add_row(names[key], str(report.timing[key]), str(report.timing_wrong[key]))
    console.print(timing)

    if not report.mistakes:
        plain("No mistakes.")
        return
    if shown < 1:
        plain(f"Mistakes: {len(report.mistakes)}")
        return
    first = report.mistakes[:shown]
    table = Table(
        title=f"Mistakes: the first {len(first)} of {len(report.mistakes)}", show_lines=True
    )
    table.add_column("id")
    table.add_column("label")
    table.add_column("predicted")
    table.add_column("window at the verdict")
    for m in first:
        where = "no verdict" if m["line"] is None else f"line {m['line']} of {m['lines']}"
        predicted = f"{_outcome(m['predicted'], m['predicted_price'])}\n({where})"
        if m.get("reason"):
            predicted += f"\n{m['reason']}"
        turns = "\n".join(f"{t['speaker']}: {t['text']}" for t in m["window"])
        table.add_row(
            escape(str(m["id"])),
            _outcome(m["label"], m["price"]),
            escape(predicted),
            escape(turns),
        )
    console.print(table)
