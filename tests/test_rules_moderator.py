"""The rules moderator (icl_aif.games.price.judge.rules) and its evaluation (.evaluation)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from icl_aif.core.errors import UsageError
from icl_aif.core.transcript import Seat, Turn
from icl_aif.games.price.judge import PriceRulesJudge
from icl_aif.games.price.judge.evaluation import (
    LabelledWindow,
    evaluate,
    load_labelled,
    render_report,
)
from icl_aif.games.price.verdict import PriceVerdict as Verdict


def window(*texts: str, first: Seat = "seller") -> list[Turn]:
    """Alternating turns, starting with ``first``."""
    second: Seat = "buyer" if first == "seller" else "seller"
    return [Turn(speaker=first if i % 2 == 0 else second, text=t) for i, t in enumerate(texts)]


MODERATOR = PriceRulesJudge()


def verdict(*texts: str, first: Seat = "seller", scenario: dict[str, Any] | None = None) -> Verdict:
    return MODERATOR.classify(window(*texts, first=first), scenario)


# --- deals -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("texts", "price"),
    [
        # acceptance without a price binds to the other side's standing offer
        (("I can do $15.", "Deal."), 15.0),
        (("I can do $15.", "OK, I'll take it."), 15.0),
        (("Lowest I'll go is $16.50.", "You've got yourself a deal!"), 16.5),
        (("I'd pay 14 dollars.", "Sold!"), 14.0),
        (("How about twelve fifty?", "Sure."), 12.5),
        # acceptance with a price binds to that price
        (("I can do $15.", "Deal at $15."), 15.0),
        (("Would you take $13?", "Fine, $13 it is."), 13.0),
        (("I could go to $1,200.", "Agreed, $1,200."), 1200.0),
        # a question is an offer the other side may accept
        (("I can do $15.", "Would you take $13?", "OK."), 13.0),
        (("I'm at $18.", "Deal at $15?", "Deal."), 15.0),
        # confirming the other side's acceptance binds to what was accepted
        (("$16.", "How about $14?", "OK, fine.", "Great, deal!"), 14.0),
        # reference / conditional / refused prices are skipped when binding
        (("$16 is my price.", "I saw one for $14 elsewhere. You've got yourself a deal!"), 16.0),
        (("I can do $15. I could do $12 if you pay cash today.", "Deal!"), 15.0),
        (("I can't do $18, but $16 works.", "Deal."), 16.0),
        (("$17. These used to go for $25, you know.", "Deal."), 17.0),
        (("$17, and the shop next door sells them for $11.", "I'll take it."), 17.0),
        (("$18.", "I can't do $18. $15?", "$16, final.", "OK, I'll take it."), 16.0),
        # both sides state the same firm price
        (("I can't go below $15.", "$15 then."), 15.0),
        # a farewell after the other side accepted keeps the deal
        (("Would $15 work?", "Deal at $15.", "Great, see you tomorrow. Goodbye!"), 15.0),
        # an offer inside a condition is an offer
        (("$15.", "If you can do $14, we have a deal.", "Deal."), 14.0),
    ],
)
def test_deals(texts: tuple[str, ...], price: float) -> None:
    result = verdict(*texts)
    assert result.state == "deal"
    assert result.price == pytest.approx(price)


@pytest.mark.parametrize(
    ("texts", "price"),
    [
        # prices the accepter grumbles about before accepting are not what it accepts
        (
            (
                "$18.",
                "I can pay $14.",
                "Sorry, $16 is my lowest.",
                "I still think $14 is fair, but fine, deal.",
            ),
            16.0,
        ),
        (
            (
                "$17.",
                "Could you do $13?",
                "No, $15 is the lowest.",
                "Ugh, I'd rather pay $13, but okay, I'll take it.",
            ),
            15.0,
        ),
        (
            (
                "$2,100.",
                "$1,800?",
                "I can't do $1,800. $2,000 and that's final.",
                "Man, $1,800 would've been fairer, but alright. Deal.",
            ),
            2000.0,
        ),
        # a confirmation after the other side accepted binds to what was accepted
        (("$16.", "$14?", "Deal.", "Awesome, $14 it is. Thank you!"), 14.0),
        (("$13?", "Okay, $15.", "Deal!", "Wonderful! $15 it is, enjoy."), 15.0),
        # spoken pairs are read at the scale of the conversation
        (
            ("It's $4.", "Would you take $3.50?", "Meet me at three seventy-five.", "Fine, deal."),
            3.75,
        ),
        (
            (
                "Two hundred and fifty for the bike.",
                "Two hundred dollars?",
                "Two hundred and twenty and we're good.",
                "Two twenty it is. Deal!",
            ),
            220.0,
        ),
        # the two sides' prices meet without an acceptance word
        (("Would you do $42?", "I can do $42."), 42.0),
    ],
)
def test_deal_prices_in_context(texts: tuple[str, ...], price: float) -> None:
    result = verdict(*texts)
    assert (result.state, result.price) == ("deal", price)


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        # an acknowledgement after a walk-away keeps the round over
        (
            ("$40, firm.", "I'll pass, thank you.", "Alright, no problem. Take care!"),
            Verdict("no_deal", reason="walk_away"),
        ),
        # a farewell after a deal keeps the deal
        (
            ("Would $15 work?", "Deal.", "Great, see you tomorrow. Bye!"),
            Verdict("deal", price=15.0, reason="acceptance"),
        ),
        # an acceptance word that accepts the end, not a price
        (
            (
                "$30 and not a cent less.",
                "Alright, I accept that we won't agree on this one. Goodbye!",
            ),
            Verdict("no_deal", reason="walk_away"),
        ),
        (
            ("$16.", "OK... no. Actually, I've changed my mind. Sorry!"),
            Verdict("no_deal", reason="walk_away"),
        ),
        (
            ("$17.", "$13 is my final offer.", "Then we can't make a deal. Sorry!"),
            Verdict("no_deal", reason="refusal"),
        ),
        (
            ("$160.", "I'm not paying $160 for used headphones. Goodbye."),
            Verdict("no_deal", reason="walk_away"),
        ),
    ],
)
def test_state_after_the_round_ends(texts: tuple[str, ...], expected: Verdict) -> None:
    assert verdict(*texts) == expected


def test_deal_without_a_bindable_price() -> None:
    result = verdict("Hello! Interested in the lamp?", "Yes. You've got yourself a deal!")
    assert result == Verdict("deal", price=None, reason="price_not_found")


def test_deal_to_a_conditional_price_binds_it() -> None:
    # Accepting an offer made with terms accepts the price with its terms (issue 14: the latest
    # proposal wins); this used to expect price None.
    result = verdict("I could do $12 if you pay cash today.", "Deal!")
    assert result == Verdict("deal", price=12.0, reason="acceptance")


def test_buyer_can_open() -> None:
    result = verdict("Would you take $40?", "Fine, $40.", first="buyer")
    assert (result.state, result.price) == ("deal", 40.0)


# --- no deal ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("texts", "reason"),
    [
        (("I can do $15.", "That's too low for me, I'll pass."), "walk_away"),
        (("I can do $15.", "Let's leave it there, no deal."), "refusal"),
        (("$20 is my floor.", "Then I'll look elsewhere. Thanks anyway."), "walk_away"),
        (("How about $10?", "No deal. I'm keeping it."), "refusal"),
        (("$30.", "I'm out."), "walk_away"),
        (("$30.", "We're too far apart. Let's call it a day."), "refusal"),
        (("I'll pass.", "Okay, goodbye."), "walk_away"),
    ],
)
def test_no_deal(texts: tuple[str, ...], reason: str) -> None:
    assert verdict(*texts) == Verdict("no_deal", reason=reason)


# --- ongoing ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "texts",
    [
        ("I can do $15.", "Would you take $13?"),
        ("I can do $15.", "Deal at $15?"),
        ("I can do $15.", "Do we have a deal?"),
        ("I can do $15.", "No, that's too low. How about $12?"),
        ("I can do $15.", "$12 is too low."),
        ("I can do $15.", "No deal at $12, but I could do $14."),
        ("$15 is my final offer, take it or leave it.", "I'd hate to walk away. Would you do $14?"),
        ("$15.", "Give me $13 or I walk."),
        ("$15.", "If you can do $14, we have a deal."),
        ("$15.", "Sounds good, but I can only pay $13."),
        ("$15.", "Deal at $14."),
        ("$15.", "OK, how about $14?"),
        ("$15.", "I'll pass on $15, but $13 works."),
        ("How are you?", "Fine, thanks."),
        ("I saw one for $14 elsewhere.", "That was probably a used one."),
        ("$15.", "I could do $15 if you throw in the case."),
        ("I'm at $18.", "We're close to a deal. $16?"),
        ("It's $60.", "Deal... well, almost. Could you do $55?"),
        ("Would you take $40?", "Sure, if you can pick it up today."),
        ("I'd do $270.", "Okay, let me check with my wife."),
        ("$750, and I'll help you carry it.", "Hmm, $750... let me think about it."),
        ("$71 and we're done.", "Fine, $70 and we're done."),
        ("I can let it go for $45.", "Make it $43 and you've got a deal."),
        ("$58 is the lowest.", "No deal at $58. But I'd go to $54 right now."),
    ],
)
def test_ongoing(texts: tuple[str, ...]) -> None:
    assert verdict(*texts).state == "ongoing"


# --- scenario, async -------------------------------------------------------------------------


def test_scenario_is_optional_and_a_sanity_check() -> None:
    scenario = {"item": "lamp", "list_price": 20, "buyer_open": 12}
    with_scenario = verdict("I can do $16.", "Deal.", scenario=scenario)
    assert with_scenario == Verdict("deal", price=16.0, reason="acceptance")
    assert verdict("I can do $16.", "Deal.") == with_scenario


def test_scenario_drops_absurd_prices() -> None:
    scenario = {"item": "lamp", "list_price": 20, "buyer_open": 12}
    texts = ("I can do $16.", "Deal. I'll pay you $16,000 worth of thanks, haha.")
    assert verdict(*texts, scenario=scenario).price == 16.0


def test_aclassify_matches_classify() -> None:
    turns = window("I can do $15.", "Deal.")
    assert asyncio.run(MODERATOR.aclassify(turns)) == MODERATOR.classify(turns)


def test_name() -> None:
    assert PriceRulesJudge.name == "rules"


def test_empty_window_is_ongoing() -> None:
    assert MODERATOR.classify([]).state == "ongoing"


# --- evaluation ------------------------------------------------------------------------------


def _line(turns: list[str], label: str, price: float | None, **extra: Any) -> str:
    speakers = ["seller", "buyer"]
    record = {
        "turns": [{"speaker": speakers[i % 2], "text": t} for i, t in enumerate(turns)],
        "label": label,
        "price": price,
        **extra,
    }
    return json.dumps(record)


@pytest.fixture
def labelled_file(tmp_path: Path) -> Path:
    lines = [
        _line(["I can do $15.", "Deal."], "deal", 15, id="a"),
        _line(["I can do $15.", "Deal at $14."], "deal", 14, id="b", trap="counter"),
        _line(["I can do $15.", "Would you take $13?"], "ongoing", None, id="c"),
        _line(["I can do $15.", "I'll pass."], "no_deal", None, id="d"),
        _line(["I can do $15.", "OK."], "deal", 16, id="e"),
        "",
        _line(
            ["$16.", "Deal."],
            "deal",
            16,
            id="f",
            scenario={"item": "lamp", "list_price": 20, "buyer_open": 10},
        ),
    ]
    path = tmp_path / "windows.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_load_labelled(labelled_file: Path) -> None:
    items = load_labelled(labelled_file)
    assert [i.id for i in items] == ["a", "b", "c", "d", "e", "f"]
    assert items[0] == LabelledWindow(
        turns=(Turn(speaker="seller", text="I can do $15."), Turn(speaker="buyer", text="Deal.")),
        label="deal",
        price=15.0,
        id="a",
    )
    assert items[1].extra == {"trap": "counter"}
    assert items[5].scenario == {"item": "lamp", "list_price": 20, "buyer_open": 10}


def test_evaluate(labelled_file: Path) -> None:
    report = evaluate(PriceRulesJudge(), load_labelled(labelled_file))
    assert report.n == 6
    # "b" is predicted ongoing (wrong label); "e" is a deal at the wrong price.
    assert report.accuracy == pytest.approx(5 / 6)
    assert report.price_accuracy == pytest.approx(2 / 4)
    assert report.confusion["deal"] == {"ongoing": 1, "deal": 3, "no_deal": 0}
    assert report.confusion["ongoing"] == {"ongoing": 1, "deal": 0, "no_deal": 0}
    assert report.confusion["no_deal"] == {"ongoing": 0, "deal": 0, "no_deal": 1}
    deal = report.per_class["deal"]
    assert (deal.precision, deal.recall, deal.support) == (1.0, 0.75, 4)
    ongoing = report.per_class["ongoing"]
    assert (ongoing.precision, ongoing.recall, ongoing.support) == (0.5, 1.0, 1)
    assert [m["id"] for m in report.mistakes] == ["b", "e"]
    first = report.mistakes[0]
    assert first["gold_label"] == "deal" and first["gold_price"] == 14.0
    assert first["predicted_label"] == "ongoing" and first["predicted_price"] is None
    assert first["turns"][1] == {"speaker": "buyer", "text": "Deal at $14."}
    assert report.mistakes[1]["predicted_price"] == 15.0


def test_evaluate_accepts_any_classifier() -> None:
    class AlwaysOngoing:
        def classify(self, window: Any, scenario: Any = None) -> Verdict:
            return Verdict("ongoing")

    items = [
        LabelledWindow(turns=tuple(window("$15.", "Deal.")), label="deal", price=15.0),
        LabelledWindow(turns=tuple(window("$15.", "$14?")), label="ongoing", price=None),
    ]
    report = evaluate(AlwaysOngoing(), items)
    assert (report.accuracy, report.price_accuracy) == (0.5, 0.0)
    assert report.mistakes[0]["id"] == "#1"


def test_render_report(labelled_file: Path) -> None:
    report = evaluate(PriceRulesJudge(), load_labelled(labelled_file))
    console = Console(record=True, width=120)
    render_report(report, console)
    out = console.export_text()
    assert "Label accuracy: 0.833" in out
    assert "Price accuracy (gold deals): 0.500" in out
    assert "Confusion" in out and "Mistakes (2)" in out
    assert "Deal at $14." in out


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "invalid JSON"),
        ('["a list"]', "must be a JSON object"),
        ('{"label": "deal", "price": 3}', 'missing "turns"'),
        ('{"turns": [], "label": "deal", "price": 3}', "non-empty list"),
        ('{"turns": [{"speaker": "moderator", "text": "hi"}], "label": "ongoing"}', "speaker"),
        ('{"turns": [{"speaker": "buyer", "text": 3}], "label": "ongoing"}', '"text"'),
        ('{"turns": [{"speaker": "buyer", "text": "hi"}], "label": "maybe"}', '"label"'),
        (
            '{"turns": [{"speaker": "buyer", "text": "hi"}], "label": "deal", "price": "15"}',
            '"price"',
        ),
        ('{"turns": [{"speaker": "buyer", "text": "hi"}], "label": "deal"}', '"price"'),
    ],
)
def test_malformed_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    good = _line(["$15.", "Deal."], "deal", 15)
    path.write_text(f"{good}\n{line}\n", encoding="utf-8")
    with pytest.raises(UsageError) as info:
        load_labelled(path)
    text = str(info.value)
    assert text.startswith(f"{path}:2: ")
    assert message in text
    assert "\n" not in text


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"
    with pytest.raises(UsageError, match="not found"):
        load_labelled(path)
