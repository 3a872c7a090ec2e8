"""The rules moderator on human bargaining phrasing: one class of past mistakes per test.

Every sentence here is written for these tests (none is taken from a corpus).
"""

from __future__ import annotations

import pytest

from icl_aif.games.price.moderator.prices import find_prices
from icl_aif.games.price.moderator.rules import RulesModerator

SCENARIO = {"item": "road bike", "list_price": 500, "buyer_open": 300}


def judge(*texts: str, first: str = "seller", scenario: dict | None = SCENARIO):
    sides = ("seller", "buyer") if first == "seller" else ("buyer", "seller")
    window = [{"speaker": sides[i % 2], "text": t} for i, t in enumerate(texts)]
    verdict = RulesModerator().classify(window, scenario)
    return verdict.state, verdict.price


# --- a refusal that repeats the refused price --------------------------------------------------
def test_refusal_repeating_the_price_is_not_a_deal() -> None:
    assert judge("I'd take $350.", "No, $350 is too low for me.", first="buyer")[0] == "ongoing"


# --- "deal" used descriptively -----------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Honestly it's a great deal at $480, barely ridden.",
        "Great deal at only $480 for a bike like this.",
        "That's a great deal for such a light frame, but I'd want $480.",
    ],
)
def test_descriptive_deal_is_not_an_acceptance(text: str) -> None:
    assert judge("Would you do $400?", text, first="buyer")[0] == "ongoing"


# --- "I can do $X, but ..." is a counter-offer ---------------------------------------------------
def test_i_can_do_but_is_a_counter_offer() -> None:
    state, _ = judge("How about $380?", "I can do $440, but not a penny under that.", first="buyer")
    assert state == "ongoing"


# --- an acceptance naming the other side's offer -----------------------------------------------
def test_accept_your_offer_of() -> None:
    assert judge(
        "$420 and you have a deal.", "I will accept your offer of $420.", first="buyer"
    ) == ("deal", 420.0)


def test_price_and_you_have_a_deal_is_an_offer_not_an_acceptance() -> None:
    assert judge("I'm at $450.", "430 and you have a deal") == ("ongoing", None)


# --- package agreements ------------------------------------------------------------------------
def test_conditional_offer_then_ok_binds_the_offered_price() -> None:
    window = ("Could you take $410 if I fetch it myself this weekend?", "Okay. That works for me.")
    assert judge(*window, first="buyer") == ("deal", 410.0)


def test_conditional_agreement_confirmed_by_ok() -> None:
    window = ("Would $460 be alright?", "I can manage that if you collect it.", "Sure, great.")
    assert judge(*window, first="buyer") == ("deal", 460.0)


# --- human price writing -----------------------------------------------------------------------
def test_thousands_suffix_without_dollar_sign() -> None:
    assert [(m.amount, m.kind) for m in find_prices("11k is the lowest I'll go.")] == [
        (11000.0, "offer")
    ]


def test_k_with_a_unit_is_not_money() -> None:
    assert find_prices("It only has 5k miles on it.") == []


def test_bare_number_followed_by_then() -> None:
    assert [m.amount for m in find_prices("Alright 425 then")] == [425.0]


# --- "ok"/"yes" answering a question ----------------------------------------------------------
def test_yes_to_a_question_then_great_is_not_a_deal() -> None:
    window = ("Is the chain new?", "Yes, I replaced it in spring.", "Great! Any rust on the frame?")
    assert judge(*window, first="buyer")[0] == "ongoing"


def test_ok_followed_by_a_complaint_is_not_a_deal() -> None:
    window = ("I can't go under $490.", "Oh okay, that's way above what I hoped to spend.")
    assert judge(*window)[0] != "deal"


def test_weak_acceptance_with_an_unrelated_aside_counts() -> None:
    window = ("How does $455 sound?", "That will work for me. I can't ride it anymore anyway!")
    assert judge(*window, first="buyer") == ("deal", 455.0)


# --- how CraigslistBargain chats end ----------------------------------------------------------
def test_offer_form_ending_counts_as_agreement() -> None:
    window = ("I could let it go for $470.", "Perfect, I'll submit the offer now.")
    assert judge(*window) == ("deal", 470.0)


def test_greeting_good_day_is_not_a_walk_away() -> None:
    assert judge("Good day!", first="seller")[0] == "ongoing"


def test_seller_not_needing_item_is_not_a_walk_away() -> None:
    assert judge("I don't need it anymore since I moved.")[0] == "ongoing"
