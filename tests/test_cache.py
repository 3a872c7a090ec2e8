"""The response cache (issue 15): a resumed or repeated run pays for no call twice, replicates
stay independent samples, and the cache holds no secret.

The vendor model is an OpenAI stub on 127.0.0.1 that counts the requests it gets
(:class:`icl_aif.testing.stubs.VendorStub`); a request nothing was queued for is answered 418.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from icl_aif.config.settings import CacheConfig, RoleConfig
from icl_aif.engine.configs import load_config
from icl_aif.models.cache import Replicate, ResponseCache, cache_counts, decoding
from icl_aif.records.reader import read_json, read_jsonl
from icl_aif.run.resume import resume_config
from icl_aif.testing import FAKE_KEY, REPLY_LINE
from icl_aif.testing.plugin import StartStub
from icl_aif.testing.stubs import VendorStub
from tests.conftest import (
    QUICKSTART,
    calls_without_timing,
    cli_env,
    games_without_times,
    quickstart,
    run,
)
from tests.test_resume import CLI, lines, main_cli, wait_for


def stub_run(stub: VendorStub, cache: Path | None, *extra: str) -> list[str]:
    """Overrides of a small run whose seller is the stub (temperature 1) and buyer scripted."""
    sets = [
        "runs=2",
        "rounds=1",
        "concurrency=1",
        "feedback.source=none",
        f"roles.seller.model={stub.model}",
        f"roles.seller.base_url={stub.base_url}",
        "roles.seller.timeout=2",
        "roles.seller.temperature=1",
        "retry.attempts=1",
    ]
    if cache is not None:
        sets.append(f"cache.path={cache}")
    return [*sets, *extra]


def calls_of(directory: Path, role: str = "seller") -> list[dict[str, Any]]:
    return [c for c in read_jsonl(directory / "calls.jsonl") if c["role"] == role]


def cache_lines(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    found = []
    for line in path.read_text().splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:  # a line still being written
            continue
    return found


def without(calls: list[dict[str, Any]], *keys: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in c.items() if k not in keys} for c in calls]


def test_a_killed_run_resumed_with_the_cache_makes_no_vendor_call_twice(
    vendor_stub: StartStub, tmp_path: Path
) -> None:
    stub = vendor_stub("openai")
    stub.reply(times=None)
    cache, out = tmp_path / "cache.jsonl", tmp_path / "run"
    overrides = stub_run(stub, cache, "roles.buyer.model=chaos:scripted:linear?latency=0.3")
    sets = [item for o in overrides for item in ("--set", o)]
    process = subprocess.Popen(
        [str(CLI), "run", str(QUICKSTART), "--out", str(out), "--no-preflight", *sets],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(**{stub.key_variable: FAKE_KEY}),
    )

    def seller_paid(n: int) -> bool:
        stored = [e for e in cache_lines(cache) if e["role"] == "seller"]
        return len(stub.requests) >= n and len(stored) >= n

    wait_for(lambda: seller_paid(2), process)  # the buyer then thinks 0.3 s: no call open
    process.kill()
    process.wait(timeout=30)
    paid = len(stub.requests)
    assert paid == len([e for e in cache_lines(cache) if e["role"] == "seller"]) >= 2
    assert not (out / "games.jsonl").read_text()  # killed in the first game

    result = run(resume_config(out), out, resume=True, probe_models=False)
    stub.check()
    sellers = calls_of(out)
    assert len(stub.requests) == len(sellers)  # every distinct call made once, over both runs
    assert len([c for c in sellers if c["cache"] == "hit"]) == paid  # replayed from the cache
    assert all(c["output"] == REPLY_LINE for c in sellers)
    games = games_without_times(out)
    assert [g["status"] for g in games] == ["complete", "complete"]
    recorded = list(read_jsonl(out / "calls.jsonl"))
    assert result.summary["cache"]["hits"] == sum(c["cache"] == "hit" for c in recorded) >= paid
    assert result.summary["cache"]["misses"] == sum(c["cache"] == "miss" for c in recorded) > 0
    assert read_json(out / "manifest.json")["cache"] == {"path": str(cache), "mode": "read_write"}


def test_two_replicates_with_identical_prompts_at_temperature_1_are_two_calls(
    vendor_stub: StartStub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = vendor_stub("openai")
    stub.reply(times=None)
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "cache.jsonl"
    result = run(quickstart(*stub_run(stub, cache)), tmp_path / "run", probe_models=False)
    first = [c for c in calls_of(tmp_path / "run") if c["round"] == 1]
    by_game: dict[str, list[dict[str, Any]]] = {}
    for call in first:
        by_game.setdefault(call["game_id"], []).append(call)
    one, two = by_game.values()
    assert one[0]["messages"] == two[0]["messages"]  # the same prompt in both games
    assert len(stub.requests) == len(first) == 2 * len(one)  # still a request each
    stored = [e for e in cache_lines(cache) if e["role"] == "seller"]
    assert len({e["key"] for e in stored}) == len(stored) == len(first)
    assert result.summary["cache"]["hits"] == 0
    text = cache.read_text()
    assert FAKE_KEY not in text and "api_key" not in text and "base_url" not in text


def test_a_repeated_run_read_only_makes_no_request_and_writes_the_same_records(
    vendor_stub: StartStub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = vendor_stub("openai")
    stub.reply(times=None)
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "cache.jsonl"
    first = run(quickstart(*stub_run(stub, cache)), tmp_path / "first", probe_models=False)
    assert len(stub.requests) == len(calls_of(tmp_path / "first")) > 0
    made = list(read_jsonl(tmp_path / "first" / "calls.jsonl"))
    assert first.summary["cache"] == {"hits": 0, "misses": len(made), "saved_usd": 0.0}
    stored = cache.read_bytes()

    idle = vendor_stub("openai")  # nothing queued: any request would get HTTP 418
    again = run(
        quickstart(*stub_run(idle, cache, "cache.mode=read_only")),
        tmp_path / "again",
        probe_models=False,
    )
    assert idle.requests == []
    idle.check()
    assert cache.read_bytes() == stored  # read_only stores nothing
    assert games_without_times(tmp_path / "again") == games_without_times(tmp_path / "first")
    timing = ("latency_s", "limit_wait_s", "cache")
    assert without(calls_without_timing(tmp_path / "again"), *timing) == without(
        calls_without_timing(tmp_path / "first"), *timing
    )
    calls = list(read_jsonl(tmp_path / "again" / "calls.jsonl"))
    assert {c["cache"] for c in calls} == {"hit"}
    seller_cost = sum(c["cost_usd"] or 0.0 for c in calls if c["role"] == "seller")
    assert again.summary["cache"] == {
        "hits": len(calls),
        "misses": 0,
        "saved_usd": round(seller_cost, 6),
    }
    assert seller_cost > 0  # the stub model has a price: the hits saved it


def test_structured_moves_replay_from_the_cache(
    vendor_stub: StartStub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool call's parsed arguments are stored: a read_only repeat plays the same moves."""
    stub = vendor_stub("openai")
    stub.tool_reply(
        "make_move", {"message": "I can do $17.", "move": "offer", "terms": {"price": 17}}
    )
    stub.tool_reply("make_move", {"message": "Deal, $12.", "move": "accept", "terms": None})
    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "cache.jsonl"
    overrides = [
        "runs=1",
        "rounds=1",
        "feedback.source=none",
        "moves=structured",
        f"roles.seller.model={stub.model}",
        f"roles.seller.base_url={stub.base_url}",
        "roles.seller.timeout=2",
        "roles.buyer.model=scripted:boulware",
        f"cache.path={cache}",
    ]
    run(quickstart(*overrides), tmp_path / "first", probe_models=False)
    assert len(stub.requests) == 2
    idle = vendor_stub("openai")
    overrides[5] = f"roles.seller.base_url={idle.base_url}"
    run(quickstart(*overrides, "cache.mode=read_only"), tmp_path / "again", probe_models=False)
    assert idle.requests == []
    games = games_without_times(tmp_path / "again")
    assert games == games_without_times(tmp_path / "first")
    moves = [t.get("move") for t in games[0]["rounds"][0]["turns"] if t["speaker"] == "seller"]
    assert moves[-2]["terms"] == {"price": 17.0} and moves[-1]["kind"] == "accept"
    assert [c["cache"] for c in calls_of(tmp_path / "again")] == ["hit", "hit"]


def test_without_a_cache_nothing_changes(tmp_path: Path) -> None:
    directory = run(quickstart("runs=2", "rounds=2"), tmp_path / "run").directory
    assert all("cache" not in c for c in read_jsonl(directory / "calls.jsonl"))
    assert "cache" not in read_json(directory / "summary.json")
    assert "cache" not in read_json(directory / "manifest.json")
    assert "cache" not in (directory / "config.yaml").read_text()


def test_a_repeated_scripted_run_hits_every_call_and_writes_the_same_records(
    tmp_path: Path,
) -> None:
    """Arms and a sweep: every replicate (cell, arm, game) is its own key."""
    cache = tmp_path / "cache.jsonl"
    design = (
        "runs=2",
        "rounds=3",
        "arms=[ai, none]",
        "branch_after=1",
        "roles.buyer.model=[scripted:linear, scripted:boulware]",
        f"cache.path={cache}",
    )
    first = run(quickstart(*design), tmp_path / "first")
    assert first.summary["cache"]["hits"] == 0
    again = run(quickstart(*design, "cache.mode=read_only"), tmp_path / "again")
    assert again.summary["cache"]["misses"] == 0
    assert games_without_times(tmp_path / "again") == games_without_times(tmp_path / "first")
    assert without(calls_without_timing(tmp_path / "again"), "cache") == without(
        calls_without_timing(tmp_path / "first"), "cache"
    )


def test_the_key_keeps_secrets_out_and_replicates_apart(tmp_path: Path) -> None:
    role = RoleConfig(
        model="openai:gpt-4o-mini",
        temperature=1.0,
        params={"api_key": FAKE_KEY, "default_headers": {"x": "y"}, "max_completion_tokens": 9},
    )
    settings = decoding(role)
    assert settings["params"] == {"max_completion_tokens": 9}
    store = ResponseCache(tmp_path / "c.jsonl", "read_write")
    messages = [{"role": "user", "content": "hi"}]

    def key(**labels: Any) -> str:
        replicate = Replicate(store, {"game_id": "g00000", **labels}, {"seller": settings})
        return replicate.key("openai:gpt-4o-mini", messages, {"role": "seller", "round": 1}, 9)[0]

    assert key() == key()
    assert len({key(), key(arm="ai"), key(cell="c1"), key(seed=1)}) == 4
    replicate = Replicate(store, {"game_id": "g00000"}, {"seller": settings})
    first = replicate.key("openai:gpt-4o-mini", messages, {"role": "seller", "round": 1}, 9)[0]
    second = replicate.key("openai:gpt-4o-mini", messages, {"role": "seller", "round": 1}, 9)[0]
    assert first != second  # the second call of the same role and round: its own sample


def test_torn_lines_are_skipped_and_the_next_write_starts_a_line(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_text('{"key": "a", "output": "x"}\n{"key": "b", "outp')  # killed mid-write
    store = ResponseCache(path, "read_write")
    assert store.get("a") == {"output": "x"} and store.get("b") is None
    store.put("c", {"output": "z"})
    reader = ResponseCache(path, "read_only")
    assert reader.get("c") == {"output": "z"} and reader.get("a") == {"output": "x"}
    reader.put("d", {"output": "w"})
    assert ResponseCache(path, "read_only").get("d") is None


def test_cache_counts_and_the_terminal_line() -> None:
    from icl_aif.analysis.report import cache_line

    calls = [
        {"cache": "hit", "cost_usd": 0.5},
        {"cache": "hit", "cost_usd": None},
        {"cache": "miss", "cost_usd": 1.0},
        {"cost_usd": 1.0},
    ]
    assert cache_counts(calls) == {"hits": 2, "misses": 1, "saved_usd": 0.5}
    assert cache_line({"cache": cache_counts(calls)}) == "cache: 2 hits, 1 misses, $0.5000 saved"
    assert cache_line({"usage": {}}) is None


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ("cache.mode=sometimes", "field 'cache.mode': got 'sometimes'; allowed values: "),
        ("cache.path={tmp}", "is a directory"),
    ],
    ids=["mode", "directory"],
)
def test_a_bad_cache_config_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setting: str, expected: str
) -> None:
    sets = ["--set", "cache.path=c.jsonl", "--set", setting.format(tmp=tmp_path)]
    code, stderr = main_cli(capsys, "run", QUICKSTART, "--out", tmp_path / "run", *sets)
    assert code == 2
    (line,) = stderr
    assert expected in line
    assert not (tmp_path / "run").exists()


def test_cache_config_paths_are_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert CacheConfig(path=Path("c.jsonl")).path == tmp_path / "c.jsonl"


def test_worker_processes_share_one_cache_file(tmp_path: Path) -> None:
    """Two worker processes append to one file at once; a repeat in this process hits all."""
    from icl_aif.run.processes import ProcessExecutor

    cache = tmp_path / "cache.jsonl"
    design = ("runs=6", "rounds=2", "concurrency=4", f"cache.path={cache}")
    executor = ProcessExecutor(2, start_method="fork")
    try:
        executor.start()
        first = run(quickstart(*design), tmp_path / "first", executor=executor)
    finally:
        executor.close()
    stored = cache_lines(cache)
    assert len(stored) == first.summary["cache"]["misses"] == len(cache.read_text().splitlines())
    assert len({e["key"] for e in stored}) == len(stored)
    again = run(quickstart(*design, "cache.mode=read_only"), tmp_path / "again")
    assert again.summary["cache"]["misses"] == 0
    assert games_without_times(tmp_path / "again") == games_without_times(tmp_path / "first")


# --- issue 21: a hit is indistinguishable from the call; writers agree; bad caches said ---------

DOND = QUICKSTART.parent / "dond.yaml"


def played(directory: Path) -> dict[str, list[Any]]:
    """Each game's rounds as (outcome, terms, lines): what a resume must reproduce."""
    return {
        game["game_id"]: [
            (r["outcome"], r.get("terms"), [t["text"] for t in r["turns"]]) for r in game["rounds"]
        ]
        for game in read_jsonl(directory / "games.jsonl")
    }


def test_a_killed_dond_run_with_workers_and_a_cache_resumes_to_the_uninterrupted_games(
    tmp_path: Path,
) -> None:
    """Games in flight at the kill are played again from the cache: their simulators are asked on
    every hit too, so every draw after it is the one an uncached run makes."""
    runs = 80
    reference = tmp_path / "reference"
    run(load_config(DOND, [f"runs={runs}"]), reference)
    out, cache = tmp_path / "run", tmp_path / "cache.jsonl"
    sets = ["--set", f"runs={runs}", "--set", f"cache.path={cache}"]
    workers = ["--executor", "processes", "--workers", "2"]
    process = subprocess.Popen(
        [str(CLI), "run", str(DOND), "--out", str(out), *sets, *workers],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=cli_env(),
        start_new_session=True,  # the driver and its workers: one process group
    )
    wait_for(lambda: lines(out / "games.jsonl") >= 10, process)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    finished = lines(out / "games.jsonl")
    assert finished < runs  # killed during play, with games in flight
    resumed = subprocess.run(
        [str(CLI), "run", "--resume", str(out), *workers],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=300,
    )
    assert resumed.returncode == 0, resumed.stderr
    summary = read_json(out / "summary.json")
    assert summary["cache"]["hits"] > 0  # the games in flight came back from the cache
    assert played(out) == played(reference)


def test_two_runs_writing_one_cache_at_once_agree_and_a_read_only_repeat_equals_them(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache.jsonl"
    sets = ["--set", "runs=40", "--set", f"cache.path={cache}"]
    writers = [
        subprocess.Popen(
            [str(CLI), "run", str(DOND), "--out", str(tmp_path / name), *sets],
            cwd=tmp_path,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=cli_env(),
        )
        for name in ("a", "b")
    ]
    for writer in writers:
        assert writer.wait(timeout=300) == 0, writer.communicate()[1]
    keys = [entry["key"] for entry in cache_lines(cache)]
    assert len(keys) == len(set(keys))  # one reply per key: the first stored
    read_only = ["--set", "cache.mode=read_only"]
    repeat = subprocess.run(
        [str(CLI), "run", str(DOND), "--out", str(tmp_path / "repeat"), *sets, *read_only],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=300,
    )
    assert repeat.returncode == 0, repeat.stderr
    assert read_json(tmp_path / "repeat" / "summary.json")["cache"]["misses"] == 0
    assert played(tmp_path / "repeat") == played(tmp_path / "a") == played(tmp_path / "b")


def test_a_late_writer_goes_on_with_the_reply_stored_first(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    early, late = ResponseCache(path, "read_write"), ResponseCache(path, "read_write")
    assert late.get("k") is None  # both missed
    first = {"output": "first"}
    assert early.put("k", first) is first
    held = late.put("k", {"output": "second"})
    assert held == first
    assert [e["output"] for e in cache_lines(path)] == ["first"]


def test_lines_of_the_wrong_shape_are_skipped_and_counted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "c.jsonl"
    good = {"key": "good", "output": "fine", "usage": None, "cost_usd": 0.1, "attempts": 1}
    bad = [
        {"key": "object", "output": {"text": "not a reply"}},
        {"key": "usage", "output": "x", "usage": "lots"},
        {"key": "attempts", "output": "x", "attempts": 0},
        {"output": "no key"},
        [1, 2],
    ]
    path.write_text(
        "\n".join([json.dumps(good), *map(json.dumps, bad), "not json at all", ""])
        + '{"key": "torn", "outp'
    )
    store = ResponseCache(path, "read_only")
    with caplog.at_level("WARNING", logger="icl_aif.models.cache"):
        assert store.get("object") is None
    assert store.get("good") == {k: v for k, v in good.items() if k != "key"}
    assert store.skipped == 6
    (warning,) = [r.getMessage() for r in caplog.records]
    assert f"{path}: 6 line(s) of the wrong shape skipped (line 2, 3, 4, 5, 6, ...)" in warning


def test_a_run_whose_cache_line_has_an_object_output_plays_on(tmp_path: Path) -> None:
    cache = tmp_path / "c.jsonl"
    first = run(quickstart("runs=2", "rounds=1", f"cache.path={cache}"), tmp_path / "first")
    stored = cache_lines(cache)
    stored[0]["output"] = {"text": "not a reply"}  # the right key, the wrong shape
    damaged = tmp_path / "damaged.jsonl"  # a file this process has not read yet
    damaged.write_text("".join(json.dumps(e) + "\n" for e in stored))
    again = run(quickstart("runs=2", "rounds=1", f"cache.path={damaged}"), tmp_path / "again")
    assert again.summary["cache"]["misses"] == 1
    assert games_without_times(tmp_path / "again") == games_without_times(tmp_path / "first")
    assert first.summary["cache"]["misses"] == again.summary["cache"]["hits"] + 1


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        (
            "cache.path={tmp}/file/cache.jsonl",
            "cache.path {tmp}/file/cache.jsonl: cannot be written",
        ),
        (
            "cache.path={tmp}/none.jsonl",
            "cache.path {tmp}/none.jsonl: no such file; a read_only cache reuses a cache",
        ),
    ],
    ids=["parent-is-a-file", "read-only-missing"],
)
def test_a_cache_that_cannot_be_used_is_one_line_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setting: str, expected: str
) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    sets = ["--set", setting.format(tmp=tmp_path)]
    if "none" in setting:
        sets += ["--set", "cache.mode=read_only"]
    code, stderr = main_cli(capsys, "run", QUICKSTART, "--out", tmp_path / "run", *sets)
    assert code == 2
    (line,) = stderr
    assert line.startswith(f"error: {expected.format(tmp=tmp_path)}")
    assert not (tmp_path / "run").exists()
