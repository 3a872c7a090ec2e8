"""Seats belong to the game: each game declares its two seats, configs and records name them, and
records of earlier formats are read in them (``icl_aif.core.record_upgrade``)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.core.record_upgrade import (
    FORMAT3_TEMPLATES,
    format3_seats,
    upgrade_override,
    upgrade_prompts,
    upgrade_seats,
)
from icl_aif.core.transcript import Seats
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.replies import screen
from icl_aif.games.registry import get_game, registered_games
from tests.conftest import ROOT, icl_aif

SEATS = {
    "price": ("seller", "buyer"),
    "size_price": ("seller", "buyer"),
    "dond": ("alice", "bob"),
    "pie_split": ("proposer", "responder"),
    "resource_split": ("player1", "player2"),
}
OLD_SEAT = re.compile(r"\b(seller|buyer)")


# --- the games' seats ---------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SEATS))
def test_each_game_declares_its_papers_seats(name: str) -> None:
    assert get_game(name).seats.ids == SEATS[name]


def test_every_registered_game_is_listed_here() -> None:
    assert set(registered_games()) == set(SEATS)


@pytest.mark.parametrize("name", sorted(SEATS))
def test_the_upgrade_step_maps_each_games_old_runs_to_its_seats(name: str) -> None:
    assert format3_seats(name) == get_game(name).seats.ids


def test_seats_name_the_rival_and_each_seats_name() -> None:
    seats = Seats(("alice", "Alice"), ("bob", "Bob"))
    assert (seats.other("alice"), seats.other("bob")) == ("bob", "alice")
    assert seats.name("bob") == "Bob" and list(seats) == ["alice", "bob"]
    assert "alice" in seats and "seller" not in seats
    assert (seats.index("bob"), seats.listed()) == (1, "alice or bob")


@pytest.mark.parametrize("ids", [("a", "a"), ("Alice", "bob"), ("", "bob"), ("x y", "z")])
def test_seat_ids_are_two_different_lowercase_words(ids: tuple[str, str]) -> None:
    with pytest.raises(ValueError, match="seat ids"):
        Seats((ids[0], "one"), (ids[1], "two"))


def test_a_seats_random_streams_keep_their_format_2_labels() -> None:
    """A seed gives the games it gave when every seat was called seller or buyer."""
    seats = get_game("dond").seats
    assert (seats.stream("alice"), seats.stream("bob")) == ("seller", "buyer")


# --- configs -------------------------------------------------------------------------------


def test_a_config_names_its_games_seats_and_defaults_the_rest() -> None:
    config = config_from_dict({"game": "dond", "roles": {"bob": {"model": "scripted:fair"}}})
    assert config.improve == "alice" and config.rival == "bob"
    assert list(config.roles.players) == ["alice", "bob"]
    assert config.roles.seat("alice").model == "scripted:linear"
    assert config.roles.seat("bob").model == "scripted:fair"
    assert list(config.model_dump(mode="json")["roles"])[:2] == ["alice", "bob"]


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"roles": {"seller": {"model": "scripted:linear"}}}, "roles.seller"),
        ({"improve": "seller"}, "improve"),
        ({"person": "buyer"}, "person"),
        ({"improve": ["alice", "buyer"], "improved_model": "scripted:linear"}, "improve"),
    ],
)
def test_a_seat_the_game_does_not_have_is_refused(data: dict[str, Any], field: str) -> None:
    with pytest.raises(UsageError, match=rf"{re.escape(field)}: .*alice.*bob"):
        config_from_dict({"game": "dond", **data})


def test_the_command_line_refuses_a_price_seat_in_dond_in_one_line() -> None:
    result = icl_aif("run", "experiments/dond.yaml", "--set", "roles.seller.model=scripted:linear")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "roles.seller" in lines[0] and "alice and bob" in lines[0]


def test_play_as_a_seat_the_game_does_not_have_is_refused(tmp_path: Path) -> None:
    result = icl_aif("play", "experiments/dond.yaml", "--as", "seller", "--out", tmp_path / "r")
    assert result.returncode == 2
    assert result.stderr.strip() == "error: --as 'seller': allowed values: alice or bob"


@pytest.mark.parametrize(
    ("experiment", "game"),
    [
        ("dond.yaml", "dond"),
        ("pie_split.yaml", "pie_split"),
        ("pie_split_arms.yaml", "pie_split"),
        ("resource_split.yaml", "resource_split"),
    ],
)
def test_the_shipped_experiments_name_their_games_seats(experiment: str, game: str) -> None:
    text = (ROOT / "experiments" / experiment).read_text(encoding="utf-8")
    assert OLD_SEAT.findall(text) == []
    assert f"improve: {SEATS[game][0]}" in text


# --- a run's records, tables and page ------------------------------------------------------


def test_a_dond_run_nowhere_says_seller_or_buyer(tmp_path: Path) -> None:
    out = tmp_path / "run"
    played = icl_aif("run", "experiments/dond.yaml", "--set", "runs=2", "--out", out)
    assert played.returncode == 0, played.stderr
    report = icl_aif("report", out, "--html", "--out", tmp_path / "report.html")
    assert report.returncode == 0, report.stderr
    texts = {
        "stdout of run": played.stdout,
        "stdout of report": report.stdout,
        "report.html": (tmp_path / "report.html").read_text(encoding="utf-8"),
    }
    for name in ("games.jsonl", "calls.jsonl", "manifest.json", "summary.json", "summary.md"):
        texts[name] = (out / name).read_text(encoding="utf-8")
    texts["config.yaml"] = (out / "config.yaml").read_text(encoding="utf-8")
    for name, text in texts.items():
        without_price_templates = re.sub(r"prompts/(size_)?price/[\w/.]+", "", text)
        assert OLD_SEAT.findall(without_price_templates) == [], name
    games = [json.loads(line) for line in texts["games.jsonl"].splitlines()]
    assert {t["speaker"] for g in games for r in g["rounds"] for t in r["turns"]} == {
        "alice",
        "bob",
    }
    assert "(alice improved)" in texts["report.html"]


# --- the upgrade step ----------------------------------------------------------------------


def test_upgrade_maps_seat_keys_and_seat_values_but_not_what_was_said() -> None:
    old = {
        "improve": "seller",
        "models": {"seller": "scripted:linear", "buyer": "scripted:fair", "critic": "x"},
        "scenario": {"seller_values": {"books": 1}, "openers": [{"speaker": "buyer"}]},
        "rounds": [
            {
                "turns": [{"speaker": "buyer", "text": "The seller says buyer: no."}],
                "terms": {"seller": {"books": 1}, "buyer_score": 3},
            }
        ],
        "messages": [{"role": "user", "content": "seller: hi"}],
        "role": "seller",
        "game_columns": [
            {"key": "seller_score", "header": "Alice's score"},
            {"key": "mean_buyer_reward", "header": "buyer reward"},
        ],
        "sweep": {"improve": ["seller", "buyer"]},
        "overrides": ["roles.buyer.model=scripted:fair", "improve=buyer", "rounds=2"],
    }
    new = upgrade_seats(old, ("alice", "bob"))
    assert new == {
        "improve": "alice",
        "models": {"alice": "scripted:linear", "bob": "scripted:fair", "critic": "x"},
        "scenario": {"alice_values": {"books": 1}, "openers": [{"speaker": "bob"}]},
        "rounds": [
            {
                "turns": [{"speaker": "bob", "text": "The seller says buyer: no."}],
                "terms": {"alice": {"books": 1}, "bob_score": 3},
            }
        ],
        "messages": [{"role": "user", "content": "seller: hi"}],
        "role": "alice",
        "game_columns": [
            {"key": "alice_score", "header": "Alice's score"},
            {"key": "mean_bob_reward", "header": "bob reward"},
        ],
        "sweep": {"improve": ["alice", "bob"]},
        "overrides": ["roles.bob.model=scripted:fair", "improve=bob", "rounds=2"],
    }
    assert old["improve"] == "seller"  # a new object


def test_upgrade_leaves_the_price_games_records_as_they_are() -> None:
    record = {"improve": "buyer", "roles": {"seller": {}}, "seller_cost": 10}
    assert upgrade_seats(record, ("seller", "buyer")) is record
    assert upgrade_override("roles.seller.model=x", ("seller", "buyer")) == "roles.seller.model=x"


def test_an_override_maps_its_path_and_a_seat_value() -> None:
    seats = ("player1", "player2")
    assert upgrade_override("scenario.seller_utilities=null", seats) == (
        "scenario.player1_utilities=null"
    )
    assert upgrade_override("person=seller", seats) == "person=player1"
    assert upgrade_override("rival_persona=seller", seats) == "rival_persona=seller"


def test_the_templates_format_3_rewrote_count_as_unchanged_only_with_their_old_text() -> None:
    path, (new_path, before, after) = next(iter(FORMAT3_TEMPLATES.items()))
    assert upgrade_prompts({path: before, "prompts/price/x.txt": "h"}) == {
        new_path: after,
        "prompts/price/x.txt": "h",
    }
    assert upgrade_prompts({path: "edited"}) == {new_path: "edited"}


def test_the_reply_screen_cuts_a_line_written_under_the_rivals_seat_name() -> None:
    dond = get_game("dond")
    screened = screen("[message] I keep the books.\nBob: fine by me.", dond.rival_labels("alice"))
    assert (screened.text, screened.flags) == ("[message] I keep the books.", ("as_rival",))
    assert screen("Buyer: deal.", dond.rival_labels("alice")).flags == ()
