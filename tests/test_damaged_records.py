"""Damaged record lines: every reader of a run directory meets them the same way.

A small scripted run is played once; each test damages a copy of it: in ``games.jsonl`` a line
that is not JSON, a game whose ``rounds`` is not a list, a JSON array and a torn last line (the
kill -9 case); in ``calls.jsonl`` a line that is not JSON and a torn last line. Every reader then
exits 0 with one warning per damaged file it read, naming the lines, and counts them in its
output; or, when nothing is left to go on with, exits 2 with one line. Never a traceback.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.compare import compare_runs
from icl_aif.analysis.frames import load_run
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config
from icl_aif.records.reader import (
    DAMAGE_LOG,
    Damage,
    SkippedLines,
    read_games,
    read_records,
    record_lines,
)
from icl_aif.records.schema import call_problem, game_problem
from tests import conftest
from tests.conftest import ROOT, quickstart, run

TORN = "torn last line (a write cut short: a killed run)"
GAMES_DAMAGE = (
    "4 damaged lines skipped (line 3: not JSON; line 6: not a game record: rounds is not a list; "
    f"line 7: not a JSON object; line 10: {TORN})"
)
CALLS_DAMAGE = "2 damaged lines skipped (line 5: not JSON; line {last}: " + TORN + ")"


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished quickstart run of 6 games x 2 rounds (never changed: tests damage copies)."""
    return run(
        quickstart("runs=6", "rounds=2"), tmp_path_factory.mktemp("played") / "run"
    ).directory


def damaged(played: Path, target: Path) -> Path:
    """A copy of ``played`` with damaged lines in both record files (see the module docstring):
    every game and call of ``played`` is still there, whole."""
    shutil.copytree(played, target)
    games = (target / "games.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    wrong_shape = json.dumps({"game_id": "g00099", "status": "complete", "rounds": 5}) + "\n"
    (target / "games.jsonl").write_text(
        "".join(
            [*games[:2], "{garbage\n", *games[2:4], wrong_shape, "[1, 2]\n", *games[4:]],
        )
        + games[0][:40],  # torn: no newline
        encoding="utf-8",
    )
    calls = (target / "calls.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (target / "calls.jsonl").write_text(
        "".join([*calls[:4], "\x00\x01 not json\n", *calls[4:], calls[0][:30]]),
        encoding="utf-8",
    )
    return target


def calls_damage(played: Path) -> str:
    """The warning text of the damaged ``calls.jsonl`` (its last line's number depends on the
    run's number of calls)."""
    lines = (played / "calls.jsonl").read_text(encoding="utf-8").count("\n")
    return CALLS_DAMAGE.format(last=lines + 2)


def warnings_of(result: subprocess.CompletedProcess[str]) -> list[str]:
    """stderr's lines, after checking that nothing else went there (no traceback)."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.splitlines()
    assert all(line.startswith("warning: ") for line in lines), result.stderr
    return lines


@pytest.fixture
def broken(played: Path, tmp_path: Path) -> Path:
    return damaged(played, tmp_path / "broken")


def icl_aif(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The CLI at 160 columns: a table's row stays on one line."""
    return conftest.icl_aif(*args, columns=160)


def test_report_warns_once_and_counts_the_skipped_lines(broken: Path) -> None:
    result = icl_aif("report", broken)
    assert result.returncode == 0, result.stderr
    assert warnings_of(result) == [f"warning: {broken / 'games.jsonl'}: {GAMES_DAMAGE}"]
    assert f"4 damaged lines skipped in {broken / 'games.jsonl'}" in result.stdout


def test_report_html_and_plots_warn_once_and_the_page_names_the_lines(
    played: Path, broken: Path, tmp_path: Path
) -> None:
    result = icl_aif("report", broken, "--html", "--plots", "--out", tmp_path / "page.html")
    assert result.returncode == 0, result.stderr
    assert warnings_of(result) == [f"warning: {broken / 'games.jsonl'}: {GAMES_DAMAGE}"]
    assert f"4 damaged lines skipped in {broken / 'games.jsonl'}" in result.stdout
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert f'<p class="damaged">{broken / "games.jsonl"}: {GAMES_DAMAGE}</p>' in page
    whole = icl_aif("report", played, "--html", "--out", tmp_path / "whole.html")
    assert whole.returncode == 0 and whole.stderr == ""
    whole_page = (tmp_path / "whole.html").read_text(encoding="utf-8")
    assert 'class="damaged"' not in whole_page
    transcripts = page.partition('id="transcripts"')[2]  # the same six games, whole
    assert transcripts == whole_page.partition('id="transcripts"')[2]


def test_export_skips_the_damaged_lines_of_both_files(played: Path, broken: Path) -> None:
    result = icl_aif("export", broken, "--out", broken / "chat.jsonl")
    assert result.returncode == 0, result.stderr
    assert warnings_of(result) == [
        f"warning: {broken / 'games.jsonl'}: {GAMES_DAMAGE}",
        f"warning: {broken / 'calls.jsonl'}: {calls_damage(played)}",
    ]
    assert "6 damaged lines skipped: 4 in" in result.stdout
    expected = icl_aif("export", played, "--out", broken / "whole.jsonl")
    assert expected.returncode == 0 and expected.stderr == ""
    assert (broken / "chat.jsonl").read_bytes() == (broken / "whole.jsonl").read_bytes()


def test_audit_skips_the_damaged_lines(broken: Path) -> None:
    result = icl_aif("audit", broken)
    assert result.returncode == 0, result.stderr
    assert warnings_of(result) == [f"warning: {broken / 'games.jsonl'}: {GAMES_DAMAGE}"]
    assert "audit: 0 of 12 rounds disputed" in result.stdout
    assert f"4 damaged lines skipped in {broken / 'games.jsonl'}" in result.stdout


def test_compare_skips_the_damaged_lines_and_compares_the_same_games(
    played: Path, broken: Path
) -> None:
    result = icl_aif("compare", played, broken)
    assert result.returncode == 0, result.stderr
    assert warnings_of(result) == [f"warning: {broken / 'games.jsonl'}: {GAMES_DAMAGE}"]
    assert result.stdout.splitlines()[-1] == (
        f"4 damaged lines skipped in {broken / 'games.jsonl'} (the warning names them)"
    )
    skipped = SkippedLines()
    assert compare_runs(played, broken, skipped=skipped) == compare_runs(played, played)
    assert skipped.counts() == {"games.jsonl": 4}


def test_load_run_warns_once_per_file_and_counts(
    played: Path, broken: Path, caplog: pytest.LogCaptureFixture
) -> None:
    whole = load_run(played)
    with caplog.at_level(logging.WARNING, logger=DAMAGE_LOG):
        loaded = load_run(broken)
        again = load_run(broken)  # the same files: said once in a process
    assert [r.getMessage() for r in caplog.records] == [
        f"{broken / 'games.jsonl'}: {GAMES_DAMAGE}",
        f"{broken / 'calls.jsonl'}: {calls_damage(played)}",
    ]
    assert loaded.damaged_lines == again.damaged_lines == {"games.jsonl": 4, "calls.jsonl": 2}
    assert whole.damaged_lines == {}
    assert loaded.runs.equals(whole.runs) and len(loaded.calls) == len(whole.calls)


def test_resume_drops_the_damaged_lines_with_one_warning(played: Path, broken: Path) -> None:
    result = icl_aif("run", "--resume", broken, "--no-preflight")
    assert result.returncode == 0, result.stderr
    assert warnings_of(result) == [
        f"warning: {broken / 'games.jsonl'}: {GAMES_DAMAGE.replace('skipped', 'dropped')}",
        f"warning: {broken / 'calls.jsonl'}: {calls_damage(played).replace('skipped', 'dropped')}",
    ]
    assert "the resume dropped 6 damaged lines (4 in games.jsonl, 2 in calls.jsonl)" in (
        result.stdout
    )
    for name in ("games.jsonl", "calls.jsonl"):  # every game was whole: nothing played again
        assert (broken / name).read_bytes() == (played / name).read_bytes()


def test_a_damaged_game_is_played_again_on_resume(played: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(played, tmp_path / "copy")
    games = (copy / "games.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    games[3] = games[3][: len(games[3]) // 2] + "\n"  # cut in the middle: not JSON
    (copy / "games.jsonl").write_text("".join(games), encoding="utf-8")
    result = icl_aif("run", "--resume", copy, "--no-preflight")
    assert result.returncode == 0, result.stderr
    assert warnings_of(result) == [
        f"warning: {copy / 'games.jsonl'}: 1 damaged line dropped (line 4: not JSON)"
    ]
    assert "the resume dropped 1 damaged line (1 in games.jsonl)" in result.stdout

    def timeless(directory: Path) -> list[dict[str, object]]:
        times = ("started_at", "finished_at")
        return [{k: v for k, v in g.items() if k not in times} for g in read_games(directory)]

    assert timeless(copy) == timeless(played)  # the damaged game was played again, the same


def test_serve_pool_lists_the_readable_games_with_the_warning(
    played: Path, broken: Path, tmp_path: Path
) -> None:
    pytest.importorskip("fastapi", reason="pip install -e '.[web]'")
    from tests.test_serve import open_tasks, start

    server = start(tmp_path, "--pool", broken, "--pool-out", tmp_path / "pool.txt")
    try:
        tasks = open_tasks(server.api, 6)
        assert sorted(t["id"] for t in tasks) == [g["game_id"] for g in read_games(played)]
        warnings = [ln for ln in server.output().splitlines() if ln.startswith("warning: ")]
        assert warnings == [f"warning: {broken / 'games.jsonl'}: {GAMES_DAMAGE}"]
        assert "Traceback" not in server.output()
    finally:
        server.process.kill()
        server.process.wait(timeout=30)


# --- nothing to go on with: one line, exit 2 ---------------------------------------------------


@pytest.fixture
def unreadable(played: Path, tmp_path: Path) -> Path:
    """A run whose every games.jsonl line is damaged."""
    copy = shutil.copytree(played, tmp_path / "unreadable")
    (copy / "games.jsonl").write_text('not json\n{"foo": 1}\n{"game_id": "g', encoding="utf-8")
    return copy


NOTHING = "no readable game, only 3 damaged lines (line 1: not JSON; line 2: not a game record: "


@pytest.mark.parametrize(
    "command",
    [("report",), ("report", "--html"), ("export",), ("audit",), ("compare", "PLAYED")],
)
def test_no_readable_game_is_one_line_and_exit_2(
    played: Path, unreadable: Path, command: tuple[str, ...]
) -> None:
    args = [played if a == "PLAYED" else a for a in command]
    result = icl_aif(*args, unreadable)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"error: {unreadable / 'games.jsonl'}: {NOTHING}no game_id")
    with pytest.raises(UsageError, match="no readable game"):
        load_run(unreadable)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"name": "quickstart"', "damaged, not JSON (line 1, column 22)"),
        ("[1, 2]\n", "damaged, not a JSON object"),
        ('{"name": 3}\n', "not a run manifest (name: Input should be a valid string)"),
    ],
)
def test_a_damaged_manifest_is_one_line_and_exit_2(
    played: Path, tmp_path: Path, text: str, problem: str
) -> None:
    copy = shutil.copytree(played, tmp_path / "copy")
    (copy / "manifest.json").write_text(text, encoding="utf-8")
    for args in (("report", copy), ("run", "--resume", copy)):
        result = icl_aif(*args)
        assert result.returncode == 2, result.stderr
        assert result.stderr == f"error: {copy / 'manifest.json'}: {problem}\n"
    with pytest.raises(UsageError, match=r"manifest\.json"):
        load_run(copy)


def test_a_damaged_summary_is_one_line_and_exit_2(played: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(played, tmp_path / "copy")
    (copy / "summary.json").write_bytes(b"\xff\xfe{")
    result = icl_aif("report", copy)
    assert result.returncode == 2
    assert result.stderr == f"error: {copy / 'summary.json'}: damaged, not JSON\n"


# --- compare: one game ------------------------------------------------------------------------


def test_compare_refuses_runs_of_two_games_naming_both(tmp_path: Path) -> None:
    runs = {}
    for game in ("pie_split", "dond"):
        config = load_config(ROOT / "experiments" / f"{game}.yaml", ["runs=2", "rounds=1"])
        runs[game] = run(config, tmp_path / game).directory
    result = icl_aif("compare", runs["pie_split"], runs["dond"])
    assert result.returncode == 2
    assert result.stderr == (
        f"error: {runs['pie_split']} is a run of the game pie_split, {runs['dond']} of dond: "
        "compare two runs of one game\n"
    )
    with pytest.raises(UsageError, match=r"pie_split.*dond"):
        compare_runs(runs["pie_split"], runs["dond"])
    same = icl_aif("compare", runs["dond"], runs["dond"])
    assert same.returncode == 0, same.stderr


# --- the reader ---------------------------------------------------------------------------------


def _lines(path: Path, text: str) -> Iterator[dict[str, object]]:
    path.write_text(text, encoding="utf-8")
    return read_records(path)


def test_a_warning_names_a_few_lines_per_problem_and_counts_the_rest(tmp_path: Path) -> None:
    damage = Damage(tmp_path / "games.jsonl")
    for number in range(1, 9):
        damage.add(number, "not JSON")
    damage.add(20, TORN)
    assert damage.message() == (
        f"{tmp_path / 'games.jsonl'}: 9 damaged lines skipped "
        f"(lines 1, 2, 3, 4, 5 and 3 more: not JSON; line 20: {TORN})"
    )
    skipped = SkippedLines()
    skipped.add(damage)
    skipped.add(damage)  # a file read twice counts once
    assert skipped.count == 9 and skipped.counts() == {"games.jsonl": 9}
    assert SkippedLines().line() is None


def test_the_reader_streams_and_keeps_the_readable_lines_byte_for_byte(
    played: Path, broken: Path
) -> None:
    skipped = SkippedLines()
    kept = b"".join(raw for raw, _ in record_lines(broken / "calls.jsonl", skipped))
    assert kept == (played / "calls.jsonl").read_bytes()
    assert skipped.counts() == {"calls.jsonl": 2}


def test_a_newer_format_version_is_still_refused(tmp_path: Path) -> None:
    line = {"game_id": "g1", "status": "complete", "rounds": [], "format_version": 99}
    with pytest.raises(UsageError, match="line 2: written with record format_version 99"):
        list(_lines(tmp_path / "games.jsonl", "garbage\n" + json.dumps(line) + "\n"))


def test_a_last_line_without_its_newline_is_torn_even_when_it_reads(tmp_path: Path) -> None:
    game = {"game_id": "g1", "status": "complete", "rounds": []}
    skipped = SkippedLines()
    (tmp_path / "games.jsonl").write_text(json.dumps(game) + "\n" + json.dumps(game))
    assert len(list(read_records(tmp_path / "games.jsonl", skipped))) == 1
    assert skipped.line() == (
        f"1 damaged line skipped in {tmp_path / 'games.jsonl'} (the warning names them)"
    )


ROUND: dict[str, Any] = {
    "round": 1,
    "outcome": "deal",
    "turns": [{"speaker": "buyer", "text": "hi"}],
}
GAME: dict[str, Any] = {"game_id": "g1", "status": "complete", "rounds": [ROUND]}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({}, None),
        ({"game_id": 7}, "game_id is not a string"),
        ({"rounds": {"1": []}}, "rounds is not a list"),
        ({"rounds": [5]}, "rounds[0] is not an object"),
        ({"rounds": [{"round": 1, "outcome": "deal"}]}, "no rounds[0].turns"),
        ({"rounds": [{"round": 1, "outcome": "deal", "turns": ["x"]}]}, "rounds[0].turns[0] is"),
        ({"rounds": [{**ROUND, "terms": 3}]}, "rounds[0].terms is not an object"),
        ({"scenario": "x"}, "scenario is not an object"),
    ],
)
def test_the_shape_of_a_game(change: dict[str, object], problem: str | None) -> None:
    found = game_problem({**GAME, **change})
    if problem is None:
        assert found is None
    else:
        assert found is not None and found.startswith(f"not a game record: {problem}")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({}, None),
        ({"round": "1"}, "round is not an integer"),
        ({"messages": "hi"}, "messages is not a list"),
        ({"messages": [{"role": "user"}]}, "no messages[0].content"),
        ({"usage": 5}, "usage is not an object"),
        ({"usage": None, "messages": None}, None),
    ],
)
def test_the_shape_of_a_call(change: dict[str, object], problem: str | None) -> None:
    call = {"game_id": "g1", "round": 1, "role": "seller", "model": "scripted:linear"}
    found = call_problem({**call, **change})
    assert found == (None if problem is None else f"not a call record: {problem}")
