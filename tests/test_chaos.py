"""``chaos:`` fault injection: every run is accounted for, and the run stays reproducible."""

from __future__ import annotations

from pathlib import Path

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.models.chaos import parse_chaos
from icl_aif.models.pricing import price_of
from icl_aif.models.registry import is_offline
from icl_aif.records.reader import read_json, read_jsonl
from tests.conftest import games_without_times, quickstart, run

FAULTS = "error_rate=0.3&timeout_rate=0.1&empty_rate=0.05&huge_rate=0.05&garbage_rate=0.1"


def chaos_run(directory: Path, concurrency: int) -> Path:
    config = quickstart(
        "runs=12",
        "rounds=3",
        f"concurrency={concurrency}",
        f"roles.seller.model=chaos:scripted:linear?{FAULTS}",
        f"roles.buyer.model=chaos:scripted:conceder?{FAULTS}",
        "retry.attempts=2",  # so that some calls fail for good
        "retry.initial_wait=0.001",
    )
    return run(config, directory).directory


def test_a_chaos_run_accounts_for_every_run_and_counts_the_errors(tmp_path: Path) -> None:
    directory = chaos_run(tmp_path / "a", concurrency=8)
    games = list(read_jsonl(directory / "games.jsonl"))
    assert sorted(g["game_id"] for g in games) == [f"g{i:05d}" for i in range(12)]
    for game in games:
        assert game["status"] in ("complete", "error")
        assert (game["error"] is not None) == (game["status"] == "error")
        for record in game["rounds"]:
            assert record["outcome"] in ("deal", "no_deal", "error")
            assert (record["price"] is not None) == (record["outcome"] == "deal")
            if record["outcome"] != "deal":
                assert record["reason"]
    summary = read_json(directory / "summary.json")
    errored = sum(g["status"] == "error" for g in games)
    assert summary["errored_runs"] == errored > 0
    usage = summary["usage"]
    failed = sum(r["failed_calls"] for r in usage["roles"].values())
    assert failed == errored  # a failed call ends its game
    assert sum(usage["errors"].values()) == failed
    assert set(usage["errors"]) <= {"InjectedHTTPError", "InjectedTimeout"}
    assert usage["roles"]["seller"]["retries"] > 0 and usage["roles"]["buyer"]["retries"] > 0
    # bad replies were played on: an empty one as "(no reply)", a huge one cut to 2,000 characters
    turns = [t for g in games for r in g["rounds"] for t in r["turns"]]
    empty = [t for t in turns if "empty" in t.get("flags", ())]
    cut = [t for t in turns if "truncated" in t.get("flags", ())]
    assert empty and all(t["text"] == "(no reply)" for t in empty)
    assert cut and all(len(t["text"]) <= 2_000 for t in cut)
    assert max(len(t["text"]) for t in turns) <= 2_000
    outputs = [c["output"] for c in read_jsonl(directory / "calls.jsonl")]
    assert "" in outputs and any(len(o or "") == 10_000 for o in outputs)  # kept in full there
    counted = {
        flag: sum(row["flags"].get(flag, 0) for row in summary["per_round"])
        for flag in ("empty", "truncated")
    }
    assert counted == {"empty": len(empty), "truncated": len(cut)}

    again = chaos_run(tmp_path / "b", concurrency=1)
    assert games_without_times(again) == games_without_times(directory)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("scripted:linear?error_rat=0.1", "unknown setting 'error_rat'"),
        ("scripted:linear?error_rate=2", "error_rate must be in [0, 1]"),
        ("scripted:linear?error_rate=0.6&timeout_rate=0.6", "must not exceed 1"),
        ("scripted:linear?latency=x", "latency must be a number"),
        ("?error_rate=0.1", "chaos: wraps a model"),
    ],
)
def test_bad_chaos_settings_say_what_to_fix(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_chaos(name)


def test_bad_chaos_settings_are_one_line_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"roles.seller.model .*unknown setting 'x'"):
        run(quickstart("roles.seller.model=chaos:scripted:linear?x=1"), tmp_path / "run")


def test_a_chaos_wrapper_is_as_offline_and_as_priced_as_its_model() -> None:
    assert is_offline("chaos:scripted:linear?error_rate=0.1")
    assert not is_offline("chaos:openai:gpt-4o-mini?error_rate=0.1")
    wrapped = price_of("chaos:openai:gpt-4o-mini?latency=0.1")
    assert wrapped is not None and wrapped == price_of("openai:gpt-4o-mini")
