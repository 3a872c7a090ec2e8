"""Between-round wording: anchors, honest no-deal sentences, the buyer's side, suggestions."""

from __future__ import annotations

import pytest

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary, render_strict
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.protocol import PlayedRound, parse_suggestions
from icl_aif.games.price.game import anchor_price
from icl_aif.games.registry import game_of

PROMPTS = PromptLibrary()


def next_round_instruction(
    prompts: PromptLibrary,
    config: ExperimentConfig,
    rounds: list[PlayedRound],
    feedback: str | None,
) -> str:
    """The game's turn after ``rounds``, as the engine asks for it."""
    game = game_of(config)
    return game.next_round_instruction(prompts, game.setup(config), rounds, feedback)


def scripted_acknowledgement(
    prompts: PromptLibrary, config: ExperimentConfig, rounds: list[PlayedRound]
) -> str:
    """The game's scripted acknowledgement after ``rounds``."""
    game = game_of(config)
    return game.scripted_acknowledgement(prompts, game.setup(config), rounds)


def rec(number: int, outcome: str, price: float | None, reason: str | None = None) -> PlayedRound:
    turns = [{"speaker": "buyer", "text": "Hi"}, {"speaker": "seller", "text": "No deal, bye."}]
    return PlayedRound(round=number, turns=turns, outcome=outcome, price=price, reason=reason)  # type: ignore[typeddict-item]


HISTORY = [rec(1, "deal", 15.0), rec(2, "deal", 17.0), rec(3, "no_deal", None, "walk_away")]


@pytest.mark.parametrize(
    ("anchor", "improve", "rounds", "expected"),
    [
        ("previous", "seller", HISTORY[:2], (17.0, 2)),
        ("previous", "seller", HISTORY, None),  # the last round had no deal
        ("first", "seller", HISTORY, (15.0, 1)),
        ("best", "seller", HISTORY, (17.0, 2)),
        ("best", "buyer", HISTORY, (15.0, 1)),
        ("best", "seller", [rec(1, "no_deal", None, "cap")], None),
    ],
)
def test_anchor_price(
    anchor: str, improve: str, rounds: list[PlayedRound], expected: object
) -> None:
    assert anchor_price(rounds, anchor, improve) == expected  # type: ignore[arg-type]


def test_no_deal_instruction_is_honest() -> None:
    config = config_from_dict({"anchor": "previous"})
    text = next_round_instruction(PROMPTS, config, HISTORY, feedback="1. Close the deal.")
    assert text == (
        "Round 3 is over. It ended without a deal: the seller walked away.\n\n"
        "Feedback on how you negotiated:\n1. Close the deal.\n\n"
        "Round 4 starts now with the same opening lines. There is no deal price to beat yet, so aim "
        "to reach a deal at a good price."
    )
    assert "$-1" not in text and "Well done" not in text
    assert scripted_acknowledgement(PROMPTS, config, HISTORY) == (
        "Understood. I will put this feedback to use in round 4 and aim to reach a deal at a good price."
    )


def test_best_anchor_for_the_buyer_without_feedback() -> None:
    config = config_from_dict({"anchor": "best", "improve": "buyer"})
    text = next_round_instruction(PROMPTS, config, HISTORY[:2], feedback=None)
    assert text == (
        "Round 2 is over. You bought the balloon for $17.\n\n"
        "Round 3 starts now with the same opening lines. Try to buy the balloon for less than $15, "
        "the price of your best round so far (round 1)."
    )


def test_cap_reason_is_spelled_out() -> None:
    config = config_from_dict({})
    text = next_round_instruction(PROMPTS, config, [rec(1, "no_deal", None, "cap")], feedback=None)
    assert "It ended without a deal: the round reached its limit of 10 exchanges." in text


def test_parse_suggestions() -> None:
    text = "Here is my advice:\n1. Hold firm.\n2. Anchor high\n   and stay calm.\n- Walk away if needed."
    assert parse_suggestions(text) == [
        "Here is my advice:",
        "Hold firm.",
        "Anchor high and stay calm.",
        "Walk away if needed.",
    ]


def test_templates_render_strictly() -> None:
    with pytest.raises(UsageError, match=r"t\.txt: no value for placeholder"):
        render_strict("Sell the {item} for {price}", {"item": "kite"}, source="t.txt")
