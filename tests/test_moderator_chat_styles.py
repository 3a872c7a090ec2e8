"""The rules moderator on chat styles: terse typing, shorthand, polite long turns, big prices.

One class per test, found with chats written here in many voices (issue 24, third pass). Every
sentence is written for these tests (none is taken from a corpus).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from icl_aif.games.price.judge.dialogs import evaluate_dialogs, load_dialogs
from icl_aif.games.price.judge.prices import find_prices, with_apostrophes, with_question_marks
from icl_aif.games.price.judge.rules import PriceRulesJudge

WRITTEN = Path(__file__).parent / "data" / "moderator_chats_written.jsonl"

DESK = {"item": "standing desk", "list_price": 300, "buyer_open": 200}
CAR = {"item": "2012 civic", "list_price": 14000, "buyer_open": 11000}
ROOM = {"item": "room in a 3br", "list_price": 1400, "buyer_open": 1100}


def judge(*texts: str, first: str = "buyer", scenario: dict | None = DESK):
    sides = ("seller", "buyer") if first == "seller" else ("buyer", "seller")
    window = [{"speaker": sides[i % 2], "text": t} for i, t in enumerate(texts)]
    verdict = PriceRulesJudge().classify(window, scenario)
    return verdict.state, verdict.price


def amounts(text: str, scale: float | None = None) -> list[float]:
    """The prices of ``text`` as the moderator reads a turn (shorthand spelled out first)."""
    return [m.amount for m in find_prices(with_apostrophes(text), scale)]


# --- an assent right before a bare number names the price it takes ---------------------------
@pytest.mark.parametrize(
    "answer",
    [
        "ugh fine, 240",
        "ok 240",
        "k 240",
        "meh ok 240 then",
        "yeah ok 240",
        "okie 240",
        "alright 240",
    ],
)
def test_assent_then_a_bare_number_accepts_that_number(answer: str) -> None:
    assert judge("would you do 240", answer) == ("deal", 240.0)


def test_assent_naming_another_number_is_a_counter_offer() -> None:
    assert judge("would you do 200", "ok 250 and its yours")[0] == "ongoing"


# --- "$X is fine": a masked price has no word boundary before its "$" ---------------------------
@pytest.mark.parametrize(
    "answer", ["240 is fine.", "Not a problem at all! 240 is fine.", "$240 works"]
)
def test_a_price_that_is_fine_accepts(answer: str) -> None:
    assert judge("Would 240 be all right?", answer) == ("deal", 240.0)


def test_a_price_that_is_fair_in_ones_own_opinion_is_not_an_acceptance() -> None:
    assert judge("I can't go under $260.", "I still think $220 is fair.", first="seller") == (
        "ongoing",
        None,
    )


# --- a line that opens with a number and a phrase states that price -------------------------
@pytest.mark.parametrize(
    "line",
    [
        "250 last price",
        "250 delivered and i set it up",
        "250 i can drop it off",
        "250 is really all i have",
        "250 is the most i can do",
        "no, 250 and you carry it",
        "250 lol",
        "250 n were done",
        "250 without the monitor arm?",
        "250. final",
    ],
)
def test_a_line_opening_with_a_number_states_a_price(line: str) -> None:
    assert amounts(line, 300) == [250.0]


# --- shorthand and stretched words -------------------------------------------------------------
@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("can u do 110", "can you do 110"),
        ("see u tmrw", "see you tomorrow"),
        ("120 w the cable", "120 with the cable"),
        ("yesss thanks", "yes thanks"),
        ("okkk", "ok"),
        ("ill move it myself", "i'll move it myself"),
        ("im ill today", "i'm ill today"),
        ("ill health", "ill health"),
    ],
)
def test_chat_shorthand_is_read_out(typed: str, read: str) -> None:
    assert with_apostrophes(typed) == read


# --- questions typed without their question mark ---------------------------------------------
@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("would you do 100", "would you do 100?"),
        ("ok. any scratches", "ok. any scratches?"),
        ("where should i meet you", "where should i meet you?"),
        ("can do 150", "can do 150"),
        ("why yes, you have a deal", "why yes, you have a deal"),
        ("what a deal", "what a deal"),
    ],
)
def test_unmarked_questions_get_their_mark(typed: str, read: str) -> None:
    assert with_question_marks(typed) == read


def test_ok_then_an_unmarked_question_about_the_item_is_not_a_deal() -> None:
    assert judge("i'm asking 280", "ok. any wobble", first="seller")[0] == "ongoing"


# --- a bare number far below a price level of thousands is said in thousands ----------------
@pytest.mark.parametrize(
    ("text", "amount"), [("12.5 and its yours", 12500.0), ("how about 12?", 12000.0)]
)
def test_thousands_shorthand(text: str, amount: float) -> None:
    assert amounts(text, 14000) == [amount]


def test_a_small_count_is_not_read_in_thousands() -> None:
    assert 2000.0 not in amounts("the shop is about 2 blocks away", 14000)


@pytest.mark.parametrize("text", ["it's at 104k now", "timing belt done at 90k"])
def test_mileage_in_k_is_no_price(text: str) -> None:
    assert amounts(text, 10500) == []


def test_grand_is_thousands() -> None:
    assert amounts("ok 12 grand, deal", 14000) == [12000.0]
    assert amounts("it's a grand piano") == []


def test_answer_to_how_many_miles_names_no_price() -> None:
    assert judge("how many miles on it", "86k, mostly highway", "ok. any rust", scenario=CAR) == (
        "ongoing",
        None,
    )


# --- hours, ages and what a price covers are no prices ---------------------------------------
@pytest.mark.parametrize(
    "text", ["I can be there at 7.", "i'll bring cash around 4", "my son is 9"]
)
def test_hours_and_ages_are_no_prices(text: str) -> None:
    assert amounts(text, 300) == []


def test_yes_to_what_a_price_covers_is_no_agreement() -> None:
    state, _ = judge(
        "Is it $1400 for the room alone?", "Yes, $1400, utilities are split.", scenario=ROOM
    )
    assert state == "ongoing"


def test_part_of_the_item_alone_is_a_reference() -> None:
    assert judge("I'll give you 200.", "No way. The motor alone is 200.")[0] == "ongoing"


# --- an offer that closes once taken ("X and it's yours") -------------------------------------
@pytest.mark.parametrize(
    "answer",
    [
        "thank you!! *counts out the cash*",
        "yay thanks, when can i come by?",
        "Thanks so much. Where should I pick it up?",
    ],
)
def test_a_closing_offer_taken_with_thanks_or_an_arrangement(answer: str) -> None:
    assert judge("would you do 200", "ok 230 and it's yours", answer) == ("deal", 230.0)


def test_a_closing_offer_answered_with_a_counter_stays_open() -> None:
    assert judge("would you do 200", "ok 230 and it's yours", "thanks but 210?")[0] == "ongoing"


def test_sold_at_a_new_price_then_ok_binds_it() -> None:
    assert judge("3200?", "sold at 3400!", "haha ok fine. can i get it sunday", scenario=CAR) == (
        "deal",
        3400.0,
    )


def test_you_can_have_it_for_the_offered_price_accepts() -> None:
    assert judge("Could you do $240?", "Alright, you can have it for $240.") == ("deal", 240.0)


def test_you_can_have_it_for_another_price_is_an_offer() -> None:
    assert judge("Could you do $200?", "You can have it for $240.") == ("ongoing", None)


# --- a condition answered by a commitment -----------------------------------------------------
@pytest.mark.parametrize(
    ("condition", "answer"),
    [
        ("I could do that if you pay cash.", "Cash is fine."),
        ("Only if you come get it yourself.", "Sure, I'll come get it."),
        ("I'll do 240 if you can come get it tonight.", "I can be there at 7."),
        ("240 if you can be here in an hour", "omw"),
        (
            "Alright, 240 it is, but you need to bring help, it's heavy.",
            "for sure, I'll bring my brother.",
        ),
        ("I guess 240 is ok, but you pick it up", "of course, tomorrow?"),
        (
            "If you can pick it up Saturday morning, we have a deal at $240.",
            "Saturday morning is perfect.",
        ),
    ],
)
def test_a_commitment_to_the_condition_closes(condition: str, answer: str) -> None:
    assert judge("Can you go to 240?", condition, answer) == ("deal", 240.0)


# --- acceptances said in many voices -----------------------------------------------------------
@pytest.mark.parametrize(
    "answer",
    [
        "That suits me fine.",
        "I'm comfortable with that.",
        "I'm in at $240. When can I come by?",
        "We'll take it.",
        "Okay, I can live with 240. Is Saturday okay? And do you take Zelle?",
        "That I can work with.",
        "240 is something I can commit to.",
        "we're good :)",
        "Sounds fair to me. I can come Tuesday after work, maybe around 6:30?",
        "alright you win, when can I pick it up?",
    ],
)
def test_acceptances_in_many_voices(answer: str) -> None:
    assert judge("How about $240?", answer) == ("deal", 240.0)


@pytest.mark.parametrize(
    "answer", ["Yes, I can accept 7,900. When would you like to see it?", "I can make 7.9 work."]
)
def test_acceptances_of_big_prices(answer: str) -> None:
    assert judge("Could you do 7,900?", answer, scenario=CAR) == ("deal", 7900.0)


# --- farewells that decline ------------------------------------------------------------------
@pytest.mark.parametrize(
    "answer",
    [
        "That's okay. Thanks for your time!",
        "alright no worries, good luck",
        "ok, no problem. happy hunting",
        "alright then, no thanks",
        "ok thanks anyway",
        "ok nvm then",
        "lol ok. pass",
        "ok. I'll look at a couple other places first",
    ],
)
def test_a_weak_ok_in_a_declining_farewell_is_no_deal(answer: str) -> None:
    assert judge("I can only do 200.", "Sorry, 260 is my lowest.", answer)[0] != "deal"


def test_deal_with_thanks_for_your_time_is_still_a_deal() -> None:
    assert judge("How about $240?", "Deal! Thanks for your time.") == ("deal", 240.0)


# --- hypotheticals and refusals ----------------------------------------------------------------
def test_not_interested_at_a_price_refuses_it() -> None:
    assert judge("220 and i pick up", "not interested at 220")[0] != "deal"


def test_a_price_is_low_refuses_it() -> None:
    assert judge("would you take 7k", "7k is low. i just put new tires on it", scenario=CAR) == (
        "ongoing",
        None,
    )


def test_submitting_another_number_through_the_form_is_no_acceptance() -> None:
    assert (
        judge("would you take 200", "270", "ok im gonna put in 220 and you can accept or not")[0]
        == "ongoing"
    )


# --- a number that ends its sentence after a comma, a laugh or an assent -----------------------
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("That works for me, 240.", [240.0]),
        ("i dont need the cable lol 240", [240.0]),
        ("sounds good 240 today", [240.0]),
        ("hmm what if i did 240", [240.0]),
        ("close to highways 680 and 580.", []),
        ("the mount is rated for up to 130.", [130.0]),  # a bare "to 130" was read before too
        ("it's the 2015 model", []),
    ],
)
def test_a_number_ending_its_sentence(line: str, expected: list[float]) -> None:
    assert amounts(line, 300) == expected


# --- an explicit acceptance stands before a question about the item --------------------------
@pytest.mark.parametrize(
    "answer",
    [
        "Alright, that's fine with me. Do you want the original box too?",
        "Sure, I can do $240. Do you need help taking it apart?",
        "$240 is fine. Actually, I have a spare cable too, want it?",
    ],
)
def test_an_explicit_acceptance_then_a_question_about_the_item(answer: str) -> None:
    assert judge("How about $240?", answer) == ("deal", 240.0)


@pytest.mark.parametrize(
    "answer", ["That's great. And is it the tall model?", "Okay. Is it scratched?"]
)
def test_a_pleased_ok_then_a_question_about_the_item_is_not_a_deal(answer: str) -> None:
    assert judge("It's $280, barely used.", answer, first="seller")[0] == "ongoing"


# --- more voices --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("offer", "answer", "price"),
    [
        ("270 is as far as I can go.", "I'm happy to let it go for 270.", 270.0),
        ("240?", "240 done", 240.0),
        ("250 and it's yours", "bet 250", 250.0),
        ("what about 220", "man ur tough ok 220", 220.0),
    ],
)
def test_more_acceptances(offer: str, answer: str, price: float) -> None:
    assert judge(offer, answer) == ("deal", price)


def test_more_than_i_want_to_spend_declines() -> None:
    assert (
        judge(
            "Would you take $230?",
            "Sorry, $280 is the price.",
            "alright, that's more than I want to spend. Thanks",
        )[0]
        != "deal"
    )


def test_agreed_on_the_price_describes() -> None:
    assert (
        judge(
            "Would you take $230?",
            "My partner and I agreed on the price already, I can't go below $280.",
        )[0]
        == "ongoing"
    )


def test_typed_cant_refuses_the_price() -> None:
    assert (
        judge("would you do 230?", "the others sold for 300 so i cant really do 230")[0]
        == "ongoing"
    )


# --- the chats the classes above were found with -----------------------------------------------
def test_rules_moderator_on_the_written_chats() -> None:
    """1194 chats written here in many voices, labelled by their writers (docs/moderator.md,
    "Chats written here"). They were read while these rules were written, so this is a
    regression gate, not an estimate: 0.832 outcome / 0.720 price before the third pass, 0.994 /
    0.987 after it."""
    dialogs = load_dialogs(WRITTEN)
    assert len(dialogs) == 1194
    report = evaluate_dialogs(PriceRulesJudge(), dialogs)
    assert report.outcome_accuracy >= 0.99, report.outcome_accuracy
    assert report.price_accuracy >= 0.98, report.price_accuracy


def test_rules_moderator_on_the_chats_written_from_scratch() -> None:
    """900 chats written here from scratch for the sixth pass (docs/moderator.md, "Chats written
    from scratch"): crowdworker chat, rentals, cars, bundles, subtle closings, traps, typing slips
    and chat-model dialogs, labelled by their writers. Read while the sixth pass was written, so
    a regression gate: 0.910 outcome / 0.845 price before it, 0.983 / 0.948 after it."""
    dialogs = load_dialogs(WRITTEN.with_name("moderator_chats_scratch.jsonl"))
    assert len(dialogs) == 900
    report = evaluate_dialogs(PriceRulesJudge(), dialogs)
    assert report.outcome_accuracy >= 0.98, report.outcome_accuracy
    assert report.price_accuracy >= 0.94, report.price_accuracy


def test_rules_moderator_on_the_eighth_pass_chats() -> None:
    """1700 chats and chat endings written here from scratch for the eighth pass
    (docs/moderator.md, "Chat endings written from scratch"): endings after the last price, long
    messages, rentals and cars, traps for early calls, prices to work out, the offer form, and
    single replies to a counter-offer, labelled by their writers. Read while the eighth pass was
    written, so a regression gate: 0.907 outcome / 0.854 price before it, 0.968 / 0.946 after."""
    dialogs = load_dialogs(WRITTEN.with_name("moderator_chats_eighth.jsonl"))
    assert len(dialogs) == 1700
    report = evaluate_dialogs(PriceRulesJudge(), dialogs)
    assert report.outcome_accuracy >= 0.96, report.outcome_accuracy
    assert report.price_accuracy >= 0.93, report.price_accuracy


def test_rules_moderator_on_the_ninth_pass_endings() -> None:
    """520 chat endings written here from scratch for the ninth pass (docs/moderator.md,
    "Assents with a rider"): a price, then an assent that goes on with "but", "if", a request or
    a question, half of them agreements (the rider only arranges the hand-over) and half not
    (it reopens the price or the items, or hesitates), labelled by their writers. The first 320
    were read while the pass was written, the last 200 only scored; a regression gate: 0.702
    outcome / 0.477 price before it, 0.829 / 0.727 after."""
    dialogs = load_dialogs(WRITTEN.with_name("moderator_chats_ninth.jsonl"))
    assert len(dialogs) == 520
    report = evaluate_dialogs(PriceRulesJudge(), dialogs)
    assert report.outcome_accuracy >= 0.82, report.outcome_accuracy
    assert report.price_accuracy >= 0.72, report.price_accuracy


def test_bare_numbers_written_for_the_ninth_pass() -> None:
    """400 messages written here from scratch: 280 put a price forward as a bare number (no
    currency sign or word), 120 hold numbers that are no price (times, counts, years, models,
    miles). Each line: list price, the price or NONE, the message. A regression gate: 261 / 280
    prices found and 111 / 120 clean before the ninth pass, 266 / 280 and 111 / 120 after."""
    found = clean = priced = unpriced = 0
    path = WRITTEN.with_name("moderator_bare_numbers.tsv")
    for line in path.read_text(encoding="utf-8").splitlines():
        listed, price, message = line.split("\t")
        scale = float(listed)
        amounts = [m.amount for m in find_prices(message, scale)]
        if price == "NONE":
            unpriced += 1
            clean += not any(0.3 * scale <= a <= 2 * scale for a in amounts)
        else:
            priced += 1
            found += any(abs(a - float(price)) < 0.01 for a in amounts)
    assert (priced, unpriced) == (280, 120)
    assert found >= 264, found
    assert clean >= 110, clean


# --- the last round: endings, hand-over details, more numbers ---------------------------------
@pytest.mark.parametrize(
    "answer",
    ["ok nevermind then", "ok i will check other rooms first, thanks", "ok no worries thx"],
)
def test_more_declines(answer: str) -> None:
    assert judge("I can only do 200.", "Sorry, 260 is my lowest.", answer)[0] != "deal"


def test_leaving_the_item_on_the_porch_is_no_walk_away() -> None:
    assert judge(
        "240? i'm close by", "ok 240 is fine. I'll leave it on the porch, just venmo me"
    ) == ("deal", 240.0)


def test_getting_the_item_done_is_no_acceptance() -> None:
    state, _ = judge(
        "Does it have a current smog?", "Smog is due, I'll get it done before selling."
    )
    assert state == "ongoing"


@pytest.mark.parametrize(
    ("offer", "answer", "price"),
    [
        ("Would 240 with the cable work?", "Sure, let's do 240 with the cable.", 240.0),
        ("240? I really can't go higher", "240 I can do", 240.0),
        ("240 and pick up tonight", "you got a deal at 240, tonight is good", 240.0),
        ("240 that is it", "ok 240 deal", 240.0),
        ("240 i bring cash", "yeah fine 240", 240.0),
        ("240 and that's really all I've got", "ok, I can live with 240", 240.0),
        ("270 is my price.", "alright... 270 then. but please keep it dry", 270.0),
    ],
)
def test_last_round_acceptances(offer: str, answer: str, price: float) -> None:
    assert judge(offer, answer) == ("deal", price)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("can i grab it after work like 7", []),
        ("is the 18-55 lens included?", []),
        ("75 fine", [75.0]),
    ],
)
def test_last_round_numbers(line: str, expected: list[float]) -> None:
    assert amounts(line, 300) == expected


def test_rules_moderator_on_the_unread_written_chats() -> None:
    """120 chats written the same way after the third pass was done, scored once and never read:
    the honest figure for written chats (0.808 outcome / 0.718 price before the third pass, 0.925 /
    0.897 after it). Do not tune the rules on this file; write a new batch instead."""
    dialogs = load_dialogs(WRITTEN.with_name("moderator_chats_unread.jsonl"))
    assert len(dialogs) == 120
    report = evaluate_dialogs(PriceRulesJudge(), dialogs)
    assert report.outcome_accuracy >= 0.92, report.outcome_accuracy
    assert report.price_accuracy >= 0.89, report.price_accuracy
