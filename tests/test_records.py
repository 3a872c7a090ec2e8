"""The run directory is an interface: pin its files and keys."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
import yaml

from icl_aif.records import layout, writer
from icl_aif.records.reader import read_jsonl
from icl_aif.records.schema import FORMAT_VERSION
from icl_aif.records.writer import RunWriter, repair_records
from icl_aif.run.runner import RunResult
from tests.conftest import quickstart


def test_run_directory_files_and_keys(small_run: RunResult) -> None:
    d = small_run.directory
    assert {p.name for p in d.iterdir()} == {
        "config.yaml",
        "manifest.json",
        "games.jsonl",
        "calls.jsonl",
        "summary.json",
        "summary.md",
        ".lock",  # the writer's flock, left behind (docs/records.md)
    }
    assert yaml.safe_load((d / "config.yaml").read_text())["runs"] == 6

    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["status"] == "finished" and manifest["finished_at"]
    assert manifest["models"] == {
        "seller": "scripted:linear",
        "buyer": "scripted:linear",
        "critic": "scripted:critic",
        "moderator": "rules",
        "moderator_model": None,
    }
    assert manifest["seed"] == 7
    assert manifest["versions"]["langgraph"] and manifest["versions"]["langchain-core"]
    assert "prompts/price/players/seller.txt" in manifest["prompts"]
    assert all(len(h) == 64 for h in manifest["prompts"].values())

    games = list(read_jsonl(d / "games.jsonl"))
    assert [g["game_id"] for g in games] == [f"g{i:05d}" for i in range(6)]
    for game in games:
        assert game["status"] == "complete" and game["error"] is None
        assert [r["round"] for r in game["rounds"]] == [1, 2, 3]
        for record in game["rounds"]:
            assert record["outcome"] in ("deal", "no_deal")
            assert (record["price"] is not None) == (record["outcome"] == "deal")
            assert record["outcome"] == "deal" or record["reason"] in (
                "walk_away",
                "refusal",
                "cap",
            )
            assert all(  # the price game's flag on a line that names no price, if any
                set(t) == {"speaker", "text"} or t["flags"] == ["no_price"] for t in record["turns"]
            )
            assert (record["decided_by"], record["parse"]) == ("rules", None)
        for record in game["rounds"][:-1]:
            assert record["feedback_source"] == "ai" and len(record["suggestions"]) == 3
            assert record["instruction"].startswith(f"Round {record['round']} is over.")

    calls = list(read_jsonl(d / "calls.jsonl"))
    assert {c["role"] for c in calls} == {"seller", "buyer", "critic"}
    for call in calls:
        assert set(call) >= {
            "game_id",
            "round",
            "role",
            "model",
            "messages",
            "output",
            "usage",
            "latency_s",
            "error",
        }
        assert all(set(m) == {"role", "content"} for m in call["messages"])
    # every generated line of every round is the output of exactly one recorded call
    outputs = sum(1 for c in calls if c["role"] in ("seller", "buyer"))
    generated = sum(len(r["turns"]) - 3 for g in games for r in g["rounds"])
    assert outputs == generated

    summary = json.loads((d / "summary.json").read_text())
    assert [r["round"] for r in summary["per_round"]] == [1, 2, 3]
    for row in summary["per_round"]:
        assert set(row) >= {
            "round",
            "games",
            "deals",
            "deal_rate",
            "mean_price",
            "price_ci95",
            "median_price",
            "mean_response_chars",
            "mean_exchanges",
        }
    assert "| round |" in (d / "summary.md").read_text()


GAME = {  # the smallest valid records (icl_aif.records.schema)
    "game_id": "g00001",
    "seed": 1,
    "status": "complete",
    "error": None,
    "rounds": [],
    "started_at": "2025-01-01T00:00:00.000+00:00",
    "finished_at": "2025-01-01T00:00:01.000+00:00",
}
CALL = {
    "game_id": "g00001",
    "round": 1,
    "role": "seller",
    "model": "scripted:linear",
    "messages": [],
}


def test_each_game_is_on_disk_when_appended(tmp_path: Path) -> None:
    writer = RunWriter(tmp_path / "run")
    writer.create(quickstart(), {"name": "t"})
    writer.append_game(GAME, [CALL])
    # read back through a separate handle before anything is closed
    assert json.loads((tmp_path / "run" / "games.jsonl").read_text())["game_id"] == "g00001"
    assert (tmp_path / "run" / "calls.jsonl").read_text().count("\n") == 1
    writer.close()


def test_a_run_directory_is_never_mixed(small_run: RunResult) -> None:
    import pytest

    from icl_aif.core.errors import UsageError

    with pytest.raises(UsageError, match="already holds a run"):
        RunWriter(small_run.directory).create(quickstart(), {})


def test_record_files_are_sorted_by_cell_and_game_keeping_each_games_order(tmp_path: Path) -> None:
    from icl_aif.records.writer import sort_jsonl

    rows = [
        {"game_id": "g00002", "n": 1},
        {"game_id": "g00001", "n": 2, "text": "é"},
        {"game_id": "g00002", "n": 3},
        {"cell": "c2", "game_id": "g00000", "n": 4},
        {"game_id": "g00001", "n": 5},
        {"cell": "c1", "game_id": "g00003", "n": 6},
    ]
    path = tmp_path / "calls.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    sort_jsonl(path)
    assert [r["n"] for r in read_jsonl(path)] == [2, 5, 1, 3, 6, 4]
    assert not (tmp_path / "calls.jsonl.tmp").exists()


def test_a_run_stopped_by_its_checks_leaves_no_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from icl_aif.core.errors import UsageError
    from tests.conftest import quickstart, run

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)  # no .env
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        run(quickstart("roles.seller.model=openai:gpt-4o-mini"), tmp_path / "runs" / "new")
    assert not (tmp_path / "runs" / "new").exists()
    kept = tmp_path / "kept"
    kept.mkdir()  # a directory the user made stays, without a lock file
    with pytest.raises(UsageError):
        run(quickstart("roles.seller.model=openai:gpt-4o-mini"), kept)
    assert kept.is_dir() and not any(kept.iterdir())


def test_repair_streams_the_records_instead_of_loading_them(tmp_path: Path) -> None:
    """A resume of a long run repairs 30 MB of calls with a few hundred kB of memory."""
    history = [{"role": "user", "content": "x" * 2_000}] * 10
    call = {
        "round": 1,
        "role": "seller",
        "model": "scripted:linear",
        "messages": history,
        "cost_usd": 0.001,
        "format_version": FORMAT_VERSION,
    }
    with (
        (tmp_path / "calls.jsonl").open("w") as calls,
        (tmp_path / "games.jsonl").open("w") as games,
    ):
        for game in range(1_500):
            calls.write(json.dumps({"game_id": f"{game:04d}", **call}) + "\n")
            if game < 1_499:  # the last game never finished
                line = {
                    "game_id": f"{game:04d}",
                    "status": "complete",
                    "rounds": [],
                    "format_version": FORMAT_VERSION,
                }
                games.write(json.dumps(line) + "\n")  # the current format: kept as it is
        calls.write('{"game_id": "1500", "round"')  # a torn last line
    assert (tmp_path / "calls.jsonl").stat().st_size > 30_000_000
    tracemalloc.start()
    try:
        finished, cost = repair_records(tmp_path, lambda cell: 1, ("seller", "buyer"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(finished) == 1_499
    assert cost == pytest.approx(1.499)
    assert peak < 1_000_000
    kept = (tmp_path / "calls.jsonl").read_bytes()
    assert kept.count(b"\n") == 1_499 and kept.endswith(b"\n")
    assert b'"game_id": "1499"' not in kept


@pytest.mark.parametrize(
    "record",
    [
        {"game_id": "g00001", "round": 1},
        {"game_id": "g00002", "cell": "c1", "round": 1},
        {"game_id": "g00003", "cell": None, "round": 1},
        {"game_id": 'g"4', "cell": "c\\2", "x": 1},
        {"round": 1, "game_id": "g5"},
        {"game_id": 7, "cell": "c3", "x": 1},
        {"game_id": "g8", "cell": "c4"},
    ],
)
def test_a_line_sorts_by_the_keys_its_record_sorts_by(record: dict[str, object]) -> None:
    line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    assert writer._line_order(line) == layout.record_order(record)
