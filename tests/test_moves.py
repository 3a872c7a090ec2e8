"""Binding moves (``moves: structured``): the moves decide the round, the moderator cross-checks.

The rules of :mod:`icl_aif.games.moves` on hand-made turns; a structured run of scripted players
against its text run; the fallback chain of :mod:`icl_aif.engine.move_asker` on models that cannot do
tools; and the OpenAI and Anthropic SDKs making their moves through tool calls on local stubs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from icl_aif.core.errors import UsageError
from icl_aif.core.transcript import Turn
from icl_aif.engine.configs import load_config
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_round_graph
from icl_aif.engine.move_asker import read_fenced_move
from icl_aif.engine.nodes import round_record
from icl_aif.games.moves import Move, accept_problem, disagreement, read_move, resolve
from icl_aif.games.price.scenario import PriceScenario
from icl_aif.games.registry import get_game
from icl_aif.models.base import TextReplyModel, message_text
from icl_aif.records.reader import read_games, read_json
from icl_aif.testing.plugin import StartStub
from tests.conftest import QUICKSTART, quickstart, run

PRICE = get_game("price")
SCENARIO = PriceScenario()
OPENING = PRICE.opening_moves(SCENARIO)


def said(speaker: str, text: str, kind: str | None = None, price: float | None = None) -> Turn:
    turn = Turn(speaker=speaker, text=text)  # type: ignore[typeddict-item]
    if kind is not None:
        terms = None if price is None else {"price": price}
        turn["move"] = Move(kind, terms).to_dict("tool")  # type: ignore[arg-type]
    return turn


OPENERS = [t for t in PRICE.opening_turns(SCENARIO)]


# --- the rules -------------------------------------------------------------------------------


def test_the_openers_offer_the_list_price_and_the_buyers_first_offer() -> None:
    assert [None, Move("offer", {"price": 20.0}), Move("offer", {"price": 10.0})] == OPENING


def test_accept_binds_to_the_other_sides_standing_offer_not_to_what_the_line_says() -> None:
    turns = [
        *OPENERS,
        said("seller", "I could do $16.", "offer", 16),
        said("buyer", "Deal at $15!", "accept"),  # the words name $15; the move binds $16
    ]
    resolution = resolve(PRICE, SCENARIO, OPENING, turns)
    assert (resolution.state, resolution.terms, resolution.offerer) == (
        "deal",
        {"price": 16.0},
        "seller",
    )
    assert disagreement(resolution, "deal", {"price": 15.0})
    assert not disagreement(resolution, "deal", {"price": 16.0})


def test_an_opener_stands_as_an_offer_until_it_is_rejected() -> None:
    accepted = [*OPENERS, said("seller", "Fine, take it.", "accept")]
    assert resolve(PRICE, SCENARIO, OPENING, accepted).terms == {"price": 10.0}
    rejected = [*OPENERS, said("seller", "No.", "reject"), said("buyer", "Hm.", "talk")]
    assert accept_problem(PRICE, OPENING, "seller", rejected) is not None
    assert accept_problem(PRICE, OPENING, "buyer", rejected) is None  # the list price stands


def test_talk_offer_and_reject_go_on_and_walk_away_ends_without_a_deal() -> None:
    for kind, price in (("talk", None), ("offer", 14), ("reject", None)):
        turns = [*OPENERS, said("seller", "...", kind, price)]
        assert resolve(PRICE, SCENARIO, OPENING, turns).state == "ongoing"
    walked = resolve(PRICE, SCENARIO, OPENING, [*OPENERS, said("seller", "Bye.", "walk_away")])
    assert (walked.state, walked.reason) == ("no_deal", "walk_away")
    assert disagreement(walked, "ongoing", None)


def test_a_move_that_is_not_one_is_refused_with_what_to_fix() -> None:
    assert read_move(PRICE, SCENARIO, "seller", {"message": "Hi", "move": "talk"}) == (
        "Hi",
        Move("talk"),
    )
    offer = read_move(
        PRICE, SCENARIO, "seller", {"message": "$14", "move": "offer", "terms": {"price": 14}}
    )
    assert offer == ("$14", Move("offer", {"price": 14.0}))
    assert "terms" in str(read_move(PRICE, SCENARIO, "seller", {"message": "x", "move": "offer"}))
    negative = read_move(
        PRICE, SCENARIO, "seller", {"message": "x", "move": "offer", "terms": {"price": -3}}
    )
    assert isinstance(negative, str) and "terms.price" in negative
    unknown = read_move(PRICE, SCENARIO, "seller", {"message": "x", "move": "haggle"})
    assert isinstance(unknown, str) and "move" in unknown


def test_a_fenced_move_is_read_and_taken_off_the_line() -> None:
    text = 'Fine, $15 it is.\n```json\n{"message": "Fine.", "move": "accept", "terms": null}\n```'
    assert read_fenced_move(text) == (
        "Fine, $15 it is.",
        {"message": "Fine.", "move": "accept", "terms": None},
    )
    assert read_fenced_move("No block here.") == ("No block here.", None)


# --- runs ------------------------------------------------------------------------------------


def outcomes(directory: Path) -> list[tuple[Any, ...]]:
    return [
        (g["game_id"], r["round"], r["outcome"], r.get("terms"), [t["text"] for t in r["turns"]])
        for g in read_games(directory)
        for r in g["rounds"]
    ]


def test_a_structured_run_of_scripted_players_ends_every_round_as_its_text_run(
    tmp_path: Path,
) -> None:
    base = ("runs=12", "rounds=3", "concurrency=4")
    text = run(quickstart(*base), tmp_path / "text").directory
    moves = run(quickstart(*base, "moves=structured"), tmp_path / "moves").directory
    assert outcomes(moves) == outcomes(text)
    openers = len(quickstart().scenario.openers)
    for game in read_games(moves):
        for record in game["rounds"]:
            assert record["decided_by"] == "moves"
            assert "disagreements" not in record
            for turn in record["turns"][openers:]:
                assert turn["move"]["path"] == "tool"
                assert turn["move"]["kind"] in ("offer", "accept", "walk_away")
    summary = read_json(moves / "summary.json")
    assert all(row["disagreements"] == 0 for row in summary["per_round"])
    assert "disagreements" not in read_json(text / "summary.json")["per_round"][0]
    assert read_json(moves / "manifest.json")["players"]["moves"] == "structured"


class WordsAgainstMoves(TextReplyModel):
    """A seller whose words accept while its move only offers (a simulator for this test)."""

    @property
    def _llm_type(self) -> str:
        return "test-words-against-moves"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        return "Deal! $10 it is."

    def respond_move(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        return self.respond(messages), {"move": "offer", "terms": {"price": 18}}


def play_round(config_overrides: Sequence[str], seller: TextReplyModel) -> dict[str, Any]:
    config = load_config(QUICKSTART, ["runs=1", "rounds=1", *config_overrides])
    context = GameContext(config=config, models={"seller": seller})
    state = asyncio.run(
        build_round_graph(context.game).ainvoke(
            {"round": 1, "history": [], "turns": []}, context=context
        )
    )
    record = dict(round_record(state, context.game))  # type: ignore[arg-type]
    record["calls"] = context.calls
    return record


def test_the_moderators_other_reading_is_flagged_on_the_turn_and_counted() -> None:
    record = play_round(["moves=structured", "scenario.max_exchanges=2"], WordsAgainstMoves())
    seller_turn = record["turns"][3]
    assert seller_turn["move"] == {"kind": "offer", "terms": {"price": 18.0}, "path": "tool"}
    assert "moves_disagree" in seller_turn["flags"]
    assert seller_turn["text_verdict"]["state"] == "deal"
    assert record["disagreements"] >= 1
    assert record["decided_by"] == "moves"


class NoTools(TextReplyModel):
    """A seller model without tool calling that writes its move in a fenced block, or none."""

    fenced: bool = True

    @property
    def _llm_type(self) -> str:
        return "test-no-tools"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("no tools here")

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        if not self.fenced:
            return "I'll take $10."
        system = message_text(messages[0])
        assert "fenced block" in system  # the plain form asked for the move
        return 'Fine.\n```json\n{"message": "Fine.", "move": "accept", "terms": null}\n```'


def test_a_model_without_tools_makes_its_move_in_a_fenced_block() -> None:
    record = play_round(["moves=structured"], NoTools())
    assert (record["outcome"], record["terms"]) == ("deal", {"price": 10.0})
    assert record["turns"][3]["move"]["path"] == "fenced"
    assert record["turns"][3]["text"] == "Fine."
    assert [c.get("method") for c in record["calls"]] == ["plain"]  # tool and schema dropped


def test_a_reply_without_a_move_is_asked_again_then_ends_the_round() -> None:
    record = play_round(["moves=structured", "move_retries=1"], NoTools(fenced=False))
    assert (record["outcome"], record["reason"], record["invalid_moves"]) == (
        "no_deal",
        "invalid_moves",
        2,
    )
    second = record["calls"][1]["messages"]
    assert second[-1]["content"].startswith("Your reply made no move.")


def test_structured_moves_are_refused_where_they_cannot_be_made() -> None:
    from icl_aif.core.templates import PromptLibrary
    from icl_aif.run.checks import check_inputs

    with pytest.raises(UsageError, match="a person's typed line makes no move"):
        check_inputs(quickstart("moves=structured", "person=buyer"), PromptLibrary())


# --- vendors: tool calls through the real SDKs ------------------------------------------------


@pytest.mark.parametrize("vendor", ["openai", "anthropic", "cohere", "ai21"])
def test_a_vendor_model_makes_its_moves_through_tool_calls(
    vendor: str, vendor_stub: StartStub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stub = vendor_stub(vendor)
    stub.tool_reply(
        "make_move", {"message": "I can do $17.", "move": "offer", "terms": {"price": 17}}
    )
    stub.tool_reply("make_move", {"message": "Deal, $12.", "move": "accept", "terms": None})
    monkeypatch.chdir(tmp_path)
    config = quickstart(
        "runs=1",
        "rounds=1",
        "feedback.source=none",
        "moves=structured",
        f"roles.seller.model={stub.model}",
        f"roles.seller.base_url={stub.base_url}",
        "roles.seller.timeout=2",
        "roles.buyer.model=scripted:boulware",
    )
    directory = run(config, tmp_path / "run", probe_models=False).directory
    stub.check()
    (game,) = read_games(directory)
    (record,) = game["rounds"]
    seller = [t for t in record["turns"][3:] if t["speaker"] == "seller"]
    assert seller[0]["move"] == {"kind": "offer", "terms": {"price": 17.0}, "path": "tool"}
    assert seller[0]["text"] == "I can do $17."
    buyer_offer = record["turns"][4]["move"]["terms"]["price"]
    assert seller[1]["move"]["kind"] == "accept"
    assert (record["outcome"], record["terms"]) == ("deal", {"price": buyer_offer})
    sent = stub.bodies[0]
    names = [t.get("name") or t.get("function", {}).get("name") for t in sent["tools"]]
    assert names == ["make_move"]
    calls = [json.loads(line) for line in (directory / "calls.jsonl").read_text().splitlines()]
    assert [c.get("method") for c in calls if c["role"] == "seller"] == ["tool", "tool"]
