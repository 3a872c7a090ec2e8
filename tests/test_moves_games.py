"""Binding moves (``moves: structured``) in the pie split, Deal or No Deal, the size-price game and
the resource split: each game's offer model, its refusals of impossible offers, its agreed terms
(the rules judge's for the same agreement) and its scripted players' moves, which end every round
of a structured run as its text run ends it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from icl_aif.config.settings import Scenario
from icl_aif.core.transcript import Turn
from icl_aif.engine.configs import load_config
from icl_aif.games.base import Game
from icl_aif.games.dond.binding import DondOffer, proposed_offer
from icl_aif.games.dond.scenario import DondScenario
from icl_aif.games.dond.simulators import DondPlayer
from icl_aif.games.moves import Move, read_move, resolve
from icl_aif.games.pie_split.binding import PieSplitOffer
from icl_aif.games.pie_split.offers import read_split
from icl_aif.games.pie_split.scenario import PieSplitScenario
from icl_aif.games.registry import get_game
from icl_aif.games.resource_split.binding import ResourceSplitOffer
from icl_aif.games.resource_split.offers import read_split as read_resource_split
from icl_aif.games.resource_split.scenario import ResourceSplitScenario, complete
from icl_aif.games.size_price.binding import SizePriceOffer
from icl_aif.games.size_price.offers import read_offer
from icl_aif.games.size_price.scenario import SizePriceScenario
from icl_aif.records.reader import read_games
from tests.conftest import ROOT, run

GAMES = ("pie_split", "dond", "size_price", "resource_split")


# --- structured runs against text runs -------------------------------------------------------


def outcomes(directory: Path) -> list[tuple[Any, ...]]:
    """Every round's outcome, terms and lines, by game."""
    return [
        (g["game_id"], r["round"], r["outcome"], r.get("terms"), [t["text"] for t in r["turns"]])
        for g in read_games(directory)
        for r in g["rounds"]
    ]


@pytest.mark.parametrize("name", GAMES)
def test_a_structured_run_of_scripted_players_ends_every_round_as_its_text_run(
    name: str, tmp_path: Path
) -> None:
    base = ["runs=6", "rounds=2", "concurrency=3"]
    path = ROOT / "experiments" / f"{name}.yaml"
    text = run(load_config(path, base), tmp_path / "text").directory
    moves = run(load_config(path, [*base, "moves=structured"]), tmp_path / "moves").directory
    assert outcomes(moves) == outcomes(text)
    openers = len(load_config(path, base).scenario.openers)
    for game in read_games(moves):
        for record in game["rounds"]:
            assert record["decided_by"] == "moves"
            assert not record.get("disagreements")
            assert all(t.get("move") is None for t in record["turns"][:openers])
            for turn in record["turns"][openers:]:
                assert turn["move"]["path"] == "tool", turn


# --- impossible offers -----------------------------------------------------------------------


def refusal(name: str, scenario: Scenario, terms: dict[str, Any]) -> str:
    """What the player is shown for an offer of ``terms`` (asserting it is refused)."""
    game = get_game(name)
    read = read_move(
        game, scenario, game.seats.ids[0], {"message": "x", "move": "offer", "terms": terms}
    )
    assert isinstance(read, str), read
    return read


def test_a_pie_split_offer_must_give_out_the_whole_pie() -> None:
    scenario = PieSplitScenario()
    assert "pie of 100" in refusal("pie_split", scenario, {"mine": 60, "yours": 30})
    assert "mine" in refusal("pie_split", scenario, {"mine": -5, "yours": 105})
    valid = read_move(
        get_game("pie_split"),
        scenario,
        "proposer",
        {"message": "x", "move": "offer", "terms": {"mine": 60, "yours": 40}},
    )
    assert valid == ("x", Move("offer", {"mine": 60.0, "yours": 40.0}))


def test_a_dond_offer_must_give_out_exactly_the_items() -> None:
    scenario = DondScenario(sample=False)  # 3 books, 1 hat, 2 balls
    none = {"books": 0, "hats": 0, "balls": 0}
    over = refusal("dond", scenario, {"mine": {"books": 4, "hats": 0, "balls": 0}, "yours": none})
    assert "4 books" in over and "3 books, 1 hat and 2 balls" in over
    short = refusal(
        "dond",
        scenario,
        {"mine": {"books": 3, "hats": 1, "balls": 0}, "yours": {"books": 0, "hats": 0, "balls": 1}},
    )
    assert "3 books, 1 hat and 1 ball" in short and "add up" in short
    fraction = refusal(
        "dond", scenario, {"mine": {"books": 1.5, "hats": 1, "balls": 0}, "yours": none}
    )
    assert "books" in fraction


def test_a_size_price_offer_names_a_whole_quantity_within_the_bound_and_a_price() -> None:
    scenario = SizePriceScenario(max_quantity=100)
    over = refusal("size_price", scenario, {"quantity": 101, "unit_price": 50})
    assert "101 units" in over and "from 1 to 100" in over
    assert "quantity" in refusal("size_price", scenario, {"quantity": 0, "unit_price": 50})
    assert "unit_price" in refusal("size_price", scenario, {"quantity": 5, "unit_price": -1})


def test_a_resource_split_offer_must_add_up_for_every_resource() -> None:
    scenario = complete(ResourceSplitScenario())  # 10 units each
    bad = refusal(
        "resource_split",
        scenario,
        {"mine": {"A": 6, "B": 2, "C": 5}, "yours": {"A": 3, "B": 8, "C": 6}},
    )
    assert "A adds up to 9, not 10" in bad and "C adds up to 11, not 10" in bad
    assert "B adds up" not in bad


# --- agreed terms: the judge's for the simulators' own agreements ----------------------------


def moved(turn: Turn, kind: str, terms: BaseModel | None = None) -> Turn:
    """``turn`` with its binding move (as a structured run records it)."""
    data = None if terms is None else terms.model_dump(mode="json")
    out = Turn(speaker=turn["speaker"], text=turn["text"])
    out["move"] = Move(kind, data).to_dict("tool")  # type: ignore[arg-type]
    return out


def pie_moves(scenario: Scenario, turns: list[Turn]) -> list[Turn]:
    """The offer (numbered N: N - 1 offers go before it) and its acceptance, with their moves."""
    s = scenario
    assert isinstance(s, PieSplitScenario)
    split = read_split(turns[0]["text"], s.pie)
    assert split is not None and split.number is not None
    offer = PieSplitOffer(mine=split.mine, yours=split.yours)
    earlier = Turn(speaker=turns[1]["speaker"], text="Offer: 50 for me and 50 for you.")
    before = [moved(earlier, "offer", PieSplitOffer(mine=50, yours=50))] * (split.number - 1)
    return [*before, moved(turns[0], "offer", offer), moved(turns[1], "accept")]


def dond_moves(scenario: Scenario, turns: list[Turn]) -> list[Turn]:
    """The message is talk, the first proposal an offer and the matching one its acceptance."""
    assert isinstance(scenario, DondScenario)
    offer = proposed_offer(scenario, turns[1]["text"])
    assert isinstance(offer, DondOffer)
    return [moved(turns[0], "talk"), moved(turns[1], "offer", offer), moved(turns[2], "accept")]


def size_price_moves(scenario: Scenario, turns: list[Turn]) -> list[Turn]:
    offer, _ = read_offer(turns[0]["text"])
    assert offer is not None
    terms = SizePriceOffer(quantity=int(offer.quantity), unit_price=offer.unit_price)
    return [moved(turns[0], "offer", terms), moved(turns[1], "accept")]


def resource_split_moves(scenario: Scenario, turns: list[Turn]) -> list[Turn]:
    split = read_resource_split(turns[0]["text"])
    assert split is not None
    offer = ResourceSplitOffer(mine=split.mine, yours=split.yours)
    return [moved(turns[0], "offer", offer), moved(turns[1], "accept")]


MOVES: dict[str, tuple[Callable[[], Scenario], Callable[[Scenario, list[Turn]], list[Turn]]]] = {
    "pie_split": (PieSplitScenario, pie_moves),
    "dond": (lambda: DondScenario(sample=False), dond_moves),
    "size_price": (SizePriceScenario, size_price_moves),
    "resource_split": (lambda: complete(ResourceSplitScenario()), resource_split_moves),
}


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_moves_of_a_simulators_agreement_bind_the_judges_terms(name: str, seed: int) -> None:
    game: Game = get_game(name)
    make_scenario, with_moves = MOVES[name]
    scenario = make_scenario()
    opening = game.opening_moves(scenario)
    openers = game.opening_turns(scenario)
    for turns, terms in game.agreement_examples(scenario, seed):
        played = [*openers, *with_moves(scenario, turns)]
        resolution = resolve(game, scenario, opening, played)
        assert resolution.state == "deal", turns
        assert resolution.terms == terms, turns
        assert resolution.offerer == game.seats.other(turns[-1]["speaker"])


def test_the_default_openers_are_talk_and_an_opener_that_offers_stands() -> None:
    for name in GAMES:
        game = get_game(name)
        scenario = MOVES[name][0]()
        assert all(move is None for move in game.opening_moves(scenario)), name
    pie = PieSplitScenario(
        openers=[{"speaker": "proposer", "text": "Offer 1: 70 for me and 30 for you."}]
    )
    assert get_game("pie_split").opening_moves(pie) == [
        Move("offer", {"mine": 70.0, "yours": 30.0})
    ]


# --- Deal or No Deal's proposals as moves ----------------------------------------------------

OPENER = (
    "[message] Hi Alice! We have 3 books, 1 hat and 2 balls to split between us. Which of them "
    "matter most to you?"
)


def alice_answers(proposal: str, mismatch: str) -> tuple[str, dict[str, Any] | None]:
    """Alice's line and move after Bob's ``proposal`` (her first line in the round)."""
    scenario = DondScenario(sample=False, mismatch=mismatch, max_exchanges=8)
    player = DondPlayer(strategy="linear", side="alice", scenario=scenario, seed=1, reservation=0.5)
    history = [
        SystemMessage("brief"),
        HumanMessage(OPENER),
        AIMessage(
            "[message] How about this: I get 3 books, 1 hat and 0 balls and you get 0 books, "
            "0 hats and 2 balls."
        ),
        HumanMessage(proposal),
    ]
    return player.respond_move(history)


def test_a_matching_dond_proposal_accepts_and_a_mismatch_offers_or_walks_away() -> None:
    text, move = alice_answers("[propose] 0 books, 0 hats, 2 balls", "end")
    assert text.startswith("[propose]") and move == {"move": "accept", "terms": None}
    text, move = alice_answers("[propose] 3 books, 1 hat, 2 balls", "continue")
    assert text.startswith("[propose]") and move is not None and move["move"] == "offer"
    mine, yours = move["terms"]["mine"], move["terms"]["yours"]
    assert [mine[i] + yours[i] for i in ("books", "hats", "balls")] == [3, 1, 2]
    assert f"{mine['books']} book" in text  # the offer is the split the line proposes
    text, move = alice_answers("[propose] 3 books, 1 hat, 2 balls", "end")
    assert text.startswith("[walk away]") and move == {"move": "walk_away", "terms": None}
