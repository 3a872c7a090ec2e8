"""A failure to move never reads as a result (issue 21): binding moves with a model that answers in
plain text are refused at the preflight; without it, the rounds that end for want of a move are
counted apart (never a 0% deal rate), the run exits 3 with a line saying why, every refused line
stays on the record with the moderator's reading of it, and the audit disputes them.

The vendor model is an OpenAI stub on 127.0.0.1 that answers every request with a plain line, no
tool call, no JSON, no fenced block.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.metrics import no_move_counts, round_metrics, round_score, summarize
from icl_aif.analysis.report import experiment_markdown, no_move_line
from icl_aif.analysis.summary import measure_entry
from icl_aif.records.reader import read_games, read_json
from icl_aif.testing import FAKE_KEY
from icl_aif.testing.plugin import StartStub
from icl_aif.testing.stubs import VendorStub
from tests.conftest import PRICE_MEASURE, QUICKSTART, cli_env

CLI = Path(sys.executable).parent / "icl-aif"
PLAIN = "Okay, $10 works for me. Deal."


def plain_stub(vendor_stub: StartStub) -> VendorStub:
    stub = vendor_stub("openai")
    stub.reply(PLAIN, times=None)
    return stub


def structured_run(stub: VendorStub, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    sets = [
        "moves=structured",
        "runs=3",
        "rounds=2",
        "feedback.source=none",
        f"roles.seller.model={stub.model}",
        f"roles.seller.base_url={stub.base_url}",
        "roles.seller.timeout=2",
        "retry.attempts=1",
    ]
    return subprocess.run(
        [str(CLI), "run", str(QUICKSTART), "--out", str(out)]
        + [item for s in sets for item in ("--set", s)]
        + list(extra),
        capture_output=True,
        text=True,
        env=cli_env(columns=120, **{stub.key_variable: FAKE_KEY}),
        timeout=300,
    )


def test_binding_moves_with_a_model_that_makes_none_are_refused_at_the_preflight(
    vendor_stub: StartStub, tmp_path: Path
) -> None:
    stub = plain_stub(vendor_stub)
    done = structured_run(stub, tmp_path / "run")
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(
        "error: roles.seller.model 'openai:gpt-4o-mini' made no binding move in its preflight "
        "request (no tool call, JSON-schema reply or fenced JSON block came back; it said "
        f"{PLAIN!r}); play it with moves: text"
    )
    assert not (tmp_path / "run").exists()
    # the connection probe, then the move probe down every form: tool, JSON schema, plain text
    forms = [(bool(b.get("tools")), "response_format" in b) for b in stub.bodies]
    assert forms == [(False, False), (True, False), (False, True), (False, False)]
    assert "```json" in stub.bodies[-1]["messages"][0]["content"]  # the fenced clause


def test_without_the_preflight_the_rounds_without_a_move_are_counted_apart(
    vendor_stub: StartStub, tmp_path: Path
) -> None:
    stub = plain_stub(vendor_stub)
    out = tmp_path / "run"
    done = structured_run(stub, out, "--no-preflight")
    assert done.returncode == 3, done.stderr
    table = done.stdout
    header = next(line for line in table.splitlines() if "deal rate" in line and "round" in line)
    assert "no move" in header
    rows = [line.split() for line in table.splitlines() if line.split()[:1] in (["1"], ["2"])]
    assert len(rows) == 2
    for row in rows:
        # round games deals deal-rate cap errors no-move ...: the deal rate is "-", never 0.0%
        assert row[:7] == [row[0], "3", "0", "-", "0", "0", "3"]
    assert "0.0%" not in table
    last = table.strip().splitlines()[-1]
    assert last.startswith(
        "6 rounds ended because a side made no valid move (left out of deal rates): seller x6: "
        "no move could be read from the reply"
    )

    summary = read_json(out / "summary.json")
    assert [r["no_moves"] for r in summary["per_round"]] == [3, 3]
    assert [r["deal_rate"] for r in summary["per_round"]] == [None, None]
    assert [r["deal_rate_all_runs"] for r in summary["per_round"]] == [None, None]
    assert [r["no_deals"] for r in summary["per_round"]] == [0, 0]
    assert summary["no_move_rounds"] == 6
    assert summary["no_move_kinds"][0] | {"example": ""} == {
        "side": "seller",
        "kind": "no_move",
        "rounds": 6,
        "example": "",
    }
    markdown = (out / "summary.md").read_text()
    assert (
        "| no move |" in markdown and "6 rounds ended because a side made no valid move" in markdown
    )

    for game in read_games(out):
        for record in game["rounds"]:
            assert (record["outcome"], record["reason"]) == ("no_deal", "invalid_moves")
            refused = record["refused"]
            assert len(refused) == record["invalid_moves"] == 3  # move_retries 2, then the end
            for line in refused:
                assert (line["speaker"], line["text"], line["kind"]) == ("seller", PLAIN, "no_move")
                assert line["why"].startswith("Your reply made no move.")
                # the moderator reads "Deal" at $10 where the moves say nothing happened
                assert line["text_verdict"]["state"] == "deal"
                assert line["moves_disagree"] is True
            assert record["disagreements"] == 3
    assert all(r["disagreements"] == 9 for r in summary["per_round"])


def test_the_audit_disputes_a_refused_deal_line(vendor_stub: StartStub, tmp_path: Path) -> None:
    stub = plain_stub(vendor_stub)
    out = tmp_path / "run"
    assert structured_run(stub, out, "--no-preflight").returncode == 3
    audit = subprocess.run(
        [str(CLI), "audit", str(out)], capture_output=True, text=True, env=cli_env(), timeout=120
    )
    assert audit.returncode == 0, audit.stderr
    assert audit.stdout.strip().splitlines()[-1].startswith("audit: 6 of 6 rounds disputed")
    disputes = [json.loads(line) for line in (out / "audit.jsonl").read_text().splitlines()]
    assert {d["kind"] for d in disputes} == {"no_move_to_deal"}
    assert all(d["recorded_outcome"] == "no_move" and d["refused"] for d in disputes)
    html = subprocess.run(
        [str(CLI), "report", str(out), "--html"],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )
    assert html.returncode == 0, html.stderr
    assert "6 rounds ended because a side made no valid move" in html.stdout
    page = (out / "report.html").read_text()
    assert '<p id="no-move">' in page and "Refused as moves" in page


# --- the metrics, on records made by hand -----------------------------------------------------


def round_of(outcome: str, reason: str | None = None, **extra: Any) -> dict[str, Any]:
    turns = [{"speaker": "seller", "text": "Hi"}, {"speaker": "buyer", "text": "Hello"}]
    terms = {"price": 15.0} if outcome == "deal" else None
    return {
        "round": 1,
        "turns": turns,
        "outcome": outcome,
        "terms": terms,
        "price": 15.0 if outcome == "deal" else None,
        "reason": reason,
        **extra,
    }


UNMOVED = round_of(
    "no_deal",
    "invalid_moves",
    invalid_moves=3,
    refused=[{"speaker": "buyer", "text": "x", "at": 2, "kind": "refused", "why": "No."}] * 3,
)


def test_a_round_without_a_valid_move_is_neither_a_deal_nor_a_no_deal() -> None:
    games = [
        {"game_id": str(i), "status": "complete", "rounds": [record]}
        for i, record in enumerate(
            [round_of("deal", "acceptance"), round_of("no_deal", "walk_away"), UNMOVED, UNMOVED]
        )
    ]
    row = round_metrics(
        games, 1, total_runs=4, improve="seller", openers=0, seed=1, measure=PRICE_MEASURE
    )
    assert (row["deals"], row["no_deals"], row["errors"], row["no_moves"]) == (1, 1, 0, 2)
    assert row["deal_rate"] == 0.5  # one deal over the two rounds that ended in a deal or no deal
    assert row["deal_rate_all_runs"] == 0.5  # the rounds nobody played left out
    assert row["no_deal_reasons"] == {"walk_away": 1}
    assert row["mean_exchanges"] == 1.0
    assert round_score(UNMOVED, 0.0, PRICE_MEASURE) is None
    assert no_move_counts(games) == {
        "no_move_rounds": 2,
        "no_move_kinds": [{"side": "buyer", "kind": "refused", "rounds": 2, "example": "No."}],
    }


def test_a_summary_without_such_rounds_shows_no_column_and_no_line() -> None:
    games = [{"game_id": "0", "status": "complete", "rounds": [round_of("deal", "acceptance")]}]
    summary = summarize(
        games, rounds=1, runs=1, improve="seller", openers=0, seed=1, measure=PRICE_MEASURE
    )
    summary["measure"] = measure_entry(PRICE_MEASURE)
    assert no_move_line(summary) is None
    assert "no move" not in experiment_markdown(summary, "x")
    with_one = summarize(
        [*games, {"game_id": "1", "status": "complete", "rounds": [UNMOVED]}],
        rounds=1,
        runs=2,
        improve="seller",
        openers=0,
        seed=1,
        measure=PRICE_MEASURE,
    )
    with_one["measure"] = measure_entry(PRICE_MEASURE)
    assert "| no move |" in experiment_markdown(with_one, "x")
    assert no_move_line(with_one) == (
        "1 round ended because a side made no valid move (left out of deal rates): buyer x1: "
        'the game\'s rules refused the move; see games.jsonl "refused"'
    )


@pytest.mark.parametrize("moves", ["text", "structured"])
def test_scripted_players_never_fail_to_move(moves: str, tmp_path: Path) -> None:
    """The simulators make valid moves in both modes: no column, no line, exit 0."""
    sets = ["--set", "runs=4", "--set", "rounds=2", "--set", f"moves={moves}"]
    done = subprocess.run(
        [str(CLI), "run", str(QUICKSTART), "--out", str(tmp_path / "run"), *sets],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "no move" not in done.stdout
    summary = read_json(tmp_path / "run" / "summary.json")
    assert summary["no_move_rounds"] == 0
    assert all(r["no_moves"] == 0 for r in summary["per_round"])
