"""Known-type counterparts (issue 26): the counterpart's policy, the exact best response, the
optimal player, the per-round figures and the checks of a config that asks for them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.configs import config_from_dict, load_config
from icl_aif.games.price.game import PriceGame
from icl_aif.games.price.known_type import (
    best_response,
    known_type_figures,
    payoff_of,
    policy_of,
)
from icl_aif.games.price.scenario import PriceScenario
from icl_aif.records.reader import read_games, read_json
from icl_aif.run.checks import check_inputs
from tests.conftest import ROOT, run


def scenario(**counterpart: Any) -> PriceScenario:
    extra = {k: counterpart.pop(k) for k in ("seller_cost", "max_exchanges") if k in counterpart}
    return PriceScenario(counterpart=counterpart, **extra)


def test_the_counterpart_concedes_from_its_opening_to_its_reservation_by_its_deadline() -> None:
    policy = policy_of(scenario(seat="buyer", reservation=16, beta=1.0, deadline=6))
    assert policy.offers == (11.0, 12.0, 13.0, 14.0, 15.0, 16.0)
    boulware = policy_of(scenario(seat="seller", reservation=12, beta=0.5, deadline=4))
    assert boulware.offers == (20.0, 18.0, 16.0, 12.0)  # concedes late
    assert boulware.accepts(1, 18.0) and not boulware.accepts(1, 17.0)
    every = policy_of(scenario(seat="buyer", reservation=16))  # no deadline: each line it gets
    assert every.deadline == 8 and every.offers[-1] == 16.0


def brute_force(s: PriceScenario) -> float:
    """The most the other seat can get against the policy, by trying every price on a grid at
    every one of its lines (and accepting, and walking away): no dynamic programme."""
    policy = policy_of(s)
    own = "buyer" if policy.seat == "seller" else "seller"
    lines = 2 * s.max_exchanges - 3  # after the default openers: buyer, seller, buyer
    speakers = ["seller" if i % 2 == 0 else "buyer" for i in range(lines)]
    grid = [float(p) for p in range(1, 31)]

    def search(line: int, replies: int, mine: float | None, theirs: float | None) -> float:
        if line >= lines:
            return 0.0
        if speakers[line] == policy.seat:  # the counterpart's reply
            if replies >= policy.deadline:
                return 0.0
            if mine is not None and policy.accepts(replies, mine):
                return payoff_of(s, own, mine)
            if replies == policy.deadline - 1:
                return 0.0
            return search(line + 1, replies + 1, mine, policy.offers[replies])
        best = 0.0  # walk away
        if theirs is not None:
            best = max(best, payoff_of(s, own, theirs))  # accept
        for price in [*grid, mine]:  # name a price, or name none (the standing one stays)
            best = max(best, search(line + 1, replies, price, theirs))
        return best

    opened = {"seller": s.list_price, "buyer": s.buyer_open}
    return search(0, 0, opened[own], opened[policy.seat])


def test_the_best_response_is_the_best_of_every_sequence_of_prices() -> None:
    rng = random.Random(26)
    checked = 0
    for _ in range(40):
        seat = rng.choice(["seller", "buyer"])
        reservation = rng.randint(10, 19) if seat == "buyer" else rng.randint(9, 20)
        s = scenario(
            seat=seat,
            reservation=reservation,
            beta=rng.choice([0.4, 1.0, 2.5]),
            deadline=rng.randint(1, 3),
            seller_cost=rng.choice([8, 12, 15]),
            max_exchanges=rng.choice([3, 4]),
        )
        assert best_response(s) == pytest.approx(brute_force(s)), s.counterpart
        checked += 1
    assert checked == 40


def test_no_zone_of_agreement_has_no_gap_and_an_optimal_of_nothing() -> None:
    s = scenario(seat="buyer", reservation=12, seller_cost=15)
    figures = known_type_figures(s, "seller", 0.0)
    assert figures.optimal == 0.0 and figures.gap is None and figures.efficiency is None
    zone = known_type_figures(scenario(seat="buyer", reservation=16), "seller", 5.0)
    assert (zone.optimal, zone.width, zone.gap, zone.efficiency) == (8.0, 8.0, 0.375, 0.625)


def known(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "known",
        "seed": 3,
        "runs": 12,
        "rounds": 2,
        "improve": "seller",
        "scenario": {
            "counterpart": {
                "seat": "buyer",
                "reservation": [10, 19],
                "beta": [0.5, 2.0],
                "deadline": [3, 8],
            }
        },
        "roles": {"seller": {"model": "scripted:optimal"}, "buyer": {"model": "scripted:known"}},
    }
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return data


def per_round(out: Path) -> list[dict[str, Any]]:
    return list(read_json(out / "summary.json")["per_round"])


@pytest.mark.parametrize("moves", ["text", "structured"])
def test_the_optimal_player_scores_no_gap_and_each_game_records_its_type(
    tmp_path: Path, moves: str
) -> None:
    out = tmp_path / "run"
    run(config_from_dict(known(moves=moves), "k.yaml"), out)
    rows = per_round(out)
    assert [r["optimality_gap"] for r in rows] == [0.0, 0.0]
    assert [r["surplus_efficiency"] for r in rows] == [1.0, 1.0]
    games = read_games(out)
    types = [g["scenario"]["counterpart"] for g in games]
    assert all(
        isinstance(t["reservation"], float) and isinstance(t["deadline"], int) for t in types
    )
    assert len({t["reservation"] for t in types}) > 3  # drawn per game
    game = PriceGame()
    for record in games:  # the deal is the best response's, game by game
        s = PriceScenario.model_validate(record["scenario"])
        for played in record["rounds"]:
            assert game.payoff(s, "seller", played) == pytest.approx(best_response(s))


def test_a_conceding_seller_leaves_a_gap_and_the_buyer_side_works_too(tmp_path: Path) -> None:
    out = tmp_path / "linear"
    run(config_from_dict(known(roles={"seller": {"model": "scripted:linear"}}), "k.yaml"), out)
    assert all(r["optimality_gap"] > 0.1 for r in per_round(out))
    buyer = known(
        improve="buyer",
        scenario={"counterpart": {"seat": "seller", "reservation": [9, 18], "beta": 1.0}},
        roles={"seller": {"model": "scripted:known"}, "buyer": {"model": "scripted:optimal"}},
    )
    out = tmp_path / "buyer"
    run(config_from_dict(buyer, "k.yaml"), out)
    assert [r["optimality_gap"] for r in per_round(out)] == [0.0, 0.0]


def test_deals_without_a_zone_count_as_false_agreements(tmp_path: Path) -> None:
    data = known(
        rounds=1,
        scenario={"seller_cost": 15, "counterpart": {"seat": "buyer", "reservation": 13}},
        roles={"seller": {"model": "scripted:linear", "params": {"floor": 11}}},
        feedback={"source": "none"},
    )
    out = tmp_path / "run"
    run(config_from_dict(data, "k.yaml"), out)
    (row,) = per_round(out)
    assert row["optimal"] == 0.0 and row["optimality_gap"] is None
    assert row["false_agreement_rate"] == pytest.approx(row["deal_rate"]) and row["deal_rate"] > 0


def test_a_run_without_a_counterpart_has_no_known_type_figures(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(config_from_dict({"runs": 2, "rounds": 1}, "q.yaml"), out)
    assert "game_columns" not in read_json(out / "summary.json")
    assert "optimality_gap" not in per_round(out)[0]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {"scenario": {"counterpart": None}},
            r"^roles\.seller\.model: scripted:optimal plays against a known type; set "
            r"scenario\.counterpart",
        ),
        (
            {"roles": {"buyer": {"model": "scripted:linear"}}},
            r"^roles\.buyer\.model: scenario\.counterpart makes the buyer a known type",
        ),
        (
            {"improve": "buyer", "roles": {"buyer": {"model": "scripted:known"}}},
            r"^improve: buyer is the known-type counterpart",
        ),
    ],
)
def test_a_config_the_known_type_cannot_play_is_one_line(
    extra: dict[str, Any], message: str
) -> None:
    data = known(**extra)
    if extra.get("scenario", {}).get("counterpart", 1) is None:
        data["scenario"] = {}
    with pytest.raises(UsageError, match=message):
        check_inputs(config_from_dict(data, "k.yaml"), PromptLibrary())


@pytest.mark.parametrize(
    ("counterpart", "message"),
    [
        ({"seat": "buyer", "reservation": 8}, "8 is below buyer_open 10"),
        ({"seat": "seller", "reservation": [12, 25]}, "25 is above list_price 20"),
        ({"seat": "buyer", "reservation": [18, 12]}, r"\[18, 12\] is no range"),
        ({"seat": "buyer", "reservation": 15, "deadline": 0}, "deadline: 0 must be above 0"),
    ],
)
def test_a_bad_counterpart_type_is_one_line(counterpart: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        config_from_dict(known(scenario={"counterpart": counterpart}), "k.yaml")


def test_the_shipped_design_loads_and_meets_its_targets(tmp_path: Path) -> None:
    config = load_config(ROOT / "experiments" / "known_type.yaml")
    assert [c.config.roles.seller.model for c in config.cells()] == [
        "scripted:optimal",
        "scripted:linear",
    ]
    out = tmp_path / "run"
    run(config.model_copy(update={"runs": 10}), out)
    cells = read_json(out / "summary.json")["cells"]
    optimal, linear = ([r["optimality_gap"] for r in c["per_round"]] for c in cells)
    assert max(optimal) < 0.02 and min(linear) > 0
