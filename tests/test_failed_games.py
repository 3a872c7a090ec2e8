"""Failed games are reported as failures: an errors column, deal rates over the rounds that
finished, a closing line that counts the failed games, and exit code 3."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.html_report import render_html
from icl_aif.analysis.metrics import (
    arm_row,
    error_kind,
    error_kinds,
    round_metrics,
    summarize,
)
from icl_aif.analysis.report import (
    arm_legend,
    failure_line,
    round_columns,
    round_table,
    rows,
    runs_line,
    summary_markdown,
)
from icl_aif.analysis.summary import measure_entry
from icl_aif.games.registry import get_game
from tests.conftest import PRICE_MEASURE, QUICKSTART, icl_aif

FAILED_LINE = re.compile(r'^(\d+) of (\d+) games failed(: .+)?; see games.jsonl "error"$')
WIDE = {"COLUMNS": "200"}  # every column of the table on its line


def failed_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if FAILED_LINE.match(line)]


def header(stdout: str) -> list[str]:
    """The per-round table's header, split into words."""
    return next(
        line.split() for line in stdout.splitlines() if line.split()[:2] == ["round", "games"]
    )


def record(number: int, outcome: str, price: float | None = None, turns: int = 6) -> dict[str, Any]:
    lines = [
        {"speaker": "buyer" if i % 2 == 0 else "seller", "text": "x" * 10} for i in range(turns)
    ]
    return {
        "round": number,
        "turns": lines,
        "outcome": outcome,
        "price": price,
        "reason": "seller model failed: X" if outcome == "error" else None,
    }


def game(game_id: str, *rounds: dict[str, Any], error: str | None = None) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "status": "error" if error else "complete",
        "error": error,
        "rounds": list(rounds),
    }


FAILED = "seller model failed: APIConnectionError: Connection error."
GAMES = [
    game("g0", record(1, "deal", 14.0), record(2, "deal", 16.0)),
    game("g1", record(1, "deal", 15.0), record(2, "no_deal", turns=20)),
    game("g2", record(1, "no_deal", turns=20), record(2, "error", turns=4), error=FAILED),
    game("g3", record(1, "error", turns=3), error=FAILED),
    game("g4", record(1, "deal", 13.0), record(2, "deal", 18.0)),
]


def test_round_metrics_leave_error_rounds_out_of_the_deal_rate() -> None:
    first = round_metrics(
        GAMES, 1, total_runs=5, improve="seller", openers=3, seed=0, measure=PRICE_MEASURE
    )
    assert (first["games"], first["deals"], first["no_deals"], first["errors"]) == (5, 3, 1, 1)
    assert first["deal_rate"] == 0.75  # 3 / (5 - 1), not 3 / 5
    assert first["deal_rate_all_runs"] == 0.6  # failed runs counted as no deal
    assert first["mean_price"] == 14.0
    assert first["mean_exchanges"] == round((3 + 3 + 10 + 3) / 4, 4)  # the error round left out
    second = round_metrics(
        GAMES, 2, total_runs=5, improve="seller", openers=3, seed=0, measure=PRICE_MEASURE
    )
    assert (second["games"], second["deals"], second["errors"]) == (4, 2, 1)
    assert second["deal_rate"] == 0.6667  # 2 / (4 - 1)
    assert second["deal_rate_all_runs"] == 0.4
    assert second["mean_price"] == 17.0


def test_a_round_with_only_errors_has_no_deal_rate() -> None:
    only = round_metrics(
        [GAMES[3]], 1, total_runs=1, improve="seller", openers=3, seed=0, measure=PRICE_MEASURE
    )
    assert (only["games"], only["errors"], only["deal_rate"]) == (1, 1, None)
    assert only["deal_rate_all_runs"] == 0.0 and only["mean_exchanges"] is None


def test_summary_counts_the_failed_games_by_kind() -> None:
    games = [
        *GAMES,
        game("g5", record(1, "error"), error="buyer model failed: InjectedTimeout: chaos: timeout"),
        game("g6", error="KeyError: 'rounds'"),
    ]
    summary = summarize(
        games, rounds=2, runs=7, improve="seller", openers=3, seed=0, measure=PRICE_MEASURE
    )
    summary["measure"] = measure_entry(PRICE_MEASURE)
    assert summary["errored_runs"] == 4
    assert summary["error_kinds"] == [
        {"kind": "seller APIConnectionError", "games": 2, "example": "Connection error."},
        {"kind": "buyer InjectedTimeout", "games": 1, "example": "chaos: timeout"},
        {"kind": "KeyError", "games": 1, "example": "'rounds'"},
    ]
    line = failure_line(summary)
    assert line == (
        "4 of 7 games failed: seller APIConnectionError x2 (Connection error.), buyer "
        "InjectedTimeout x1 (chaos: timeout), KeyError x1 ('rounds'); see games.jsonl \"error\""
    )
    assert runs_line(summary) == (
        "Finished runs: 3 of 7; 4 failed with an error (rounds ended by an error are left out of "
        "deal rates)."
    )
    assert "Finished runs: 3 of 7; 4 failed" in summary_markdown(summary, "t")
    assert f"\n{line}\n" in summary_markdown(summary, "t")


@pytest.mark.parametrize(
    ("error", "kind", "message"),
    [
        (FAILED, "seller APIConnectionError", "Connection error."),
        ("critic model failed: no reply", "critic no reply", ""),
        ("ValueError: bad\ntraceback", "ValueError", "bad"),
        ("the game paused for a person, and no one was asked", "the game paused for a person, and no one was asked", ""),
        ("seller model failed: InjectedHTTPError: chaos: injected HTTP 429", "seller InjectedHTTPError 429", "chaos: injected HTTP 429"),
        ("seller model failed: RateLimitError: Error code: 429 - {'error': 'slow'}", "seller RateLimitError 429", "Error code: 429 - {'error': 'slow'}"),
        ("buyer model failed: ApiError: status_code: 503, body: down", "buyer ApiError 503", "status_code: 503, body: down"),
    ],
)  # fmt: skip
def test_error_kind(error: str, kind: str, message: str) -> None:
    assert error_kind(error) == (kind, message)


def test_the_failed_line_lists_every_kind_and_quotes_three() -> None:
    kinds = error_kinds([f"E{i}: {'m' * 100}" for i in range(5)] + [None])
    assert [k["kind"] for k in kinds] == ["E0", "E1", "E2", "E3", "E4", "unknown error"]
    line = failure_line({"errored_runs": 6, "finished_runs": 9, "error_kinds": kinds})
    assert line is not None and FAILED_LINE.match(line)
    assert line.count("x1 (") == 3 and "m" * 79 + "…" in line
    assert ", E3 x1, E4 x1, unknown error x1;" in line


def test_mixed_rate_limits_and_server_errors_are_two_kinds_in_the_line() -> None:
    """chaos: fails with one exception class for both; the status tells them apart."""
    errors = ["seller model failed: InjectedHTTPError: chaos: injected HTTP 429"] * 3
    errors += ["seller model failed: InjectedHTTPError: chaos: injected HTTP 500"] * 2
    kinds = error_kinds(errors)
    line = failure_line({"errored_runs": 5, "finished_runs": 9, "error_kinds": kinds})
    assert line == (
        "5 of 9 games failed: seller InjectedHTTPError 429 x3 (chaos: injected HTTP 429), "
        'seller InjectedHTTPError 500 x2 (chaos: injected HTTP 500); see games.jsonl "error"'
    )
    assert failure_line({"errored_runs": 0, "finished_runs": 9, "error_kinds": []}) is None


def test_an_old_summary_still_renders() -> None:
    """Written before error_kinds (and, older still, before the per-round errors count)."""
    old: dict[str, Any] = {"runs": 4, "finished_runs": 4, "errored_runs": 1, "effective_runs": 0}
    old |= {"improve": "seller", "per_round": [{"round": 1, "games": 4, "deals": 2}]}
    old["per_round_effective"] = []
    old["measure"] = measure_entry(PRICE_MEASURE)  # as read_summary names it for format 0
    assert failure_line(old) == '1 of 4 games failed; see games.jsonl "error"'
    columns = round_columns(PRICE_MEASURE)
    assert rows(old["per_round"], columns, PRICE_MEASURE) == [
        ["1", "4", "2", "-", "-", "-", "-", "-", "-", "-", "-"]
    ]
    assert round_table(old).row_count == 1
    assert "Finished runs: 3 of 4; 1 failed" in summary_markdown(old, "old")


def test_sweep_cells_add_up() -> None:
    cell = {"runs": 3, "finished_runs": 3, "errored_runs": 1}
    kinds = [{"kind": "seller X", "games": 1, "example": "m"}]
    summary = {"runs": 3, "cells": [{**cell, "error_kinds": kinds}, {**cell, "error_kinds": kinds}]}
    assert failure_line(summary) == '2 of 6 games failed: seller X x2 (m); see games.jsonl "error"'
    assert runs_line(summary).startswith("Finished runs: 4 of 6; 2 failed")


def test_arm_deal_rates_leave_error_rounds_out() -> None:
    row = arm_row("ai", GAMES, branch_after=1, no_deal_value=8.0, seed=0, measure=PRICE_MEASURE)
    assert (row["deal_rate_before"], row["errors_before"]) == (0.75, 1)
    assert (row["deal_rate_after"], row["errors_after"]) == (0.6667, 1)


def test_the_arms_legend_names_the_error_rounds() -> None:
    arms = [
        {"arm": "ai", "errors_before": 1, "errors_after": 0},
        {"arm": "none", "errors_before": 1, "errors_after": 2},
        {"arm": "old"},  # a summary written before these counts
    ]
    legend = arm_legend(
        {"branch_after": 1, "arms": arms, "no_deal_value": 8.0}, measure=PRICE_MEASURE
    )
    assert legend.endswith(
        " Rounds ended by an error (not in DR): ai 1 in round 1; none 1 in round 1, 2 in round 2."
    )
    legend = arm_legend({"branch_after": 1, "arms": arms[2:]}, measure=PRICE_MEASURE)
    assert "Rounds ended" not in legend


@pytest.fixture(scope="module")
def unreachable_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """A run whose seller's server refuses every connection: every game fails in round 1."""
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path_factory.mktemp("unreachable") / "run"
    result = icl_aif(
        "run", QUICKSTART, "--out", out, "--no-preflight",
        "--set", "runs=3", "--set", "rounds=2", "--set", "retry.attempts=1",
        "--set", "roles.seller.model=openai:gpt-4o-mini",
        "--set", f"roles.seller.base_url=http://127.0.0.1:{port}/v1",
        env={**WIDE, "OPENAI_API_KEY": "sk-test"},
    )  # fmt: skip
    return out, result


def test_a_run_whose_games_fail_says_so_and_exits_3(unreachable_run: tuple[Path, Any]) -> None:
    out, result = unreachable_run
    assert result.returncode == 3, result.stderr
    assert "Traceback" not in result.stderr
    assert header(result.stdout)[:7] == [
        "round", "games", "deals", "deal", "rate", "cap", "errors"
    ]  # fmt: skip
    first = next(
        line.split() for line in result.stdout.splitlines() if line.split()[:2] == ["1", "3"]
    )
    assert first[:6] == ["1", "3", "0", "-", "0", "3"]  # ..., deal rate, truncations, errors
    [line] = failed_lines(result.stdout)
    assert re.match(
        r"3 of 3 games failed: seller \w*ConnectionError x3 \(Connection error.\);", line
    )
    assert result.stdout.strip().splitlines()[-1] == line  # the closing line
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errored_runs"] == 3 and summary["error_kinds"][0]["games"] == 3
    assert "Finished runs: 0 of 3; 3 failed with an error" in (out / "summary.md").read_text()

    page = render_html(
        manifest=json.loads((out / "manifest.json").read_text()),
        summary=summary,
        config={},
        games=[],
        pngs={},
        game=get_game("price"),
        measure=PRICE_MEASURE,
    )
    assert '<th class="">errors</th>' in page
    assert f'<p id="failed">{line.replace(chr(34), "&quot;")}</p>' in page

    report = icl_aif("report", out, env=WIDE)
    assert report.returncode == 0, report.stderr
    assert header(report.stdout) == header(result.stdout)
    assert failed_lines(report.stdout) == [line]


def test_a_chaos_run_exits_3_and_its_deal_rates_leave_errors_out(tmp_path: Path) -> None:
    out = tmp_path / "chaos"
    result = icl_aif(
        "run", QUICKSTART, "--out", out, "--set", "runs=12", "--set", "rounds=3",
        "--set", "retry.attempts=1",
        "--set", "roles.buyer.model=chaos:scripted:conceder?error_rate=0.03",
        env=WIDE,
    )  # fmt: skip
    assert result.returncode == 3, result.stderr
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    failed = sum(g["status"] == "error" for g in games)
    assert 0 < failed < len(games)
    [line] = failed_lines(result.stdout)
    assert line.startswith(f"{failed} of {len(games)} games failed: buyer InjectedHTTPError")
    summary = json.loads((out / "summary.json").read_text())
    differs = False
    for row in summary["per_round"]:
        records = [r for g in games for r in g["rounds"] if r["round"] == row["round"]]
        deals = sum(r["outcome"] == "deal" for r in records)
        errors = sum(r["outcome"] == "error" for r in records)
        assert (row["games"], row["deals"], row["errors"]) == (len(records), deals, errors)
        assert row["deal_rate"] == round(deals / (len(records) - errors), 4)
        differs |= row["deal_rate"] != round(deals / len(records), 4)
    assert differs  # some round had an error, so the old deal rate would be wrong


def test_a_run_without_failures_exits_0_without_the_line(tmp_path: Path) -> None:
    result = icl_aif(
        "run", QUICKSTART, "--out", tmp_path / "run", "--set", "runs=3", "--set", "rounds=2",
        env=WIDE,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "errors" in header(result.stdout)
    assert failed_lines(result.stdout) == [] and "games failed" not in result.stdout
