"""The rules moderator on the labelled set of dialog windows in tests/data."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from icl_aif.games.price.judge.evaluation import evaluate, load_labelled
from icl_aif.games.price.judge.rules import PriceRulesJudge
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


def test_rules_moderator_on_the_held_out_set() -> None:
    """120 windows written blind (without the rules or the first set): the honest generalisation
    figure. Do not tune the rules on this file; add new phrasing to moderator_windows.jsonl instead.
    Measured when it was written: label accuracy 0.975, price accuracy 0.956."""
    report = evaluate(
        PriceRulesJudge(), load_labelled(LABELLED.with_name("moderator_heldout.jsonl"))
    )
    assert len(report.mistakes) <= 6, report.mistakes
    assert report.accuracy >= 0.95 and report.price_accuracy >= 0.95, report.mistakes
