"""What the improved player carries between rounds, per ``context`` mode, pinned by exact messages."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_run_graph
from tests.test_protocol_messages import OPEN_1, OPEN_2, OPEN_3, SELLER_BRIEF

CRITIQUES = ["1. Anchor high.\n2. Hold firm.", "1. Stress the quality.\n2. Be patient."]
PRICES = (17, 18, 19)


def three_rounds(**settings: Any) -> dict[str, Any]:
    """Three rounds that each end in a deal at the seller's first counter-offer."""
    return {
        "name": "context",
        "rounds": 3,
        "roles": {
            "seller": {
                "model": "replay:seller",
                "params": {"replies": [f"How about ${p}?" for p in PRICES]},
            },
            "buyer": {
                "model": "replay:buyer",
                "params": {"replies": [f"Okay, ${p} works for me. Deal!" for p in PRICES]},
            },
            "critic": {"model": "replay:critic", "params": {"replies": CRITIQUES}},
        },
        **settings,
    }


def round_turns(number: int) -> list[dict[str, str]]:
    price = PRICES[number - 1]
    return [
        {"role": "user", "content": OPEN_1},
        {"role": "assistant", "content": OPEN_2},
        {"role": "user", "content": OPEN_3},
        {"role": "assistant", "content": f"How about ${price}?"},
        {"role": "user", "content": f"Okay, ${price} works for me. Deal!"},
    ]


def feedback_turns(number: int) -> list[dict[str, str]]:
    price = PRICES[number - 1]
    instruction = (
        f"Round {number} is over. You sold the balloon for ${price}.\n\n"
        f"Feedback on how you negotiated:\n{CRITIQUES[number - 1]}\n\n"
        f"Round {number + 1} starts now with the same opening lines. Try to sell the balloon "
        f"for more than ${price}, the price of round {number}."
    )
    acknowledgement = (
        f"Understood. I will put this feedback to use in round {number + 1} and aim to sell "
        f"for more than ${price}."
    )
    return [
        {"role": "user", "content": instruction},
        {"role": "assistant", "content": acknowledgement},
    ]


BRIEF = [{"role": "system", "content": SELLER_BRIEF}]
OPENERS_NOW = [
    {"role": "user", "content": OPEN_1},
    {"role": "assistant", "content": OPEN_2},
    {"role": "user", "content": OPEN_3},
]


def seller_prompts(**settings: Any) -> dict[int, list[dict[str, str]]]:
    """The seller's one prompt per round."""
    ctx = GameContext(config=config_from_dict(three_rounds(**settings)))
    state = asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    assert [r["price"] for r in state["rounds"]] == list(PRICES)
    return {c["round"]: c["messages"] for c in ctx.calls if c["role"] == "seller"}


def test_all_carries_every_round_and_its_feedback() -> None:
    prompts = seller_prompts()  # the default, the paper's protocol
    assert prompts[1] == [*BRIEF, *OPENERS_NOW]
    assert prompts[2] == [*BRIEF, *round_turns(1), *feedback_turns(1), *OPENERS_NOW]
    assert prompts[3] == [
        *BRIEF,
        *round_turns(1),
        *feedback_turns(1),
        *round_turns(2),
        *feedback_turns(2),
        *OPENERS_NOW,
    ]


def test_last_rounds_keeps_only_the_most_recent_rounds_with_their_feedback() -> None:
    prompts = seller_prompts(context="last_rounds", last_rounds=1)
    assert prompts[2] == [*BRIEF, *round_turns(1), *feedback_turns(1), *OPENERS_NOW]
    assert prompts[3] == [*BRIEF, *round_turns(2), *feedback_turns(2), *OPENERS_NOW]
    assert seller_prompts(context="last_rounds", last_rounds=2) == seller_prompts(context="all")


def test_feedback_only_keeps_the_feedback_turns_and_no_transcript() -> None:
    prompts = seller_prompts(context="feedback_only")
    assert prompts[1] == [*BRIEF, *OPENERS_NOW]
    assert prompts[2] == [*BRIEF, *feedback_turns(1), *OPENERS_NOW]
    assert prompts[3] == [*BRIEF, *feedback_turns(1), *feedback_turns(2), *OPENERS_NOW]


def test_the_critic_still_reads_every_round_whatever_the_context() -> None:
    ctx = GameContext(config=config_from_dict(three_rounds(context="feedback_only")))
    asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    request = [c["messages"][1]["content"] for c in ctx.calls if c["role"] == "critic"][-1]
    assert "Round 1\n" in request and "Round 2\n" in request
    assert "seller: How about $17?" in request


def test_the_manifest_records_the_context_mode(tmp_path: Any) -> None:
    from icl_aif.records.reader import read_json
    from tests.conftest import quickstart, run

    result = run(quickstart("runs=2", "rounds=2", "context=last_rounds", "last_rounds=3"), tmp_path)
    assert read_json(result.directory / "manifest.json")["context"] == {
        "mode": "last_rounds",
        "last_rounds": 3,
    }
    other = run(quickstart("runs=2", "rounds=2"), tmp_path / "all")
    assert read_json(other.directory / "manifest.json")["context"] == {
        "mode": "all",
        "last_rounds": None,
    }


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"context": "recent"},
            "field 'context': got 'recent'; allowed values: 'all', 'last_rounds' or 'feedback_only'",
        ),
        ({"last_rounds": 0}, "field 'last_rounds': Input should be greater than or equal to 1"),
    ],
)
def test_bad_context_settings_are_one_line(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as error:
        config_from_dict(three_rounds(**settings))
    assert message in str(error.value)
    assert "\n" not in str(error.value)
