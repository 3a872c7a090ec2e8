"""Runs of the games other than the price game, as format 2 wrote them (issue 22): they must keep
loading, reporting, comparing, exporting and resuming once the records name each game's seats.

``tests/data/run_v2_dond`` and ``tests/data/run_v2_pie_split`` were written by icl-aif with
record format 2 (seats named seller and buyer in every game), by
``icl-aif run experiments/<game>.yaml --set runs=3 --set rounds=2`` (plots left out).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis import load_run
from icl_aif.compare import compare_runs
from icl_aif.export import export_run
from icl_aif.records import read_games, read_json, read_records
from icl_aif.resume import resume_config
from tests.conftest import ROOT, icl_aif, run

V2_RUNS = {
    "dond": ROOT / "tests" / "data" / "run_v2_dond",
    "pie_split": ROOT / "tests" / "data" / "run_v2_pie_split",
}
GAMES = list(V2_RUNS)


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
def test_the_run_is_of_format_2_and_its_game(game: str) -> None:
    directory = V2_RUNS[game]
    manifest = read_json(directory / "manifest.json")
    assert (manifest["format_version"], manifest["game"]) == (2, game)
    games = read_games(directory)
    assert len(games) == 3 and all(len(g["rounds"]) == 2 for g in games)
    assert {g["format_version"] for g in games} == {2}
    assert {c["format_version"] for c in read_records(directory / "calls.jsonl")} == {2}


@pytest.mark.parametrize("game", GAMES)
def test_load_run_reads_it(game: str) -> None:
    loaded = load_run(V2_RUNS[game])
    assert len(loaded.runs) == 3
    assert len(loaded.rounds) == 6
    assert loaded.damaged_lines == {}
    assert loaded.config.game == game


@pytest.mark.parametrize("game", GAMES)
def test_report_prints_its_tables(game: str, tmp_path: Path) -> None:
    result = icl_aif("report", V2_RUNS[game], "--html", "--out", tmp_path / "report.html")
    assert result.returncode == 0, result.stderr
    assert "deal rate" in result.stdout and "Traceback" not in result.stderr
    assert (tmp_path / "report.html").is_file()


@pytest.mark.parametrize("game", GAMES)
def test_compare_with_itself_shows_no_difference(game: str) -> None:
    rows = compare_runs(V2_RUNS[game], V2_RUNS[game])
    assert [(row.round, row.games_a, row.games_b) for row in rows] == [(1, 3, 3), (2, 3, 3)]
    assert all(row.deal_rate_a == row.deal_rate_b for row in rows)


@pytest.mark.parametrize("game", GAMES)
def test_export_writes_a_chat_line_a_round(game: str, tmp_path: Path) -> None:
    target, count = export_run(
        V2_RUNS[game], tmp_path / "chat.jsonl", fmt="chat", keep="all", side=None
    )
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert count == len(lines) == 6
    assert all(line["messages"] for line in lines)


@pytest.mark.parametrize("game", GAMES)
def test_a_lost_game_is_played_again_on_resume(game: str, tmp_path: Path) -> None:
    """The first game's line is lost (a kill): the resume plays it again, the same game."""
    out = tmp_path / "run"
    shutil.copytree(V2_RUNS[game], out)
    games = (out / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "games.jsonl").write_text("".join(games[1:]))
    run(resume_config(out), out, resume=True)
    assert played(read_games(out)) == played(read_games(V2_RUNS[game]))
