"""Every experiment config we ship runs offline from the command line (scripted stand-ins for
vendor models), two runs each, and writes a summary: the configs stay in step with the code."""

from __future__ import annotations

from pathlib import Path

import pytest

from icl_aif.records.reader import read_games, read_json
from tests.conftest import ROOT, icl_aif

CONFIGS = sorted((ROOT / "experiments").glob("*.yaml"))


def test_every_game_has_a_config() -> None:
    from icl_aif.games import GAMES

    games = {read_game(path) for path in CONFIGS}
    assert set(GAMES) <= games


def read_game(path: Path) -> str:
    import yaml

    return str((yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("game", "price"))


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_the_config_runs_offline(path: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = icl_aif("run", path, "--offline", "--set", "runs=2", "--out", out)
    assert result.returncode == 0, result.stderr
    games = read_games(out)
    assert games and all(g["status"] == "complete" for g in games)
    assert read_json(out / "manifest.json")["game"] == read_game(path)
    assert (out / "summary.json").is_file()
