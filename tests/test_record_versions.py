"""Runs of every earlier record format keep loading, reporting, comparing, exporting and
resuming, read through the one upgrade step (``icl_aif.records.reader.upgraded``).

- ``tests/data/run_v0`` and ``run_v0_arms``: format 0, the price game (``test_record_format.py``
  reads them closely);
- ``tests/data/run_v1``: format 1, the price game, written by icl-aif at 5751859 (the last commit
  of format 1) with ``icl-aif run experiments/quickstart.yaml --set runs=3 --set rounds=2``;
- ``tests/data/run_v2_dond`` and ``run_v2_pie_split``: format 2 (seats named seller and buyer in
  every game), written with ``icl-aif run experiments/<game>.yaml --set runs=3 --set rounds=2``
  before format 3 named each game's seats;
- ``tests/data/run_v3``: format 3, the price game, written at b6d649b (the last commit of format
  3, before lines recorded the game's ``no_price`` flag) with ``icl-aif run
  experiments/quickstart.yaml --set runs=3 --set rounds=2``.

Plots and run locks are left out of all of them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.compare import compare_runs
from icl_aif.analysis.export import export_run
from icl_aif.analysis.frames import load_run
from icl_aif.analysis.metrics import round_metrics
from icl_aif.engine.configs import load_run_config
from icl_aif.games.registry import measure_of, silent_lines
from icl_aif.records.reader import (
    read_calls,
    read_games,
    read_json,
    read_jsonl,
    read_manifest,
    read_run_config_data,
    read_summary,
)
from icl_aif.records.schema import FORMAT_VERSION
from tests.conftest import ROOT, icl_aif, resume_without_first_game

DATA = ROOT / "tests" / "data"
V2_RUNS = {"dond": DATA / "run_v2_dond", "pie_split": DATA / "run_v2_pie_split"}
GAMES = list(V2_RUNS)
EVERY_FORMAT = {
    "v0": (DATA / "run_v0", 3, 2),
    "v1": (DATA / "run_v1", 3, 2),
    "v2_dond": (DATA / "run_v2_dond", 3, 2),
    "v2_pie_split": (DATA / "run_v2_pie_split", 3, 2),
    "v3": (DATA / "run_v3", 3, 2),
}
"""Each run: its directory, games and rounds."""
RUNS = list(EVERY_FORMAT)
SEATS = {"dond": ("alice", "bob"), "pie_split": ("proposer", "responder")}
OLD_SEAT = re.compile(r"\b(seller|buyer)")


def structure(data: Any) -> list[str]:
    """Every key, and every value but what was said (turn texts, messages, outputs): where a
    record names its seats."""
    found: list[str] = []
    if isinstance(data, dict):
        for key, value in data.items():
            found.append(str(key))
            if key not in ("text", "content", "output", "feedback", "acknowledgement", "openers"):
                found += structure(value)
    elif isinstance(data, list):
        for item in data:
            found += structure(item)
    elif isinstance(data, str):
        found.append(data)
    return found


PRICE_GAMES = ("prompts/price/", "prompts/size_price/")
"""The templates of the games whose seats are seller and buyer (listed in every manifest)."""


def old_seat_names(data: Any) -> list[str]:
    """The keys and values of ``data`` that still name a format-2 seat."""
    return [
        item
        for item in structure(data)
        if OLD_SEAT.search(item) and not item.startswith(PRICE_GAMES)
    ]


def played(games: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a game played, without when: outcome, terms and turns of every round."""
    return [
        {
            "game_id": g["game_id"],
            "rounds": [
                {k: r.get(k) for k in ("round", "outcome", "terms", "reason", "turns")}
                for r in g["rounds"]
            ],
        }
        for g in games
    ]


@pytest.mark.parametrize("game", GAMES)
def test_the_files_are_of_format_2_and_name_seller_and_buyer(game: str) -> None:
    directory = V2_RUNS[game]
    manifest = read_json(directory / "manifest.json")
    assert (manifest["format_version"], manifest["game"]) == (2, game)
    raw = list(read_jsonl(directory / "games.jsonl"))
    assert len(raw) == 3 and all(len(g["rounds"]) == 2 for g in raw)
    assert {g["format_version"] for g in raw} == {2}
    assert {c["format_version"] for c in read_jsonl(directory / "calls.jsonl")} == {2}
    assert {t["speaker"] for g in raw for r in g["rounds"] for t in r["turns"]} == {
        "seller",
        "buyer",
    }


@pytest.mark.parametrize("game", GAMES)
def test_the_readers_give_the_records_in_the_games_seats(game: str) -> None:
    directory = V2_RUNS[game]
    first, second = SEATS[game]
    manifest = read_manifest(directory)
    games = read_games(directory)
    calls = list(read_calls(directory))
    summary = read_summary(directory)
    config = read_run_config_data(directory)
    # the shape of format 3; format_version still says what the files were written in
    assert {manifest["format_version"], *(g["format_version"] for g in games)} == {2}
    assert {c["format_version"] for c in calls} == {2}
    assert (manifest["improve"], summary["improve"], config["improve"]) == (first,) * 3
    assert list(manifest["models"])[:2] == [first, second]
    assert list(config["roles"])[:2] == [first, second]
    assert {t["speaker"] for g in games for r in g["rounds"] for t in r["turns"]} == {
        first,
        second,
    }
    assert {c["role"] for c in calls} == {first, second, "critic"}
    for data in (manifest, games, calls, summary, config):
        assert old_seat_names(data) == []


@pytest.mark.parametrize("game", GAMES)
def test_what_was_said_is_not_touched(game: str) -> None:
    directory = V2_RUNS[game]
    raw = list(read_jsonl(directory / "games.jsonl"))
    texts = [[t["text"] for r in g["rounds"] for t in r["turns"]] for g in raw]
    upgraded = sorted(read_games(directory), key=lambda g: g["game_id"])
    assert [[t["text"] for r in g["rounds"] for t in r["turns"]] for g in upgraded] == texts


def test_the_v1_run_is_of_format_1() -> None:
    directory = EVERY_FORMAT["v1"][0]
    assert read_json(directory / "manifest.json")["format_version"] == 1
    assert {g["format_version"] for g in read_jsonl(directory / "games.jsonl")} == {1}


@pytest.mark.parametrize("name", RUNS)
def test_the_lines_without_terms_are_counted_as_the_run_counted_them(name: str) -> None:
    """Before format 4 the summary found the lines that state no terms by parsing them; read
    with the game's silent flag, the older lines carry it where that count found them."""
    directory = EVERY_FORMAT[name][0]
    config = load_run_config(directory)
    games = read_games(directory, silent=silent_lines(config))
    stored = read_summary(directory)
    if "per_arm" in stored:
        pytest.skip("a paired-arms summary keeps its flags per arm")
    for row in stored["per_round"]:
        counted = round_metrics(
            games,
            row["round"],
            total_runs=len(games),
            improve=config.improve,
            openers=len(config.scenario.openers),
            seed=config.bootstrap_seed,
            measure=measure_of(config),
        )
        assert (counted["flags"], counted["flags_improved"]) == (
            row["flags"],
            row["flags_improved"],
        )


@pytest.mark.parametrize("name", RUNS)
def test_load_run_reads_it(name: str) -> None:
    directory, runs, rounds = EVERY_FORMAT[name]
    loaded = load_run(directory)
    assert len(loaded.runs) == runs
    assert len(loaded.rounds) == runs * rounds
    assert loaded.damaged_lines == {}
    assert loaded.config.game == read_manifest(directory).get("game", "price")


@pytest.mark.parametrize("name", RUNS)
def test_report_prints_its_tables(name: str, tmp_path: Path) -> None:
    directory = EVERY_FORMAT[name][0]
    result = icl_aif("report", directory, "--html", "--out", tmp_path / "report.html")
    assert result.returncode == 0, result.stderr
    assert "deal rate" in result.stdout and "Traceback" not in result.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    improve = read_manifest(directory)["improve"]
    assert f"({improve} improved)" in page


@pytest.mark.parametrize("game", GAMES)
def test_the_report_of_a_v2_run_names_the_games_seats(game: str, tmp_path: Path) -> None:
    result = icl_aif("report", V2_RUNS[game], "--html", "--out", tmp_path / "report.html")
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert f"({SEATS[game][0]} improved)" in page
    assert OLD_SEAT.findall(result.stdout) == []


@pytest.mark.parametrize("name", RUNS)
def test_compare_with_itself_shows_no_difference(name: str) -> None:
    directory = EVERY_FORMAT[name][0]
    rows = compare_runs(directory, directory)
    assert [(row.round, row.games_a, row.games_b) for row in rows] == [(1, 3, 3), (2, 3, 3)]
    assert all(row.deal_rate_a == row.deal_rate_b for row in rows)


@pytest.mark.parametrize("name", RUNS)
def test_export_writes_a_chat_line_a_round(name: str, tmp_path: Path) -> None:
    directory, runs, rounds = EVERY_FORMAT[name]
    target, count = export_run(
        directory, tmp_path / "chat.jsonl", fmt="chat", keep="all", side=None
    )
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert count == len(lines) == runs * rounds
    assert all(line["messages"] for line in lines)


@pytest.mark.parametrize("name", RUNS)
def test_a_lost_game_is_played_again_on_resume(name: str, tmp_path: Path) -> None:
    """The first game's line is lost (a kill): the resume plays it again, the same game, and
    rewrites the kept lines in this format."""
    directory = EVERY_FORMAT[name][0]
    out = tmp_path / "run"
    resume_without_first_game(directory, out)
    silent = silent_lines(load_run_config(directory))  # the lines a resume flags
    assert played(read_games(out)) == played(read_games(directory, silent=silent))
    rewritten = [*read_jsonl(out / "games.jsonl"), *read_jsonl(out / "calls.jsonl")]
    assert {line["format_version"] for line in rewritten} == {FORMAT_VERSION}
    assert read_json(out / "manifest.json")["format_version"] == FORMAT_VERSION


@pytest.mark.parametrize("game", GAMES)
def test_a_resumed_v2_run_names_the_games_seats(game: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    resume_without_first_game(V2_RUNS[game], out)
    rewritten = [*read_jsonl(out / "games.jsonl"), *read_jsonl(out / "calls.jsonl")]
    manifest = read_json(out / "manifest.json")
    assert old_seat_names([*rewritten, manifest]) == []
    assert manifest["improve"] == SEATS[game][0]
