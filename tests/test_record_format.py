"""Typed, versioned records: what the writer puts on disk, and runs of every format read back.

``tests/data/run_v0`` and ``run_v0_arms`` were written before ``format_version`` existed
(format 0, commit b7f6e50) by::

    icl-aif run experiments/quickstart.yaml --set runs=3 --set rounds=2 \\
      --set scenario.max_exchanges=4 \\
      --set 'roles.seller.model=chaos:scripted:linear?garbage_rate=0.6' \\
      --set 'roles.buyer.model=chaos:scripted:linear?garbage_rate=0.6' [--set 'arms=[ai,none]']

(plots/ and .lock dropped). Garbled closing lines make round 1 of g00002 end at the cap.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.compare import compare_runs
from icl_aif.analysis.export import export_run
from icl_aif.analysis.frames import load_run
from icl_aif.analysis.html_report import write_html_report
from icl_aif.analysis.metrics import round_metrics
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config
from icl_aif.games.registry import silent_lines
from icl_aif.records.layout import record_order
from icl_aif.records.reader import read_games, read_json, read_jsonl
from icl_aif.records.schema import FORMAT_VERSION, CallRecord, GameRecord, ManifestRecord
from icl_aif.records.writer import RunWriter
from icl_aif.run.resume import resume_config
from tests.conftest import PRICE_MEASURE, ROOT, icl_aif, quickstart, resume_without_first_game, run

V0 = ROOT / "tests" / "data" / "run_v0"
V0_ARMS = ROOT / "tests" / "data" / "run_v0_arms"
CAP_ROUND = ("g00002", 1)  # the fixtures' round the exchange cap ended


def without_times(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in g.items() if k not in ("started_at", "finished_at")} for g in games]


def without_silent_flag(turn: dict[str, Any]) -> dict[str, Any]:
    """A turn without the price game's ``no_price`` flag (recorded on turns since format 4)."""
    flags = [f for f in turn.get("flags", ()) if f != "no_price"]
    kept = {k: v for k, v in turn.items() if k != "flags"}
    return {**kept, "flags": flags} if flags else kept


def as_format_0(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records as format 0 wrote them: no ``format_version``, no ``truncated``, no ``terms``, no
    ``no_price`` flag on turns."""
    out = []
    for game in without_times(games):
        game.pop("format_version")
        game["rounds"] = [
            {
                **{k: v for k, v in r.items() if k not in ("truncated", "terms")},
                "turns": [without_silent_flag(t) for t in r["turns"]],
            }
            for r in game["rounds"]
        ]
        out.append(game)
    return out


@pytest.fixture(scope="module")
def v1(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The run of ``run_v0``'s config played by this version."""
    out = tmp_path_factory.mktemp("v1") / "run"
    run(load_config(V0 / "config.yaml"), out)
    return out


def test_every_line_and_the_manifest_carry_the_format_and_validate(v1: Path) -> None:
    games = list(read_jsonl(v1 / "games.jsonl"))
    calls = list(read_jsonl(v1 / "calls.jsonl"))
    manifest = read_json(v1 / "manifest.json")
    assert FORMAT_VERSION == 4
    assert next(iter(manifest)) == "format_version" and manifest["format_version"] == 4
    assert {g["format_version"] for g in games} == {c["format_version"] for c in calls} == {4}
    assert all(list(g)[-1] == "format_version" for g in games)  # game_id (and cell) lead
    for game in games:  # a line is its model's dump: every key typed, none lost
        assert GameRecord.model_validate(game).model_dump(exclude_unset=True) == game
    for call in calls:
        assert CallRecord.model_validate(call).model_dump(exclude_unset=True) == call
    ManifestRecord.model_validate(manifest)


def test_the_same_seed_gives_the_games_of_format_0_with_truncated_on_the_cap(v1: Path) -> None:
    old = sorted(read_jsonl(V0 / "games.jsonl"), key=record_order)  # the lines as written
    new = read_games(v1)
    assert as_format_0(new) == without_times(old)

    def unversioned(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in g.items() if k != "format_version"} for g in without_times(games)]

    silent = silent_lines(load_config(V0 / "config.yaml"))  # what a summary reads them with
    assert unversioned(read_games(V0, silent=silent)) == unversioned(new)  # the upgrade step
    # same keys in the same order, the new ones aside
    for a, b in zip(old, new, strict=True):
        assert [k for k in b if k != "format_version"] == list(a)
        for ra, rb in zip(a["rounds"], b["rounds"], strict=True):
            assert [k for k in rb if k not in ("truncated", "terms")] == list(ra)
            deal = ra["outcome"] == "deal"
            assert rb["terms"] == ({"price": ra["price"]} if deal else None)
    truncated = {(g["game_id"], r["round"]) for g in new for r in g["rounds"] if "truncated" in r}
    assert truncated == {CAP_ROUND}
    game, number = CAP_ROUND
    (cap,) = [r for g in new if g["game_id"] == game for r in g["rounds"] if r["round"] == number]
    assert (cap["outcome"], cap["reason"], cap["truncated"]) == ("no_deal", "cap", True)


def test_truncations_are_counted_for_both_formats(v1: Path) -> None:
    for directory in (V0, v1):
        games = read_games(directory)
        first = round_metrics(
            games, 1, total_runs=3, improve="seller", openers=3, seed=7, measure=PRICE_MEASURE
        )
        second = round_metrics(
            games, 2, total_runs=3, improve="seller", openers=3, seed=7, measure=PRICE_MEASURE
        )
        assert (first["truncations"], first["no_deal_reasons"].get("cap")) == (1, 1)
        assert second["truncations"] == 0
    summary = read_json(v1 / "summary.json")
    assert [r["truncations"] for r in summary["per_round"]] == [1, 0]
    assert "| cap |" in (v1 / "summary.md").read_text()


@pytest.mark.parametrize("directory", [V0, V0_ARMS])
def test_load_run_reads_format_0(directory: Path) -> None:
    loaded = load_run(directory)
    assert set(loaded.runs["format_version"]) == {0}
    assert len(loaded.runs) == (6 if directory == V0_ARMS else 3)
    truncated = loaded.rounds[loaded.rounds["truncated"]]
    assert set(zip(truncated["game_id"], truncated["round"], strict=True)) == {CAP_ROUND}
    assert (truncated["reason"] == "cap").all()
    assert len(loaded.calls) == len(list(read_jsonl(directory / "calls.jsonl")))


def test_report_of_a_format_0_run(tmp_path: Path) -> None:
    result = icl_aif("report", V0)
    assert result.returncode == 0, result.stderr
    header = next(line.split() for line in result.stdout.splitlines() if "errors" in line)
    assert header[:7] == ["round", "games", "deals", "deal", "rate", "cap", "errors"]
    first = next(
        line.split() for line in result.stdout.splitlines() if line.split()[:2] == ["1", "3"]
    )
    assert first[:5] == ["1", "3", "0", "0.0%", "-"]  # that summary has no truncations
    page = write_html_report(V0, tmp_path / "report.html")
    text = page.read_text()
    assert "g00002" in text and ">cap<" in text


def test_compare_a_format_0_run_with_a_new_one(v1: Path) -> None:
    rows = compare_runs(V0, v1)
    assert [r.round for r in rows] == [1, 2]
    assert [(r.games_a, r.deals_a, r.games_b, r.deals_b) for r in rows] == [
        (3, 0, 3, 0),
        (3, 1, 3, 1),
    ]
    for row in rows:  # the same games: nothing moved
        assert row.deal_rate_delta == 0.0
    assert (rows[1].price_a, rows[1].price_delta) == (15.0, 0.0)
    arm_rows = compare_runs(V0_ARMS, V0_ARMS, arm="ai")
    assert [r.round for r in arm_rows] == [1, 2]


def test_export_of_format_0_runs(tmp_path: Path) -> None:
    target, count = export_run(V0, tmp_path / "chat.jsonl", fmt="chat", keep="all", side=None)
    assert count == 6  # 3 games x 2 rounds
    first = json.loads(target.read_text().splitlines()[0])
    assert first["messages"][0]["role"] == "system"
    target, count = export_run(
        V0_ARMS, tmp_path / "pairs.jsonl", fmt="preference", keep="all", side=None
    )
    pairs = [json.loads(line) for line in target.read_text().splitlines()]
    assert count == len(pairs) and {p["metadata"]["chosen_arm"] for p in pairs} <= {"ai", "none"}


def test_resume_of_a_format_0_run_upgrades_its_lines(tmp_path: Path, v1: Path) -> None:
    """g00000's line is lost (a kill): it is played again, and the kept lines (g00002 with its
    cap round) are upgraded: the resume writes the run this version writes."""
    out = tmp_path / "run"
    resume_without_first_game(V0, out)
    assert without_times(read_games(out)) == without_times(read_games(v1))
    calls = list(read_jsonl(out / "calls.jsonl"))
    assert {c["format_version"] for c in calls} == {4}
    manifest = read_json(out / "manifest.json")
    assert manifest["format_version"] == 4 and manifest["game"] == "price"
    # the old prompt paths are rewritten as today's: a second resume checks them as they are now
    assert all(
        p.startswith("prompts/price/") for p in manifest["prompts"] if p.startswith("prompts/")
    )
    run(resume_config(out), out, resume=True)
    assert without_times(read_games(out)) == without_times(read_games(v1))


def newer(directory: Path, tmp_path: Path) -> Path:
    """A copy of ``directory`` as a future icl-aif might write it: format_version 99."""
    out = tmp_path / "future"
    shutil.copytree(directory, out)
    manifest = read_json(out / "manifest.json")
    (out / "manifest.json").write_text(json.dumps({"format_version": 99, **manifest}))
    lines = [{**g, "format_version": 99} for g in read_jsonl(out / "games.jsonl")]
    (out / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in lines))
    return out


UPGRADE = r"format_version 99; this icl-aif reads up to 4: upgrade icl-aif"


def test_a_newer_format_is_refused_in_one_line(tmp_path: Path) -> None:
    future = newer(V0, tmp_path)
    before = {p.name: p.read_bytes() for p in future.iterdir() if p.is_file()}
    with pytest.raises(UsageError, match=UPGRADE):
        load_run(future)
    with pytest.raises(UsageError, match=UPGRADE):
        compare_runs(V0, future)
    with pytest.raises(UsageError, match=UPGRADE):
        export_run(future, tmp_path / "x.jsonl", fmt="chat", keep="all", side=None)
    with pytest.raises(UsageError, match=UPGRADE):
        write_html_report(future, tmp_path / "x.html")
    with pytest.raises(UsageError, match=UPGRADE):
        resume_config(future)
    for args in (("report", future), ("run", "--resume", future)):
        result = icl_aif(*args)
        assert result.returncode == 2
        assert result.stderr.count("\n") == 1 and "upgrade icl-aif" in result.stderr
    assert {p.name: p.read_bytes() for p in future.iterdir() if p.is_file()} == before


def test_an_invalid_record_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    writer = RunWriter(tmp_path / "run")
    writer.create(quickstart(), {"name": "t"})
    game = {"game_id": "g00000", "seed": 1, "status": "finished", "error": None, "rounds": []}
    game |= {"started_at": "t0", "finished_at": "t1"}
    call = {"game_id": "g00000", "round": 1, "role": "seller", "model": "m", "messages": []}
    with pytest.raises(ValueError, match="status"):
        writer.append_games([game], [call])
    writer.close()
    assert (tmp_path / "run" / "games.jsonl").read_text() == ""
    assert (tmp_path / "run" / "calls.jsonl").read_text() == ""
