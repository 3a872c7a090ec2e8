"""The command line: tables on success; one line and exit code 2 on bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import QUICKSTART, icl_aif


def test_run_then_report(tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = icl_aif("run", QUICKSTART, "--out", out, "--set", "runs=4", "--set", "rounds=2")
    assert result.returncode == 0, result.stderr
    assert "deal rate" in result.stdout
    assert f"Run written to {out}" in result.stdout
    body = [line.split() for line in result.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert [row[0] for row in body if row[1] == "4"] == ["1", "2"]  # one row per round, 4 games
    report = icl_aif("report", out)
    assert report.returncode == 0, report.stderr
    assert [ln for ln in report.stdout.splitlines() if ln.strip().startswith("1 ")] == [
        ln for ln in result.stdout.splitlines() if ln.strip().startswith("1 ")
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("run", "missing.yaml"), "error: missing.yaml: no such config file"),
        (("run", QUICKSTART, "--set", "runz=1"), "unknown field 'runz'"),
        (
            ("run", QUICKSTART, "--set", "roles.seller.model=nosuch:model"),
            "unknown provider 'nosuch'; known providers: openai, anthropic, cohere, ai21, local, chaos, replay, scripted",
        ),
        (
            ("run", QUICKSTART, "--set", "roles.seller.model=scripted:stubborn"),
            "roles.seller.model 'scripted:stubborn': game 'price' has no simulator 'stubborn'; choose one of",
        ),
        (("run", QUICKSTART, "--set", "roles.seller.model=gpt-4"), "write provider:model"),
        (
            ("run", QUICKSTART, "--set", "roles.seller.model=openai:gpt-4o-mini"),
            "model 'openai:gpt-4o-mini' needs an API key: set OPENAI_API_KEY in the environment or in .env",
        ),
        (
            ("run", QUICKSTART, "--set", "roles.buyer.model=anthropic:claude-x"),
            "set ANTHROPIC_API_KEY in the environment or in .env",
        ),
        (("report", "nowhere"), "nowhere/summary.json: no such file"),
        (("moderator-eval", "missing.jsonl"), "missing.jsonl"),
        (
            ("moderator-eval", "tests/data/moderator_windows.jsonl", "--moderator", "oracle"),
            "--moderator 'oracle': allowed values: rules",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...], message: str) -> None:
    result = icl_aif(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr + result.stdout


def test_models_lists_providers() -> None:
    result = icl_aif("models")
    assert result.returncode == 0
    for text in ("scripted:boulware", "scripted:tit_for_tat", "scripted:critic", "replay:NAME"):
        assert text in result.stdout
