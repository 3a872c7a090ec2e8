"""Price extraction and price roles (icl_aif.games.price.judge.prices)."""

from __future__ import annotations

import pytest

from icl_aif.games.price.judge import PriceMention, find_prices, standing_offer
from icl_aif.games.price.judge.prices import PriceKind


def amounts(text: str) -> list[float]:
    return [m.amount for m in find_prices(text)]


def kinds(text: str) -> list[tuple[float, PriceKind]]:
    return [(m.amount, m.kind) for m in find_prices(text)]


# --- formats ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "amount", "span"),
    [
        ("I can let it go for $1,200.", 1200.0, "$1,200"),
        ("Give me 15$ and it's yours.", 15.0, "15$"),
        ("I'm at $ 15 now.", 15.0, "$ 15"),
        ("My price is USD 14.", 14.0, "USD 14"),
        ("My price is 14 USD.", 14.0, "14 USD"),
        ("I can pay 14 dollars.", 14.0, "14 dollars"),
        ("I can pay fifteen dollars.", 15.0, "fifteen dollars"),
        ("Let's say twelve fifty.", 12.5, "twelve fifty"),
        ("It's one hundred and twenty dollars.", 120.0, "one hundred and twenty dollars"),
        ("I'll do $12.50.", 12.5, "$12.50"),
        ("I'll do 12 dollars and 50 cents.", 12.5, "12 dollars and 50 cents"),
        ("I can sell you one for 50 cents.", 0.5, "50 cents"),
        ("Final price: $16.75.", 16.75, "$16.75"),
        ("I could pay twelve dollars and fifty cents.", 12.5, "twelve dollars and fifty cents"),
        ("Make it a hundred bucks.", 100.0, "a hundred bucks"),
        ("I'd want twenty-five dollars.", 25.0, "twenty-five dollars"),
        ("It goes to $1.2k, no less.", 1200.0, "$1.2k"),
        ("Fifteen hundred dollars is my price.", 1500.0, "Fifteen hundred dollars"),
        ("How about 15?", 15.0, "15"),
        ("I can do 14.50 for you.", 14.5, "14.50"),
        ("How about fifteen?", 15.0, "fifteen"),
        ("Would you take US$ 30?", 30.0, "US$ 30"),
    ],
)
def test_price_formats(text: str, amount: float, span: str) -> None:
    mentions = find_prices(text)
    assert len(mentions) == 1
    mention = mentions[0]
    assert mention.amount == pytest.approx(amount)
    assert text[mention.start : mention.end] == span


@pytest.mark.parametrize(
    "text",
    [
        "It's 5 years old and works fine.",
        "I'll take two.",
        "I have 3 of them at home.",
        "It's 20% off already.",
        "Call me at 5 pm.",
        "I saw one at the market.",
        "It's an iPhone 12.",
        "No prices here, just small talk.",
    ],
)
def test_not_prices(text: str) -> None:
    assert find_prices(text) == []


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Make it a dollar fifty.", 1.5),
        ("Two dollars fifty, final.", 2.5),
        ("Two twenty for the bike.", 220.0),
        ("I'd go to fourteen hundred is my limit.", 1400.0),
        ("Ten and it's yours.", 10.0),
        ("Fifteen it is.", 15.0),
    ],
)
def test_more_spoken_forms(text: str, amount: float) -> None:
    assert amounts(text) == [amount]


@pytest.mark.parametrize(
    ("text", "scale", "amount"),
    [
        ("Meet me at three seventy-five.", None, 375.0),
        ("Meet me at three seventy-five.", 4.0, 3.75),
        ("Meet me at three seventy-five.", 400.0, 375.0),
        ("How about twelve fifty?", None, 12.5),
        ("How about twelve fifty?", 1300.0, 1250.0),
    ],
)
def test_spoken_pairs_follow_the_price_level(text: str, scale: float | None, amount: float) -> None:
    assert [m.amount for m in find_prices(text, scale)] == [amount]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$45 plus $5 shipping.", [45.0]),
        ("Could you knock $10 off?", []),
        ("It's $5 more than the other one.", []),
        ("Condition is 10/10 and I want $40.", [40.0]),
        ("It's $2,350? I know it's only fifty off.", [2350.0]),
    ],
)
def test_differences_and_add_ons_are_not_prices(text: str, expected: list[float]) -> None:
    assert amounts(text) == expected


def test_several_prices_in_order() -> None:
    assert amounts("Not $12, not $13, but $14.50 works.") == [12.0, 13.0, 14.5]


def test_mention_is_frozen_dataclass() -> None:
    mention = find_prices("I can do $15.")[0]
    assert mention == PriceMention(amount=15.0, start=9, end=12, kind="offer")
    with pytest.raises(AttributeError):
        mention.amount = 3.0  # type: ignore[misc]


def test_curly_apostrophes_do_not_change_roles() -> None:
    assert kinds("I can’t do $18.") == [(18.0, "refused")]


# --- roles -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # firm offers, including limits
        ("I can do $15.", [(15.0, "offer")]),
        ("My final offer is $15. Take it or leave it.", [(15.0, "offer")]),
        ("I can't go lower than $15.", [(15.0, "offer")]),
        ("I won't pay more than $14.", [(14.0, "offer")]),
        ("I can do $14 if that works for you.", [(14.0, "offer")]),
        ("If you can do $14, we have a deal.", [(14.0, "offer")]),
        ("Fine, $15 it is.", [(15.0, "offer")]),
        # questions
        ("Would you take $13?", [(13.0, "question")]),
        ("Deal at $15?", [(15.0, "question")]),
        ("How about twelve fifty?", [(12.5, "question")]),
        ("I can do $15, would that work?", [(15.0, "question")]),
        # reference prices
        ("I saw one for $14 elsewhere.", [(14.0, "reference")]),
        ("Honestly, it cost me $8.", [(8.0, "reference")]),
        ("These used to go for $25.", [(25.0, "reference")]),
        ("The shop next door sells them for $11.", [(11.0, "reference")]),
        ("I paid $30 for it last year.", [(30.0, "reference")]),
        ("They cost $40 new.", [(40.0, "reference")]),
        ("I saw one online for $14.", [(14.0, "reference")]),
        # conditional offers
        ("$15 if you buy two.", [(15.0, "conditional")]),
        ("I could do $12 if you pay cash today.", [(12.0, "conditional")]),
        ("I'd do $12 if you pick it up today.", [(12.0, "conditional")]),
        ("If you buy two, I'll do $15 each.", [(15.0, "conditional")]),
        ("I can do $13, but only if you pay cash.", [(13.0, "conditional")]),
        ("$25 for both.", [(25.0, "conditional")]),
        # refused prices
        ("$12 is too low.", [(12.0, "refused")]),
        ("I can't do $18.", [(18.0, "refused")]),
        ("No deal at $12.", [(12.0, "refused")]),
        ("$20 is way out of my budget.", [(20.0, "refused")]),
        ("I won't accept $10.", [(10.0, "refused")]),
        ("Can you do better than $15?", [(15.0, "refused")]),
        ("$12? No way.", [(12.0, "refused")]),
    ],
)
def test_price_roles(text: str, expected: list[tuple[float, PriceKind]]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I saw one for $14 elsewhere, so $12 seems fair.",
            [(14.0, "reference"), (12.0, "offer")],
        ),
        (
            "$12? That's too low. How about $16?",
            [(12.0, "refused"), (16.0, "question")],
        ),
        (
            "I can't do $18, but $16 is fine.",
            [(18.0, "refused"), (16.0, "offer")],
        ),
        (
            "I usually sell these for $20, but for you $17.",
            [(20.0, "reference"), (17.0, "offer")],
        ),
        (
            "You offered $12, which is way too low. I'll do $17.",
            [(12.0, "refused"), (17.0, "offer")],
        ),
        (
            "It cost me $8 years ago. I'll sell it for $15, or $13 if you take both.",
            [(8.0, "reference"), (15.0, "offer"), (13.0, "conditional")],
        ),
    ],
)
def test_mixed_roles(text: str, expected: list[tuple[float, PriceKind]]) -> None:
    assert kinds(text) == expected


# --- standing offer --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I can do $15.", 15.0),
        ("Would you take $13?", 13.0),
        ("I saw one for $14 elsewhere.", None),
        ("$15 if you buy two.", None),
        ("$12 is too low.", None),
        ("$12 is too low. $14 is my offer.", 14.0),
        ("I can do $15. Or would you take $14.50?", 14.5),
        ("I saw one for $14 elsewhere, so $12 seems fair.", 12.0),
        ("I could do $12 if you pay cash today, otherwise $14.", 14.0),
        ("Let's chat about the weather.", None),
    ],
)
def test_standing_offer(text: str, expected: float | None) -> None:
    assert standing_offer(text) == expected
