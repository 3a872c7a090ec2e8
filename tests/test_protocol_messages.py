"""The protocol pinned by the exact messages each role receives in a 2-round run."""

from __future__ import annotations

import asyncio
from itertools import pairwise
from typing import Any

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.transcript import Turn
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_run_graph
from icl_aif.games.price.judge.rules import PriceRulesJudge
from icl_aif.games.price.verdict import PriceVerdict as Verdict

SELLER_BRIEF = (
    "You are the seller in a bargaining game over a balloon. Get the highest price you can.\n"
    "The balloon is listed at $20. It cost you $8: never agree to less than that.\n"
    "Talk to the buyer in plain conversation and answer with one short sentence each turn.\n"
    "Write every price you name with a dollar sign, for example $15.\n"
    "When you accept the buyer's offer, say so plainly. If you would rather keep the balloon, "
    "say you are walking away."
)
BUYER_BRIEF = (
    "You are the buyer in a bargaining game over a balloon. Pay as little as you can.\n"
    "The seller asks $20; you opened at $10.\n"
    "Talk to the seller in plain conversation and answer with one short sentence each turn.\n"
    "Write every price you name with a dollar sign, for example $15.\n"
    "When you accept the seller's offer, say so plainly. If the price stays too high, "
    "say you are walking away."
)
OPEN_1 = "Hi, how much is the balloon?"
OPEN_2 = "Hi, this is a good balloon and its price is $20."
OPEN_3 = "Would you consider selling it for $10?"
CRITIQUE = "1. Hold firm after your first counter.\n2. Anchor high.\n3. Stress the quality."


class RecordingModerator:
    """The rules moderator, keeping every window it was shown."""

    name = "recording"

    def __init__(self) -> None:
        self.windows: list[list[Turn]] = []
        self.inner = PriceRulesJudge()

    async def aclassify(
        self,
        window: list[Turn],
        scenario: dict[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> Verdict:
        self.windows.append(list(window))
        return self.inner.classify(window, scenario)


def two_round_config() -> ExperimentConfig:
    return config_from_dict(
        {
            "name": "pinned",
            "runs": 1,
            "rounds": 2,
            "improve": "seller",
            "roles": {
                "seller": {
                    "model": "replay:seller",
                    "params": {
                        "replies": [
                            "I can't go that low, how about $17?",
                            "My price is $19.",
                            "That is too low, so I'm walking away. No deal.",
                        ]
                    },
                },
                "buyer": {
                    "model": "replay:buyer",
                    "params": {"replies": ["Okay, $17 works for me. Deal!", "Would you take $15?"]},
                },
                "critic": {"model": "replay:critic", "params": {"replies": [CRITIQUE]}},
            },
        }
    )


def play() -> tuple[dict[str, Any], GameContext, RecordingModerator]:
    moderator = RecordingModerator()
    ctx = GameContext(config=two_round_config(), judge=moderator)
    state = asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    return state, ctx, moderator


def calls_of(ctx: GameContext, role: str, round_number: int) -> list[list[dict[str, str]]]:
    return [c["messages"] for c in ctx.calls if c["role"] == role and c["round"] == round_number]


def test_outcomes_of_the_two_rounds() -> None:
    state, _, _ = play()
    first, second = state["rounds"]
    assert (first["outcome"], first["price"]) == ("deal", 17)
    assert (second["outcome"], second["price"], second["reason"]) == ("no_deal", None, "walk_away")
    assert first["feedback"] == CRITIQUE
    assert first["suggestions"] == [
        "Hold firm after your first counter.",
        "Anchor high.",
        "Stress the quality.",
    ]
    assert "feedback" not in second  # no feedback after the last round


def test_improved_seller_in_round_2_sees_everything() -> None:
    _, ctx, _ = play()
    instruction = (
        "Round 1 is over. You sold the balloon for $17.\n\n"
        "Feedback on how you negotiated:\n" + CRITIQUE + "\n\n"
        "Round 2 starts now with the same opening lines. Try to sell the balloon for more than "
        "$17, the price of round 1."
    )
    acknowledgement = (
        "Understood. I will put this feedback to use in round 2 and aim to sell for more than $17."
    )
    history = [
        {"role": "system", "content": SELLER_BRIEF},
        {"role": "user", "content": OPEN_1},
        {"role": "assistant", "content": OPEN_2},
        {"role": "user", "content": OPEN_3},
        {"role": "assistant", "content": "I can't go that low, how about $17?"},
        {"role": "user", "content": "Okay, $17 works for me. Deal!"},  # the rival's closing line
        {"role": "user", "content": instruction},
        {"role": "assistant", "content": acknowledgement},
        {"role": "user", "content": OPEN_1},
        {"role": "assistant", "content": OPEN_2},
        {"role": "user", "content": OPEN_3},
    ]
    first_call, second_call = calls_of(ctx, "seller", 2)
    assert first_call == history
    assert second_call == [
        *history,
        {"role": "assistant", "content": "My price is $19."},
        {"role": "user", "content": "Would you take $15?"},
    ]


def test_rival_buyer_in_round_2_starts_fresh() -> None:
    _, ctx, _ = play()
    assert calls_of(ctx, "buyer", 2) == [
        [
            {"role": "system", "content": BUYER_BRIEF},
            {"role": "assistant", "content": OPEN_1},
            {"role": "user", "content": OPEN_2},
            {"role": "assistant", "content": OPEN_3},
            {"role": "user", "content": "My price is $19."},
        ]
    ]


def test_critic_after_round_1_sees_true_speakers() -> None:
    _, ctx, _ = play()
    (messages,) = calls_of(ctx, "critic", 1)
    system, request = messages
    assert system["role"] == "system"
    assert system["content"].startswith("You coach the seller in a bargaining game over a balloon.")
    assert (
        "Write exactly 3 numbered suggestions that will help the seller sell at a higher price"
        in (system["content"])
    )
    assert request == {
        "role": "user",
        "content": (
            "The seller's record so far:\n\n"
            "Round 1\n"
            f"buyer: {OPEN_1}\n"
            f"seller: {OPEN_2}\n"
            f"buyer: {OPEN_3}\n"
            "seller: I can't go that low, how about $17?\n"
            "buyer: Okay, $17 works for me. Deal!\n"
            "Outcome: deal at $17.\n\n"
            "Now write your 3 suggestions for the next round, numbered 1 to 3, one per line."
        ),
    }


def test_moderator_sees_the_last_four_turns_with_speakers() -> None:
    _, _, moderator = play()
    # round 1: after the seller's line and after the buyer's; round 2: three more lines
    assert len(moderator.windows) == 5
    assert moderator.windows[1] == [
        {"speaker": "seller", "text": OPEN_2},
        {"speaker": "buyer", "text": OPEN_3},
        {"speaker": "seller", "text": "I can't go that low, how about $17?"},
        {"speaker": "buyer", "text": "Okay, $17 works for me. Deal!"},
    ]
    assert moderator.windows[-1] == [
        {"speaker": "buyer", "text": OPEN_3},
        {"speaker": "seller", "text": "My price is $19."},
        {"speaker": "buyer", "text": "Would you take $15?"},
        {"speaker": "seller", "text": "That is too low, so I'm walking away. No deal."},
    ]


def test_the_improved_players_prompts_only_ever_grow_at_the_end(tmp_path: Any) -> None:
    """Each call's messages extend the previous call's: the prefix vendors cache stays the same."""
    from icl_aif.records.reader import read_jsonl
    from tests.conftest import quickstart, run

    for improve in ("seller", "buyer"):
        directory = run(
            quickstart("runs=4", "rounds=3", f"improve={improve}", "acknowledgement=generated"),
            tmp_path / improve,
        ).directory
        by_game: dict[str, list[list[dict[str, str]]]] = {}
        for call in read_jsonl(directory / "calls.jsonl"):
            if call["role"] == improve:
                by_game.setdefault(call["game_id"], []).append(call["messages"])
        assert len(by_game) == 4
        for prompts in by_game.values():
            assert len(prompts) > 3
            for before, after in pairwise(prompts):
                assert len(after) > len(before) and after[: len(before)] == before
