"""Tournaments (issue 25): the config's pairings as cells, an offline tournament, icl-aif rank."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.protocol import player_brief
from icl_aif.records.reader import read_games
from icl_aif.run.checks import check_inputs
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


def test_a_players_persona_goes_with_it_to_either_seat() -> None:
    players = [{**PLAYERS[0], "persona": "stubborn"}, PLAYERS[1]]
    config = config_from_dict(
        tournament(tournament={"players": players, "self_play": False}), "t.yaml"
    )
    first, second = (cell.config for cell in config.cells())
    assert (first.persona_of("seller"), first.persona_of("buyer")) == ("stubborn", None)
    assert (second.persona_of("seller"), second.persona_of("buyer")) == (None, "stubborn")
    assert "persona" not in first.roles.seller.model_dump(exclude_unset=True)
    prompts = PromptLibrary()
    stubborn = prompts.text("personas/stubborn.txt").strip()
    assert stubborn in player_brief(prompts, first, "seller")
    assert stubborn not in player_brief(prompts, first, "buyer")
    assert stubborn in player_brief(prompts, second, "buyer")  # the improved seat's rival here
    check_inputs(config, prompts)


def test_a_persona_that_is_no_file_is_refused_before_a_game() -> None:
    players = [{**PLAYERS[0], "persona": "grumpy"}, PLAYERS[1]]
    config = config_from_dict(tournament(tournament={"players": players}), "t.yaml")
    with pytest.raises(UsageError, match=r"^personas\.seller: got 'grumpy'; allowed values: "):
        check_inputs(config, PromptLibrary())


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"personas": {"captain": "rude"}}, "personas.captain: not a seat of game 'price'"),
        ({"personas": {"seller": "random"}}, "random is drawn only for the rival"),
        (
            {"personas": {"buyer": "rude"}, "rival_persona": "stubborn"},
            "personas.buyer and rival_persona both set",
        ),
    ],
)
def test_bad_seat_personas_are_one_line(extra: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        config_from_dict({"runs": 1, **extra}, "t.yaml")


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


# --- scripted players of known strength on an unbalanced schedule ---------------------------
# The same linear concession with tougher or softer reservations: as a seller its floor, as a
# buyer its ceiling. The order, hard > firm > mild > soft in both seats, is known by construction.
GRADED = [
    {"name": "hard", "model": "scripted:linear", "params": {"floor": 15, "ceiling": 13}},
    {"name": "firm", "model": "scripted:linear", "params": {"floor": 13.5, "ceiling": 14.5}},
    {"name": "mild", "model": "scripted:linear", "params": {"floor": 12, "ceiling": 16}},
    {"name": "soft", "model": "scripted:linear", "params": {"floor": 10.5, "ceiling": 17.5}},
]
# hard meets almost only firm; firm meets mostly the two weakest
UNBALANCED = {
    ("hard", "firm"): 20,
    ("firm", "hard"): 20,
    ("firm", "mild"): 20,
    ("mild", "firm"): 20,
    ("firm", "soft"): 20,
    ("soft", "firm"): 20,
    ("hard", "mild"): 4,
    ("mild", "hard"): 4,
    ("mild", "soft"): 8,
    ("soft", "mild"): 8,
}


@pytest.fixture(scope="module")
def graded_pool(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Every pairing of the graded players, 30 games each: the population the repeated
    unbalanced tournaments draw their games from."""
    from icl_aif.analysis.tournament import tournament_games

    out = tmp_path_factory.mktemp("graded") / "run"
    data = tournament(runs=30, seed=5, tournament={"players": GRADED})
    run(config_from_dict(data, "graded.yaml"), out)
    return tournament_games(out)


def test_unbalanced_tournaments_of_graded_scripted_players_rank_them_right(
    graded_pool: Any,
) -> None:
    """Repeated: the fit puts the players in their known order every time, its 95% intervals
    cover the skills the schedule estimates (the fit of the whole pool's pairing means, weighted
    as the schedule weighs them) in at least 90% of cases, and plain means misorder a pair."""
    import numpy as np

    from icl_aif.analysis.ranking import _Design, _Pairings, bootstrap, fit_skills, plain_means

    players = [p["name"] for p in GRADED]
    pool: dict[tuple[str, str], list[Any]] = {}
    for meeting in graded_pool.meetings:
        pool.setdefault((meeting.first, meeting.second), []).append(meeting)
    keys = sorted(UNBALANCED)
    means = np.array([np.mean([m.margin for m in pool[k]]) for k in keys])
    weights = np.array([UNBALANCED[k] for k in keys], dtype=float)
    design = _Design(_Pairings(tuple(players), keys, weights, [np.array([m]) for m in means]))
    estimand = design.solve(means)
    rng = np.random.default_rng(0)
    repetitions, ordered, misordered, covered, checked = 60, 0, 0, 0, 0
    for repetition in range(repetitions):
        games = [
            pool[key][i] for key in keys for i in rng.integers(0, len(pool[key]), UNBALANCED[key])
        ]
        skills = fit_skills(games, players)
        ordered += sorted(players, key=lambda p: -(skills.overall[p] or 0.0)) == players
        plain = plain_means(games, players)
        misordered += any(
            (plain[a] or 0.0) < (plain[b] or 0.0)
            for i, a in enumerate(players)
            for b in players[i + 1 :]
        )
        params, _ = bootstrap(games, players, resamples=300, seed=repetition, with_regrets=False)
        for column in range(1, params.shape[1]):
            low, high = np.percentile(params[:, column], [2.5, 97.5])
            covered += low <= estimand[column] <= high
            checked += 1
    assert ordered == repetitions
    assert covered / checked >= 0.90
    assert misordered == repetitions
