"""The rules moderator on human bargaining phrasing: one class of past mistakes per test.

Every sentence here is written for these tests (none is taken from a corpus).
"""

from __future__ import annotations

import pytest

from icl_aif.games.price.judge.prices import (
    discount,
    find_prices,
    with_apostrophes,
    with_sentence_breaks,
)
from icl_aif.games.price.judge.rules import PriceRulesJudge

SCENARIO = {"item": "road bike", "list_price": 500, "buyer_open": 300}


def judge(*texts: str, first: str = "seller", scenario: dict | None = SCENARIO):
    sides = ("seller", "buyer") if first == "seller" else ("buyer", "seller")
    window = [{"speaker": sides[i % 2], "text": t} for i, t in enumerate(texts)]
    verdict = PriceRulesJudge().classify(window, scenario)
    return verdict.state, verdict.price


def kinds(text: str, scale: float | None = 500) -> list[tuple[float, str]]:
    return [(m.amount, m.kind) for m in find_prices(text, scale)]


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


# --- issue 14, item 2: the latest proposal wins ------------------------------------------------
def test_weak_ok_to_a_proposal_with_terms_binds_that_proposal_not_an_older_one() -> None:
    window = (
        "Would you do 300?",
        "I think $420 is a fair price for both of us.",
        "Could you take $360 if I collect it from your garage?",
        "Okay. That works.",
    )
    assert judge(*window, first="buyer") == ("deal", 360.0)


def test_strong_acceptance_of_an_offer_with_terms_binds_it() -> None:
    window = ("I'm at $450.", "If you can bring it round tonight, I can do $430.", "Deal then!")
    assert judge(*window, first="buyer") == ("deal", 430.0)


def test_an_unconditional_price_beats_a_conditional_one_in_the_same_turn() -> None:
    window = ("$440, or $410 if you pay in cash.", "I only have a card. Deal.")
    assert judge(*window) == ("deal", 440.0)


def test_price_is_a_deal_binds_the_named_price() -> None:
    window = ("Could I pay $400 now and $450 next month?", "Yes. 400 is a deal.")
    assert judge(*window, first="buyer") == ("deal", 400.0)


def test_yes_to_a_deal_question_binds_the_proposal() -> None:
    window = (
        "I'd sign today if you go to $410.",
        "Only if you don't need delivery.",
        "No delivery needed. So we have a deal?",
        "Sounds fine.",
    )
    assert judge(*window, first="buyer") == ("deal", 410.0)


def test_own_proposal_confirmed_by_the_other_side() -> None:
    window = ("Would you be able to do 415", "For you, yes!", "Great, thank you, you have a deal")
    assert judge(*window, first="buyer") == ("deal", 415.0)


# --- refusals and descriptions ------------------------------------------------------------------
def test_refusal_saying_the_price_is_much_higher_is_not_a_deal() -> None:
    window = ("I'm asking 480.", "480 is way higher than what these sell for.", "Fine, 460?")
    assert judge(*window)[0] == "ongoing"


def test_a_bit_much_refuses_the_price() -> None:
    assert [m.kind for m in find_prices("Yes, $480 is a bit much for me.")] == ["refused"]


def test_yes_followed_by_the_speakers_own_price_is_a_counter_offer() -> None:
    window = ("Could you throw in the lights for $400?", "Yes, and the pump too. Deal? $450 then.")
    assert judge(*window, first="buyer")[0] == "ongoing"


def test_praising_ones_own_offer_is_not_accepting_the_other() -> None:
    window = ("The price is $480, firm.", "$420 is my last offer. That is a fair price.")
    assert judge(*window)[0] == "ongoing"


def test_i_agree_but_concedes_a_point_only() -> None:
    window = (
        "It's $480, it has new tyres.",
        "I agree, but the frame is scratched. How about $400?",
    )
    assert judge(*window)[0] == "ongoing"


def test_acceptance_with_new_terms_after_but_is_not_a_deal() -> None:
    window = ("Would $400 be ok?", "I can accept that, but you will have to fetch it yourself.")
    assert judge(*window, first="buyer")[0] == "ongoing"


def test_ill_take_it_for_a_price_nobody_offered_is_an_offer() -> None:
    window = ("The bike comes with a pump and lights.", "Nice, I'll take the bike and pump for 380")
    assert judge(*window)[0] == "ongoing"


def test_a_hypothetical_price_inside_if_i_is_not_a_firm_price() -> None:
    window = ("Can you do $420?", "If I do $420 I can't pay my rent this month, sorry.")
    assert judge(*window)[0] == "ongoing"


# --- "ok"/"yes" answering a question ----------------------------------------------------------
@pytest.mark.parametrize(
    "answer",
    ["Ok, great. What size is the frame?", "That's great. And are the tyres tubeless?"],
)
def test_ok_then_a_question_about_the_item_is_not_a_deal(answer: str) -> None:
    assert judge("I'm selling it for around $480.", answer)[0] == "ongoing"


def test_ok_then_a_question_about_pickup_is_a_deal() -> None:
    window = ("I can do $450.", "Ok, great. When can I pick it up?")
    assert judge(*window) == ("deal", 450.0)


def test_excellent_condition_is_not_an_acceptance() -> None:
    window = ("Would you take $400?", "I want at least $470. Excellent condition, barely used.")
    assert judge(*window, first="buyer")[0] == "ongoing"


# --- human acceptance phrasings -----------------------------------------------------------------
@pytest.mark.parametrize(
    "answer",
    [
        "That sounds like a fair price.",
        "That sounds like a great deal to me.",
        "Ya that would be great.",
        "Thats actually perfect, I needed a pump too.",
        "Well, I'll call it a deal.",
        "I think I can do your $440.",
        "Sounds reasonable enough, sure.",
    ],
)
def test_human_acceptances(answer: str) -> None:
    assert judge("How about $440?", answer, first="buyer") == ("deal", 440.0)


def test_acceptance_with_a_soft_if_still_counts() -> None:
    window = ("Would you take $445?", "Yes, that works, so if you want come by tonight.")
    assert judge(*window, first="buyer") == ("deal", 445.0)


def test_ok_naming_an_earlier_offer_counts() -> None:
    window = (
        "$455 and I add the lock.",
        "Does the lock have keys?",
        "Yes, two.",
        "ok $455 sounds good",
    )
    assert judge(*window) == ("deal", 455.0)


# --- sending the offer closes the deal --------------------------------------------------------
@pytest.mark.parametrize(
    "answer",
    ["150 works, I'll send the offer", "ok sending offer now", "Let me send you the offer."],
)
def test_sending_the_offer_after_converging_is_a_deal(answer: str) -> None:
    window = ("Could you do 140?", "I can do 150", answer)
    assert judge(*window, first="buyer", scenario={"list_price": 180}) == ("deal", 150.0)


def test_glad_we_worked_it_out_closes_the_deal() -> None:
    window = (
        "I can do 430, but that's my floor.",
        "I can pick it up today.",
        "Glad we could work something out",
    )
    assert judge(*window)[0] == "deal"


# --- human price writing -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Can we meet halfway with 12,750?", 12750.0),
        ("I can pay you 35.", 35.0),
        ("I'd pay the full 200 if it has a warranty", 200.0),
        ("I'm thinking like 150", 150.0),
        ("Would you consider doing 1550?", 1550.0),
        ("1725", 1725.0),
        ("1750?", 1750.0),
        ("40, my wife needs the space.", 40.0),
    ],
)
def test_bare_numbers_in_human_chat(text: str, amount: float) -> None:
    assert [m.amount for m in find_prices(text)] == [amount]


@pytest.mark.parametrize(
    "text",
    ["It has 80k mostly highway miles.", "It has 15,000 miles.", "Is it a 4 bedroom house?"],
)
def test_numbers_that_are_not_prices(text: str) -> None:
    assert find_prices(text) == []


def test_the_other_sides_listing_quoted_is_a_reference() -> None:
    assert [m.kind for m in find_prices("I see you are selling it for $480.")] == ["reference"]


def test_praising_ones_own_question_price_is_not_accepting() -> None:
    window = (
        "Would you take $400?",
        "It is nearly new. How about $470? That is a fair price for it.",
    )
    assert judge(*window, first="buyer")[0] == "ongoing"


# --- the item's own name: numbers and words in a listing's title -----------------------------
@pytest.mark.parametrize(
    ("item", "texts", "expected"),
    [
        # a year is no price: read as one, "Okay." would close a deal at $2,007
        ("2007 Ford Focus", ("How much for the 2007 Ford Focus?", "Okay."), ("ongoing", None)),
        # "sealed" in a title accepts nothing
        (
            "Sealed box headphones",
            ("$3,500 then?", "The Sealed box headphones are worth more."),
            ("ongoing", None),
        ),
        (
            "4500 Watt generator",
            ("Would you take $3,500 for the 4500 Watt generator?", "Deal."),
            ("deal", 3500.0),
        ),
    ],
)
def test_the_items_name_is_read_as_the_item(
    item: str, texts: tuple[str, ...], expected: tuple[str, float | None]
) -> None:
    scenario = {"item": item, "list_price": 5000, "buyer_open": 3000}
    assert judge(*texts, first="buyer", scenario=scenario) == expected


def test_a_window_without_the_other_side_cannot_show_a_counter_offer() -> None:
    # "nobody offered $45" needs the other side in the window: alone, the line accepts
    assert judge("Alright, $45 it is, it's yours.") == ("deal", 45.0)
    assert judge("I'd take $40.", "Alright, $45 it is, it's yours.", first="buyer")[0] == "ongoing"


# --- issue 24: plain agreements in real text -------------------------------------------------
def test_thanks_and_goodbyes_after_an_acceptance_keep_the_deal() -> None:
    window = (
        "Would you take $420?",
        "Yes, $420 works. Thank you!",
        "Thanks a lot! Have a nice evening.",
        "You too, good luck with the bike!",
    )
    assert judge(*window, first="buyer") == ("deal", 420.0)
    assert judge("$430 then?", "Agreed.", "Best of luck with the sale!", first="buyer") == (
        "deal",
        430.0,
    )


@pytest.mark.parametrize(
    "action", ["*counts out the bills and hands them over*", "(shakes hands)", "*smiles* *nods*"]
)
def test_role_play_after_an_acceptance_keeps_the_deal(action: str) -> None:
    window = ("I can pay $410.", "I accept your offer of $410.", action)
    assert judge(*window, first="buyer") == ("deal", 410.0)


def test_role_play_alone_decides_nothing() -> None:
    assert judge("I'd want $460 for it.", "*scratches head*") == ("ongoing", None)


def test_a_sale_declared_at_the_offered_price_is_a_deal() -> None:
    window = ("I could pay $440 for it.", "Sold for $440!", "Thanks!")
    assert judge(*window, first="buyer") == ("deal", 440.0)


@pytest.mark.parametrize("text", ["My final offer is $380.", "The best I can do is $380."])
def test_a_final_offer_waits_for_an_answer_even_at_the_stated_budget(text: str) -> None:
    assert judge("I only have $380 to spend.", text, first="buyer") == ("ongoing", None)


@pytest.mark.parametrize(
    "answer", ["yea", "sure thing", "I would.", "Yes we can.", "okie", "Sure, when can you come?"]
)
def test_a_short_affirmative_to_a_price_question_binds_that_price(answer: str) -> None:
    assert judge("Would you do 440 for it?", answer, first="buyer") == ("deal", 440.0)


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (("Could you do 450?", "450 deal."), ("deal", 450.0)),
        (("450 and I pick it up tonight?", "Works for me!"), ("deal", 450.0)),
        (("Can we settle on 460?", "That's fine by me."), ("deal", 460.0)),
    ],
)
def test_a_number_without_a_currency_sign_is_agreed_to(
    texts: tuple[str, ...], expected: tuple[str, float]
) -> None:
    assert judge(*texts, first="buyer") == expected


@pytest.mark.parametrize(
    ("texts", "first", "expected"),
    [
        (
            (
                "How about $400?",
                "I'll go that low if you pick it up.",
                "I can pick it up Saturday.",
            ),
            "buyer",
            ("deal", 400.0),
        ),
        (
            ("I can do $420 if you come get it tonight.", "I will come by at six."),
            "seller",
            ("deal", 420.0),
        ),
        (("I can do $420 if you pay cash.", "Sure, I'll bring cash."), "seller", ("deal", 420.0)),
        # no commitment: the errand is refused, or it is another errand
        (
            ("I can do $420 if you come get it tonight.", "I can't come tonight."),
            "seller",
            ("ongoing", None),
        ),
        (
            ("I can do $420 if you pay cash.", "I can pick it up tomorrow."),
            "seller",
            ("ongoing", None),
        ),
    ],
)
def test_a_commitment_to_the_condition_closes_a_conditional_agreement(
    texts: tuple[str, ...], first: str, expected: tuple[str, float | None]
) -> None:
    assert judge(*texts, first=first) == expected


@pytest.mark.parametrize(
    ("texts", "first"),
    [
        (("Is it still available for $480?", "Yes it is!"), "buyer"),
        (("I'm asking $480. Are you interested?", "Yes I am."), "seller"),
        (("The listed price is $480.", "Okay. I was hoping to pay less."), "seller"),
        (("The listing says $480; what is your lowest?", "Just make an offer."), "buyer"),
    ],
)
def test_a_yes_to_a_question_of_fact_accepts_no_price(texts: tuple[str, ...], first: str) -> None:
    assert judge(*texts, first=first) == ("ongoing", None)


def test_a_deal_question_answered_with_yes_it_is_agrees() -> None:
    assert judge("Is $470 a deal then?", "Yes it is.", first="buyer") == ("deal", 470.0)


def test_a_hurried_you_got_a_deal_accepts() -> None:
    assert judge("I could go $470.", "Tough seller. But you gotta deal.") == ("deal", 470.0)


def test_a_question_that_restates_the_agreed_price_still_agrees() -> None:
    window = ("I can let it go for $470, final offer.", "Okay, for $470 can you deliver it Friday?")
    assert judge(*window) == ("deal", 470.0)


def test_cannot_argue_with_that_accepts() -> None:
    assert judge("I'll take $450 for it.", "I can't argue with that.") == ("deal", 450.0)


def test_a_commitment_binds_the_price_of_the_condition_not_the_fallback() -> None:
    window = (
        "I can take $420 if you pick it up with cash tonight, otherwise $460.",
        "Okay, I'll bring the cash tonight!",
    )
    assert judge(*window) == ("deal", 420.0)


# --- issue 24, session 35: acceptances typed fast or phrased around a negation -----------------
@pytest.mark.parametrize(
    "answer",
    [
        "ill take it",
        "thats a deal",
        "Its a deal",
        "youve got a deal",
        "No problem, deal!",
        "Not bad, I'll take it.",
        "I don't see why not.",
        "That'll work.",
        "That could work.",
        "That'd be fine.",
        "I'd be happy with that.",
        "I'd be glad to.",
        "I'm down.",
        "Fine by me.",
        "You've convinced me.",
        "I'll go for that.",
        "I can agree to that.",
        "I'll accept.",
        "we have deal",
        "I won't say no to that.",
        "I guess so.",
        "Fair.",
        "Awesome, where should we meet?",
        "I'll come by tomorrow to pick it up.",
        "Great, send me the address.",
    ],
)
def test_more_human_acceptances(answer: str) -> None:
    assert judge("I could let it go for $440.", answer) == ("deal", 440.0)


# --- issue 24, session 35: an "OK" that acknowledges, then doubts, pleads or asks to see it ------
@pytest.mark.parametrize(
    "answer",
    [
        "Ok nice. I'll think about it.",
        "Okay, thanks for the info.",
        "Sure, I'd like to see it first.",
        "Yes, please tell me more.",
        "Alright. Money is tight for me right now.",
        "Ok, 300 is my budget.",
    ],
)
def test_an_acknowledgement_that_goes_on_to_doubt_is_not_a_deal(answer: str) -> None:
    assert judge("It is $480, like the ad says.", answer) == ("ongoing", None)


def test_a_handshake_described_is_not_one_given() -> None:
    text = "You're funny. I'll give you my famous handshake, but it's still $480."
    assert judge("Would you take $300?", text, first="buyer")[0] == "ongoing"


def test_a_handshake_given_accepts() -> None:
    assert judge("I can do $450.", "*handshake*") == ("deal", 450.0)


def test_a_doubt_then_an_acceptance_in_the_same_turn_accepts() -> None:
    answer = "Hmm, it's a bit high. But ok, that works."
    assert judge("I could let it go for $440.", answer) == ("deal", 440.0)


def test_yes_with_a_preferred_lower_price_is_not_a_deal() -> None:
    window = ("Would you be able to pay $450?", "Yes, I could pay 450 but I'd prefer 420.")
    assert judge(*window) == ("ongoing", None)


# --- issue 24, session 35: bare numbers that are prices -----------------------------------------
@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("How about 420 in cash?", 420.0),
        ("I could offer you the price of 430", 430.0),
        ("I can do at least 440 and deliver it.", 440.0),
        ("I think I can do your 450.", 450.0),
        ("Would you consider 460?", 460.0),
        ("Why should I give 470?", 470.0),
        ("If you come today I can agree on 480.", 480.0),
        ("410 is all I have.", 410.0),
        ("420 even and we have a deal", 420.0),
        ("430 and first month free", 430.0),
        ("Sure, 440 is a great price.", 440.0),
        ("450 cash, and I'll pick it up today", 450.0),
    ],
)
def test_bare_numbers_read_as_prices(text: str, amount: float) -> None:
    assert amount in [m.amount for m in find_prices(text, 500)]


def test_a_bare_number_in_inches_is_not_money() -> None:
    assert find_prices("The frame is 21 in wide.", 500) == []


# --- issue 24, session 35: run-on lines -----------------------------------------------------------
def test_a_run_on_line_ends_its_sentence_before_a_question_word() -> None:
    # "... with that Do you ..." reads as two sentences: an acceptance, then a question
    window = (
        "Could we settle on $450?",
        "I believe I can work with that Do you want to pick it up Friday?",
    )
    assert judge(*window, first="buyer") == ("deal", 450.0)


def test_a_run_on_sold_accepts() -> None:
    assert judge("I am asking $480 for it", "I think thats more than fair SOLD") == ("deal", 480.0)


def test_offer_with_an_own_price_and_pickup_is_a_counter_offer() -> None:
    window = ("Okay, how about $470?", "450 cash, and I'll pick it up today")
    assert judge(*window, first="seller") == ("ongoing", None)


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("ill take it", "i'll take it"),
        ("thats a deal", "that's a deal"),
        ("its a deal", "it's a deal"),
        ("its condition is great", "its condition is great"),
        ("I feel ill today", "I feel ill today"),
        ("show me your id card", "show me your id card"),
        ("I dont think so", "I dont think so"),
    ],
)
def test_contractions_typed_fast_are_read_back(typed: str, read: str) -> None:
    assert with_apostrophes(typed) == read


def test_a_run_on_line_gets_its_full_stops() -> None:
    assert with_sentence_breaks("It works well Do you want it?") == "It works well. Do you want it?"
    assert with_sentence_breaks("I live nearby  I can pay $40") == "I live nearby. I can pay $40"


# --- issue 24, session 35: a discount off the price on the table ------------------------------
@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (
            ("The listed $480 seems fair to me.", "I can take $30 off if you come today.", "Deal!"),
            450.0,
        ),
        (("I could do $400.", "Knock off 10% more and you have a buyer.", "Ok, fine."), 360.0),
        # the turn names its new price itself: that price, not a discount off it
        (("I could do $400.", "How about $380, that's $20 off?", "Sure."), 380.0),
    ],
)
def test_a_discount_off_the_price_on_the_table_binds_that_price(
    texts: tuple[str, ...], expected: float
) -> None:
    assert judge(*texts, first="buyer" if len(texts) % 2 else "seller") == ("deal", expected)


def test_a_discount_is_read_as_an_amount_or_a_percentage() -> None:
    assert discount("If you can pick it up I can take $5 off.") == (5.0, False)
    assert discount("I can knock off 10% for cash") == (10.0, True)
    assert discount("I can take 50 for it") is None  # a price, not a discount


# --- issue 24, session 35: an acceptance that quotes the other side's price -------------------
def test_an_acceptance_quoting_the_other_sides_price_binds_it() -> None:
    window = ("Hi! Still interested in the bike?", "Yes, your price of $450 works for me.")
    assert judge(*window) == ("deal", 450.0)


def test_cannot_argue_with_a_quoted_price_accepts_it() -> None:
    window = ("It's in great shape.", "I saw your offer of $450 and I can't argue with that.")
    assert judge(*window) == ("deal", 450.0)


def test_a_quoted_price_turned_down_is_not_accepted() -> None:
    window = ("It's in great shape.", "Your price of $450 is too much for me, sorry.")
    assert judge(*window) == ("ongoing", None)


# --- issue 24, session 35: an acceptance with no price on the table -----------------------------
def test_an_acceptance_binds_the_price_its_own_clause_names_in_any_role() -> None:
    # "if it comes with lights" makes $420 a conditional price; the acceptance still names it
    window = ("It has new tires.", "Great, deal at $420 if it comes with lights then!")
    assert judge(*window) == ("deal", 420.0)


def test_an_acceptance_binds_the_price_the_other_side_quoted_last() -> None:
    window = ("You said $450 was your limit, right?", "Right. Deal!")
    assert judge(*window) == ("deal", 450.0)


def test_an_acceptance_does_not_bind_a_retail_price() -> None:
    window = ("It retails for $450 new.", "Nice. I'll take it!")
    assert judge(*window) == ("deal", None)


# --- issue 24, session 35: a grumble closed by a concession -------------------------------------
@pytest.mark.parametrize(
    "answer",
    [
        "Kind of high but fine.",
        "It's a bit steep but I guess I can do that.",
        "Sure, it's a bit high, but it's worth it.",
        "Ok, that's a bit high but I really want it.",
        "ok, that's fine even though it's a bit high",
    ],
)
def test_a_grumble_closed_by_a_concession_accepts(answer: str) -> None:
    assert judge("I could let it go for $440.", answer) == ("deal", 440.0)


# --- issue 24, session 35: strong phrases that describe rather than accept ---------------------
@pytest.mark.parametrize(
    ("texts", "first"),
    [
        (("Is it still in the box? I'd pay $400.", "Yes, it's brand new, still sealed."), "buyer"),
        (("Would you take $400?", "I accept cash only."), "buyer"),
        (("I'd pay $400.", "Yes I accept offers, but $400 is too low."), "buyer"),
        (
            ("So it's the 2015 model? I'd pay $400.", "You got it right, it's the 2015 one."),
            "buyer",
        ),
        (("Would you take $400?", "I agreed to hold it for someone else until tonight."), "buyer"),
        (("Would you take $400?", "I accepted another offer this morning."), "buyer"),
        (
            ("Would you take $400?", "Let's do it this way: come see it first, then we talk."),
            "buyer",
        ),
        (
            ("Would $400 work?", "It's locked in my garage, come see it. I need $460 though."),
            "buyer",
        ),
        (("Is this still available for $480?", "Yes! It's yours if you want it."), "buyer"),
    ],
)
def test_a_strong_phrase_that_describes_accepts_nothing(texts: tuple[str, ...], first: str) -> None:
    assert judge(*texts, first=first)[0] == "ongoing"


@pytest.mark.parametrize(
    "answer", ["Settled!", "Agreed to that.", "Then it's settled.", "I agree."]
)
def test_the_strong_phrases_kept_still_accept(answer: str) -> None:
    assert judge("I could let it go for $440.", answer) == ("deal", 440.0)


# --- issue 24, session 35: a "yes" answers the question asked, not the price --------------------
@pytest.mark.parametrize(
    ("texts", "first"),
    [
        (("Hello! Are you interested in the bike? It's only $500.", "Yes!"), "seller"),
        (("The bike is $500. Would you like to make an offer?", "Sure!"), "seller"),
        (("It's $500. Do you live nearby?", "Yes, about ten minutes away."), "seller"),
        (("It's $500, a great price. Have you ridden one before?", "Yeah, a few times!"), "seller"),
        (("It is $500. Is that too much?", "Yes, a bit."), "seller"),
        (("Is $500 your final price?", "Yes."), "buyer"),
    ],
)
def test_a_yes_to_a_question_that_asks_no_agreement_accepts_nothing(
    texts: tuple[str, ...], first: str
) -> None:
    assert judge(*texts, first=first) == ("ongoing", None)


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (("I can do $440. Does that work?", "Yes."), ("deal", 440.0)),
        (("I can do $440. Ok?", "Sure."), ("deal", 440.0)),
        # a new offer with a question about something else: the yes takes both
        (("I can do $440. Can I pick it up Sunday?", "Yes absolutely!"), ("deal", 440.0)),
    ],
)
def test_a_yes_to_a_question_that_asks_agreement_accepts(
    texts: tuple[str, ...], expected: tuple[str, float]
) -> None:
    assert judge(*texts, first="buyer") == expected


# --- issue 24, session 35: one-digit prices and bare discounts ---------------------------------
def test_a_one_digit_price_is_accepted_like_any_other() -> None:
    window = ("I could do 9.", "8?", "Fine, I'll take 8. Thanks.")
    assert judge(*window, scenario={"item": "lamp", "list_price": 10}) == ("deal", 8.0)


def test_a_bare_discount_off_the_listed_price() -> None:
    window = ("Looks nice, 50 seems fair, any lower?", "I can take 5 off.", "You got it!")
    assert judge(*window, first="buyer", scenario={"item": "chair", "list_price": 50}) == (
        "deal",
        45.0,
    )


# --- issue 24, session 35: "I don't think ..." cancels what follows ----------------------------
@pytest.mark.parametrize(
    "answer",
    [
        "I don't think that's fair.",
        "I don't think we have a deal.",
        "I don't think I can do that.",
        "Doesn't work for me, sorry.",
        "I'm not willing to pay that.",
    ],
)
def test_a_contracted_negation_cancels_the_acceptance_after_it(answer: str) -> None:
    assert judge("I could let it go for $440.", answer)[0] == "ongoing"


@pytest.mark.parametrize(
    "answer",
    [
        "Happy with that.",
        "I could live with that.",
        "I'm willing to pay that.",
        "Your terms are fine.",
        "Those terms work for me.",
        "We have an agreement.",
    ],
)
def test_even_more_human_acceptances(answer: str) -> None:
    assert judge("I could let it go for $440.", answer) == ("deal", 440.0)


@pytest.mark.parametrize(
    ("texts", "first"),
    [
        (("I can pay $400.", "Don't walk away yet!"), "buyer"),
        (("I can pay $400.", "I wouldn't say goodbye yet."), "buyer"),
        (("I need $460.", "Don't make me walk away!"), "seller"),
    ],
)
def test_a_contracted_negation_before_a_walk_away_is_no_ending(
    texts: tuple[str, ...], first: str
) -> None:
    assert judge(*texts, first=first)[0] == "ongoing"


def test_a_walk_away_after_a_refusal_still_ends() -> None:
    assert judge("I need $460.", "I can't go that high, so I'll pass.")[0] == "no_deal"


# --- an acceptance that gives the other side more than it asked ---------------------------------
def test_a_seller_who_comes_down_past_the_buyers_offer_makes_a_deal_there() -> None:
    window = (
        "Delivery is extra, so with delivery it's $450 and no lower.",
        "No truck here. If I rent one and fetch it myself, would you do $420?",
        "You've been patient with me, I can do $410 for you.",
    )
    assert judge(*window) == ("deal", 410.0)


def test_a_buyer_who_goes_past_the_sellers_ask_makes_a_deal_there() -> None:
    window = (
        "I'm at $380 for it, that's what I budgeted.",
        "Lowest I'll go is $430, it was serviced in the spring.",
        "Alright, I can do $440 if you add the bottle cage.",
    )
    # a condition is set, so the deal waits; without it the buyer's $440 closes at once
    assert judge(*window, first="buyer")[0] == "ongoing"
    assert judge(*window[:2], "Alright, I can do $440 for it.", first="buyer") == ("deal", 440.0)


def test_a_price_short_of_the_other_sides_stays_an_offer() -> None:
    # still above the buyer's $420: a counter-offer
    assert judge("Delivery included, it's $450.", "Would you do $420?", "Fine, I can do $435.") == (
        "ongoing",
        None,
    )


def test_without_a_gap_before_a_price_under_the_other_sides_is_an_offer() -> None:
    # the seller never asked more than the buyer's $420, so $400 is no step past it
    assert judge("It has a carbon fork.", "Would you do $420?", "Sure, I can do $400.") == (
        "ongoing",
        None,
    )
    assert judge("Delivery included, it's $450.", "Would you do $420?", "Sure, I can do $400.") == (
        "deal",
        400.0,
    )


# --- a weak "yes" that does not take the price on the table --------------------------------------
def test_praising_the_own_price_as_a_steal_counters() -> None:
    buyer = "i was thinking 300 tbh. i know ur asking 500"
    assert judge(buyer, "yeah 500 is a steal already, new chain and tires", first="buyer") == (
        "ongoing",
        None,
    )
    assert kinds("500 is a steal already") == [(500.0, "offer")]


def test_asking_for_wiggle_room_after_ok_takes_nothing() -> None:
    assert judge("yes i want 450 for it, kind of firm", "k so any wiggle room or nah") == (
        "ongoing",
        None,
    )


def test_a_yeah_that_closes_a_point_affirms_the_point() -> None:
    seller = "It's light, and $460 with the pedals thrown in."
    buyer = "the frame is light yeah. do the brakes need pads"
    assert judge(seller, buyer) == ("ongoing", None)
    assert judge(seller, "Sounds fair enough, sure.") == ("deal", 460.0)


# --- run-on chat typed without commas ---------------------------------------------------------
def test_a_price_then_a_new_subject_ends_the_clause() -> None:
    assert kinds("i paid $300 my lowest is $220") == [(300.0, "reference"), (220.0, "offer")]
    assert kinds("i paid $300 for it i can do $220") == [(300.0, "reference"), (220.0, "offer")]


def test_an_offer_of_ones_own_opens_a_clause_without_a_comma() -> None:
    text = "cant let it go that low i could do 230 if you pick it up"
    assert kinds(text) == [(230.0, "conditional")]
    assert kinds("there's no way i can take 150 for it") == [(150.0, "refused")]


def test_a_number_that_opens_the_message_near_the_price_level_is_a_price() -> None:
    assert kinds("220 my cousin wants it gone this week") == [(220.0, "offer")]
    assert kinds("2019 is when i bought it") == []  # a year
    assert kinds("12 people asked about it today") == []  # far below the price level
    assert [m.amount for m in find_prices("220 my cousin wants it gone")] == []  # no level known
    window = ("how about 150 for it?", "220 my cousin wants it gone this week", "ok i can do 220")
    assert judge(*window, first="buyer") == ("deal", 220.0)


def test_kinda_much_refuses_the_price() -> None:
    assert kinds("taxes are brutal here so 480 is kinda much") == [(480.0, "refused")]


def test_checking_what_the_other_side_asks_offers_nothing() -> None:
    assert kinds("Nice, low miles for a bike. You're asking $480?") == [(480.0, "reference")]
    assert kinds("ur asking 450 for it?") == [(450.0, "reference")]
    assert judge(
        "Nice, low miles for a bike. You're asking $480?", "Yes, and it's worth it.", first="buyer"
    ) == ("ongoing", None)


def test_a_discount_with_the_dollar_sign_after_binds_the_price() -> None:
    assert discount("If you collect it I can knock 20$ off.") == (20.0, False)
    window = ("$480 and that's the lowest.", "Hmm, still steep.", "Fine, I'll take 20$ off.")
    assert judge(*window, "Deal, I'm on my way.")[1] == 460.0


def test_k_then_a_question_about_closing_accepts() -> None:
    window = ("could you do 430?", "450 final.", "k, for 450 can u bring it to my place?")
    assert judge(*window, first="buyer") == ("deal", 450.0)


@pytest.mark.parametrize(
    "answer",
    [
        "That's fair I'll take it for 450 I can come by tomorrow, is the morning okay?",
        "ok 450 works for me when can I pick it up?",
    ],
)
def test_an_acceptance_run_on_into_a_question_about_closing_accepts(answer: str) -> None:
    assert judge("Would you take 420?", "450 is as low as I go.", answer, first="buyer") == (
        "deal",
        450.0,
    )


def test_a_run_on_question_about_the_item_accepts_nothing() -> None:
    answer = "ok 450 is a lot is the frame aluminium or steel?"
    assert judge("Would you take 420?", "450 is as low as I go.", answer, first="buyer")[0] == (
        "ongoing"
    )


# --- prices typed without a dollar sign --------------------------------------------------------
def test_bare_numbers_after_your_call_it_maybe_and_a_limit_are_prices() -> None:
    assert kinds("Honestly your 470 can work.") == [(470.0, "reference")]  # quoted, then taken
    assert kinds("we're 100 apart, call it 450?") == [(450.0, "question")]
    assert kinds("no way I can let it go for 300..... maybe 450") == [
        (300.0, "refused"),
        (450.0, "offer"),
    ]
    assert kinds("sorry, can't go under 460") == [(460.0, "offer")]
    assert kinds("maybe 3 years old") == []
    assert judge("could you do 470?", "Honestly your 470 can work.", first="buyer") == (
        "deal",
        470.0,
    )


def test_a_stretch_refuses_the_price() -> None:
    assert kinds("400 is a stretch, i paid $700 new") == [(400.0, "refused"), (700.0, "reference")]


def test_we_will_need_to_look_elsewhere_walks_away() -> None:
    window = ("Would 420 work?", "I can't go below 460.", "Ok, we'll need to look elsewhere then.")
    assert judge(*window, first="buyer") == ("no_deal", None)


def test_a_declared_last_price_is_an_offer_after_a_price_paid() -> None:
    text = "it comes with the lock i paid $300 for it last price is $220 i cant go lower"
    assert kinds(text) == [(300.0, "reference"), (220.0, "offer")]


def test_ok_at_the_price_then_could_you_deliver_accepts() -> None:
    window = ("best i can do is 420 that ok?", "450 final", "ok at 450 could u bring it over?")
    assert judge(*window, first="buyer") == ("deal", 450.0)


def test_an_acceptance_that_hands_over_a_duty_waits() -> None:
    answer = "I could agree to 450, although in that case the pickup would be your job."
    assert judge("would you do 450?", answer, first="buyer") == ("ongoing", None)
    answer = "I could agree to that, although you would likely need to collect it yourself."
    assert judge("would you do 450?", answer, first="buyer") == ("ongoing", None)


def test_below_what_i_am_hoping_for_refuses() -> None:
    text = "Sorry, $300 is well below what I'm hoping for. With pickup I can do $440."
    assert kinds(text) == [(300.0, "refused"), (440.0, "offer")]


def test_how_does_and_from_me_name_prices() -> None:
    assert kinds("Happy to come down a little. How does 460 sound?") == [(460.0, "question")]
    assert kinds("how bout u keep the lock n 450 from me?") == [(450.0, "question")]
    window = ("Happy to come down a little. How does 460 sound?", "Yes, that would be lovely.")
    assert judge(*window) == ("deal", 460.0)


@pytest.mark.parametrize("answer", ["Sounds ideal.", "That sounds wonderful, thank you."])
def test_sounds_ideal_accepts(answer: str) -> None:
    assert judge("$440 is a bit low. Could we settle on $460?", answer) == ("deal", 460.0)


def test_a_condition_granted_in_other_words_conditions_nothing() -> None:
    seller = "Lowest is 450, and you can pay me in two parts if that helps."
    buyer = "ok if paying in two parts is fine then ill do 450"
    assert judge("could you do 400?", seller, buyer, first="buyer") == ("deal", 450.0)


def test_its_urs_reads_its_yours() -> None:
    buyer = "lock still come with it? ill pay the full 450 if yes"
    assert judge("still have it", buyer, "yep never used. its urs") == ("deal", 450.0)
    assert with_apostrophes("its urs") == "it's yours"


def test_theyre_yours_closes() -> None:
    buyer = "still under warranty? if so ill pay full 450"
    assert judge("still have them", buyer, "sealed box, never opened. theyre urs") == (
        "deal",
        450.0,
    )


@pytest.mark.parametrize(
    "answer", ["I'm glad we reached an agreement.", "happy we have a deal then"]
)
def test_glad_we_reached_an_agreement_accepts(answer: str) -> None:
    assert judge("I could let it go for 450, but no lower.", answer) == ("deal", 450.0)


def test_if_that_is_convenient_sets_no_terms() -> None:
    answer = "Sure, $460 is okay with me I can meet at the station after work if that's convenient"
    assert judge("Meet in the middle at $460?", answer, first="buyer") == ("deal", 460.0)


# --- issue 24, sixth pass: chats written here from scratch -----------------------------------
def test_more_of_a_drop_than_i_can_take_refuses() -> None:
    window = (
        "Would you take $3,900 for it?",
        "I could come down to $4,300, but $3,900 is more of a cut than I can take.",
    )
    assert kinds(window[1], 4500) == [(4300.0, "offer"), (3900.0, "refused")]
    assert judge(*window, first="buyer") == ("ongoing", None)


@pytest.mark.parametrize(
    "answer",
    ["I'll pass then, thanks", "ok i'll pass then", "ok i cant afford that, thanks though"],
)
def test_passing_then_or_thanks_though_after_a_firm_price_walks_away(answer: str) -> None:
    assert judge("Sorry, $450 is firm.", answer) == ("no_deal", None)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Is the $480 per month? And is there a garage?", "Yes $480/month, and a garage."),
        ("ok. is $480 the price after the trade-in?", "yes, 480 flat and the trade-in is extra"),
        ("which one is $480, the red or the blue", "either one is $480, both tuned"),
    ],
)
def test_a_yes_to_what_a_price_covers_takes_no_price(question: str, answer: str) -> None:
    assert judge(question, answer, first="buyer") == ("ongoing", None)


def test_an_own_price_on_a_condition_with_its_yours_counters() -> None:
    window = ("$380?", "$420 and it's yours if you take it today")
    assert judge(*window, first="buyer") == ("ongoing", None)
    # a later "ok" to the counter-offer closes at the seller's price
    assert judge(*window, "ok $420, I'll be there at noon", first="buyer") == ("deal", 420.0)


def test_a_bare_number_repeating_the_other_sides_price_names_it() -> None:
    window = (
        "I could do $460",
        "$440 and I'll throw in a bottle of wine?",
        "haha how can i refuse. 440 and the wine",
        "Deal! Saturday ok?",
    )
    assert judge(*window) == ("deal", 440.0)


def test_why_not_before_a_price_refuses_nothing() -> None:
    assert kinds("sure why not $455", 500) == [(455.0, "offer")]
    assert kinds("460 is little low, we want 490", 500)[0] == (460.0, "refused")


@pytest.mark.parametrize(
    ("prior", "answer"),
    [
        ("hmm let me see if anyone else comes by at $460", "ok well hit me up, 430 still stands"),
        ("I'll think about it and let you know", "ok"),
        ("ok let me know, $430 is my max", "will do"),
    ],
)
def test_an_ok_to_a_put_off_decision_accepts_nothing(prior: str, answer: str) -> None:
    assert judge("$430?", prior, answer, first="buyer")[0] == "ongoing"


@pytest.mark.parametrize(
    "text",
    [
        "the frame is good for 5'10 and up",
        "is it like 52 wide",
        "is the place at 4410 Fremont Ave still open?",
    ],
)
def test_heights_widths_and_street_numbers_are_no_prices(text: str) -> None:
    assert kinds(text, 1200) == []


def test_a_thousands_shorthand_before_ok_is_a_price() -> None:
    assert kinds("19 ok bring the check", 19500) == [(19000.0, "offer")]


@pytest.mark.parametrize(
    "answer",
    ["nah that's ok, i'll find one on ebay", "k guess not then", "ok bye"],
)
def test_declining_or_leaving_after_a_firm_price_takes_nothing(answer: str) -> None:
    window = ("$450, that's the lowest", answer, "ok")
    assert judge(*window)[0] != "deal"


def test_an_hour_after_come_is_no_price() -> None:
    assert kinds("ok i'll come at 7 with a friend to carry it", 80) == []


@pytest.mark.parametrize(
    ("offer", "commitment"),
    [
        ("ok, $430 if they come on the 12th, I'm away after that", "The 12th is fine, booked."),
        ("$430 with delivery... fine, but it has to be friday", "friday works, thanks a lot!"),
    ],
)
def test_a_commitment_to_a_day_the_other_side_named_closes(offer: str, commitment: str) -> None:
    assert judge("Could you do $430?", offer, commitment, first="buyer") == ("deal", 430.0)


def test_oh_then_praise_then_a_question_about_the_item_accepts_nothing() -> None:
    window = ("yes $480 for the set", "oh that's a good price. any rust on the chain?")
    assert judge(*window) == ("ongoing", None)


# --- sixth pass, second round: subtle closings, rentals, cars and bundles -----------------------
@pytest.mark.parametrize(
    "question",
    ["ok cool. any dents on the frame", "nice. is the $480 firm", "anything wrong with it"],
)
def test_a_question_typed_without_its_mark_after_ok_accepts_nothing(question: str) -> None:
    assert judge("It's $480, barely ridden.", question)[0] == "ongoing"


@pytest.mark.parametrize("answer", ["aight", "alrighty", "yessir", "can do", "that'll do.", "👍"])
def test_chat_slang_answers_to_a_price_question_accept(answer: str) -> None:
    assert judge("$430?", answer, first="buyer") == ("deal", 430.0)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("is that both wheels for $120 or $120 each", "both wheels for $120 total"),
        ("hi whats the $120 for? the wheels?", "the wheels are $120, the rack is separate"),
        ("great. is $120 per month?", "yes per month"),
        ("so the $120 is for a year", "yep that's correct"),
        ("is $120 for both?", "yes for the pair"),
        ("so i'd pay you $120 every month?", "first month $120 to me, then the gym directly"),
    ],
)
def test_checking_what_a_price_covers_agrees_to_nothing(question: str, answer: str) -> None:
    assert judge(question, answer, first="buyer", scenario={"list_price": 150}) == ("ongoing", None)


@pytest.mark.parametrize(
    "text",
    [
        "5k is way under what these sell for",
        "sorry, $4,000 isn't realistic for this car",
        "then we're done, not letting it go for $4,000",
        "sorry man i'd keep it before selling for $4,000",
    ],
)
def test_more_ways_to_turn_a_price_down(text: str) -> None:
    assert [kind for _, kind in kinds(text, 6000)] == ["refused"]


def test_land_on_names_a_price() -> None:
    assert kinds("could we land on 250? i'll take the door off myself", 300) == [
        (250.0, "question")
    ]
    window = ("I could do $270", "could we land on 250? i'll take the door off myself")
    assert judge(*window) == ("ongoing", None)


@pytest.mark.parametrize(
    ("offer", "commitment", "price"),
    [
        (
            "if you can sign the lease by friday i can do $2100",
            "i'll have it signed thursday",
            2100.0,
        ),
        (
            "it's $50 but i'd take $45 if you can move it yourself",
            "bet. got a dolly and a friend",
            45.0,
        ),
    ],
)
def test_more_commitments_to_the_condition_close(offer: str, commitment: str, price: float) -> None:
    assert judge("Would you take less?", offer, commitment, first="buyer") == ("deal", price)


@pytest.mark.parametrize(
    ("text", "scale", "expected"),
    [
        ("48 hundred cash saturday works", 5000, [(4800.0, "offer")]),
        ("1,450 sq ft, 3 bed 2 bath", 3000, []),
        ("ok $3100 with the $500 pet deposit, deal", 3000, [(3100.0, "offer")]),
        ("$2200 with the $200 credit works", 2200, [(2200.0, "offer")]),
        ("can i venmo you 50 now to hold it", 150, []),
        ("9 flat works for me", 9500, [(9000.0, "offer")]),
        ("ok fine 55 for the 3", 60, [(55.0, "offer")]),
        ("ad says 8500 obo so whats your lowest?", 8500, [(8500.0, "reference")]),
    ],
)
def test_amounts_that_are_or_are_not_the_price(text: str, scale: float, expected: list) -> None:
    assert kinds(text, scale) == expected


@pytest.mark.parametrize(
    ("prior", "answer"),
    [
        ("Sorry, we just accepted an application yesterday.", "oh no. any other units?"),
        ("The owner went with another applicant at $2400, sorry", "ok thanks for letting me know"),
        ("$450 but you wire the deposit first", "yeah no. not sending money unseen"),
    ],
)
def test_news_and_refusals_read_as_no_agreement(prior: str, answer: str) -> None:
    assert judge("Would you do $400?", prior, answer, first="buyer")[0] != "deal"
    assert judge("Would you do $400?", prior, first="buyer")[0] != "deal"


def test_leaving_town_is_no_walk_away() -> None:
    window = (
        "$35?",
        "ok $35 but you gotta get it by friday, i'm leaving town",
        "i can do thursday",
    )
    assert judge(*window, first="buyer") == ("deal", 35.0)


def test_a_price_plus_shipping_is_not_the_same_as_shipped() -> None:
    assert judge("would you do $200 shipped?", "$200 plus $10 shipping", first="buyer") == (
        "ongoing",
        None,
    )


def test_a_yes_after_a_greeting_answers_the_question_about_facts() -> None:
    window = (
        "is the house pet friendly, and is the $2800 rent including utilities?",
        "Hi, thanks for reaching out. Yes small dogs are fine. Water is included.",
    )
    assert judge(*window, first="buyer", scenario={"list_price": 2800}) == ("ongoing", None)


def test_checking_the_price_back_is_not_stating_it() -> None:
    window = ("6 months is $1300, 12 months is $1200", "oh so the $1200 is for a year")
    assert judge(*window) == ("ongoing", None)
    assert judge("is that both for $90 or 90 each", "both for $90 total", first="buyer") == (
        "ongoing",
        None,
    )


def test_ill_take_it_if_the_price_is_right_accepts_nothing() -> None:
    window = ("It's $480, lightly used.", "great, i'll take it if the price is right. lowest?")
    assert judge(*window) == ("ongoing", None)


@pytest.mark.parametrize("text", ["so june 1 is fine", "month to month after the first 12 is fine"])
def test_dates_and_counts_before_is_fine_are_no_prices(text: str) -> None:
    assert kinds(text, 2000) == []


def test_a_short_question_naming_an_hour_asks_about_closing() -> None:
    assert judge("$10 and i'll grab it today", "done. after 3 ok?", first="buyer") == ("deal", 10.0)


# --- sixth pass, third round: chat-model dialogs, traps and typos -------------------------------
@pytest.mark.parametrize(
    ("offer", "answer"),
    [
        ("$85 and it's yours", "ok,meet u at 85"),
        ("$85?", "alrigth 85, come by after 5"),
        ("$85?", "defintely, 85 it is"),
        ("$85?", "a lright 85, tomorow evening?"),
    ],
)
def test_typing_slips_in_an_acceptance_still_accept(offer: str, answer: str) -> None:
    assert judge(offer, answer, first="buyer" if offer.endswith("?") else "seller")[0] == "deal"


def test_a_letter_o_for_a_zero_and_a_comma_without_a_space() -> None:
    assert judge("$150?", "15o and its urs", first="buyer") == ("deal", 150.0)
    assert judge("$90?", "ugh fine 90,its yours", first="buyer") == ("deal", 90.0)


@pytest.mark.parametrize(
    "text",
    [
        "I'm sorry, but $8 doesn't even cover my cost for the helium.",
        "Saturday works for me, but $580 is still a bit low.",
        "Sorry, I'll pass at $12.",
        "I'd rather keep using it myself than sell it for $100.",
    ],
)
def test_chat_model_refusals_refuse_the_price(text: str) -> None:
    assert [kind for _, kind in kinds(text, 600 if "580" in text else 20)] == ["refused"]


@pytest.mark.parametrize(
    ("prior", "answer"),
    [
        ("I'm sorry, $17 is the lowest I can go.", "Okay, thank you. I'll leave it for now."),
        ("Let me talk to my husband. He gets home around 7.", "Of course! Just let me know."),
        ("If she does I might do $45. I'll message you tonight.", "Sure, no rush."),
    ],
)
def test_leaving_for_now_and_putting_off_are_no_deal(prior: str, answer: str) -> None:
    assert judge("Would you take $14?", prior, answer, first="buyer")[0] != "deal"


def test_moving_on_a_day_is_no_walk_away() -> None:
    window = ("$400 for a Sunday pickup?", "I'm moving on Monday, so Sunday it is. $400 works.")
    assert judge(*window, first="buyer") == ("deal", 400.0)


def test_confirmed_answers_a_confirmation_question() -> None:
    window = ("Just to confirm, $950 including the case, and I pick it up?", "Confirmed!")
    assert judge(*window, first="buyer") == ("deal", 950.0)


def test_a_repeated_hour_and_gigabytes_are_no_prices() -> None:
    window = ("$190 and i can pick up tonight at 8", "ok 190, 8 works")
    assert judge(*window, first="buyer") == ("deal", 190.0)
    assert kinds("nah thats too much for 64 gigs, good luck w it", 300) == []
    assert kinds("is the 12 pro unlocked?", 400) == []


def test_assent_price_and_hand_over_declare_the_deal_when_the_ask_is_out_of_view() -> None:
    window = (
        "does it come with the remote?",
        "yes, and the wall mount",
        "will you drop it off?",
        "sure, I can do that",
        "Fine. $1,150. I'll send you my address, you can bring it over Sunday.",
    )
    assert judge(*window, first="buyer", scenario={"list_price": 1400}) == ("deal", 1150.0)
    # with an offer of its own in view it stays an offer
    assert judge("I want $1,300.", "Fine. $1,150. I'll be there at noon.", first="seller")[0] == (
        "ongoing"
    )


@pytest.mark.parametrize(
    "answer", ["That sonuds good to me.", "ok that wroks", "Pefrect.", "I wuold do that!"]
)
def test_key_words_with_two_letters_swapped_still_accept(answer: str) -> None:
    assert judge("$430?", answer, first="buyer") == ("deal", 430.0)


def test_english_words_are_not_read_as_slips() -> None:
    text = "the form is from the office, a quiet trial, an oaky red"
    assert with_apostrophes(text) == text
    assert with_apostrophes("sonuds great, taht wroks") == "sounds great, taht works"


# --- seventh pass: probes written against the judge, one class each ------------------------------
@pytest.mark.parametrize("answer", ["oh doh all right", "hmm ok fine", "uh... all right"])
def test_an_interjection_or_a_hesitation_before_the_acceptance_still_accepts(answer: str) -> None:
    assert judge("Would you take $420?", answer, first="buyer") == ("deal", 420.0)


def test_a_hesitation_after_the_acceptance_still_doubts() -> None:
    assert judge("Would you take $420?", "ok hmm let me think", first="buyer")[0] == "ongoing"


def test_asking_whether_the_other_side_will_be_ready_arranges_the_hand_over() -> None:
    window = ("Would you take $430?", "Oh yes. Will you be ready for it within the hour?")
    assert judge(*window, first="buyer") == ("deal", 430.0)
    asking = ("Would you take $430?", "Oh yes. Are the tires new?")
    assert judge(*asking, first="buyer")[0] == "ongoing"


@pytest.mark.parametrize("answer", ["ok what time?", "sure when can you come"])
def test_an_answer_before_a_closing_question_needs_no_comma(answer: str) -> None:
    assert judge("$430 and I come get it tonight", answer, first="buyer") == ("deal", 430.0)


@pytest.mark.parametrize(
    "answer", ["definitely", "for sure", "I'll let it go for that", "I can sell it to you for that"]
)
def test_more_ways_to_say_yes_to_a_price_question(answer: str) -> None:
    assert judge("Can you do $430?", answer, first="buyer") == ("deal", 430.0)


@pytest.mark.parametrize(
    ("offer", "answer"),
    [("$430 cash?", "cash works"), ("$430 and I pick it up tonight", "tonight works")],
)
def test_granting_the_term_a_price_came_with_takes_the_price(offer: str, answer: str) -> None:
    assert judge(offer, answer, first="buyer") == ("deal", 430.0)


@pytest.mark.parametrize("answer", ["sure", "I can do that"])
def test_a_yes_to_an_extra_asked_as_a_condition_closes(answer: str) -> None:
    window = ("Best I can do is $460.", "if you throw in the bottle cage I'll do it", answer)
    assert judge(*window, first="seller") == ("deal", 460.0)


def test_an_ok_after_the_term_asked_for_was_granted_closes_at_the_price() -> None:
    window = ["Best I can do is $460.", "could you deliver it?", "yeah for sure", "perfect!"]
    assert judge(*window, first="seller") == ("deal", 460.0)
    window[1] = "would you include the pump?"
    assert judge(*window, first="seller") == ("deal", 460.0)
    window[3] = "ok, and would you do $440 then?"
    assert judge(*window, first="seller")[0] == "ongoing"
    # a question of fact answered is no term granted
    facts = ("Best I can do is $460.", "how old are the tires?", "yes, a year or so", "ok")
    assert judge(*facts, first="seller")[0] == "ongoing"


@pytest.mark.parametrize(
    "answer",
    ["ok. what if I pay cash?", "ok, can I come look at it tomorrow?", "great, how much to ship?"],
)
def test_a_hypothetical_or_a_visit_to_look_is_no_closing_question(answer: str) -> None:
    assert judge("I can do $460.", answer, first="seller")[0] == "ongoing"


def test_a_visit_that_also_collects_closes() -> None:
    answer = "ok, can I come see it and pick it up tomorrow?"
    assert judge("I can do $460.", answer, first="seller") == ("deal", 460.0)


@pytest.mark.parametrize("answer", ["ok we're getting closer", "ok i might take it"])
def test_an_ok_that_goes_on_to_hedge_accepts_nothing(answer: str) -> None:
    assert judge("How about $460?", answer, first="seller")[0] == "ongoing"


def test_a_bare_ok_to_the_asking_price_notes_it() -> None:
    assert judge("The bike is $500.", "ok", first="seller")[0] == "ongoing"
    assert judge("The bike is $500, ok?", "ok", first="seller") == ("deal", 500.0)


@pytest.mark.parametrize(
    "answer",
    [
        "$420 might work",
        "I might do $420",
        "$420 is possible",
        "$420 would be tough",
        "for $420 you'd have to pick it up",
        "$420 and you pick it up",
        "$420 would barely cover what I paid",
        "lol 420",
        "I'd rather not go to $420",
        "I already turned down $420",
        "others have offered $420 already",
        "I could think about $420",
    ],
)
def test_a_hedged_or_conditioned_price_is_no_agreement(answer: str) -> None:
    assert judge("Would you take $420?", answer, first="buyer")[0] == "ongoing"


@pytest.mark.parametrize(
    "answer", ["Honestly, I'd rather just get it sold. $420 cash tomorrow.", "haha ok. 420"]
)
def test_a_concession_or_a_laugh_before_the_price_still_states_it(answer: str) -> None:
    assert judge("Would you take $420?", answer, first="buyer") == ("deal", 420.0)


def test_toughness_of_the_other_side_is_no_hedge() -> None:
    state = judge("Would you take $420?", "man you're tough. $420.", first="buyer")
    assert state == ("deal", 420.0)


@pytest.mark.parametrize(
    "answer",
    [
        "offer sent",
        "I sent the offer",
        "submitting now",
        "sent!",
        "I'll put it in now",
        "go ahead and send it",
        "please make the offer",
        "I'll make it official",
        "I'll hit accept",
    ],
)
def test_the_offer_form_sent_or_asked_for_closes(answer: str) -> None:
    assert judge("I can do $460.", answer, first="seller") == ("deal", 460.0)


def test_an_invitation_to_make_an_offer_is_no_acceptance() -> None:
    assert judge("What's your lowest?", "Just make me an offer.", first="buyer")[0] == "ongoing"
    assert judge("I can do $460.", "please make an offer", first="seller")[0] == "ongoing"


@pytest.mark.parametrize(
    "answer",
    [
        "go ahead",
        "all set",
        "good for me",
        "fair deal",
        "sounds about right",
        "i'll buy",
        "i agree",
    ],
)
def test_short_closings_accept(answer: str) -> None:
    assert judge("I can do $460.", answer, first="seller") == ("deal", 460.0)


@pytest.mark.parametrize(
    "answer", ["ok fine", "sounds good", "fair point. ok", "fine, you can have it"]
)
def test_an_ok_after_the_other_side_argued_for_its_price_takes_it(answer: str) -> None:
    window = ("I can only do $420.", "that's too low", "it's all I have right now", answer)
    assert judge(*window, first="buyer") == ("deal", 420.0)


@pytest.mark.parametrize(
    "window",
    [
        ("I can do $480.", "too steep for me", "then buy a new one", "lol ok"),
        ("I can do $480.", "too steep for me", "up to you man", "yeah I'll just buy new. thanks"),
        ("I can do $480.", "too steep for me", "feel free to reach out later", "will do, thanks"),
        ("I can do $480.", "too steep for me", "no sorry, it's a great bike", "ok"),
    ],
)
def test_an_ok_after_a_refusal_or_a_courtesy_takes_no_price(window: tuple[str, ...]) -> None:
    assert judge(*window, first="seller")[0] != "deal"


@pytest.mark.parametrize(
    ("ask", "held", "answer"),
    [
        ("can you go any lower?", "sorry, that's the best I can do", "ok, fine"),
        ("is that the lowest you can go?", "yes, that's my bottom line", "ok fine"),
        ("any wiggle room?", "not really, sorry", "ok, that works"),
        ("is that firm?", "yes", "ok sounds good"),
        ("really?", "yes", "ok great!"),
        ("you would do that?", "sure, I need the space", "awesome, thank you"),
    ],
)
def test_an_ok_after_the_other_side_stood_firm_takes_its_price(
    ask: str, held: str, answer: str
) -> None:
    assert judge("I can do $480.", ask, held, answer, first="seller") == ("deal", 480.0)


@pytest.mark.parametrize("answer", ["ok", "ok thanks", "ok I understand, I'll pass"])
def test_a_bare_ok_or_a_pass_after_the_other_side_stood_firm_takes_nothing(answer: str) -> None:
    window = ("I can do $480.", "any wiggle room?", "not really, sorry", answer)
    assert judge(*window, first="seller")[0] != "deal"


@pytest.mark.parametrize("answer", ["great, on my way", "ok see you soon"])
def test_coming_after_the_address_commits_to_a_condition_to_come(answer: str) -> None:
    window = ("I could do $450 if you come today", "what's the address?", "12 Elm street", answer)
    assert judge(*window, first="seller") == ("deal", 450.0)
    # the condition asked something else: coming commits to nothing
    other = ("I could do $450 if you pay cash", "what's the address?", "12 Elm street", answer)
    assert judge(*other, first="seller")[0] == "ongoing"


def test_a_time_given_for_the_pickup_then_an_ok_closes_at_the_price() -> None:
    window = ["Best I can do is $460.", "when could I pick it up?", "anytime after 5", "great"]
    assert judge(*window, first="seller") == ("deal", 460.0)
    window[2] = "sorry, not before next month, and I'd still want more"
    assert judge(*window, first="seller")[0] == "ongoing"


@pytest.mark.parametrize("ask", ["how about we meet in the middle?", "split the difference?"])
def test_splitting_the_difference_proposes_the_midpoint(ask: str) -> None:
    window = ("would you take $440?", "I could do $460", ask, "ok fine")
    assert judge(*window, first="buyer") == ("deal", 450.0)
    refused = ("would you take $440?", "I could do $460", ask, "I won't split the difference")
    assert judge(*refused, first="buyer")[0] == "ongoing"


@pytest.mark.parametrize(
    ("ask", "answer"),
    [
        ("can I pick it up tomorrow?", "sure"),
        ("when can I pick it up?", "tomorrow after 5"),
        ("could you deliver?", "yes I can"),
    ],
)
def test_a_yes_to_the_takers_question_about_collecting_confirms_the_offer(
    ask: str, answer: str
) -> None:
    assert judge("I can do $460.", ask, answer, first="seller") == ("deal", 460.0)


@pytest.mark.parametrize(
    ("ask", "answer"),
    [
        ("can I pick it up tomorrow?", "sure, but it's $470 if I hold it"),
        ("could you deliver?", "yes, for $20 extra"),
        ("can I come see it first?", "sure"),
        ("are you able to pay a deposit and sign this week?", "yes"),
    ],
)
def test_a_yes_that_changes_the_terms_or_answers_a_qualifying_question_closes_nothing(
    ask: str, answer: str
) -> None:
    assert judge("I can do $460.", ask, answer, first="seller")[0] != "deal"


@pytest.mark.parametrize("answer", ["no problem", "np", "I can deal with that"])
def test_no_problem_answers_a_price_question(answer: str) -> None:
    assert judge("Can you do $430?", answer, first="buyer") == ("deal", 430.0)


def test_no_problem_to_thanks_accepts_nothing() -> None:
    window = ("Thanks, I'll think about $430 and let you know.", "no problem")
    assert judge(*window, first="buyer")[0] == "ongoing"


def test_moving_the_day_of_a_same_day_condition_commits_to_nothing() -> None:
    window = ["I can do $430 if you pick it up today", "I'll pick it up tomorrow, is that ok?"]
    assert judge(*window, first="seller")[0] == "ongoing"
    window[1] = "I'll pick it up this afternoon"
    assert judge(*window, first="seller") == ("deal", 430.0)


def test_an_acceptance_with_a_new_term_after_it_waits_for_the_other_side() -> None:
    window = ["I could accept $465.", "I'll accept $465, provided it includes the pump."]
    assert judge(*window, first="seller")[0] == "ongoing"
    assert judge(*window, "Certainly, consider it done.", first="seller") == ("deal", 465.0)
    # a contingency on the speaker's own satisfaction asks nothing more of the other side
    window[1] = "Deal at $465 as long as you're happy after the test ride."
    assert judge(*window, first="seller") == ("deal", 465.0)


@pytest.mark.parametrize(
    ("offer", "answer"),
    [
        ("I can do $430 if you pay cash", "I have cash"),
        ("$430 if you can pick it up", "I have a truck"),
    ],
)
def test_having_the_means_for_the_errand_commits_to_it(offer: str, answer: str) -> None:
    assert judge(offer, answer, first="seller") == ("deal", 430.0)


def test_lacking_the_means_commits_to_nothing() -> None:
    window = ("I'll give you $430 if you deliver", "I don't have a truck")
    assert judge(*window, first="buyer")[0] == "ongoing"


@pytest.mark.parametrize(
    ("offer", "answer", "verdict"),
    [
        ("I can do $460, and delivery is $20", "I'll pass on the delivery, I can pick it up", None),
        ("I can do $460.", "fine, I'll take it. I'll leave now to get it", ("deal", 460.0)),
        ("I can do $460.", "I'm leaving work at 5, I can get it then", None),
    ],
)
def test_passing_on_an_extra_or_leaving_to_collect_is_no_walk_away(
    offer: str, answer: str, verdict: tuple[str, float] | None
) -> None:
    got = judge(offer, answer, first="seller")
    assert got[0] != "no_deal"
    if verdict is not None:
        assert got == verdict


# --- eighth pass: a bare number after a money verb, near the price level ----------------------
@pytest.mark.parametrize(
    "offer",
    [
        "Honestly I can only afford 430.",
        "I was thinking 430.",
        "I'm thinking more like 430",
        "I'd need 430 at least.",
        "I only have 430 saved up.",
        "All I could spend is maybe 430",
    ],
)
def test_a_bare_number_after_a_money_verb_near_the_level_is_a_price(offer: str) -> None:
    assert [amount for amount, _ in kinds(offer)] == [430.0]
    assert judge("It's $500, barely used.", offer, "deal", first="seller") == ("deal", 430.0)


@pytest.mark.parametrize(
    "text",
    [
        "I need 2 days to get the money.",
        "I have 3 kids so I need the room.",
        "I was thinking 4 people could live there",
        "I've got 9000 miles on my other bike",
    ],
)
def test_a_number_after_a_money_verb_far_from_the_level_is_no_price(text: str) -> None:
    assert kinds(text) == []


@pytest.mark.parametrize("answer", ["acceptable", "reasonable.", "you bet", "right on!"])
def test_one_word_assents_take_the_offer(answer: str) -> None:
    assert judge("I can do $430.", answer, first="seller") == ("deal", 430.0)


@pytest.mark.parametrize("answer", ["I'm going to submit it now", "I'll submit that"])
def test_submitting_it_closes_through_the_form(answer: str) -> None:
    assert judge("I can do $430.", answer, first="seller") == ("deal", 430.0)


@pytest.mark.parametrize(
    "answer",
    [
        "Seems like we have a deal, then!",
        "Well, I'd hoped for less. I'll go ahead and buy it.",
        "We'll just take it, the kids love the color.",
        "That seems more than reasonable to me.",
        "Honestly that's perfectly fine.",
        "Okay, I believe we can agree on that.",
        "Thanks so much for meeting me halfway. I can be there by six.",
        "Thank you for being so flexible, my truck is free on Sunday.",
    ],
)
def test_wordy_acceptances_take_the_counter_offer(answer: str) -> None:
    window = ("Would you consider $380? I'd pick it up.", "I can't go that low. How about $430?")
    assert judge(*window, answer, first="buyer") == ("deal", 430.0)


@pytest.mark.parametrize(
    "answer",
    [
        "Thanks for being flexible, but that's still more than I can spend.",
        "Thank you for coming down. Could you do a little better though?",
        "I think we can agree on a price once I've seen it.",
    ],
)
def test_thanks_or_agreement_talk_that_holds_back_takes_nothing(answer: str) -> None:
    window = ("Would you consider $380? I'd pick it up.", "I can't go that low. How about $430?")
    assert judge(*window, answer, first="buyer")[0] == "ongoing"


@pytest.mark.parametrize(
    ("offer", "answer"),
    [
        ("Could you do $430?", "meh, fine, you can have it"),
        ("Could you do $430?", "That's a fair compromise."),
        ("Could you do $430?", "ok fiiine"),
        ("Could you do $430?", "honestly I'd say yes"),
        ("Could you do $430?", "I can take that. I'm around all evening."),
        ("Could you do $430?", "It's yours at that price, just bring a friend to lift it."),
        ("Could you do $430?", "Sounds fine. Let me know when you're on your way."),
        ("Could you do $430?", "Great, see you at noon. I'll keep it off the market till then."),
        ("Could you do $430?", "Less than I hoped for but fine, I'll take it."),
        ("$430 and I can come right now.", "ok come on over"),
        ("I can do $430.", "alright, that works. could we meet at the DMV for the paperwork?"),
    ],
)
def test_eighth_pass_acceptances(offer: str, answer: str) -> None:
    first = "buyer" if offer.startswith(("Could", "$")) else "seller"
    assert judge(offer, answer, first=first) == ("deal", 430.0)


@pytest.mark.parametrize(
    "answer",
    [
        "go a little lower and we have a deal",
        "include the stand and it's a deal",
        "come grab it yourself and I'll take $20 off",
    ],
)
def test_terms_asked_before_a_deal_phrase_accept_nothing(answer: str) -> None:
    assert judge("Could you do $430?", answer, first="buyer")[0] == "ongoing"


def test_sending_the_money_commits_to_a_condition_to_pay() -> None:
    window = ("I can do $430 if you pay a deposit today.", "sure, I'll send it tonight")
    assert judge(*window, first="seller") == ("deal", 430.0)


def test_coming_to_collect_after_an_answer_about_the_item_takes_the_offer() -> None:
    window = ["I can do $430.", "Does it come with the stand?", "Yes, the stand is included."]
    assert judge(*window, "nice, I'll come pick it up", first="seller") == ("deal", 430.0)
    # ... but not on a condition, nor before any price is on the table
    assert judge(*window, "nice, I'll come pick it up if you do $400", first="seller")[0] != "deal"
    window[0] = "Hello, is the bike still for sale?"
    assert judge(*window, "nice, I'll come pick it up", first="buyer")[0] == "ongoing"


@pytest.mark.parametrize(
    ("window", "verdict"),
    [
        # the offering side hands the item over after thanks for its price
        (("For you, $430.", "thanks so much, I appreciate it", "sure thing, enjoy it!"), 430.0),
        (("Ok, $430 then.", "aww thank you", "np, let me know when you can swing by"), 430.0),
        (
            (
                "$430 is my lowest.",
                "thanks for letting me know",
                "sure, let me know if you want it",
            ),
            None,
        ),
        # an answer to the speaker's question, then an assent that it settles
        (
            ("I can do $430.", "is the frame aluminum?", "yes, all of it", "in that case, yes"),
            430.0,
        ),
        (("I can do $430.", "any rust?", "none at all", "ok done"), 430.0),
        (("I can do $430.", "delivery too?", "sorry, no", "ok, I'll think it over then"), None),
        # terms given with an agreement, then taken
        (
            ("Can you do $430?", "sure but you have to haul it yourself", "fine, I have a van"),
            430.0,
        ),
        # commitments to collect or to pay
        (("I'll do $430 if you come today.", "leaving now, be there soon"), 430.0),
        (("I can do $430.", "great, I can bring the cash over tonight"), 430.0),
    ],
)
def test_closings_spread_over_an_answer_or_thanks(
    window: tuple[str, ...], verdict: float | None
) -> None:
    first = "buyer" if window[0].startswith("Can you") else "seller"
    got = judge(*window, first=first)
    assert got == ("deal", verdict) if verdict is not None else got[0] == "ongoing"


@pytest.mark.parametrize(
    ("offer", "answer", "deal"),
    [
        ("Would you take $430?", "say less", True),
        ("Would you take $430?", "take it, I need the room", True),
        ("Would you take $430?", "take it or leave it, $450", False),
        ("I can do $430.", "wow that's very generous of you", True),
        ("I can do $430.", "bet, can you meet me at the gas station", True),
    ],
)
def test_slang_and_unmarked_questions_after_an_assent(offer: str, answer: str, deal: bool) -> None:
    first = "buyer" if offer.startswith("Would") else "seller"
    assert (judge(offer, answer, first=first) == ("deal", 430.0)) is deal


def test_wanting_to_get_a_deal_done_accepts_nothing() -> None:
    assert judge("I'd love to get this deal done today.", first="buyer")[0] == "ongoing"


@pytest.mark.parametrize(
    ("answer", "deal"),
    [
        ("Ok, I'll meet you at that price. Is the side door open?", True),
        ("I'd be glad to pay that. Let me know a good time.", True),
        ("No worries, I can do that, just text me first.", True),
        ("I'm not going to argue, deal.", True),
        ("Go ahead and take it, it's in the garage.", True),
        ("Nice, but could you take a bit off if I come tonight?", False),
        ("Thanks for coming down, I need some time to decide though.", False),
        ("Ok thank you, I'll run it by my roommate.", False),
        ("Yeah I don't think so, sorry.", False),
        ("Come closer to my asking price and it's yours.", False),
    ],
)
def test_eighth_pass_answers_to_a_price(answer: str, deal: bool) -> None:
    assert (judge("Could you do $430?", answer, first="buyer") == ("deal", 430.0)) is deal


def test_an_ok_that_repeats_the_price_with_its_bundle_takes_it() -> None:
    window = ["They're $500 for the set of four.", "could we do 430?", "ok, 430 for the set."]
    assert judge(*window, first="seller") == ("deal", 430.0)
    window[2] = "ok, 430 if you collect them today."
    assert judge(*window, first="seller")[0] == "ongoing"


@pytest.mark.parametrize(
    "answer",
    [
        "We talked it over and we'll accept your offer.",
        "It's been sitting for weeks, so I'll let it go for that.",
        "I'm comfortable with your price, let's move forward.",
        "Honestly your offer is fine, I just want the space back.",
        "Fewer miles would be nice, but ok, I'll go with your price.",
        "A bit under what I hoped, but since I'm moving, you can have it for that.",
        "It's less than I hoped, but it's fine. See you after work.",
        "It's nearly new, but I'll take it.",
        "Cash today is hard to turn down. Deal. Come early, I have to leave for work later.",
        "Tomorrow suits me better since I'm out today, and I'm good with that price.",
    ],
)
def test_long_messages_that_accept_mid_way(answer: str) -> None:
    first = "seller" if "nearly new" in answer else "buyer"
    offer = "I can do $430." if first == "seller" else "Would you take $430 cash today?"
    assert judge(offer, answer, first=first) == ("deal", 430.0)


@pytest.mark.parametrize(
    "answer",
    [
        "My cousin is giving me his old one, so I'm going to go with that. Sorry!",
        "Could you sell it without the case for less? That would work better for me.",
    ],
)
def test_going_with_something_else_or_asking_for_less_accepts_nothing(answer: str) -> None:
    assert judge("I can do $430.", answer, first="seller")[0] != "deal"


# --- eighth pass: a change said relative to the price on the table ----------------------------
@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("could you do 15 less?", (15.0, False)),
        ("knock off another 15 and I'll come now", (15.0, False)),
        ("another $15 off?", (15.0, False)),
        ("add 15 and it's yours", (-15.0, False)),
        ("I can go 15 more", (-15.0, False)),
        ("I could do 15 higher, that's it", (-15.0, False)),
        ("I need 15 more minutes", None),
        ("I won't take less than 15 under asking", None),
        ("another 2 days is fine", None),
    ],
)
def test_relative_changes_to_the_price_are_read(
    text: str, change: tuple[float, bool] | None
) -> None:
    assert discount(text) == change


@pytest.mark.parametrize(
    ("window", "first", "price"),
    [
        (("It's $500.", "I can do $430.", "add 15 and you have a deal", "deal"), "seller", 445.0),
        (
            ("I'd like $500.", "$430?", "$470 is my lowest", "I can go 15 more", "ok"),
            "seller",
            445.0,
        ),
        (("I can do $460.", "how about 15 less?", "ok fine"), "seller", 445.0),
    ],
)
def test_a_relative_offer_binds_the_price_it_makes(
    window: tuple[str, ...], first: str, price: float
) -> None:
    assert judge(*window, first=first) == ("deal", price)


@pytest.mark.parametrize(
    ("window", "first", "verdict"),
    [
        # checking the listing's price, or answering it, takes nothing
        (("Hi, is the bike still $500?", "yes it is"), "buyer", None),
        (("Asking price is $500?", "yep"), "buyer", None),
        (("Is it available?", "Yes, $500.", "ok. could you help me load it?"), "buyer", None),
        (("Is it available?", "Yes, $500.", "great, when is it available to see?"), "buyer", None),
        # the item gone to someone else ends the round
        (("Would you take $430?", "Sold! sorry, a guy just picked it up"), "buyer", "no_deal"),
        (("Would you take $430?", "sorry, I'm taking the other offer"), "buyer", "no_deal"),
        # a numbered option chosen is no acceptance
        (("Rent is $500 a month.", "I'll take the 2br if you have one"), "seller", None),
        # another length than the condition asked
        (("$430 if you sign for 12 months.", "I can only do 6 months"), "seller", None),
        (("$430 if you sign for 12 months.", "I can sign for 12 months"), "seller", 430.0),
        # assents at the end of a turn or after a "but"
        (("Could you do $430?", "I hoped for more, but fine."), "buyer", 430.0),
        (("Could you do $430?", "I need it gone, so ok"), "buyer", 430.0),
        (("Could you do $430 for a student?", "For a student, definitely."), "buyer", 430.0),
        (("Ok, $430 then.", "thanks! my son is going to love it"), "seller", 430.0),
        (("I can do $430.", "I'm glad to pay that, when are you home?"), "seller", 430.0),
        (("I can do $430.", "done, can you help me lift it into the van"), "seller", 430.0),
        (("I can do $430.", "yes please, thurs ok?"), "seller", 430.0),
        (
            ("Could you do $430?", "Ok we can do that. When are you hoping to pick up?"),
            "buyer",
            430.0,
        ),
    ],
)
def test_eighth_pass_traps_and_closings(
    window: tuple[str, ...], first: str, verdict: float | str | None
) -> None:
    scenario = {"item": "Road bike", "list_price": 500}
    got = judge(*window, first=first, scenario=scenario)
    if verdict is None:
        assert got[0] == "ongoing"
    elif verdict == "no_deal":
        assert got[0] == "no_deal"
    else:
        assert got == ("deal", verdict)


def test_a_room_count_is_no_price() -> None:
    assert kinds("is the 2br still available?") == []


@pytest.mark.parametrize(
    ("answer", "deal"),
    [
        ("cash tonight works, I'm home after six", True),
        ("Pickup tomorrow is perfect.", True),
        ("Totally fine, see you then.", True),
        ("A deal would be great, but not at that price.", False),
        ("Deal sounds tempting but I need more than that.", False),
    ],
)
def test_terms_granted_or_a_deal_only_wished_for(answer: str, deal: bool) -> None:
    window = ("Would you take $430 cash if I pick it up tomorrow?", answer)
    assert (judge(*window, first="buyer") == ("deal", 430.0)) is deal


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("would you knock off fifty?", (50.0, False)),
        ("I can do twenty-five less", (25.0, False)),
        ("fifty bucks off and I'll come today", (50.0, False)),
        ("another hundred and it's yours", (-100.0, False)),
        ("I'll add fifty", (-50.0, False)),
        ("could you do five percent off?", (5.0, True)),
        ("5% less for a two-year lease?", (5.0, True)),
        ("a full bath, one off the master bedroom", None),
        ("one more thing, does it fold?", None),
    ],
)
def test_relative_changes_in_words_and_percents(
    text: str, change: tuple[float, bool] | None
) -> None:
    assert discount(text) == change


def test_changes_add_up_from_the_right_side() -> None:
    # a raise starts from the buyer's latest price, earlier raises included
    window = ("My lowest is $500.", "$420?", "I'd need more.", "I'll add fifty.", "thirty more?")
    assert judge(*window, "ok", first="seller") == ("deal", 500.0)
    # a cut starts from the seller's price, not from the cut the buyer asked for
    window = ("It's $450.", "would you knock off fifty?", "I can knock off thirty.", "ok deal")
    assert judge(*window, first="seller") == ("deal", 420.0)


@pytest.mark.parametrize(
    ("window", "price"),
    [
        (
            (
                "I'll offer $380.",
                "I'd need $460.",
                "$420?",
                "I'm moving, I'll take your original 380.",
            ),
            380.0,
        ),
        (
            (
                "Would you take $380?",
                "I'd need $460.",
                "$420?",
                "Ok, I'll do your 380 from before.",
            ),
            380.0,
        ),
        (
            (
                "I'll take $430.",
                "I can do $380.",
                "Actually, $460.",
                "You offered 430 earlier, I'll take that.",
            ),
            430.0,
        ),
        (
            (
                "Would you take $380?",
                "I was thinking $480.",
                "Meet me halfway?",
                "Ok, halfway works.",
            ),
            430.0,
        ),
    ],
)
def test_an_earlier_price_quoted_or_the_midpoint_binds(
    window: tuple[str, ...], price: float
) -> None:
    first = "seller" if window[0].startswith("I'll take") else "buyer"
    assert judge(*window, first=first) == ("deal", price)


@pytest.mark.parametrize(
    ("window", "first", "verdict"),
    [
        (
            (
                "How about $430?",
                "a bit much",
                "it's solid oak",
                "fine",
                "great, I'll send the offer",
            ),
            "seller",
            430.0,
        ),
        (("Ok fine, $430.", "Thanks!", "Please send the offer."), "seller", 430.0),
        (("Would you do $430?", "Hmm, I guess.", "Thanks! I'll make the offer."), "buyer", 430.0),
        (
            ("Would you do $430?", "sure, if you haul it", "my van is free", "then send it"),
            "buyer",
            430.0,
        ),
        # not after a refusal, nor something else to send, nor for a new price of its own
        (("I can do $430.", "no, too much for me", "ok, sending it anyway"), "seller", None),
        (("I can do $430.", "can you send me pics of the frame?", "sent"), "seller", None),
        (("It's $500.", "I'm going to submit $430 as my final."), "seller", None),
    ],
)
def test_talk_of_the_offer_form_closes_a_standing_price(
    window: tuple[str, ...], first: str, verdict: float | None
) -> None:
    got = judge(*window, first=first)
    assert got == ("deal", verdict) if verdict is not None else got[0] != "deal"


@pytest.mark.parametrize(
    ("window", "first", "price"),
    [
        (("$410?", "Twenty more and it's yours.", "Alright, fine."), "buyer", 430.0),
        (("$330?", "Another hundred and it's yours.", "ok"), "buyer", 430.0),
        (("I'd take $450.", "Take 5% off that and I'll buy it.", "Ok, done."), "seller", 427.5),
        (
            ("It's $500.", "20% off?", "10% off.", "14% off and I come today.", "ok"),
            "seller",
            430.0,
        ),
    ],
)
def test_changes_offered_with_a_deal_phrase_and_percents_off_the_named_price(
    window: tuple[str, ...], first: str, price: float
) -> None:
    assert judge(*window, first=first) == ("deal", price)


def test_refusing_the_same_day_and_asking_for_another_commits_to_nothing() -> None:
    window = ("I could do $430 if you come today.", "I can't make it today, tomorrow ok?")
    assert judge(*window, first="seller")[0] == "ongoing"


def test_an_absolute_bottom_is_a_price() -> None:
    assert judge("430 is my absolute bottom.", "Okay, I'll take it.", first="seller") == (
        "deal",
        430.0,
    )


def test_take_it_easy_is_a_farewell_not_a_yes() -> None:
    assert judge("Would you take $430?", "take it easy, man", first="buyer")[0] != "deal"


# --- ninth pass: riders after an assent, options, a price asked before the assent ---------------
@pytest.mark.parametrize(
    ("window", "first", "price"),
    [
        (
            (
                "Would you do 430 if I pick it up tomorrow morning?",
                "ok but before 10, I work after",
            ),
            "buyer",
            430.0,
        ),
        (("I'd let it go for 430.", "ok but i cant get there until 6"), "seller", 430.0),
        (("430 cash tonight?", "yes but after 7, my kid has practice till then"), "buyer", 430.0),
        (
            ("430 if you come get it today.", "alright but I'll need a hand loading it"),
            "seller",
            430.0,
        ),
        (
            (
                "Could you do 430 if I come this weekend?",
                "sure, if you can make it by saturday noon",
            ),
            "buyer",
            430.0,
        ),
    ],
)
def test_an_assent_whose_rider_only_arranges_the_hand_over_agrees(
    window: tuple[str, ...], first: str, price: float
) -> None:
    assert judge(*window, first=first) == ("deal", price)


@pytest.mark.parametrize(
    "answer",
    [
        "ok but could you knock off 20 more",
        "yes but let me ask my wife first",
        "sure but that's still over my budget",
        "ok but does that include the lights",
        "ok but I need to see it before I pay",
        "alright but I'll get back to you tonight",
        "ok, that's out of my range then, good luck tonight",
        "ok i understand, ill hold off then",
    ],
)
def test_an_assent_whose_rider_reopens_the_deal_agrees_to_nothing(answer: str) -> None:
    assert judge("I'd let it go for 430.", answer)[0] == "ongoing"


def test_a_condition_set_on_a_plain_offer_still_waits_for_the_commitment() -> None:
    window = ("Would you take 430?", "sure, if you can come tonight after 6")
    assert judge(*window, first="buyer")[0] == "ongoing"


@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        ("how about 450? then we have a deal", None),
        ("450? and you got a deal", None),
        ("can you do 450? I'll accept that", None),
        ("You mean 430? Deal.", 430.0),
    ],
)
def test_a_price_asked_before_the_assent_is_a_counter_offer(
    answer: str, verdict: float | None
) -> None:
    got = judge("I can offer 430 since it needs new tires.", answer, first="buyer")
    assert got == ("deal", verdict) if verdict is not None else got[0] == "ongoing"


@pytest.mark.parametrize(
    ("offer", "answer", "price"),
    [
        ("$400 for the frame alone, $450 with the wheels.", "I'll take it with the wheels.", 450.0),
        ("$430 if you pick it up, or $460 delivered.", "ok deal, delivered please", 460.0),
        ("$430 if you pick it up, or $460 delivered.", "sounds good, I'll pick it up", 430.0),
        ("400 for the frame alone, 450 with the wheels.", "ok, with the wheels then", 450.0),
        ("$400 for the frame alone, $450 with the wheels.", "just the frame, deal", 400.0),
        ("$460 delivered or $430 if you pick it up.", "ok, delivered works", 460.0),
    ],
)
def test_of_two_options_the_answer_takes_the_one_whose_terms_it_repeats(
    offer: str, answer: str, price: float
) -> None:
    assert judge(offer, answer) == ("deal", price)


def test_an_option_named_in_a_refusal_is_not_taken() -> None:
    offer = "$450 on its own. I'd do $430 if you also take the pump."
    assert judge(offer, "I don't need the pump. Fine, I'll take it.") == ("deal", 450.0)


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("how bout 430?", 430.0),
        ("i can give u 430 today", 430.0),
        ("ill bring 430 tomorrow", 430.0),
        ("I was hoping 430", 430.0),
        ("would u be cool w 430", 430.0),
        ("try 430?", 430.0),
        ("ill throw 430 at it", 430.0),
        ("what abt 430", 430.0),
    ],
)
def test_more_words_that_make_a_bare_number_a_price(text: str, amount: float) -> None:
    assert [m.amount for m in find_prices(text, 500)] == [amount]


@pytest.mark.parametrize("text", ["ill bring 2 friends", "i live w 3 roommates", "try 2 more"])
def test_those_words_before_a_count_make_no_price(text: str) -> None:
    assert find_prices(text, 500) == []


def test_another_option_after_a_price_is_read() -> None:
    assert [m.amount for m in find_prices("400 for the frame, 450 with the wheels", 500)] == [
        400.0,
        450.0,
    ]


@pytest.mark.parametrize(
    "answer",
    [
        "sure could you bring a friend to lift it, its heavy",
        "deal could you meet me at the library lot downtown",
    ],
)
def test_an_assent_run_into_a_question_about_the_hand_over_agrees(answer: str) -> None:
    assert judge("I'd let it go for 430.", answer) == ("deal", 430.0)


@pytest.mark.parametrize(
    "answer",
    [
        "ok would you pay the shipping too",
        "sure could you deliver it, if not ill have to pass",
        "ok is that the lowest youd go",
    ],
)
def test_an_assent_run_into_a_question_that_reopens_agrees_to_nothing(answer: str) -> None:
    assert judge("I'd let it go for 430.", answer)[0] == "ongoing"
