"""``icl-aif moderator-eval FILE --dialogs``: whole dialogs replayed line by line, as a game judges."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.core.transcript import Turn
from icl_aif.games.price.judge.dialogs import (
    Dialog,
    evaluate_dialogs,
    load_dialogs,
    parse_dialogs,
    replay,
)
from icl_aif.games.price.verdict import PriceVerdict

CLI = Path(sys.executable).parent / "icl-aif"


def icl_aif(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "120"},
    )


def dialog(
    id: str,
    lines: Sequence[str],
    label: str,
    price: float | None,
    first: str = "seller",
    **extra: Any,
) -> dict[str, Any]:
    other = "buyer" if first == "seller" else "seller"
    turns = [{"speaker": first if i % 2 == 0 else other, "text": t} for i, t in enumerate(lines)]
    return {"id": id, "turns": turns, "label": label, "price": price, **extra}


GUITAR = [
    "I'm selling my guitar for $300.",
    "Okay, sounds good.",
    "It has a small scratch on the back.",
    "Then would you take $250?",
    "Yes, $250 is fine.",
]

DIALOGS = [
    # a deal at a stated price, one line of thanks after it: verdict with 1 line left, right
    dialog(
        "stated",
        [
            "Hello, the road bike is still for sale at $200.",
            "Would you let it go for $150?",
            "I could do $170.",
            "Deal, $170 works for me.",
            "Great, see you on Saturday.",
        ],
        "deal",
        170,
    ),
    # a walk-away at the last line: no deal, right (late)
    dialog(
        "walk",
        [
            "Would you sell the floor lamp for $20?",
            "No, $45 is the lowest I will go.",
            "That is too much for me. I'll pass, goodbye.",
        ],
        "no_deal",
        None,
        first="buyer",
    ),
    # the acceptance only at the last line: right (late)
    dialog(
        "last",
        [
            "The oak desk is $80.",
            "I can offer $60 for it.",
            "Meet me in the middle at $70?",
            "Okay, $70 it is.",
        ],
        "deal",
        70,
    ),
    # a premature deal: the people reopen it and settle at another price
    dialog(
        "early",
        [
            "I am asking $100 for the drum kit.",
            "Deal at $100.",
            "Actually, my partner says it has to be $120 now.",
            "That's annoying, but fine, $120.",
            "Thanks, it's yours for $120.",
            "See you then.",
        ],
        "deal",
        120,
    ),
    # the same guitar dialog with its two opening lines not judged, and judged
    dialog("openers", GUITAR, "deal", 250, openers=2),
    dialog("no-openers", GUITAR, "deal", 250),
    # no terminal verdict by the end: predicted no_deal, wrong here
    dialog(
        "silent",
        ["Would you take $40 for the kettle?", "Let me think about it overnight."],
        "deal",
        40,
        first="buyer",
    ),
]


def write(path: Path, records: Sequence[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def row(stdout: str, name: str) -> list[int]:
    """The numbers of the table row that starts with ``name``."""
    line = next(ln for ln in stdout.splitlines() if re.match(rf"│ {re.escape(name)}\s+│", ln))
    return [int(n) for n in re.findall(r"│\s+(\d+)\s+(?=│)", line)]


def test_the_cli_scores_whole_dialogs_and_writes_the_mistakes(tmp_path: Path) -> None:
    data = write(tmp_path / "dialogs.jsonl", DIALOGS)
    mistakes = tmp_path / "out" / "mistakes.jsonl"
    result = icl_aif(
        "moderator-eval", str(data), "--dialogs", "--mode", "rules", "--mistakes", str(mistakes)
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # 6 of 7 outcomes right (silent); right prices on stated, last, openers: 3 of 6 deals
    assert "outcome accuracy: 0.857" in lines
    assert "price accuracy: 0.500" in lines
    assert any(ln.startswith("premature verdicts: 2 (2 wrong)") for ln in lines)
    assert any(ln.startswith("late verdicts: 4 (1 wrong)") for ln in lines)
    assert (
        "mistakes by kind: deal never called 1, deal at the wrong price 2, no deal called a deal 0,"
        " premature verdict 2, late verdict 1 (premature and late: when the wrong verdicts came)"
    ) in lines
    assert row(result.stdout, "deal") == [5, 1, 1]  # deal, no_deal, of which no verdict
    assert row(result.stdout, "no_deal") == [0, 1, 0]
    assert "Mistakes: the first 3 of 3" in result.stdout
    assert "3 mistake(s) written to" in result.stdout

    written = [json.loads(ln) for ln in mistakes.read_text().splitlines()]
    assert [m["id"] for m in written] == ["early", "no-openers", "silent"]
    early, no_openers, silent = written
    assert (early["label"], early["price"], early["predicted"], early["predicted_price"]) == (
        "deal",
        120,
        "deal",
        100,
    )
    assert (early["line"], early["lines"], early["timing"]) == (2, 6, "early")
    assert early["window"][-1] == {"speaker": "buyer", "text": "Deal at $100."}
    assert no_openers["predicted_price"] == 300 and no_openers["line"] == 2
    assert silent["predicted"] == "no_deal" and silent["line"] is None
    assert silent["timing"] == "none" and len(silent["window"]) == 2


def test_a_smaller_window_is_what_the_moderator_sees() -> None:
    dialogs = parse_dialogs("".join(json.dumps(d) + "\n" for d in DIALOGS), "inline")
    judge = Recorder()
    evaluate_dialogs(judge, dialogs, 2)
    assert judge.windows and max(len(w) for w in judge.windows) == 2


# --- the definitions, with a scripted judge -----------------------------------------------------


class Recorder:
    """A judge that reads its script from the last line: ``DEAL 12``, ``WALK``, else ongoing."""

    name = "recorder"

    def __init__(self) -> None:
        self.windows: list[list[Turn]] = []
        self.scenarios: list[dict[str, Any] | None] = []

    async def aclassify(
        self,
        window: list[Turn],
        scenario: dict[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> PriceVerdict:
        self.windows.append(window)
        self.scenarios.append(scenario)
        text = window[-1]["text"]
        if text.startswith("DEAL"):
            return PriceVerdict("deal", price=float(text.split()[1]), reason="acceptance")
        if text == "WALK":
            return PriceVerdict("no_deal", reason="walk_away")
        return PriceVerdict("ongoing")


def one(record: dict[str, Any]) -> Dialog:
    return parse_dialogs(json.dumps(record), "inline")[0]


def test_replay_judges_after_each_line_past_the_openers_and_stops_at_the_first_verdict() -> None:
    scenario = {"item": "Bike", "list_price": 200, "buyer_open": 120, "private": "x"}
    lines = ["a", "b", "c", "d", "DEAL 150", "WALK", "e"]
    judge = Recorder()
    done = replay(judge, one(dialog("x", lines, "deal", 150, openers=2, scenario=scenario)), 3)
    assert [w[-1]["text"] for w in judge.windows] == ["c", "d", "DEAL 150"]  # not after a, b
    assert [t["text"] for t in judge.windows[0]] == ["a", "b", "c"]
    assert [t["text"] for t in done.window] == ["c", "d", "DEAL 150"]
    # the judge gets the scenario as PriceGame.judge_info has it: the public values only
    assert judge.scenarios[0] == {"item": "Bike", "list_price": 200, "buyer_open": 120}
    assert (done.predicted, done.predicted_price, done.line, done.remaining) == ("deal", 150, 5, 2)
    assert done.timing == "early" and done.correct


@pytest.mark.parametrize(
    ("lines", "label", "price", "timing", "predicted", "correct"),
    [
        (["a", "DEAL 10", "b", "c"], "deal", 10, "early", "deal", True),
        (["a", "b", "DEAL 10", "c"], "deal", 10, "penultimate", "deal", True),
        (["a", "b", "c", "DEAL 10.004"], "deal", 10, "last", "deal", True),  # within the tolerance
        (["a", "b", "c", "DEAL 11"], "deal", 10, "last", "deal", False),
        (["a", "b", "c", "d"], "no_deal", None, "none", "no_deal", True),  # the end is the cap
        (["a", "b", "c", "d"], "deal", 10, "none", "no_deal", False),
        (["a", "WALK", "DEAL 10", "d"], "deal", 10, "early", "no_deal", False),
    ],
)
def test_timing_and_the_predicted_outcome(
    lines: list[str], label: str, price: float | None, timing: str, predicted: str, correct: bool
) -> None:
    done = replay(Recorder(), one(dialog("x", lines, label, price)), 4)
    assert (done.timing, done.predicted, done.correct) == (timing, predicted, correct)


def test_the_report_counts_premature_and_late_verdicts() -> None:
    dialogs = [
        one(dialog("a", ["x", "DEAL 5", "y", "z"], "deal", 5)),  # early, right
        one(dialog("b", ["x", "DEAL 5", "y", "z"], "no_deal", None)),  # early, wrong
        one(dialog("c", ["x", "y", "DEAL 5", "z"], "deal", 6)),  # penultimate, wrong price
        one(dialog("d", ["x", "y", "WALK"], "no_deal", None)),  # last, right
        one(dialog("e", ["x", "y"], "deal", 5)),  # none, wrong
        one(dialog("f", ["x", "y"], "no_deal", None)),  # none, right
    ]
    report = evaluate_dialogs(Recorder(), dialogs, 4)
    assert report.confusion == {
        "deal": {"deal": 2, "no_deal": 1},
        "no_deal": {"deal": 1, "no_deal": 2},
    }
    assert report.no_verdict == {"deal": 1, "no_deal": 1}
    assert report.outcome_accuracy == pytest.approx(4 / 6)
    assert report.price_accuracy == pytest.approx(1 / 3)
    assert (report.premature, report.premature_wrong) == (2, 1)
    assert (report.late, report.late_wrong) == (3, 1)
    assert [m["id"] for m in report.mistakes] == ["b", "c", "e"]
    assert [m["kind"] for m in report.mistakes] == [
        "no deal called a deal",
        "deal at the wrong price",
        "deal never called",
    ]
    assert report.kinds == {
        "deal never called": 1,
        "deal at the wrong price": 1,
        "no deal called a deal": 1,
        "premature verdict": 1,  # b: called early
        "late verdict": 1,  # e: no verdict by the end
    }


# --- bad input --------------------------------------------------------------------------------


def test_a_missing_file_and_a_bad_line_exit_2_with_one_line(tmp_path: Path) -> None:
    missing = icl_aif("moderator-eval", str(tmp_path / "nope.jsonl"), "--dialogs")
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"error: {tmp_path / 'nope.jsonl'}: dialog file not found"

    bad = write(tmp_path / "bad.jsonl", [DIALOGS[0], {**DIALOGS[1], "label": "ongoing"}])
    result = icl_aif("moderator-eval", str(bad), "--dialogs")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"error: {bad}:2: ")
    assert '"label"' in result.stderr


def test_dialog_options_need_dialogs(tmp_path: Path) -> None:
    data = write(tmp_path / "dialogs.jsonl", DIALOGS[:1])
    result = icl_aif("moderator-eval", str(data), "--mistakes", str(tmp_path / "m.jsonl"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert "--dialogs" in result.stderr


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("{not json", "invalid JSON"),
        ('["a list"]', "JSON object"),
        ('{"label": "deal", "price": 3}', '"turns"'),
        ('{"turns": [{"speaker": "host", "text": "hi"}], "label": "deal", "price": 3}', "speaker"),
        (
            '{"turns": [{"speaker": "buyer", "text": "hi"}], "label": "maybe", "price": 3}',
            '"label"',
        ),
        ('{"turns": [{"speaker": "buyer", "text": "hi"}], "label": "deal"}', '"price"'),
        (
            '{"turns": [{"speaker": "buyer", "text": "hi"}], "label": "deal", "price": "3"}',
            '"price"',
        ),
        (
            '{"turns": [{"speaker": "buyer", "text": "hi"}], "label": "deal", "price": 3, "openers": 1}',
            '"openers"',
        ),
        (
            '{"turns": [{"speaker": "buyer", "text": "hi"}], "label": "deal", "price": 3, "openers": -1}',
            '"openers"',
        ),
        (
            '{"turns": [{"speaker": "buyer", "text": "hi"}], "label": "no_deal", "price": null,'
            ' "scenario": {"list_price": "ten"}}',
            '"scenario.list_price"',
        ),
    ],
)
def test_each_bad_field_is_named_with_its_line(tmp_path: Path, line: str, field: str) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(DIALOGS[0]) + "\n\n" + line + "\n", encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        load_dialogs(path)
    assert str(caught.value).startswith(f"{path}:3: ")
    assert field in str(caught.value)


def test_an_empty_file_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(UsageError, match="no dialogs"):
        load_dialogs(path)
