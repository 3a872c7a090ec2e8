"""The rules moderator on the labelled set of dialog windows in tests/data."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from icl_aif.core.transcript import Turn
from icl_aif.games.price.judge.evaluation import (
    MISTAKE_KINDS,
    LabelledWindow,
    evaluate,
    load_labelled,
    mistake_kind,
    score,
)
from icl_aif.games.price.judge.rules import PriceRulesJudge
from icl_aif.games.price.verdict import PriceVerdict
from tests.conftest import ROOT

LABELLED = ROOT / "tests" / "data" / "moderator_windows.jsonl"


def test_labelled_set_is_large_and_covers_the_traps() -> None:
    rows = [json.loads(line) for line in LABELLED.read_text().splitlines()]
    assert len(rows) >= 150
    labels = Counter(r["label"] for r in rows)
    assert min(labels[k] for k in ("deal", "no_deal", "ongoing")) >= 40
    traps = Counter(r["trap"] for r in rows)
    for trap in (
        "reference_price",
        "conditional_offer",
        "deal_question",
        "thousands_separator",
        "suffix_dollar",
        "usd_prefix",
        "spelled_number",
        "cents",
        "walk_away",
    ):
        assert traps[trap] >= 5, trap


def test_rules_moderator_reaches_95_percent_with_exact_prices() -> None:
    report = evaluate(PriceRulesJudge(), load_labelled(LABELLED))
    assert report.accuracy >= 0.95, report.mistakes
    assert report.price_accuracy >= 0.95, report.mistakes


def test_cli_prints_the_report() -> None:
    cli = Path(sys.executable).parent / "icl-aif"
    result = subprocess.run(
        [str(cli), "moderator-eval", str(LABELLED)],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "120"},
    )
    assert result.returncode == 0, result.stderr
    for text in ("ccuracy", "recall", "precision", "deal", "no_deal", "ongoing"):
        assert text in result.stdout
    report = evaluate(PriceRulesJudge(), load_labelled(LABELLED))
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("mistakes by kind: "))
    assert line == "mistakes by kind: " + ", ".join(
        f"{kind} {report.kinds[kind]}" for kind in MISTAKE_KINDS
    )
    assert sum(report.kinds.values()) == len(report.mistakes)


def test_rules_moderator_on_the_held_out_set() -> None:
    """120 windows written blind (without the rules or the first set): the honest generalisation
    figure. Do not tune the rules on this file; add new phrasing to moderator_windows.jsonl instead.
    Measured when it was written: label accuracy 0.975, price accuracy 0.956."""
    report = evaluate(
        PriceRulesJudge(), load_labelled(LABELLED.with_name("moderator_heldout.jsonl"))
    )
    assert len(report.mistakes) <= 6, report.mistakes
    assert report.accuracy >= 0.95 and report.price_accuracy >= 0.95, report.mistakes


def test_each_wrong_verdict_has_one_kind_and_the_report_counts_them() -> None:
    cases = {  # (gold, predicted) -> kind
        ("deal", "no_deal"): "deal never called",
        ("deal", "deal"): "deal at the wrong price",
        ("no_deal", "deal"): "no deal called a deal",
        ("ongoing", "deal"): "premature verdict",
        ("ongoing", "no_deal"): "premature verdict",
        ("deal", "ongoing"): "late verdict",
        ("no_deal", "ongoing"): "late verdict",
    }
    assert {pair: mistake_kind(*pair) for pair in cases} == cases
    windows = [
        LabelledWindow(
            turns=(Turn(speaker="seller", text="Sold at $9."),), label="deal", price=9.0
        ),
        LabelledWindow(
            turns=(Turn(speaker="buyer", text="Thanks, bye."),), label="deal", price=5.0
        ),
        LabelledWindow(
            turns=(Turn(speaker="buyer", text="Maybe $7?"),), label="ongoing", price=None
        ),
    ]
    verdicts = [
        PriceVerdict(state="deal", price=8.0),  # the wrong price
        PriceVerdict(state="no_deal"),  # a deal never called
        PriceVerdict(state="ongoing"),  # right
    ]
    report = score(windows, verdicts)
    assert report.kinds == {
        "deal never called": 1,
        "deal at the wrong price": 1,
        "no deal called a deal": 0,
        "premature verdict": 0,
        "late verdict": 0,
    }
    assert [m["kind"] for m in report.mistakes] == ["deal at the wrong price", "deal never called"]
