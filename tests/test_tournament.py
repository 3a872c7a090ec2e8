"""Tournaments (issue 25): the config's pairings as cells, an offline tournament, icl-aif rank."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import config_from_dict
from icl_aif.records.reader import read_games
from tests.conftest import ROOT, icl_aif, run

PLAYERS = [
    {"name": "firm", "model": "scripted:boulware"},
    {"name": "steady", "model": "scripted:linear"},
    {"name": "soft", "model": "scripted:conceder"},
]


def tournament(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "tiny_tournament",
        "runs": 3,
        "rounds": 1,
        "concurrency": 4,
        "feedback": {"source": "none"},
        "tournament": {"players": PLAYERS},
    }
    data["tournament"].update(extra.pop("tournament", {}))
    return {**data, **extra}


def test_all_pairings_are_every_ordered_pair_in_both_seats() -> None:
    config = config_from_dict(tournament(), "t.yaml")
    cells = config.cells()
    assert [c.id for c in cells] == [f"p{i:02d}" for i in range(1, 10)]
    assert cells[1].players == {"seller": "firm", "buyer": "steady"}
    assert cells[3].players == {"seller": "steady", "buyer": "firm"}
    assert cells[1].config.roles.seller.model == "scripted:boulware"
    assert cells[1].config.roles.buyer.model == "scripted:linear"
    assert config.total_games() == 27
    no_self = config_from_dict(tournament(tournament={"self_play": False}), "t.yaml")
    assert len(no_self.cells()) == 6


def test_listed_pairings_set_their_own_runs() -> None:
    pairings = [{"seller": "firm", "buyer": "soft", "runs": 5}, {"buyer": "firm", "seller": "soft"}]
    config = config_from_dict(tournament(tournament={"pairings": pairings}), "t.yaml")
    assert [(c.players, c.config.runs) for c in config.cells()] == [
        ({"seller": "firm", "buyer": "soft"}, 5),
        ({"seller": "soft", "buyer": "firm"}, 3),
    ]
    assert config.total_games() == 8


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {"tournament": {"pairings": [{"seller": "firm", "buyer": "nobody"}]}},
            "no player 'nobody'",
        ),
        ({"tournament": {"pairings": [{"seller": "firm"}]}}, "name one player for each seat"),
        ({"tournament": {"players": [PLAYERS[0], PLAYERS[0]]}}, "firm named twice"),
        (
            {"roles": {"buyer": {"model": ["scripted:linear", "scripted:boulware"]}}},
            "not with lists",
        ),
    ],
)
def test_a_bad_tournament_is_one_line(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        config_from_dict(tournament(**extra), "t.yaml")


def test_an_offline_tournament_records_its_pairings_and_ranks(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(config_from_dict(tournament(), "t.yaml"), out)
    games = read_games(out)
    assert len(games) == 27
    assert {g["cell"] for g in games} == {f"p{i:02d}" for i in range(1, 10)}
    # every pairing plays the same drawn games: the same seeds, game by game
    seeds: dict[str, set[int]] = {}
    for game in games:
        seeds.setdefault(game["game_id"], set()).add(game["seed"])
    assert len(seeds) == 3 and all(len(found) == 1 for found in seeds.values())
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["cells"][1]["players"] == {"seller": "firm", "buyer": "steady"}
    ranked = icl_aif("rank", out, "--resamples", "200", columns=200)
    assert ranked.returncode == 0, ranked.stderr
    assert "seller's advantage over buyer" in ranked.stdout
    entry = json.loads((out / "ranking.json").read_text())
    assert [row["player"] for row in entry["players"]] and entry["games"] == 27
    assert {row["player"] for row in entry["players"]} == {"firm", "steady", "soft"}
    assert "## Ranking" in (out / "summary.md").read_text()
    assert (out / "plots" / "ranking.png").is_file()


def test_rank_of_a_run_that_is_no_tournament_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(config_from_dict({"runs": 2, "rounds": 1}, "t.yaml"), out)
    ranked = icl_aif("rank", out)
    assert ranked.returncode == 2
    assert ranked.stderr.strip().splitlines() == [
        f"error: {out}: not a tournament (its config.yaml has no tournament:); icl-aif rank "
        "ranks the players of one, e.g. experiments/tournament.yaml"
    ]


def test_the_shipped_tournament_loads() -> None:
    from icl_aif.engine.configs import load_config

    config = load_config(ROOT / "experiments" / "tournament.yaml")
    assert config.tournament is not None and len(config.cells()) == 16
