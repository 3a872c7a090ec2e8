"""A person in the loop: LangGraph interrupt() pauses a game, Command(resume=...) goes on.

Human feedback pauses in the feedback node; a side a person plays pauses before each of its lines.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import CHECKS, config_from_dict
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_pausable_run_graph, build_run_graph
from icl_aif.games.registry import get_game
from icl_aif.records.reader import read_games, read_json, read_jsonl
from icl_aif.run.runner import play_game
from tests.conftest import ROOT, quickstart, run
from tests.test_protocol_messages import OPEN_1, OPEN_2, OPEN_3, SELLER_BRIEF

TYPED = "Hold firm after your first counter.\nAsk what the buyer will use it for."


def human_feedback_config(**settings: Any) -> dict[str, Any]:
    return {
        "name": "human",
        "rounds": 2,
        "feedback": {"source": "human"},
        "roles": {
            "seller": {
                "model": "replay:seller",
                "params": {"replies": ["How about $17?", "How about $18?"]},
            },
            "buyer": {
                "model": "replay:buyer",
                "params": {"replies": ["Okay, $17 works for me. Deal!", "No, I'm walking away."]},
            },
        },
        **settings,
    }


def test_human_feedback_pauses_the_game_and_reaches_the_next_round_exactly() -> None:
    ctx = GameContext(config=config_from_dict(human_feedback_config()))
    graph = build_pausable_run_graph(ctx.game, InMemorySaver())
    thread: Any = {"configurable": {"thread_id": ctx.game_id}}

    async def play() -> tuple[dict[str, Any], dict[str, Any]]:
        paused = await graph.ainvoke({}, config=thread, context=ctx)
        resumed = await graph.ainvoke(Command(resume=TYPED), config=thread, context=ctx)
        return paused, resumed

    paused, state = asyncio.run(play())
    (pause,) = paused["__interrupt__"]
    assert pause.value == {
        "kind": "feedback",
        "round": 1,
        "side": "seller",
        "suggestions": 3,
        "transcript": (
            "Round 1\n"
            f"buyer: {OPEN_1}\nseller: {OPEN_2}\nbuyer: {OPEN_3}\n"
            "seller: How about $17?\nbuyer: Okay, $17 works for me. Deal!\n"
            "Outcome: deal at $17."
        ),
    }
    first = state["rounds"][0]
    assert (first["feedback"], first["feedback_source"]) == (TYPED, "human")
    assert first["suggestions"] == [
        "Hold firm after your first counter.",
        "Ask what the buyer will use it for.",
    ]
    seller_round_2 = [c["messages"] for c in ctx.calls if c["role"] == "seller" and c["round"] == 2]
    assert seller_round_2[0] == [
        {"role": "system", "content": SELLER_BRIEF},
        {"role": "user", "content": OPEN_1},
        {"role": "assistant", "content": OPEN_2},
        {"role": "user", "content": OPEN_3},
        {"role": "assistant", "content": "How about $17?"},
        {"role": "user", "content": "Okay, $17 works for me. Deal!"},
        {
            "role": "user",
            "content": (
                "Round 1 is over. You sold the balloon for $17.\n\n"
                f"Feedback on how you negotiated:\n{TYPED}\n\n"
                "Round 2 starts now with the same opening lines. Try to sell the balloon for more "
                "than $17, the price of round 1."
            ),
        },
        {
            "role": "assistant",
            "content": "Understood. I will put this feedback to use in round 2 and aim to sell "
            "for more than $17.",
        },
        {"role": "user", "content": OPEN_1},
        {"role": "assistant", "content": OPEN_2},
        {"role": "user", "content": OPEN_3},
    ]
    assert {c["role"] for c in ctx.calls} == {"seller", "buyer"}  # no critic call


def test_a_person_playing_the_buyer_makes_no_model_calls() -> None:
    config = config_from_dict(
        {
            "rounds": 1,
            "person": "buyer",
            "roles": {"seller": {"model": "replay:s", "params": {"replies": ["How about $15?"]}}},
        }
    )
    ctx = GameContext(config=config)
    assert "buyer" not in ctx.models and "buyer" not in ctx.model_ids
    shown: list[dict[str, Any]] = []

    async def person(payload: dict[str, Any]) -> str:
        shown.append(payload)
        return "  Okay, $15 works for me. Deal!  "

    game = asyncio.run(play_game(ctx, ask_human=person))
    (record,) = game["rounds"]
    assert (record["outcome"], record["price"]) == ("deal", 15)
    assert record["turns"][-1] == {"speaker": "buyer", "text": "Okay, $15 works for me. Deal!"}
    (payload,) = shown
    assert payload["kind"] == "turn" and payload["side"] == "buyer" and payload["round"] == 1
    assert payload["game_id"] == "g00000" and payload["instruction"] is None
    assert payload["brief"].startswith("You are the buyer in a bargaining game over a balloon.")
    assert payload["turns"][-1] == {"speaker": "seller", "text": "How about $15?"}
    assert [c["role"] for c in ctx.calls] == ["seller"]


def test_an_improved_person_sees_the_feedback_turn_before_the_next_round() -> None:
    config = config_from_dict(
        {
            "rounds": 2,
            "person": "seller",
            "feedback": {"source": "constant", "constant": "Ask for more."},
            "roles": {"buyer": {"model": "replay:b", "params": {"replies": ["Deal at $18!"] * 2}}},
        }
    )
    shown: list[dict[str, Any]] = []

    async def person(payload: dict[str, Any]) -> str:
        shown.append(payload)
        return "How about $18?"

    game = asyncio.run(play_game(GameContext(config=config), ask_human=person))
    assert [r["outcome"] for r in game["rounds"]] == ["deal", "deal"]
    assert [p["round"] for p in shown] == [1, 2]
    assert shown[0]["instruction"] is None
    assert shown[1]["instruction"] == game["rounds"][0]["instruction"]
    assert "Feedback on how you negotiated:\nAsk for more." in shown[1]["instruction"]


def test_a_run_that_needs_a_person_without_one_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as error:
        run(quickstart("runs=1", "feedback.source=human"), tmp_path / "a")
    assert str(error.value) == (
        "feedback.source human needs a person: use icl-aif run in a terminal, or icl-aif serve "
        "for critics on a web page"
    )
    with pytest.raises(UsageError, match="person: buyer needs a person at the terminal"):
        run(quickstart("runs=1", "person=buyer"), tmp_path / "b")
    assert not (tmp_path / "a").exists()


def test_a_human_feedback_run_records_the_typed_feedback(tmp_path: Path) -> None:
    asked: list[str] = []

    async def person(payload: dict[str, Any]) -> str:
        asked.append(payload["game_id"])
        return f"Feedback for {payload['game_id']}."

    config = quickstart("runs=3", "rounds=3", "concurrency=3", "feedback.source=human")
    directory = run(config, tmp_path / "run", ask_human=person).directory
    assert sorted(asked) == ["g00000", "g00000", "g00001", "g00001", "g00002", "g00002"]
    for game in read_games(directory):
        assert game["status"] == "complete"
        for record in game["rounds"][:-1]:
            assert record["feedback"] == f"Feedback for {game['game_id']}."
            assert record["feedback_source"] == "human"
            assert record["suggestions"] == [record["feedback"]]
    assert {c["role"] for c in read_jsonl(directory / "calls.jsonl")} == {"seller", "buyer"}
    manifest = read_json(directory / "manifest.json")
    assert manifest["feedback"]["source"] == "human" and manifest["models"]["critic"] is None


def test_an_empty_answer_is_no_feedback() -> None:
    async def person(payload: dict[str, Any]) -> str:
        return "   \n"

    config = config_from_dict(human_feedback_config())
    game = asyncio.run(play_game(GameContext(config=config), ask_human=person))
    first = game["rounds"][0]
    assert (first["feedback"], first["suggestions"]) == (None, [])
    assert "Feedback on how you negotiated" not in first["instruction"]


def test_the_studio_entry_point_has_no_checkpointer_and_pauses_under_one() -> None:
    """langgraph dev refuses graphs with their own checkpointer and brings its own."""
    spec = importlib.util.spec_from_file_location("studio_entry", ROOT / "graphs" / "icl_aif.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.graph.checkpointer is None
    assert build_run_graph(get_game("price")).checkpointer is None
    # what Studio does: the same graph under a platform checkpointer, context as plain JSON
    studio = module.graph.copy(update={"checkpointer": InMemorySaver()})
    thread: Any = {"configurable": {"thread_id": "studio"}}
    data = {"rounds": 2, "feedback": {"source": "human"}}
    context = GameContext(config=data, checks=CHECKS)  # type: ignore[arg-type]

    async def play() -> dict[str, Any]:
        paused = await studio.ainvoke({}, config=thread, context=context)
        assert paused["__interrupt__"][0].value["kind"] == "feedback"
        result: dict[str, Any] = await studio.ainvoke(
            Command(resume="Anchor high."), config=thread, context=context
        )
        return result

    state = asyncio.run(play())
    assert state["rounds"][0]["feedback"] == "Anchor high."
    assert len(state["rounds"]) == 2


def test_a_pause_with_no_one_to_ask_is_an_error_not_a_shorter_game() -> None:
    config = config_from_dict(human_feedback_config())
    game = asyncio.run(play_game(GameContext(config=config)))
    assert game["status"] == "error"
    assert game["error"] == "the game paused for a person, and no one was asked"
    assert [r["round"] for r in game["rounds"]] == [1]
