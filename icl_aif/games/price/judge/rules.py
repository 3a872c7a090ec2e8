"""A rule-based moderator: reads a window of turns and decides the state after the last one.

The labels are defined in ``docs/moderator.md``.  Every turn is first read on its own
(:func:`read_turn`): its prices and their roles (:func:`icl_aif.games.price.judge.prices.find_prices`),
where it *accepts* and where it *ends* the negotiation.  Phrases are matched on the lower-cased
turn with every price masked as ``$999``, so one pattern covers "$15", "fifteen dollars" and
"twelve fifty" alike.

Reading a turn
--------------
* **Acceptance**, strong ("Deal.", "I'll take it", "You've got yourself a deal", "Sold!",
  "$15 it is") or weak ("OK.", "Sure.", "Sounds good.", "That works").  A phrase is dead when it is
  asked ("Deal?", "Do we have a deal?"), negated or hypothetical ("no deal", "I can't accept",
  "we're close to a deal", "$38 and it's a deal") or made conditional ("If you can do $14, we have
  a deal").  Its *accepting clause* runs from the last contrast before it to the end of the
  sentence: in "I still think $14 is fair, but fine, deal." the $14 is not what is accepted.
* **Ending**: a walk-away ("I'll pass", "I'm out", "I'll look elsewhere", "Goodbye") or a declared
  end ("No deal.", "Let's leave it there", "We can't make a deal").  Threats and hypotheticals
  ("or I walk", "I don't want to walk away") do not count, and a turn that puts a new price on the
  table after its ending phrase ("I'll pass on $20, but $15 works") is not an ending.

Deciding the last turn (:func:`decide`)
---------------------------------------
1. An ending that is not followed by a strong acceptance gives ``no_deal`` (reason ``walk_away``
   when the speaker leaves, else ``refusal``).  A bare farewell ("Thanks, bye!") instead keeps the
   state of the previous turn when the round was already over (a deal stays a deal).
2. An acceptance gives ``deal`` unless it is a counter-offer in disguise: its accepting clause
   names a price that the other side never put on the table ("Deal at $14." to a $15 offer), or
   the turn then asks for a different price ("Deal... well, almost. $55?").  A price that gives
   the other side more than its latest offer, after the two sides had been apart, is no counter:
   "$450 and no lower." -> "Would you do $420?" -> "OK, I can do $410." is a deal at $410.
   A weak acceptance counts only when the other side's previous turn put a price on the table
   (or accepted), and when the turn does not go on to resist, hesitate or set conditions ("OK,
   but...", "Okay, let me think", "Sure, if you deliver").  A question is never an acceptance.
3. The price of a deal (:func:`bind_price`):

   a. the offer-kind price stated in the accepting clause ("Deal at $15", "Fine, $15 it is");
   b. else the other side's most recent standing offer in the window (kinds ``offer`` and
      ``question``; reference, conditional and refused prices are skipped).  When the other side's
      latest turn was itself an acceptance ("OK." -> "Great, deal!"), the price that turn accepted;
   c. else, when both sides' latest firm prices in the window are equal, that price;
   d. else ``PriceVerdict("deal", price=None, reason="price_not_found")``.

4. Without an acceptance phrase, a turn that states the other side's standing offer as its own
   firm price, without hesitating or asking ("I can't go below $15." -> "$15 then."), is a deal at
   that price: both sides have now stated it.
5. An acknowledgement after a finished round ("I'll pass." -> "Alright, no problem.") keeps the
   round finished; anything else is ``ongoing``.

Real chat (human and model text; ``tests/test_moderator_real_text.py`` holds one case per class):
"deal" used to describe ("a great deal at $40") is not an acceptance; "I can accept your offer of
$X", "I can do your $X", "$X is a deal", "I'll call it a deal", "sounds like a fair price" and
sending the offer form ("ok sending offer now") are; a "yes"/"ok" confirms only an earlier turn
that really accepted a price, or a turn that asked "deal?"; an "OK" followed by a question about the
item ("Ok, great. What colour is it?") acknowledges an answer; an "OK" that names a price the other
side put on the table ("ok $65 sounds good") accepts it even when a question came in between; a
conditional agreement ("I can do that if you pick it up", "I can accept that, but you'll have to
ship it") waits for the other side's "ok"; a turn that praises or restates its own price after
"yes" ("Yes, and I'll add the case. $500.") is a counter-offer, as is "I'll take it for $X" when
nobody offered $X; "I agree, but ..." concedes a point only.  The latest proposal wins: accepting
a turn whose only price is conditional ("$132 if I pick it up?") binds that price.  "13k" is
13,000; a bare number is a price when a cue comes before or after it ("pay you 35", "425 then"),
when it has a thousands separator ("13,500"), or when it is said on its own ("1725").

Plain agreements (issue 24): thanks, wishes and goodbyes after an acceptance ("You too, good
luck with it!") and role-play in asterisks or brackets ("*hands over the cash*") keep the deal;
"Sold for $X!" declares one; a short affirmative answers a price question ("yea", "sure thing",
"I would.", "Sure, when can you come?"), and a line may agree to a number without a currency sign
("450 deal.", "450 and I pick it up tonight?" -> "Works for me!"). A commitment to the condition
of a conditional agreement closes it ("I can do $420 if you pay cash." -> "Sure, I'll bring
cash."), at the price set on that condition rather than its fallback; "I can't argue with
that" accepts, and so does a question that restates the agreed price ("Okay, for $470 can you
deliver it?"). A "yes" to a question of fact accepts no price ("Is it still available for $480?" ->
"Yes it is!", "Are you interested?" -> "Yes I am.", "Okay. I was hoping to pay less."), "Just make
an offer" invites one, and a final offer ("My final offer is $380.") waits for an answer even
when it equals what the other side said it could pay.

Second pass (issue 24). Typed fast: contractions without their apostrophe are read as
contractions ("ill take it", "thats a deal"; negations such as "dont" are left as typed), a
run-on line ends a sentence before a capitalised question word, "Thanks" or "Great", or at a
double space ("I can work with that Do you want to pick it up?"), a speaker's consecutive
messages are one turn, and bare numbers read as prices after more cues ("the price of 150",
"give 43", "consider 93", "do your 2000", "90 in cash", "18 is all I have", a one-digit "I'll
take 8"). Negations: "I don't think that's fair" cancels what follows it ("n't" has no word
boundary before it, so the negation list missed it), "Don't walk away yet!" is no walk-away, and
negations that agree ("No problem, deal!", "Not bad, I'll take it", "I can't argue with that")
cancel nothing. Acceptances: "That'll work", "I'd be happy with that", "Happy with that", "I'm
down", "You've convinced me", "Your terms are fine", "We have an agreement", "I'll come by to
pick it up", "*handshake*", and a grumble closed by a concession ("Kind of high but fine");
strong phrases that describe accept nothing ("still sealed", "I accept cash only", "You got it
right", "It's yours if you want it", a handshake described). An "OK" that goes on to hesitate,
plead a tight budget, ask to see the item first or thank for the information ("Ok nice. I'll
think about it.") acknowledges; a doubt followed by an acceptance in the same turn ("It's a bit
high. But ok, that works.") accepts. A "yes" that opens a turn answers the other side's question
and accepts a price only when a question asks to agree or the turn made a new offer ("It's $120.
Do you live nearby?" -> "Yes, ten minutes away." agrees to nothing). Prices: a discount off the
price on the table binds that price less the discount ("I can take $5 off", "10% off"); an
acceptance binds a price it quotes from the other side ("I saw your offer of $150 and I can't
argue with that") and, with nothing on the table, the price its own clause names or the one the
other side last named or quoted (never a retail price).

Third pass (issue 24), found with chats written here in many voices. Shorthand is spelled out
("u", "ur", "n", "w the", "tmrw", "pls", "np", stretched "yesss"/"okkk") and a line that opens like
a question but has no mark gets one ("would you do 100", "ok. any scratches"). A bare number is a
price after an assent ("ugh fine, 260", "k 65", "bet 400"), at the head of a line before a phrase
("165 last price", "600 delivered", "725 i can pick up tmrw", "no, 5000 and you move it"), or at
the end of its sentence after a comma, a laugh or an assent ("works for me, 375", "lol 275"); far
below a price level of thousands it is said in thousands ("14 and we have a deal", "8.4" for a
$9,000 car), "3 grand" is 3,000, and an hour after a visit ("be there at 7"), an age ("my son is
7"), a "k" amount far above the level (mileage, "it's at 104k") and the answer to "how many miles"
are no prices. A price and "is fine" accepts (a masked price has no word boundary before its "$",
so that phrase never matched). An offer that closes once taken ("12k even and it's yours") is
taken with thanks, joy or a hand-over arrangement; a condition ("if you pick it up", "but you need
to bring help", "only if you come get it") is closed by a commitment, by its own words repeated
("Saturday morning is perfect") or by a plain yes; an explicit acceptance ("That's fine with me",
"Sure, I can do $150") stands before a question about the item, a bare "OK" does not. A weak "OK"
in a declining farewell ("That's okay. Thanks for your time!", "alright no worries, good luck",
"no thanks", "nvm", "pass") accepts nothing; "agreed on the price" describes; "Is it $2800 for
the whole unit?" asks what a price covers, a "yes" to it agrees to nothing.

Fourth pass (issue 24), found with variations of chats already read right: new words, item and
prices, the same moves. A turn is read again in the light of the other side's turn before it: a
condition that side already offered conditions nothing ("I can take payments." -> "ok if payments
are cool then I'll take it at 250"), and "for that price?" in a question names the price that side
put on the table ("Could you add the cover for that price?" -> "Yes" binds it). More acceptances
("I'd be happy to accept that price", "your $2200 can work", "should be doable", "glad we figured
it out", "that can be arranged", "For you, I certainly can"), more declining farewells ("thx
anyway", "I appreciate your time"), more answers of fact ("Sure did.", "that's right"), and a
commitment after a plea ("money is tight. heading over with the cash!") still closes a condition.
Prices: "the listing says $X", "listed at X", "your price is $X?" and "you've got it listed at $X"
quote the listing ("you've got it" there accepts nothing); "what if I paid $X?" proposes; "no
chance I'd accept $X" refuses; "pay the whole 250", "making it 1700", "375 and that's as low as I
go" and "6700 and that's final" name prices; "reduce it by $10" is a discount. From chats retyped
in another register: "works" and "very well" close; "meet halfway 750", "its 1620", "2250 and
done", "2150/mo", "1475 +", "40 from me" and "could you manage 186?" name prices; "90 prob not"
refuses; "it's $100 right?" checks the listing; "so I no longer need this one" is a reason to
sell, not a walk-away; "what's the deal with it?" asks about the item.

Fifth pass (issue 24), from the chats a judge that knew the label would gain on the windows the
hybrid router flags (``bench/moderator_halves.py``) and from the variations' premature verdicts:
a price past the other side's latest offer, after the two sides had been apart, accepts it (step
2); "500 is a steal" names the speaker's own price; "ok, any wiggle room" and "budge" push back;
a "yeah" that closes a sentence stating a point ("the frame is light yeah.") affirms the point.
Run-on chat typed without commas (``bench/moderator_surface.py``): a price followed by a new
subject ("I paid $300 my lowest is $220") or an offer of the speaker's own ("can't go that low I
could do 230") ends the clause before it; a number that opens the message near the price level is
a price ("40 my boss wants it gone"); an acceptance run on into a question about closing ("ok
450 works for me when can I pick it up?") still accepts. "You're asking $480?" checks the price;
"480 is kinda much" refuses it; "20$ off" is a discount; "k," opens an answer like "ok,".
Prices typed without a dollar sign: "your 2200", "call it 450", "maybe 85" and "can't go under
95" name prices; "75 is a stretch" refuses; "we'll need to look elsewhere" walks away; "last
price is $140" offers after "I paid $230"; "ok at 450 could u bring it over?" accepts; "I could
agree to 190, although in that case shipping would be your responsibility" sets terms; "well below
what I'm hoping for" refuses; "How does 32 sound?" and "8700 from me" name prices; "sounds
ideal" accepts; a condition granted in other words ("you can pay me in two parts" -> "ok if
paying in two parts is fine then ill do 450") conditions nothing (words compared by stem); "its
urs" reads "it's yours"; "they're yours" closes like "it's yours"; "glad we reached an agreement"
accepts; "if that's convenient" sets no terms.

Sixth pass (issue 24), from chats written here from scratch in many registers (crowdworker chat,
rentals, cars, bundles, subtle closings, traps, typos, chat-model dialogs): a "yes" to what a
price covers ("is the $1800 per month?", "is $1588 the rent after the special?", "which one is
$150", "is 275 for both?") takes no price, nor is it "both sides stated the price"; a question
typed without its "?" is a question when it opens like one ("ok cool. any dents on the frame");
"I'll pass then", "thanks though", "nah that's ok", "guess not" and "ok bye" walk away, and an
"OK" after a walk-away confirms nothing; "$25 and it's yours if you grab it today" to $20
counters; a bare number repeating the other side's price names it; an "OK" to a put-off decision
("let me see if anyone else bites") or "will do" to "let me know" accepts nothing; conditions on
"they" or a day ("but it has to be sunday") are committed to by naming the day or doing the
errand in other words ("signed" for "sign", a dolly for moving it); chat answers accept ("aight",
"can do", "that'll do", a thumbs-up); a short question naming an hour asks about closing; key
words typed with slips ("alrigth", "sonuds good") read as meant; an assent, a price and the
hand-over arranged declare a deal whose ask is out of the window (step 2).

Seventh pass (issue 24), from short windows written against the judge: a hesitation before the
acceptance ("hmm ok fine") does not doubt it; "definitely", "I'll let it go for that", "go ahead",
"all set", "good for me", "I agree", the price's own term granted ("cash works") and the offer form
named ("offer sent", "submitting now", "I'll hit accept") close; an offer, a request for a term
("could you deliver?"), a plain yes and the asker's "perfect!" close at the offer; a yes to an
extra asked as a condition closes, as does "on my way" once the address was given for a condition
to come; an OK closes at an offer the other side held, arguing for it after a pushback or standing
firm when asked for less, unless it is a bare "ok", a "yes" or "will do", or follows a refusal; a
yes to the taker's question about collecting confirms the offer; "split the difference?" proposes
the midpoint of the two sides' prices; a later day for a condition to be met today is new terms, as
is "I'll accept $165, provided it includes the chairs"; "what if I pay cash?" and "can I come look
at it?" are no closing questions; "getting closer", "I might take it", a bare "ok" to the asking
price stated as a fact, and a price with a hedge ("$150 might work", "would be tough"), a duty for
the other side ("for $150 you'd have to pick it up"), a scoff ("lol 150") or someone else's offer
("I already turned down 150") agree to nothing.

Eighth pass (issue 24), from chats and chat endings written from scratch: acceptances in long or
slangy messages ("sounds like we have a deal", "I'll go ahead and take it", "you can have it",
"but fine", "say less"), a negation that does not reach across "but"; the offering side handing the
item over after thanks for its price; an assent settled by the answer to the speaker's question
("then yes"); terms given with an agreement and then taken; coming to collect or to bring the
money; talk of the offer form after the other side assented; changes relative to the price in
digits, words or percents ("knock off fifty", "add 20 and it's yours"), a cut from the seller's
price and a raise from the buyer's; an earlier price quoted and accepted ("your original 380").
Not agreeing: a question that checks the listing's price, an assent to the asking price that goes
on to ask, the item sold to someone else, a numbered option chosen ("I'll take the 2br"), the same
day refused, terms asked before "and it's a deal".

The optional ``scenario`` (``{"item", "list_price", "buyer_open"}``) is only a sanity check and a
hint: with a ``list_price``, prices under 2 % or over 50 times of it are ignored when binding, and
spoken pairs ("three seventy-five") are read at its price level.  Without a scenario the level is
the median price of the window.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from icl_aif.core.transcript import Turn
from icl_aif.games.judges import RulesJudge
from icl_aif.games.price.judge.prices import (
    OFFER_KINDS,
    QUOTED_BEFORE_RE,
    READINGS_KEPT,
    SOFT_IF_RE,
    PriceMention,
    discount,
    find_prices,
    normalize,
    sentence_spans,
    with_apostrophes,
    with_question_marks,
    with_sentence_breaks,
    without_item,
    without_positive_negations,
)
from icl_aif.games.price.verdict import PriceVerdict

__all__ = [
    "Context",
    "PriceRulesJudge",
    "Reading",
    "bind_price",
    "decide",
    "mask_prices",
    "read_turn",
]

# ---------------------------------------------------------------------------------------------
# Phrase lists.  They are matched against the lower-cased turn in which every price is masked as
# "$999" (same length), so that PRICE below stands for any price, however it was written.
# ---------------------------------------------------------------------------------------------

PRICE = r"\$9*"  # a one-character price ("take 8") is masked as a lone "$"
# Words that may open a sentence before an acceptance: "But fine, deal.", "Ha, deal!"
_FILLER = (
    r"(?:ok|okay|fine|alright|all right|sure|yes|yeah|yep|great|perfect|then|well|but|so|and|oh|"
    r"ha|haha|hah|ugh|man|wow|hmm|honestly|you know what|in that case|oh well)\W+"
)

STRONG_ACCEPT = [
    # "Deal.", "Deal, $15.", "OK, deal!"
    r"(?:^|[,;:]|\bbut\b|\bso\b)\W*(?:" + _FILLER + r")*(?<!great )(?<!perfect )(?<!fine )deal\b"
    r"(?!\s*-?(?:breaker|with|or|at|for|on|to|here|there|price|would|could|might|is|sounds)\b)",
    # "Great, deal!", "Perfect - deal." (an adjective right before "deal" describes it instead)
    r"(?:^|[,;:]|\bbut\b|\bso\b)\W*(?:" + _FILLER + r")*(?:great|perfect|fine)\W*[,;:!.-]\W*deal\b"
    r"(?!\s*-?(?:breaker|with|or|at|for|on|to|here|there|price)\b)",
    r"\b(?:it's|it is|that's|that is|then it's|then) a deal\b(?!\s*-?breaker)",
    r"\b(?:we|we've|we have|you've|you|(?:looks|sounds|seems) like we|i think we|then we|"
    r"so we)\s*(?:'ve)?\s*(?:got|have|'ve got)\s+(?:ourselves |yourself |us )?(?:a )?deal\b",
    r"\b(?:we|looks like we|i think we|then we|so we)\s*(?:'ve)?\s*(?:got|have|'ve got)\s+an "
    r"agreement\b",
    r"(?<!good )(?<!great )(?<!fair )(?<!nice )(?<!sweet )(?<!real )(?<!steal )(?<!better )"
    r"(?<!best )(?<!amazing )(?<!excellent )(?<!fantastic )(?<!a )(?<!bargain )\bdeal at\b",
    r"\bdeal,? then\b",
    # not "I'd really like to get this deal done"
    r"\b(?:done deal|(?<!get this )(?<!get the )deal done|deal's done|deal is done)\b",
    # "I accept.", "I agree", not "I accept cash only" or "I accept offers"
    r"\bi (?:accept|agree)\b(?! with| that)(?!,? but\b)(?!\s+(?:cash|paypal|venmo|zelle|credit|"
    r"cards?|checks?|cheques?|payments?|offers?|trades?|returns|bitcoin|only)\b)",
    r"\b(?:i|we)(?:'ll| will| can| would|'d| do)? (?:be (?:happy|glad|willing|pleased) to )?"
    r"(?:gladly |happily |definitely |certainly )?accept "
    r"(?:it|that|this|(?:that|this|the|your) (?:offer|price|counter|counteroffer|counter-offer|"
    r"deal|amount)|(?:your )?" + PRICE + r")(?!\w)",
    r"\b(?:you've got|you got|you gotta|you have got|you've gotten) (?:yourself )?a deal\b",
    r"\byou gotta deal\b",  # "you got a deal", typed fast
    # "Agreed.", "Accepted!", not "I agreed to hold it for someone" or "I accepted another offer"
    r"\b(?:accepted|agreed)\b(?!\s+(?:on (?:the|a|it)\b|upon\b|between\b|to (?!(?:that|it|this|"
    + PRICE
    + r")(?!\w))|with\b|that\b|another\b|"
    r"someone\b|an offer\b|a different\b|the other\b|(?:an|another|their) (?:application|"
    r"applicant)\b))",
    # "I'll accept.", "I can agree to that."
    r"\bi(?:'ll| will| can)? (?:gladly |happily )?accept\W*$|^\W*accept\W*$",
    # "Sure, I'll meet you at that price", "I'd be happy to pay that", "go ahead and take it"
    r"\bmeet you at that (?:price|number|amount)\b",
    r"\bi(?:'d| would)? be (?:happy|glad|willing) to (?:pay|do|take|accept) (?:that|it|this)\b"
    r"(?![^.!?]*\b(?:if|but)\b)",
    r"\bgo ahead and take (?:it|them)\b",
    # "I can take that.", "I can live with that" is weak
    r"\bi can (?:take|accept) (?:that|this)\b(?! (?:if|off|out|apart|down|home)\b)",
    # "I think we can agree on that"
    r"\bwe (?:can|could) agree (?:on|to) (?:that|this)\b",
    r"\bi(?:'ll| will| can| could|'d| would)? agree to (?:that|it|this|your (?:offer|price)|"
    + PRICE
    + r")",
    r"\b(?:i|we)(?:'ll| will|'m going to| am going to|'m gonna|'re going to|'re gonna) "
    r"(?:go ahead and |just )?(?:take|buy|grab|"
    r"get(?! (?:it|them) (?:done|fixed|smogged|serviced|cleaned|checked|repaired|ready|"
    r"inspected)\b))"
    r" (?:it|that|them|"
    # not "I'll take the door off myself", nor a numbered option chosen ("I'll take the 1br")
    r"this|the (?!\d)\w+(?! (?:off|out|apart|down)\b))\b(?! (?:into|under|in mind))",
    # "I'll let them go for your offer", "happy to let it go for that", "I'll go with your price"
    r"\blet (?:it|them) go for (?:your (?:offer|price)|that(?: price)?)\b(?! if)|"
    r"\bgo with (?:your (?:offer|price)|that price)\b(?! if)",
    r"\bi(?:'ll| will) (?:take|accept|go with|settle for|settle on) (?:that|it|"
    + PRICE
    + r")(?!\w)",
    # "It's yours!", "they're yours", not the offer "It's yours if you want it" or "It's yours for
    # $200"
    r"\b(?:it's|its|they're|theyre|they are) (?:all )?yours\b"
    r"(?!\s+(?:if|when|once)\b|\s+(?:for|at)\b(?! that\b))",
    # "ehh, okay, you can have it", not "you can have it for $370" (below) or "... if you ..."
    r"\byou can have (?:it|them)(?: for that(?: price)?)?\W*$",
    # "Alright, you can have it for $370." names its price: a deal if it is on the table, else
    # a counter-offer
    r"^\W*(?:(?:ok|okay|alright|all right|fine|sure|yes|yeah)\W+)?(?:you can have (?:it|them)|"
    r"(?:it's|its) yours) (?:for|at) " + PRICE + r"(?!\w)(?!\s*(?:if|when|once)\b)",
    r"^\W*sold\b(?!\s+(?:for|at|it|them|one|out))",
    r"^\W*(?:(?:ok|okay|alright|great|then|fine)\W+)?sold(?: to you)? (?:for|at) "
    + PRICE
    + r"\W*$",
    r"\b(?:pleasure doing business|nice doing business|shake on it|let's shake|shake hands)\b",
    # a handshake offered on its own ("*handshake*", "Handshake!"), not one described
    r"^\W*(?:(?:virtual|a)\W+)?handshake\W*$",
    r"\byou (?:win|drive a hard bargain|twisted my arm)\b",
    r"\b(?:twist my arm|you've twisted)\b",
    r"\b(?:let's|lets|let us) (?:do (?:it|this|that)(?! (?:this|that) way| like (?:this|that|so)|"
    r" differently)|go with (?:that|it|" + PRICE + r")|"
    r"make it happen|close (?:it|the deal)|seal (?:it|the deal)|lock it in|settle (?:on|at))\b",
    # "Let's seal the deal", "Settled!", not "brand new, still sealed" or "locked in my garage"
    r"\b(?:seal the deal|sealed the deal|deal(?:'s| is)? sealed|lock it in)\b|"
    r"\b(?:(?:it's|that's|then it's|we're|it is|that is) )?(?:settled|locked in)\W*$",
    # "You got it!", not "you got it right" or "I see you've got it listed at $6100"
    r"\b(?:you've got it|you got it)\b"
    r"(?! right| wrong| backwards| listed| priced| posted| up\b| on\b)",
    PRICE + r"\s*(?:it is|it's|and it's yours|and you've got)\b",  # "$15 it is"
    r"^\W*(?:"
    + _FILLER
    + r")*"
    + PRICE
    + r"\W*(?:deal|done)\W*$",  # "40, deal.", "alright 550 deal"
    # "Sure, let's do $1450 with parking": a deal if that price is on the table, else an offer
    r"\b(?:let's|lets|let us) (?:do|go with|say|call it) " + PRICE + r"(?!\w)",
    r"(?<!can )(?<!could )\bmeet you there\b",
    r"\bsounds like a deal\b",
    r"\b(?:consider it (?:sold|done)|you've got (?:a|yourself a) buyer|you have a buyer|"
    r"you found (?:a|your) buyer|i'm sold)\b",
    r"\b(?:when|where) (?:can|should|do) i (?:pick (?:it|them) up|pay|send|come)\b",
    # "I'll call it a deal", "$1700 is a deal", "glad we could work something out"
    r"\bcall it a deal\b",
    PRICE + r"\s+(?:is|it is)\s+a deal\b",
    r"\b(?:glad|happy) we (?:(?:could|can|were able to) )?"
    r"(?:(?:work(?:ed)?|figured?) (?:something|it|this) out|"
    r"(?:come|came|reached|reach|got|have) (?:to )?(?:an agreement|"
    r"a deal|terms)|make (?:a deal|it work|this work)|agree)\b",
    # an acceptance that names the other side's offer: "I can do your $2000", "I'll take your offer"
    r"\bi(?:'ll| will| can| could|'d)? (?:do|take|pay|accept) your "
    r"(?:(?:original|first|earlier|initial|last) )?(?:offer|price|" + PRICE + r")",
    r"\bi(?:'ll| will|'m going to| am going to| can) send (?:you )?(?:the |my )?(?:money|payment|"
    r"cash)\b",
]
_NO_PROBLEM = r"^\W*(?:no problem(?: at all)?|no prob|np)\W*$"
_COMES_TO_COLLECT = (
    # "I'll bring cash when I pick it up", "I can bring the deposit over this weekend"
    r"\b(?:i|we)(?:'ll| will| can|'m going to| am going to|'m gonna) bring (?:the |a )?(?:cash|"
    r"money|deposit|payment|check|cashier's check)\b(?![^.!?]*\bif\b)|"
    r"\b(?:i|we)(?:'ll| will|'m going to| am going to|'m gonna) (?:come|swing by|stop by|head over)"
    r"(?: over| by)?(?: and| to)? (?:(?:get|grab|pick up|collect) (?:it|them)|"
    r"pick (?:it|them) up)\b(?![^.!?]*\bif\b)"
)
_COMES_TO_COLLECT_RE = re.compile(_COMES_TO_COLLECT)
_NO_PROBLEM_RE = re.compile(_NO_PROBLEM)
WEAK_ACCEPT = [
    r"^\W*(?:(?:but|so|well|oh|then|ha|haha|hah|lol|ugh|meh|eh|ahh?|aww+|man|dude|wow|doh|d.oh|"
    r"hm+|totally|perfectly|completely)\W+)*"
    r"(?:ok|okay|okie|okey|k|bet|fine|alright|all right|sure|yes|yeah|yep|yup|ya|"
    r"yah|yea|yeh|whatever|sure thing|very well|aight|ight|alrighty|yessir|yes sir|okey dokey|"
    r"confirmed|"
    r"absolutely|definitely|for sure|perfect|great|excellent|wonderful|awesome|done|agreed|"
    r"certainly|of course|why not|acceptable|reasonable|you bet|right on)\b"
    r"(?!\s+(?:question|point|thing|idea|to|with the|not|"
    r"no(?! (?:problem|prob|worries|doubt))|nah|nope|condition|shape|quality|"
    r"news|job|work|location|area|neighborhood|place)\b)",
    r"\b(?:sounds|that's|thats|that is|looks|seems)(?: actually| really| just| honestly| totally|"
    r" more than| very| pretty| perfectly)? "
    r"(?:good|great|fair|"
    r"reasonable|fine|acceptable|perfect|ok|okay|alright|doable|like a plan|ideal|excellent|"
    r"wonderful|fantastic|lovely|terrific)\b(?! question| point)",
    # "That sounds like a fair price", "sounds like a great deal": an evaluation of the offer
    r"\b(?:sounds|seems|looks) like (?:a|an) (?:very |really |pretty )?(?:fair|good|great|"
    r"reasonable|"
    r"nice|decent|ok|okay|acceptable)?\s?(?:deal|price|plan|offer|number|compromise)\b",
    r"\b(?:that's|thats|that is) a (?:fair|good|reasonable|decent) (?:price|offer|compromise)\b",
    # a term of the offer granted: "cash today works", "pickup tomorrow is perfect"
    r"^\W*(?:(?:ok|okay|sure|yes|yeah|cool|great|totally fine|fine)\W+)*(?:cash|pick ?up|venmo|"
    r"paypal|zelle|today|tonight|tomorrow)(?: (?:today|tonight|tomorrow|is))? (?:works|is (?:fine|"
    r"perfect|good|great|ok|okay))\b",
    r"^\W*(?:a )?(?:fair|good|reasonable|decent) (?:price|offer)\b(?! for)",  # "fair price. ..."
    r"\bthat(?: would| will|'d|'ll) be (?:great|perfect|fine|good|ok|okay|awesome|wonderful)\b",
    # "I was hoping for more but fine", "I need it gone, so ok", "for a long term tenant,
    # absolutely."
    r"\b(?:but|so)\W+(?:ok|okay|fine|alright|sure)\b(?=\W*$|\W*[,.!;])"
    r"(?![,\s]+(?:but|if|discount)\b)",
    r"[,;]\s*(?:absolutely|definitely|of course|sure|ok|okay|fine|alright)\W*$",
    # anticipating the item at home: "my daughter is going to love it"
    r"\b(?:is|are|'s|'re|will|gonna) (?:going to |gonna )?love (?:it|them)\b",
    r"\b(?:i'm|im|i am) (?:happy|glad|willing) to (?:pay|do|take|accept) (?:that|it|this)\b"
    r"(?![^.!?]*\b(?:if|but)\b)",
    # "I'm comfortable with your price", "your offer is okay with me", "that price is fine"
    r"\b(?:i'm|im|i am|we're|we are)(?: really| totally| perfectly| quite)? (?:ok|okay|fine|good|"
    r"happy|comfortable|satisfied|content|cool) with "
    r"(?:your (?:offer|price)|that(?: price| offer)?)\b",
    r"\b(?:your|that|this|the) (?:offer|price) (?:is|sounds|seems)(?: totally| perfectly| really)? "
    r"(?:ok|okay|fine|good|great|perfect|fair|acceptable)\b(?! for (?:a|an|the)\b)",
    # "it's fine" after a "but" or an "ok": "less than I wanted, but it's fine"
    r"(?:(?<=\bbut )|(?<=\bbut, )|(?<=\bok )|(?<=\bok, )|(?<=\bokay, )|(?<=\balright, ))"
    r"(?:it's|its|it is) (?:fine|ok|okay|alright)\b",
    # thanks for a concession: "Thank you so much for being flexible", "thanks for working with me"
    r"\bthank(?:s| you)(?: so much| very much| again)? for (?:being (?:so )?(?:flexible|"
    r"reasonable|understanding)|working with me|meeting me (?:halfway|in the middle|partway)|"
    r"coming down|the discount|compromising)\b",
    # coming to collect: "ok cool, I'll come get it", "come on over", "come grab it whenever"
    _COMES_TO_COLLECT,
    # (not "come grab it yourself and I'll knock $8 off": terms for a discount)
    r"^\W*(?:(?:ok|okay|alright|sure|great|cool)\W+)?come (?:on over|over|by|get it|grab it|"
    r"pick it up)\b(?![^.!?]*\b(?:if|and|yourself)\b)",
    # "say less" (slang: no need to say more), "take it, I need the space"
    r"^\W*say less\b|^\W*(?:just |ok |okay |fine\W+)?take (?:it|them)\b(?! or leave| easy)"
    r"(?!\s*\?)",
    # "oh wow thank you, that's really generous!"
    r"\b(?:that's|thats|that is|you're|youre|you are|so|very|really) (?:very |really |so )?"
    r"generous\b",
    # "i say yes lol" to "what do you say to $30?"
    r"\bi(?:'d| would)? say yes\b",
    # "That'll work.", "That could work."
    r"\b(?:that|this|it)(?:'ll|'d| could) work\b(?! better)",
    # "no problem" or "np" alone: a yes only to a price asked about (see _weak_accept_counts)
    _NO_PROBLEM,
    # "go ahead", "all set", "good for me", "cool deal", "sounds about right", "I'll buy", "I agree"
    r"^\W*(?:(?:ok|okay|sure|yes|yeah|then)\W+)?(?:go (?:ahead|for it)|(?:we're |we are )?all set|"
    r"(?:cool|good|fair|great|sweet) deal|i(?:'ll| will) buy|"
    r"i(?:'ll| will| can)? agree(?: to (?:that|it|this|" + PRICE + r"))?)\W*$",
    r"\b(?:good|fine|ok|okay) for me\b|\bsounds about right\b",
    # a one-word answer: "Good.", "Fair.", "Bet."; "I suppose.", "I guess so."
    r"^\W*(?:good|fair|bet|works)\W*$",
    r"^\W*(?:(?:ok|okay|well|fine)\W+)?i (?:suppose|guess)(?: so)?\W*$",
    # "I'd be happy with that", "I'd be glad to.", "I'd like that": the "I'd" is no hypothetical
    r"\bi(?:'d| would)(?: be)? (?:happy|glad|fine|ok|okay|good|content|pleased|thrilled|"
    r"delighted) (?:with (?:that|it|this|" + PRICE + r")(?!\w)|to\W*$)",
    r"\bi(?:'d| would) (?:like|love) (?:that|to)\W*$",
    # "I'm down.", "Fine by me.", "That's a fair deal.", "You've convinced me.", "I'll go for that."
    r"\b(?:i'm|i am) down(?: for (?:that|it|" + PRICE + r"))?\W*$",
    # "$2650 for 18 months is something I can commit to.", "I can make 17.8 work."
    r"\b(?:something|a price|a number|an amount|one) (?:i|we) can (?:commit to|live with|work with|"
    r"agree to|accept|do)\b|\b(?:i|we) can commit to (?:that|it|this|" + PRICE + r")(?!\w)|"
    r"(?:\b(?:i|we) |^\W*(?:(?:yes|yeah|ok|okay|sure)\W+)?)(?:can|could) (?:prob(?:ably)? )?make "
    r"(?:that|it|this|" + PRICE + r") (?:work|happen)\b",
    r"\b(?:happy|willing|glad|fine|ok|okay) to let (?:it|them) go (?:for|at) " + PRICE + r"(?!\w)",
    # "I'll let it go for that.", "I can sell it to you for that"
    r"\bi(?:'ll| will| can| could) (?:let (?:it|them) go|sell (?:it|them)(?: to you)?) (?:for|at) "
    r"(?:that|this|" + PRICE + r")(?!\w)",
    # the term the price came with, granted: "150 cash?" -> "cash works", "tonight works"
    r"^\W*(?:(?:ok|okay|yes|yeah|yep|sure)\W+)?(?:cash|venmo|paypal|zelle|today|tonight|tomorrow|"
    r"(?:this |next )?(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekend)|pick ?up|delivery) "
    r"(?:works|is (?:fine|good|ok|okay|great|perfect)|sounds good|would work|will work)\b",
    r"\b(?:i'm|i am|i'd be|i would be|i feel) (?:comfortable|okay|ok|fine|good) with (?:that|it|"
    r"this|" + PRICE + r")(?!\w)",
    r"\b(?:good|fine|ok|okay|cool) (?:with|by) me\b",
    r"\b(?:that's|that is|thats) a (?:fair|good|reasonable|decent|great|solid) deal\b",
    r"\byou(?:'ve| have)? convinced me\b",
    r"\bi(?:'ll| will|'d| would) go for (?:that|it|this|" + PRICE + r")(?!\w)",
    r"\b(?:don't|do not) see why not\b",
    # "Happy with that.", "I could live with that.", "I'm willing to pay that.", "Your terms are
    # fine.", "Those terms work for me."
    r"(?:^\W*|\b(?:i'm|i am|i'd be|i would be) )(?:happy|fine|ok|okay|good|content) with "
    r"(?:that|it|this|" + PRICE + r")(?!\w)",
    r"\b(?:i|we) could (?:live|work) with (?:that|it|this)\b",
    # "215 and we're good?" -> "we're good :)"
    r"^\W*(?:(?:yes|yeah|yep|ok|okay|yup)\W+)?(?:we're|we are) (?:good|set)\W*$",
    r"\b(?:i'm|i am|i'd be|i would be) willing to (?:pay|do|accept|take) (?:that|it|this|"
    + PRICE
    + r")(?!\w)",
    r"\b(?:your|those|these|the|that|this) (?:terms|conditions|price|offer|number) (?:are|is|sound|"
    r"sounds|seem|seems|look|looks|work|works) (?:fine|good|great|ok|okay|acceptable|fair|"
    r"reasonable|perfect|for me)\b",
    # arranging the hand-over answers an offer: "I'll come by tomorrow to pick it up.", "I'll
    # bring cash.", "Send me the address."
    r"\bi(?:'ll| will|'m going to| am going to) (?:come (?:by|over|and get|get|pick)|"
    r"pick (?:it|them) up|bring (?:the )?(?:cash|money)|have (?:the )?(?:cash|money)(?: ready)?|"
    r"be (?:there|over))\b|"
    r"\b(?:i'm |i am )?(?:heading|coming|on my way) (?:over|there)? ?"
    r"(?:with|to (?:get|pick|grab|collect)) (?:the )?(?:cash|money|it|them)\b",
    r"^\W*(?:(?:ok|okay|great|perfect|sure)\W+)?(?:send|text|give) me (?:the|your) address\b",
    r"\b(?:we|i) (?:can|could) arrange (?:that|it)\b|\b(?:that|it) can be arranged\b",
    # a concession that closes a grumble: "Kind of high but fine.", "A bit more than I wanted,
    # but I'll do it.", "It's a bit high, but it's worth it."
    r"(?<=\bbut )(?:(?:it's|it is|that's|that is|its|thats) )?(?:fine|ok|okay|alright|all right|"
    r"sure|worth it|i'll do it|i will do it|i'll pay it|i can do it|"
    r"i (?:really )?(?:want|need|love) it|that works)\W*$",
    # "Sounds simple enough, sure.", "For you yes!"
    r"\b(?:sure|ok|okay|alright|yes|yeah)\W*$",
    # "I would." to "Would you take $40?", "Yes we can."
    r"^\W*(?:(?:yes|yeah|yep|sure|ok|okay|for you)\W+)?"
    r"(?:i|we) (?:certainly |definitely |sure |surely )?"
    r"(?:would|can|could|will|do)(?: do (?:that|it))?"
    r"\W*$",
    r"^\W*(?:okay[a-z]|okey|okie|kk)\W*$",  # a lone "ok" typed fast: "okayc", "okie"
    r"\b(?:that|this|it|that price|that number) (?:works|will work|would work|should work|can work|"
    r"is fine|is fair|is acceptable|sounds good|sounds fair|suits me)\b(?! better)",
    # "$150 is fine" (no word boundary before the "$" of a masked price); "$14 is fair" is only an
    # opinion ("I still think $14 is fair, but ...")
    PRICE + r" (?:works|will work|would work|should work|can work|sounds good|suits me|"
    r"(?:is|would be|will be|should be|can be) (?:fine|acceptable|all right|alright|ok|okay|good|"
    r"perfect|doable))\b",
    r"\bworks for me\b",
    # "I can't argue with that" (matched after "can't", which elsewhere resists)
    r"(?:(?<=can't )|(?<=cannot )|(?<=won't )|(?<=couldn't ))(?:argue with|beat|say no to|refuse) "
    r"(?:that|it|this|" + PRICE + r")(?!\w)|"
    r"\bsolid offer\b",
    # "that'll do.", "can do" to "12?", a thumbs-up
    r"\bthat(?:'ll| will) do\b|^\W*(?:(?:yes|yeah|sure|ok|okay)\W+)?can do(?: that| it)?\W*$|"
    r"(?:👍|👌|🤝)",
    r"\b(?:fair enough|(?:i|we) can (?:do|live with|work with|deal with|accept) (?:that|it|"
    + PRICE
    + r"(?!\w))|"
    r"happy to|count me in|let's go)\b",
    # "That I can work with.", "$190 I can do" (no word boundary before the "$" of a price)
    r"(?:\b(?:that|this)|" + PRICE + r") (?:i|we) can (?:do|live with|work with|accept|manage)\b",
    # "I'm in!", not "I'm in Berkeley"
    r"\b(?:i'm|i am|we're|we are) in(?: (?:at|for) " + PRICE + r"(?!\w))?\W*$",
    r"\bi(?:'ll| will) take (?:you up on|that offer|your offer)\b",
    r"\b(?:will do|i(?:'ll| will|'d| would| could| can)(?: only| probably| definitely)? (?:do|"
    r"manage|"
    r"swing|pay) (?:that|it)(?! for)|i(?:'ll| will| can| could|'d| would) go (?:that|so) (?:low|"
    r"high)|"
    r"(?:that's|that is|it's|sounds) agreeable|agreeable to me|"
    r"i(?:'ll| will| can| could) make (?:that|it) work)\b",
    # CraigslistBargain chats close with an offer form: "I'll enter the offer", "submit your offer"
    r"\b(?:i'll|i will|let me|go ahead and|please|just|you can|i'm going to|i am going to) "
    r"(?:submit|enter|send|put in|place) (?:the|your|my|an?|that) (?:final )?offer\b",
    # "I'll make the offer now" sends the form; "Just make an offer" invites one
    r"\b(?:i'll|i will|let me|i'm going to|i am going to) make (?:the|that|my) (?:final )?offer\b",
    # "ok sending offer now", "let me send you the offer": the form that closes the deal
    r"\b(?:submit|enter|send|put in|place)(?:ing)? (?:you |it |in |over )?(?:the |your |my |an |a |"
    r"that |this )?(?:final )?offer\b",
    # ... the form sent or about to be: "offer sent", "I sent the offer", "submitting now", "sent!",
    # "I'll put it in now", "go ahead and send it", "I'll make it official", "I'll hit accept"
    r"\boffer(?: is| has been)? (?:sent|submitted|entered|made|in)\W*$|"
    r"\bi (?:just )?(?:sent|submitted|entered|put in|made) (?:the|my|an?|that|your) offer\b",
    r"^\W*(?:(?:ok|okay|great|alright|sure|deal|perfect)\W+)?(?:submitting|sending|entering|"
    r"offering|sent)(?: (?:it|that|the offer|now|in|over))*\W*$",
    r"\b(?:i'll|i will|let me|i'm going to|i am going to) (?:put|send|enter|submit) "
    r"(?:it|that|this) (?:in|over|through)\b(?! (?:the|my|your|a|an|his|her)\b)",
    # "I'm going to submit it now": only the offer form is submitted
    r"\b(?:i'll|i will|let me|i'm going to|i am going to|gonna) submit (?:it|that|this)\b",
    r"\b(?:go ahead and|please|pls|you can|just) (?:send|submit|enter|put in) (?:it|that|the offer|"
    r"your offer|the deal)\b|\b(?:go ahead and|please|pls|you can) make (?:it|the offer|your "
    r"offer)\b(?! (?:lower|higher|less|more|\$))",
    r"\b(?:i'll|i will|let me|let's|lets) make it official\b|"
    r"\bi(?:'ll| will|'m going to) (?:hit|click|press) accept\b|"
    r"\bi(?:'ll| will) accept (?:it )?(?:when|once|after) you (?:send|submit|make|put)\b",
]
# Words just before an acceptance phrase that cancel it.
NEGATORS_RE = re.compile(
    r"\b(?:no|not|n't|never|cannot|nor|without|almost(?! new)|nearly(?! new)|close to|closer to|"
    r"towards?|want|"
    r"wanted|hoping|hope|like|trying|try|make|reach|find|get to|want to|would|'d|could|might|may|"
    r"maybe|perhaps|if|unless|before|until|whether|or|get (?:me|you|him|her|us) to)\b"
    # ... not across a "but": "lower than I wanted but ok, I'll take it"
    r"(?:(?!\bbut\b)[^.!?]){0,12}$|"
    # "I don't think that's fair": the "n't" of a contraction has no word boundary before it
    r"n't\b[^.!?]{0,12}$|" + PRICE + r"\s*,?\s*and\b[^.!?]{0,20}$|"
    # "10% off and it's a deal", "twenty more and it's yours", "another hundred and it's yours":
    # a change offered, not an acceptance
    r"\b(?:off(?: (?:that|it|the price))?|more|extra|higher|another \w+)\s*,?\s*and\b"
    r"[^.!?]{0,20}$|"
    # "make it a bit lower and we have a deal": terms asked for, then the deal they would make
    r"\b(?:lower|less|cheaper|higher|closer|throw in|throw (?:it|them) in|include|deliver)\b"
    r"[^.!?]{0,20}?"
    r"\band\s+$"
    # "$38 and it's a deal", "Ten and it's yours": an offer, not an acceptance
)
# Right after an acceptance phrase: it is made on new terms ("I can accept that, but you'll have
# to pick it up"), so it is not yet a deal.
TERMS_AFTER_RE = re.compile(
    r"\s*if (?:the )?price(?:'s| is) right\b|"
    r"\W*(?:but|however|only|though|although)\b[^.!?]{0,60}?\b(?:you(?:'ll| will| would|'d)?"
    r"(?: probably| still| likely)?(?: will| would)? (?:have|need|must)|only if|if you|"
    r"i (?:can't|cannot|won't)|(?:would be|is|will be) (?:your|on you|up to you))|"
    # "I'll accept $165, provided it includes the chairs." ("deal at 560 as long as you're good
    # after the test ride" asks nothing more of the other side)
    r"[^.!?]{0,25}?\b(?:provided|providing|on (?:the )?condition)\b|"
    r"[^.!?]{0,25}?\b(?:so|as) long as (?:you (?:can |will |would )?(?:include|deliver|throw|add|"
    r"bring|pick|pay|drop|ship|cover)|it (?:includes|comes with))\b"
)
# Inside the acceptance sentence, before it: the acceptance hangs on a condition.
CONDITIONAL_RE = re.compile(r"\b(?:if|unless|as long as|provided|only if|on condition|assuming)\b")
# After a weak acceptance: the turn goes on to resist.
CONTINUES_RE = re.compile(
    r"\b(?:but|however|(?<!even )though|although|except|unless|(?<!even )if|as long as|provided|"
    r"still|instead|meet me|"
    r"meet in the middle|counter|can you|could you|would you|will you|how about|what about|lower|"
    r"higher|(?<!say )less|too (?:low|high|much|steep)|can't|cant|cannot|won't|not quite|not yet|"
    r"don't think so|"
    r"let me think|"
    r"think about it|i'll think|i see|i hear you|i understand|understood|noted|hmm|let me|"
    r"need to (?:check|ask|think|talk)|check with|ask my|talk to|get back to you|think it over|"
    r"sleep on it|consider|unfortunately|sadly|sorry|afraid|way above|above my|over my|out of my|"
    r"beyond my|can't afford|cant afford|cannot afford|too (?:expensive|far|pricey|rich)|"
    r"wiggle room|any room|"
    # "ok we're getting closer", "ok i might take it"
    r"getting (?:closer|there)|(?:i|we) might (?:take|buy|do|go for|want|be interested|consider)|"
    r"budge)\b"
)

_I_WILL = (
    r"\b(?:i|we)(?:'ll| will|'m going to|'re going to|'ll need to| will need to| am going to|"
    r"'m gonna|'ll have to| will have to|"
    r"'m afraid i'll have to| have to| must|'m going to have to| think i'll|'m gonna have to|"
    r"'ll just| guess i'll| guess i will| need to| should| better)"
)
# "I'll pass on the delivery": an extra declined, not the deal
_EXTRA_PASSED = (
    r"on (?:the |your )?(?:delivery|warranty|case|shipping|insurance|extras?|add-?ons?|"
    r"accessories|mount|stand|cover|bag|helmet|lock|chairs?|pump|charger|cables?|lamp)\b"
)
WALK_AWAY = [
    _I_WILL + r" (?:respectfully |regretfully |politely |sadly |just |simply |probably |then )?"
    r"(?:pass\b(?!\s+(?:(?:by|it|along|through|the|me|you)\b|"
    + PRICE
    + r"|"
    + _EXTRA_PASSED
    + r"))|"
    r"walk(?: away| out)?\b(?!\s+(?:you|through|over|around|by|it|back))|leave\b(?!\s+(?:it (?:at|"
    r"on|in|"
    r"by|outside|for(?! now)|there)|you|the|that|a |my|room|work|home|(?:now |soon |in a \w+ )?"
    r"to (?:come|get|pick|grab|meet)|"
    # a schedule, not a walk-away: "I have to leave for work later"
    r"for (?:work|school|class|the airport|a trip)|later|early|tomorrow|tonight|at \d|by \d))|"
    r"decline|go elsewhere|look elsewhere|"
    r"shop elsewhere|"
    r"shop around|keep looking|keep (?:it|the \w+)\b(?!\s+(?:in|simple|short|brief|clean|safe|"
    r"for you|until|at|off the market|aside|on hold)\b)|hold (?:onto|on to) it|(?:find|buy|get|"
    r"look for|try|order|"
    r"source) [\w\s'-]{0,25}?(?:elsewhere|somewhere else|another (?:seller|shop|store)|online|"
    r"(?:on|from|off|at) (?:amazon|ebay|craigslist|walmart|target|best buy|ikea|marketplace))|"
    r"take my business elsewhere|move on|keep my money|try elsewhere|look somewhere else|"
    r"go somewhere else|sell it (?:to someone else|elsewhere)|find another buyer|"
    r"wait for another buyer|bow out|back out|end (?:it|this|the negotiation) here|"
    r"(?:look|search|shop|check) (?:for |at |around |around for |out )?(?:a (?:few|"
    r"couple)(?: of)? )?"
    r"(?:another|"
    r"a different|other|something else)\b)",
    r"\b(?:i'm|i am) (?:out\b(?! of| today| tonight| tomorrow| until| till| this| right now| at)|"
    r"walking away|leaving\b(?!(?: now)? to (?:come|get|pick|grab))"
    r"(?! (?:town|the (?:country|state|area|city)|work|home|school|the office|my|for|on|tomorrow|"
    r"next|soon|in|friday|"
    r"saturday|sunday|monday|tuesday|wednesday|thursday)\b)|"
    r"done here|moving on(?! (?:the \d|\d|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b)|passing|"
    r"not interested|no longer interested|gonna pass|going to pass|done negotiating|done haggling)",
    r"\b(?:walk(?:ing)? away|i'm walking|i walk)\b(?!\s+(?:happy|with|satisfied|feeling|"
    r"from a good))",
    r"\b(?:not interested|no longer interested|no thanks|no thank you|thanks anyway|thx anyway|"
    r"(?:thanks|thank you|thx|ty) (?:though|tho)|"
    r"appreciate your time|"
    r"thank you anyway|thanks for your time|thank you for your time|never ?mind\b(?!\s+(?:the|"
    r"that|about)\b)|nvm|forget it|forget about it)\b",
    r"\b(?:goodbye|good bye|bye|farewell|(?<!^)good day(?! to you)|so long|have a (?:good|nice|"
    r"great) (?:day|one|"
    r"evening|night|weekend)|good luck (?:with|selling|finding|to you)|best of luck)\b",
    r"\b(?:we're|we are) done\b",
    # "nah that's ok, i'll get one on amazon", "k guess not then"
    r"^\W*(?:nah|nope|no)\W+(?:that's|it's|its|thats) (?:ok|okay|alright|fine)\b(?!\s+(?:with|"
    r"by)\b)",
    r"\b(?<!don't )(?<!dont )guess not\b",
    # "lol ok. pass", "pass then"
    r"^\W*(?:(?:ok|okay|lol|well|then|nah|i'll|gonna|going to)\W+)*pass(?: then| for now)?\W*$",
    r"\bi(?:'ll| will)(?: just)? (?:skip|sit this one out|order|buy (?:one|it|that one) (?:online|"
    r"elsewhere)|get (?:one|it) (?:online|elsewhere)|go with the other)\b",
    r"\b(?:changed my mind|change of plans|"
    r"(?<!so i )(?<!as i )(?<!since i )(?<!because i )(?:don't|no longer) need (?:it|one|a|the|"
    r"this)\b"
    r"(?![^.!?]{0,20}\b(?:any ?more|now)\b)|"
    r"don't want (?:it|one|a|the|this) (?:anymore|after all)|not buying (?:it|anything))\b",
    r"\bpass(?:ing)? on (?:this|it|the (?:deal|offer|item)|that|the whole thing)\b",
    # the item went to someone else: "Sold! sorry, someone just picked it up", "sold to him"
    r"\b(?:someone|somebody|another buyer|a buyer|a (?:guy|lady|man|woman|person)|they|he|she) "
    r"(?:just |already )?(?:bought|"
    r"picked (?:it|them) up|paid (?:for it|full price|asking)|took (?:it|them))\b|"
    r"\bsold (?:it |them )?to (?:someone|somebody|another|him|her|them)\b|\balready sold\b|"
    r"\b(?:i'm|im|i am) taking (?:the|another|his|her|their) (?:\w+ )?offer\b",
]
REFUSAL = [
    r"\bno deal\b(?!\s+(?:at|for|with|unless|if|yet|" + PRICE + r"))",
    r"\bno sale\b",
    r"\b(?:let's|let us|we'll have to|we should|we can|we'll|i'll|i think we should|"
    r"we may as well|we might as well|let's just|we'll just|we should just) (?:leave it\b(?! at "
    + PRICE
    + r")(?! (?:on|in|by|outside|at|for|with|out) )|"
    r"call it (?:a day|off|quits)|end (?:it|this|here|there)|stop (?:here|there)|"
    r"part ways(?! with)|"
    r"agree to disagree)",
    r"\b(?:call it (?:a day|off|quits)|agree to disagree|part ways(?! with)|end (?:the|this|"
    r"our) (?:negotiation|conversation|discussion))\b",
    r"\b(?:can't|cannot|won't|couldn't|unable to|not able to|not going to|never going to|"
    r"failed to|didn't|did not) (?:make (?:this|it|a deal) work|make a deal|do a deal|"
    r"strike a deal|come to a deal|reach (?:a deal|an agreement|agreement)|"
    r"come to (?:an agreement|terms)|agree on (?:a )?price|find (?:a )?(?:middle ground|"
    r"common ground|price))\b",
    r"\b(?:this|it|that)(?:'s| is|'s just| is just)? (?:not going to|never going to|not gonna|"
    r"isn't going to|won't|will never|doesn't|isn't) (?:work|happen)(?: out)?\b"
    r"(?!\s+(?:for me at|at|for " + PRICE + r"))",
    r"\b(?:too far apart|not going to happen|not happening|i won't sell|i'm not selling|"
    r"i will not sell|i'm not buying|i won't buy|i will not buy|i refuse|i'm keeping it|"
    r"final answer is no|the answer is no|my answer is no)\b",
    r"\bi don't think (?:this|it|that|we)(?:'s| is| are|'re)? (?:going to|gonna|will) (?:work|"
    r"happen|get there)\b",
    r"\b(?:deal's off|deal is off|offer withdrawn|i withdraw|withdrawing my offer|"
    r"negotiation is over|this is over|we're finished)\b",
    r"\b(?:we|you and i)(?: just)? (?:won't|can't|cannot|will not|are not going to|"
    r"aren't going to|don't|do not|couldn't) (?:agree|see eye to eye|get there|meet)\b",
]
# Before an ending phrase: the ending is only a threat or a hypothetical ("or I walk",
# "otherwise I'll pass", "before I walk away", "I don't want to walk away").
THREAT_RE = re.compile(
    r"\b(?:or|otherwise|else|if not|unless|before|might|may|could|would|'d|want to|wants to|wanna|"
    r"hate to|rather not|not|n't|never|if|or i|about to|ready to|prepared to|have to decide|"
    r"tempted to|thinking about|considering|close to|rather than|instead of|"
    r"than|no one|nobody|neither)\b[^.!?]{0,25}$|" + PRICE + r"\s*,?\s*and\b[^.!?]{0,20}$|"
    # "$71 and we're done": an offer, not an ending
    # "Don't walk away yet!", "I wouldn't say goodbye yet": a contraction's "n't" has no word
    # boundary before it
    r"n't\s+(?:\w+\s+){0,2}$"
)
# Farewells that close a round but do not by themselves refuse anything.
FAREWELL_RE = re.compile(
    r"\b(?:goodbye|good bye|bye|farewell|(?<!^)good day(?! to you)|so long|have a (?:good|nice|"
    r"great) (?:day|one|"
    r"evening|night|weekend)|(?<!no )thanks(?! anyway)|(?<!no )thank you(?! anyway)|see you|"
    r"take care|cheers|enjoy|good luck|best of luck|happy hunting|you too)\b"
)


# Farewells that decline: a weak "That's okay. Thanks for your time!" or "alright no worries,
# good luck" consoles, it accepts nothing.
DECLINING_FAREWELL_RE = re.compile(
    r"\b(?:thanks|thank you|thx|ty) (?:anyway|for your time)|\bappreciate (?:your time|it anyway)|"
    r"\b(?:good|best of) luck\b|\bhappy hunting\b|"
    r"\bno worries\b(?!\W+(?:i can|i'll|i will|we can|sure|deal|that works|it's yours|sounds)\b)|"
    r"\b(?:maybe|perhaps) (?:next time|another time)|\bsome other time\b"
)


# Before an acceptance, inside its sentence: a contrast that starts the accepting clause
# ("I still think $14 is fair, but fine, deal.").  Prices before it are not what is accepted.
CONTRAST_RE = re.compile(r"\b(?:but|however|though|although|yet|anyway|still)\b")
# The condition of a conditional acceptance ("Sure, if you pick it up today").
_CONDITION_ONLY_RE = re.compile(
    r"\b(?:if|as long as|provided|so long as)\b|\bbut you(?:'ll| will)?(?: (?:need|have) to| must|"
    r" gotta)? (?=\w)|\bbut it (?:has to|must|needs to|'ll have to|will have to) be\b"
)
# After a weak acceptance, in its sentence or a later one: the "OK" acknowledged what was said and
# the turn goes on to hesitate, plead its budget, ask to see the item or thank for the facts ("Ok
# nice. I'll think about it.", "Alright. Money is tight for me.", "Sure, I'd like to see it
# first.", "Okay, thanks for the info.").
LATER_DOUBT_RE = re.compile(
    r"\b(?:hmm+|let me think|think about it|think it over|not sure|i don't know|"
    r"(?:maybe|perhaps)(?! (?:around|at|by|after|before|on|this|next|tomorrow|today|tonight|\d))|"
    r"consider|sleep on it|get back to you|check with|money is tight|tight budget|"
    r"can only (?:afford|pay|spend)|i only have|all i have|more than (?:what )?i (?:want|can|could|"
    r"am able|'m able|am willing|'m willing)|(?:above|over|beyond|out of) (?:my|what i)|"
    r"(?:see|look at|check out|inspect|test) (?:it|them|the \w+)(?: out)? (?:first|before)|"
    r"tell me (?:more|about)|(?:thanks|thank you) for (?:the|that|all the) (?:info|information|"
    r"details|answer|explanation)|time to decide|run it by|let you know)\b"
)
# A turn that hesitates does not agree by repeating a price ("Hmm, $750... let me think.").
HESITATION_RE = re.compile(
    r"\b(?:hmm+|let me think|think about it|think it over|not sure|i don't know|"
    r"(?:maybe|perhaps)(?! (?:around|at|by|after|before|on|this|next|tomorrow|today|tonight|\d))|"
    r"consider|sleep on it|get back to you|check with)\b"
)

# Acknowledgements that add nothing after a round is over.
ACKNOWLEDGE_RE = re.compile(
    r"\b(?:ok|okay|alright|all right|no problem|no worries|understood|i understand|fair enough|"
    r"sure|great|perfect|wonderful|awesome|excellent|sorry to hear|too bad|shame|pity|i see|"
    r"got it|noted|see you|take care|thanks|thank you|cheers|enjoy|bye|goodbye|have a (?:good|"
    r"nice|great))\b"
)

# A question after a weak "OK" that is about closing the deal, not about the item:
# "OK, when can I pick it up?" accepts, "Ok, great. What colour is it?" does not.
CLOSING_QUESTION_RE = re.compile(
    r"\b(?:pick(?:ing|s)? (?:it|them|up)|pickup|come (?:by|over|get|pick)|meet|send|pay|payment|"
    r"address|"
    r"deliver|delivery|when|where|venmo|paypal|zelle|cash app|cashier's check|cash|bring|ship|"
    r"drop (?:it|them) off|deal|"
    r"get (?:it|them)|grab (?:it|them)|sign|move in|what time|what floor|(?:i|we) (?:can )?come|"
    # "can we do the transfer at the DMV?", "can you help me carry it down?"
    r"(?:the )?(?:transfer|paperwork)|dmv|help (?:me |us )?(?:carry|load|move|lift)|"
    # "Will you be ready for it in the next hour?"
    r"(?:you|u)(?: be)? ready(?: for (?:it|them|me|pick ?up))?|(?:in|within) the (?:next )?hour)\b"
)
# A short question that names a day or a time proposes when to meet: "tomorrow?", "Saturday
# morning ok?", "tmrw after school?" (not "Are you available today?")
_WHEN_RE = re.compile(
    r"\b(?:(?:this|next) (?:week|weekend)|today|tonight|tomorrow|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    # a day typed short in a short question: "sat ok?", "thurs after work?"
    r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?=\W+(?:ok|okay|good|fine|work|morning|"
    r"afternoon|evening|night|after|before|at|around)\b|\W*\?)|"
    r"\d{1,2} ?(?:oclock|o.clock))\b"
)
_SHORT_WHEN_WORDS = 12


# Not closing: a hypothetical that bargains ("what if I pay cash?"), the cost of a term ("how
# much for delivery?") or a visit to see the item first ("can I come look at it tomorrow?",
# unless it also collects or signs).
_BARGAINING_QUESTION_RE = re.compile(
    r"^\W*(?:(?:and|so|but|ok|okay|well)\W+)?what if\b|"
    # ... or what a term costs: "how much for delivery?"
    r"\bhow much\b|\bwhat(?:'s| is| would be| will be) the (?:cost|fee|charge)\b|"
    # ... or for less: "could you knock off a bit more if I pick it up today?"
    r"\b(?:knock (?:off|down)|take (?:off|a bit)|(?:any|a (?:bit|little)) (?:lower|less|cheaper)|"
    r"come down|go (?:any )?lower)\b"
)
_VISIT_RE = re.compile(
    r"\b(?:come|stop by|swing by|drop by)(?: and| to| over| over and| by and| by to)? (?:look|see|"
    r"check (?:it|them) out|view|inspect|test|try)\b|"
    # "can I bring my mechanic to look at it?"
    r"\bbring (?:my|a) mechanic\b"
)
# A question about the item's dates, not about closing: "when is it available?", "when did you
# buy it?"
_ITEM_WHEN_RE = re.compile(
    r"\bwhen (?:is|was|were|are) (?:it|they|the \w+) (?:available|free|built|bought|made|"
    r"serviced|last)\b|\bwhen did you\b"
)
_COLLECTING_RE = re.compile(
    r"\b(?:pick|pickup|pay|cash|deliver|address|grab|get (?:it|them)|sign|lease|apply|application|"
    r"paperwork)"
)


def _closes(question: str) -> bool:
    """The question is about closing the deal ("When can I pick it up?", "tomorrow?")."""
    visit = _VISIT_RE.search(question)
    if (
        _BARGAINING_QUESTION_RE.search(question)
        or _ITEM_WHEN_RE.search(question)
        or _SPLIT_RE.search(question)
        or (visit is not None and not _COLLECTING_RE.search(question, visit.end()))
    ):
        return False
    if CLOSING_QUESTION_RE.search(question):
        return True
    return (
        (_WHEN_RE.search(question) is not None or _HOUR_RE.search(question) is not None)
        and len(question.split()) <= _SHORT_WHEN_WORDS
        and ITEM_QUESTION_RE.search(question) is None
    )


# An hour to meet, in a short question: "starbucks on main at 6?", "after 3 ok?"
_HOUR_RE = re.compile(
    r"\b(?:at|after|before|around|by)\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)?\W*(?:ok|okay)?\W*$"
)


# Right after a weak "yes": the turn answers a question about facts ("Yes it is!", "Yeah, that's
# what the listing says", "Ok, good to know"), it agrees to no price.
FACTUAL_ANSWER_RE = re.compile(
    r" (?:did|does|was|were|has|had)\W*(?:$|[.!,])|"
    r"\W*(?:(?:it|they|there|this|that one)(?:'s| is| are| does| do| has| have| was|"
    r" were)\b\W*(?:$|[.!]|"
    r"(?:still )?(?:available|included|new|for sale)\b)|i (?:am|do|did|have|know|see|saw|"
    r"understand|"
    r"noticed|read)\b|i'm (?:interested|here|still)\b|that's what|(?:that's|that is|thats) "
    r"(?:right|correct|true)\b|good to know|nice to know|"
    r"(?:thanks|thank you|thx|ty) for (?:letting me know|the (?:info|heads up|update|answer))|"
    r"(?:glad|good|sorry) to hear)"
)
# A question about the item or the listing, not about a price or a deal: a "yes" answers it.
ITEM_QUESTION_RE = re.compile(
    r"\b(?:available|firm|negotiable|flexible|interested|any questions|questions|included|"
    r"include|including|come with|comes with|condition|how old|original|still have|working|"
    r"works fine|"
    r"in stock|for sale)\b"
)
# ... unless it also asks for an answer to a price: "Would you take $40? Is it still available?"
CLOSING_ASK_RE = re.compile(
    r"\b(?:would you|will you|could you|can you|how about|what about|deal|work for you|works for "
    r"you|sound|okay with|ok with|fine with|agree|take it|want it|buy it|acceptable|to confirm)\b"
)
# A question that invites an offer or more questions, not an agreement: "Would you like to make
# an offer?", "Do you have any questions?"
OFFER_INVITATION_RE = re.compile(
    r"\b(?:would you like to (?:make|see|know|ask|come)|make (?:an|me an|your) offer|what (?:would|"
    r"do|can) you (?:offer|pay)|any (?:other )?questions|"
    # or asks about the other side's own price: "Is $120 your final price?"
    r"(?:is|are) (?:that|this|it|" + PRICE + r") (?:your|the) (?:final|lowest|best|bottom|last|"
    r"firm|asking)|your (?:final|lowest|best|bottom|last) (?:price|offer))\b"
)
# A question that ends by asking for an okay: "Is $120 ok?", "Does that work?", "Fair?"
AGREE_TAG_RE = re.compile(r"\b(?:ok|okay|good|fine|fair|alright|reasonable|work|works)\W*$")
# A turn that opens by answering yes: "Yes, ...", "Sure!", "Yeah I do."
YES_OPENING_RE = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|ya|yea|sure|ok|okay|of course|definitely|absolutely|certainly)\b"
)
# Later in a weakly accepting turn: a wish for a lower or higher price ("Okay. I was hoping to
# pay less.").
WISH_RE = re.compile(
    r"\b(?:hoping|was thinking|had in mind|budget|afford|less|lower|cheaper|discount|wiggle|"
    r"come down|go down|too (?:much|high|expensive|steep|low))\b"
)

# A short answer set off before a question in the same sentence: "Sure, when can I pick it up?"
_LEAD_ANSWER_RE = re.compile(
    r"^\W*(?:ok|okay|k|kk|sure|yes|yeah|yep|great|perfect|alright|all right|deal|sounds good|"
    r"that works|awesome|excellent|wonderful|bet|done)(?: (?:please|pls|thanks|thank you))?"
    r"(?:\W*[,!.:;-]+\s*|"
    # "ok what time?", "sure when can you come": no comma before the question word
    r"\s+(?=(?:when|where|what time|what's (?:the|your) address|whats (?:the|your) address|"
    r"(?:can|could|would|will) (?:you|u|i|we)|is it (?:ok|okay|alright|cool)|"
    r"do you (?:want|take|have|mind))\b))"
)

# A clause set off by a comma before a question in the same sentence: "alright you win, when
# can I pick it up?"
_LEAD_CLAUSE_RE = re.compile(
    r"^[^,?]{2,40},\s*(?=(?:when|where|what time|can|could|should|do|does)\b)"
)
# A question that asks the other side to agree: "so we got a deal?", "Deal?"
DEAL_QUESTION_RE = re.compile(
    r"(?<!what's the )(?<!whats the )(?<!what is the )\b(?:deal|agreed|do we have an agreement)\b"
)

# The errand a condition asks of the other side ("if you pick it up", "if you can pay cash") and
# the words that commit to it ("I'll come get it tonight", "I can bring cash").
CONDITION_RE = re.compile(
    r"\bif (?:you|they)(?:'re| are| can| could| will| would| were)?(?: be)?(?: able to| willing to|"
    r" just| please| ok with| okay with| fine with)* (\w+)|"
    # "Alright, $300 it is, but you need to bring people", "ok, but you pick it up"
    r"\bbut you(?:'ll| will)?(?: (?:need|have) to| must| gotta)? (\w+)|"
    # "ok fine, but it has to be sunday"
    r"\bbut it (?:has to|must|needs to|'ll have to|will have to) be (?:on |at |in the |this )?(\w+)"
)
# An extra the other side adds: "if you throw in the leaf I'll do it" -> "sure".
_EXTRAS = frozenset({"throw", "toss", "include", "add"})
ERRANDS = (
    frozenset(
        {
            "pick",
            "pickup",
            "come",
            "get",
            "grab",
            "collect",
            "fetch",
            "stop",
            "swing",
            "there",
            "here",
            "omw",
            # the means to collect: "I have a truck"
            "truck",
            "van",
            "trailer",
        }
    ),
    frozenset({"pay", "paying", "cash", "venmo", "paypal", "zelle", "send", "transfer"}),
    frozenset({"deliver", "delivering", "bring", "drop", "ship", "send"}),
    frozenset({"meet", "meeting"}),
    frozenset(
        {"move", "haul", "load", "carry", "truck", "dolly", "van", "trailer", "bring", "help"}
    ),
    frozenset({"sign", "signing", "lease", "deposit"}),
    _EXTRAS,
)
ERRAND_WORDS = frozenset().union(*ERRANDS)
COMMITMENT_RE = re.compile(
    r"\b(?:i|we)(?:'ll| will| can| could|'m able to| am able to| would be able to| definitely|"
    r" surely| sure)+\b|^\W*(?:yes|yeah|yep|sure|ok|okay|definitely|absolutely|of course|"
    r"no problem)\b|\b(?:on my way|omw|leaving now|heading (?:over|out|there)|be there in|"
    r"be there soon|be right there)\b|"
    # the means to do the errand: "I have cash", "I have a truck, no problem"
    r"\bi(?:'ve| have)(?: got)? (?:the |a |my )?(?:cash|money|truck|van|trailer|dolly)\b"
)
# A price declared as the speaker's last word is an offer that waits for an answer, even when it
# equals what the other side said it could pay ("My final offer is $120.").
FINAL_OFFER_RE = re.compile(
    r"\b(?:final|last|best|bottom)(?: \w+)? (?:offer|price|line)\b|"
    r"\b(?:best|lowest|highest|most) i (?:can|could) (?:do|go|offer|pay)\b"
)
# Role-play in a chat: "*hands over the cash*", "(shakes hands)": an action, not speech.
ACTION_RE = re.compile(r"\*[^*]+\*|\([^()]*\)")

_OFFER_KINDS = OFFER_KINDS
_TABLE_KINDS = frozenset({"offer", "question", "conditional"})
_PRICE_TOLERANCE = 0.005
_SCENARIO_LOW, _SCENARIO_HIGH = 0.02, 50.0


# ---------------------------------------------------------------------------------------------
# Reading one turn
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """What one turn does: its prices, where it accepts and where it ends the negotiation."""

    text: str  # lower-cased, prices masked (see mask_prices)
    prices: tuple[PriceMention, ...]
    strong_accepts: tuple[int, ...]  # positions of strong acceptances
    weak_accepts: tuple[int, ...]  # positions of weak acceptances
    accept_regions: tuple[tuple[int, int], ...]  # the clauses that accept
    ending: int | None  # position of the last walk-away or refusal, or None
    ending_reason: str | None  # "walk_away" or "refusal"
    farewell_only: bool  # every ending phrase is a farewell ("Thanks, bye!")
    has_question: bool  # some sentence ends with "?"
    # an acceptance dropped because new terms follow it ("Okay, but only if you pay cash"): no
    # acceptance for the rules, a doubt for the hybrid moderator
    accepts_with_terms: bool = False
    # a discount the turn offers off the price on the table: (amount, is a percentage)
    discount: tuple[float, bool] | None = None

    @property
    def strong_accept(self) -> int | None:
        """Position of the first strong acceptance."""
        return min(self.strong_accepts, default=None)

    @property
    def weak_accept(self) -> int | None:
        """Position of the first weak acceptance."""
        return min(self.weak_accepts, default=None)

    @property
    def accept(self) -> int | None:
        """Position of the first acceptance of either strength."""
        return min((*self.strong_accepts, *self.weak_accepts), default=None)

    @property
    def reopens(self) -> bool:
        """A price is put on the table after the ending ("I'll pass on $20, but $15 works")."""
        return self.ending is not None and any(
            m.start > self.ending for m in self.prices if m.kind in _OFFER_KINDS
        )

    def standing_offer(self) -> float | None:
        """The last offer/question price of the turn."""
        offers = [m.amount for m in self.prices if m.kind in _OFFER_KINDS]
        return offers[-1] if offers else None

    def table_offer(self) -> float | None:
        """The last price the turn puts on the table, conditions included ("$15 if you pick it
        up"): accepting it accepts the price with its terms."""
        offers = [m.amount for m in self.prices if m.kind in _TABLE_KINDS]
        return offers[-1] if offers else None

    def proposal(self, plausible: Callable[[float], bool]) -> float | None:
        """The price this turn proposes: its last plausible offer or question, else its last
        plausible conditional price ("$132 if I pick it up?" proposes $132 with terms).  An
        unconditional price wins over a conditional one in the same turn ("$15, or $12 if you
        pay cash")."""
        for kinds in (_OFFER_KINDS, frozenset({"conditional"})):
            offers = [m.amount for m in self.prices if m.kind in kinds and plausible(m.amount)]
            if offers:
                return offers[-1]
        return None

    def firm_offer(self) -> float | None:
        """The last price stated as a firm offer (not a question)."""
        offers = [m.amount for m in self.prices if m.kind == "offer"]
        return offers[-1] if offers else None

    def stated_prices(self) -> list[float]:
        """Offer-kind prices inside the accepting clauses, in order ("Deal at $15")."""
        return [
            m.amount
            for m in self.prices
            if m.kind == "offer" and any(a <= m.start < b for a, b in self.accept_regions)
        ]


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().rstrip("\"')").endswith(("?", "?!", "!?"))


# Where a question about closing starts inside a run-on sentence typed without a full stop:
# "That's fair I'll take it for 120 I can come by tomorrow, is the morning okay?"
_QUESTION_OPENER_RE = re.compile(
    r"\b(?:(?:i|we) (?:can|could|will|'ll) (?:come|pick|grab|get|meet|bring|be there|send)|"
    r"(?:can|could|should|shall|may) (?:i|we)|(?:can|could|would|will) (?:you|u)|when|where|"
    r"what time|what day|does|do you|is|are you|"
    r"would|will|how far|(?:i'll|i will|i'd|i) (?:send|bring|come|be)|pickup|pick up|"
    r"(?:tonight|tomorrow|today|this (?:week|weekend)|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day))\b"
)
_RUN_ON_LEAD_WORDS = 2


def _run_on_question(sentence: str) -> int | None:
    """Where a closing question begins after a lead of two words or more, in a run-on sentence."""
    for match in _QUESTION_OPENER_RE.finditer(sentence):
        if len(sentence[: match.start()].split()) < _RUN_ON_LEAD_WORDS:
            continue
        if _closes(sentence[match.start() :]):
            return match.start()
    return None


def _acceptances(
    patterns: list[str],
    text: str,
    sentences: list[tuple[int, int]],
    dropped: list[int] | None = None,
) -> list[tuple[int, tuple[int, int]]]:
    """Live matches of ``patterns``: (position, accepting clause).

    A match is dead inside a question, after a negator ("no deal", "I can't accept") or after a
    condition ("If you can do $14, we have a deal"), and when new terms follow it ("okay, but
    only if ..."; its position goes to ``dropped``). The accepting clause runs from the last
    contrast before the match ("..., but fine, deal") to the end of its sentence.
    """
    dropped = [] if dropped is None else dropped
    found: list[tuple[int, tuple[int, int]]] = []
    for start, end in sentences:
        sentence = text[start:end]
        if _is_question(sentence):
            # "Sure, when can you pick it up?": the answer before a question about closing
            lead = _LEAD_ANSWER_RE.match(sentence) or _LEAD_CLAUSE_RE.match(sentence)
            cut = lead.end() if lead is not None else _run_on_question(sentence)
            if (
                cut is None
                or not _closes(sentence[cut:])
                or _reopens_after_the_answer(sentence, cut)
            ):
                continue
            end = start + cut
            sentence = text[start:end]
        for pattern in patterns:
            for match in re.finditer(pattern, sentence):
                head = sentence[: match.start()]
                if _negated(sentence, match.start()) or CONDITIONAL_RE.search(
                    _without_soft_ifs(head)
                ):
                    continue
                if TERMS_AFTER_RE.match(sentence, match.end()):
                    dropped.append(start + match.start())
                    continue
                contrasts = [c.end() for c in CONTRAST_RE.finditer(sentence, 0, match.end())]
                clause_start = start + (contrasts[-1] if contrasts else 0)
                found.append((start + match.start(), (clause_start, end)))
                break
    return found


# What a question after a leading answer may mention that is read elsewhere (see below).
_READ_ELSEWHERE_RE = re.compile(r"\$|.*deliver$|deposit|see |look at|check |inspect|test|try ")


def _reopens_after_the_answer(sentence: str, cut: int) -> bool:
    """The question after a leading answer reopens the deal ("ok would you pay the shipping
    too?", "sure could you deliver it, if not i'll pass?"). A price it restates, delivery it
    asks for, a deposit it offers and a visit are read elsewhere ("okay, for $470 can you
    deliver?", "should I send the deposit now?", "can I see it and pick it up tomorrow?")."""
    return any(
        _READ_ELSEWHERE_RE.match(m.group(0)) is None
        for m in _REOPENING_RIDER_RE.finditer(sentence, cut)
    )


def _negated(sentence: str, position: int) -> bool:
    """The words before the acceptance at ``position`` cancel it ("no deal", "$38 and it's a
    deal"); a negation that agrees ("No problem, deal", "I can't argue with that") does not, nor
    does a price quoted from the other side ("I saw your offer of $150 and ...")."""
    head = sentence[:position]
    negator = NEGATORS_RE.search(without_positive_negations(sentence)[:position])
    if negator is None:
        return False
    return not (
        negator.group(0).startswith("$") and QUOTED_BEFORE_RE.search(head, 0, negator.start())
    )


def _ending(text: str, sentences: list[tuple[int, int]]) -> tuple[int | None, str | None, bool]:
    """Where the turn walks away or refuses to go on: (position, reason, farewell only)."""
    found: list[tuple[int, str, str]] = []
    for start, end in sentences:
        sentence = text[start:end]
        if _is_question(sentence):
            continue
        for reason, patterns in (("refusal", REFUSAL), ("walk_away", WALK_AWAY)):
            for pattern in patterns:
                for match in re.finditer(pattern, sentence):
                    if THREAT_RE.search(sentence[: match.start()]):
                        continue
                    found.append((start + match.start(), reason, match.group(0)))
    if not found:
        return None, None, False
    position = max(p for p, _, _ in found)
    # Leaving is the more specific reason: "I'm walking away. No deal." is a walk-away.
    reason = "walk_away" if any(r == "walk_away" for _, r, _ in found) else "refusal"
    farewell_only = all(FAREWELL_RE.search(phrase) for _, _, phrase in found)
    return position, reason, farewell_only


def mask_prices(text: str, prices: Sequence[PriceMention]) -> str:
    """``text`` with every price replaced by ``$`` and nines of the same length ("$15" -> "$99")."""
    chars = list(text)
    for mention in prices:
        chars[mention.start : mention.end] = "$" + "9" * (mention.end - mention.start - 1)
    return "".join(chars)


@lru_cache(maxsize=READINGS_KEPT)
def read_turn(text: str, scale: float | None = None) -> Reading:
    """Read one utterance: its prices, acceptances and endings.

    ``scale`` is the price level of the conversation (see :func:`find_prices`).
    """
    text = with_question_marks(with_apostrophes(with_sentence_breaks(text)))
    prices = tuple(find_prices(text, scale))
    lowered = mask_prices(normalize(text), prices)
    sentences = sentence_spans(lowered)
    with_terms: list[int] = []
    strong = _acceptances(STRONG_ACCEPT, lowered, sentences, with_terms)
    weak = _acceptances(WEAK_ACCEPT, lowered, sentences, with_terms)
    ending, reason, farewell_only = _ending(lowered, sentences)
    return Reading(
        text=lowered,
        prices=prices,
        strong_accepts=tuple(p for p, _ in strong),
        weak_accepts=tuple(p for p, _ in weak),
        accept_regions=tuple(region for _, region in (*strong, *weak)),
        ending=ending,
        ending_reason=reason,
        farewell_only=farewell_only,
        has_question=any(_is_question(lowered[a:b]) for a, b in sentences),
        accepts_with_terms=bool(with_terms),
        discount=discount(lowered),
    )


# ---------------------------------------------------------------------------------------------
# A window being judged
# ---------------------------------------------------------------------------------------------


# A question about a quantity other than money ("how many miles", "whats the battery cycle
# count", "how old is it"), whose answer's numbers are no prices ("86k, mostly highway").
_QUANTITY_QUESTION_RE = re.compile(
    r"\b(?:how many|mileage|miles|how old|what year|which year|how long|cycle count|how big|"
    r"what size|square (?:feet|footage)|sq ?ft|dimensions|how tall|how wide|how heavy)\b"
)
_MONEY_QUESTION_RE = re.compile(
    r"\$|\b(?:price|cost|pay|take|offer|sell|asking|dollars?|bucks|rent|deposit|fee|budget)\b"
)
_ANSWER_NUMBER_RE = re.compile(r"(?<![$\w.,])\d[\d,.]*(?:k\b)?(?!\s*(?:dollars?|bucks)\b)")


@lru_cache(maxsize=READINGS_KEPT)
def _asks_a_quantity(text: str) -> bool:
    """The turn's last sentence asks how much of something other than money (kept like the
    readings: every later window asks again of the same turn)."""
    lowered = with_question_marks(text.lower())
    spans = sentence_spans(lowered)
    last = lowered[spans[-1][0] : spans[-1][1]] if spans else ""
    return (
        _is_question(last)
        and bool(_QUANTITY_QUESTION_RE.search(last))
        and not _MONEY_QUESTION_RE.search(last)
    )


def _without_quantities(text: str) -> str:
    """The answer to a question about a quantity, with the numbers of its first sentence
    blanked: "86k, mostly highway" answers "how many miles", it offers no $86,000."""
    spans = sentence_spans(text)
    if not spans:
        return text
    start, end = spans[0]
    first = _ANSWER_NUMBER_RE.sub(lambda m: "#" * len(m.group(0)), text[start:end])
    return text[:start] + first + text[end:]


# "Can you clean it first for that price?": the price is the one the other side just put on the
# table, and the question proposes it as if it named it.
_THAT_PRICE_RE = re.compile(
    r"\b(for|at) (?:that|this|the same|your) (?:price|amount|number)\b", re.IGNORECASE
)


def _that_price_named(text: str, price: float) -> str:
    """``text`` with "that price" in a question replaced by ``price``, the other side's latest:
    "Can you clean it first for that price?" proposes that price with a condition."""
    out, last = [], 0
    for start, end in sentence_spans(text):
        if _is_question(text[start:end]):
            out.append(text[last:start])
            out.append(_THAT_PRICE_RE.sub(lambda m: f"{m.group(1)} ${price:.2f}", text[start:end]))
            last = end
    return "".join(out) + text[last:]


@lru_cache(maxsize=READINGS_KEPT)
def _echoes_marked(text: str, other: Reading) -> str:
    """``text``, a turn that names no price, with a bare number that repeats a price the other
    side just put on the table marked as a price: "haha how can i say no. 260 and croissants" to
    "$260 and I'll bring you croissants?" names $260."""
    for amount in {m.amount for m in other.prices if m.kind in _TABLE_KINDS}:
        if amount != int(amount) or amount < _ECHO_MINIMUM:
            continue
        digits = f"{int(amount):d}"
        grouped = f"{int(amount):,d}"
        pattern = rf"(?<![\w$.,]){re.escape(grouped)}(?![\w,]|\.\d)"
        if grouped != digits:
            pattern += rf"|(?<![\w$.,]){digits}(?![\w,]|\.\d)"
        text = re.sub(pattern, lambda m: "$" + m.group(0), text)
    return text


_ECHO_MINIMUM = 10  # "5" repeated is more often a count or an hour than a price
_LAST_HOUR = 12
# Narrower than prices._TIME_BEFORE_RE on purpose: "meet me at 4 flat" names $4,000, not an hour.
_TIME_CUE_RE = re.compile(
    r"\b(?:tonight|tomorrow|today|morning|afternoon|evening|pick(?:ing)? (?:it |them )?up|come|"
    r"swing by|stop by|be there|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b[^.!?$\d]{0,20}$",
    re.I,
)
_HOUR_NAMED_RE = re.compile(
    r"\b(?:at|by|around|after|before|till|until)\s+(\d{1,2})(?::\d\d)?\s*(?:am|pm)?\b", re.I
)


@lru_cache(maxsize=READINGS_KEPT)
def _hours_marked(text: str, other: str) -> str:
    """``text`` with a bare number that repeats an hour the other side just named marked as an
    hour: "I can pick up tonight at 8" -> "ok 190, 8 works" names no price of $8."""
    hours = {
        m.group(1)
        for m in _HOUR_NAMED_RE.finditer(other)
        if int(m.group(1)) <= _LAST_HOUR
        and (m.group(0).endswith(("am", "pm")) or _TIME_CUE_RE.search(other, 0, m.start()))
    }
    for hour in hours:
        text = re.sub(rf"(?<![\w$.,:]){hour}(?![\w,:]|\.\d|\s*(?:am|pm)\b)", hour + "pm", text)
    return text


# A condition that may have been granted already: "if you're willing to take installments, ...".
_CONDITION_CLAUSE_RE = re.compile(
    r"\b(?:if|as long as) (?P<terms>(?:(?!\b(?:i|ill|i'll|i'd|i'm|im|we|we'll|"
    r"then)\b)[^,.;!?\d$]){3,80}?)"
    r"(?:,\s*|\s+then\s+)",
    re.IGNORECASE,
)
# The words that carry a condition's terms ("two payments"), not its grammar ("that", "would").
_CONTENT_WORD_RE = re.compile(
    r"\b(?!(?:that|this|them|they|there|then|than|with|have|your|just|still|really|some|much|"
    r"more|also|what|when|will|would|could|should|about|willing|able|happy|okay|fine|cool|good|"
    r"alright|possible|truly|actually|definitely|indeed)\b)[a-z]{4,}"
)


_SUFFIX_RE = re.compile(r"(?<=[a-z]{3})(?:ing|ed|es|s)$")


def _stem(word: str) -> str:
    """A word's first five letters after dropping "-ing", "-ed" or a plural "-s"."""
    return _SUFFIX_RE.sub("", word)[:5]


def _without_granted_conditions(text: str, other: str) -> str:
    """``text`` without the conditions whose terms the other side's turn ``other`` has already
    offered: "I can take installments." -> "OK, if you're willing to take installments, I'll take
    it for $190." agrees without a condition. Words match on their stems' first five letters
    ("paying" is "pay")."""
    offered = {_stem(w) for w in re.findall(r"[a-z]{3,}", other.lower())}

    def granted(match: re.Match[str]) -> str:
        words = _CONTENT_WORD_RE.findall(match["terms"].lower())
        if words and all(_stem(w) in offered for w in words):
            return ""
        return match.group(0)

    return _CONDITION_CLAUSE_RE.sub(granted, text)


def _one_turn_per_speaker(window: Sequence[Turn]) -> list[Turn]:
    """``window`` with each run of messages by one speaker joined into one turn, a line each."""
    merged: list[Turn] = []
    for turn in window:
        if merged and merged[-1]["speaker"] == turn["speaker"]:
            merged[-1] = {**merged[-1], "text": merged[-1]["text"] + "\n" + turn["text"]}
        else:
            merged.append(turn)
    return merged


def _same(a: float, b: float) -> bool:
    return abs(a - b) < _PRICE_TOLERANCE


def _list_price(scenario: Mapping[str, Any] | None) -> float | None:
    """The scenario's positive list price, if it has one."""
    value = (scenario or {}).get("list_price")
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        return None
    return float(value)


@dataclass(frozen=True)
class Context:
    """A window with each turn read, and the optional scenario."""

    window: Sequence[Turn]
    readings: Sequence[Reading]
    scenario: Mapping[str, Any] | None = None

    @classmethod
    def read(cls, window: Sequence[Turn], scenario: Mapping[str, Any] | None = None) -> Context:
        """Read every turn of ``window`` at the price level of the scenario or of the window.

        Messages sent one after another by the same speaker are read as one turn, each message a
        sentence of its own ("Could you take $15?" then "I can pick it up today." is one offer).
        """
        window = _one_turn_per_speaker(window)
        scale = _list_price(scenario)
        if scale is None:
            amounts = [m.amount for turn in window for m in find_prices(turn["text"])]
            scale = statistics.median(amounts) if amounts else None
        item = (scenario or {}).get("item")
        item = item if isinstance(item, str) else None
        texts = [without_item(turn["text"], item) for turn in window]
        texts = [
            _without_quantities(text) if i and _asks_a_quantity(texts[i - 1]) else text
            for i, text in enumerate(texts)
        ]
        readings = [read_turn(text, scale) for text in texts]
        for i in range(1, len(texts)):
            # Read again, in the light of the other side's turn before it (the turns alternate
            # now), a turn that names its price as "that price" or sets a condition the other
            # side has already granted.
            text = _without_granted_conditions(texts[i], texts[i - 1])
            price = readings[i - 1].table_offer()
            if price is not None and not readings[i].prices:
                text = _that_price_named(text, price)
            if not readings[i].prices:
                text = _echoes_marked(text, readings[i - 1])
            text = _hours_marked(text, texts[i - 1])
            if text != texts[i]:
                readings[i] = read_turn(text, scale)
        return cls(window, readings, scenario)

    @property
    def last(self) -> int:
        """The index of the window's last turn, the one judged."""
        return len(self.window) - 1

    def plausible(self, amount: float) -> bool:
        """With a list price in the scenario, drop amounts far outside its range."""
        list_price = _list_price(self.scenario)
        if list_price is None:
            return True
        return _SCENARIO_LOW * list_price <= amount <= _SCENARIO_HIGH * list_price

    def other_turns(self, index: int) -> list[int]:
        """Indices of the other side's turns before ``index``, latest first."""
        speaker = self.window[index]["speaker"]
        return [j for j in range(index - 1, -1, -1) if self.window[j]["speaker"] != speaker]

    def previous_other(self, index: int) -> int | None:
        """The other side's latest turn before ``index``."""
        others = self.other_turns(index)
        return others[0] if others else None

    def table(self, index: int, depth: int = 0) -> list[float]:
        """Prices the other side put on the table before ``index``, or agreed to there."""
        prices: list[float] = []
        for j in self.other_turns(index):
            reading = self.readings[j]
            prices += [m.amount for m in reading.prices if m.kind in _TABLE_KINDS]
            if reading.accept is not None and depth < len(self.window):
                agreed = bind_price(self, j, depth + 1)
                if agreed is not None:
                    prices.append(agreed)
        return [p for p in prices if self.plausible(p)]

    def stated(self, index: int) -> list[float]:
        """Plausible prices stated in the accepting clauses of turn ``index``."""
        return [p for p in self.readings[index].stated_prices() if self.plausible(p)]

    def quotes(self, index: int) -> set[int]:
        """Where turn ``index`` quotes a price from the other side ("your offer of $150", "you
        said $150"): the start of each such reference price."""
        reading = self.readings[index]
        text = reading.text
        found = set()
        for m in reading.prices:
            if m.kind != "reference":
                continue
            start = max((a for a, _ in sentence_spans(text) if a <= m.start), default=0)
            if QUOTED_BEFORE_RE.search(text, start, m.start):
                found.add(m.start)
        return found

    def quoted(self, index: int) -> list[float]:
        """Plausible prices that the accepting clauses of turn ``index`` quote from the other
        side ("I saw your offer of $150 and I can't argue with that"): what the turn accepts
        when the other side's offer is no longer in the window."""
        reading = self.readings[index]
        quotes = self.quotes(index)
        return [
            m.amount
            for m in reading.prices
            if m.start in quotes
            and self.plausible(m.amount)
            and any(a <= m.start < b for a, b in reading.accept_regions)
        ]


# ---------------------------------------------------------------------------------------------
# Binding a price
# ---------------------------------------------------------------------------------------------


def bind_price(ctx: Context, index: int, _depth: int = 0) -> float | None:
    """The price that the acceptance at turn ``index`` binds to (step 3 of the module doc)."""
    stated = ctx.stated(index)
    if stated:
        table = ctx.table(index, _depth)
        for amount in stated:
            if any(_same(amount, t) for t in table):
                return amount
        if not table or _beyond_other_offer(ctx, index, stated[0]):
            return stated[0]
    # "Ok, I'll do your 475 from before": the other side's earlier price, quoted, wins over its
    # latest one
    earlier = [m.amount for j in ctx.other_turns(index) for m in ctx.readings[j].prices]
    named = [q for q in ctx.quoted(index) if any(_same(q, e) for e in earlier)]
    if named:
        return named[-1]
    for j in ctx.other_turns(index):
        # A discount off the price on the table: "I can take $5 off." -> "You got it" is a deal
        # at that price less $5.
        cut = _discounted(ctx, j)
        if cut is not None:
            return cut
        # "split the difference?" -> "deal": the midpoint of the two sides' latest prices
        middle = _split_difference(ctx, j)
        if middle is not None:
            return middle
        # Of two options, the one whose terms the acceptance repeats: "$250 for the desk alone,
        # $300 with the chair" -> "I'll take it with the chair" is a deal at $300.
        chosen = _option_taken(ctx, index, j)
        if chosen is not None:
            return chosen
        # The latest proposal wins, even one with terms: "Would you accept $132 if I pick it
        # up?" -> "Okay. That works." is a deal at $132, not at an older unconditional price.
        offer = ctx.readings[j].proposal(ctx.plausible)
        if offer is not None:
            return offer
        agreed = ctx.readings[j].accept is not None or ctx.readings[j].accepts_with_terms
        if agreed and _depth < len(ctx.window):
            confirmed = bind_price(ctx, j, _depth + 1)
            if confirmed is not None:
                return confirmed
    quoted = ctx.quoted(index)
    if quoted:
        return quoted[-1]
    return _matching_firm_prices(ctx, index)


# An answer that negates ("I don't need the ribbon. Fine, I'll take it.") chooses no option.
_NEGATION_RE = re.compile(r"n't\b|\b(?:not|no|never|without|separately)\b")


def _option_taken(ctx: Context, index: int, options_turn: int) -> float | None:
    """The price of the one option of turn ``options_turn`` whose own terms turn ``index``
    repeats ("$100 if you pick it up, $115 delivered" -> "ok, I'll pick it up"), or None. An
    option's terms are the content words after its price up to the next price, else those
    before it back to the previous price ("the desk is $250, with the chair $300"); words that
    two options share choose neither, and an answer with a negation chooses none ("I don't
    need the ribbon. Fine.")."""
    reading = ctx.readings[options_turn]
    options = [m for m in reading.prices if m.kind in _TABLE_KINDS and ctx.plausible(m.amount)]
    answer = ctx.readings[index].text
    if len({round(m.amount, 2) for m in options}) < 2 or _NEGATION_RE.search(answer):
        return None
    text = reading.text
    bounds = [0, *(m.end for m in options)]
    terms = []
    for k, option in enumerate(options):
        stop = options[k + 1].start if k + 1 < len(options) else len(text)
        after = _CONTENT_WORD_RE.findall(text, option.end, stop)
        words = after or _CONTENT_WORD_RE.findall(text, bounds[k], option.start)
        terms.append({_stem(w) for w in words})
    said = {_stem(w) for w in _CONTENT_WORD_RE.findall(answer)}
    own = [t - set().union(*(u for u in terms if u is not t)) for t in terms]
    chosen = {options[k].amount for k, words in enumerate(own) if words & said}
    return chosen.pop() if len(chosen) == 1 else None


# The asker arranges to receive the item ("can I pick it up tomorrow?", "could you deliver?",
# "what's your address?"), not a question that qualifies the asker ("are you able to pay a
# deposit?").
_COLLECTS_RE = re.compile(
    r"\b(?:can|could|may|should|when|where) (?:i|we)\b|"
    r"\b(?:could|can|would|will) (?:you|u) (?:deliver|bring|drop|ship|hold)\b|\baddress\b|"
    r"\bwhere (?:are you|do you live|is it)\b"
)


# A cost added in words, its number too small to be read as a price: "yes, for $20 extra"
_EXTRA_COST_RE = re.compile(r"\b(?:extra|additional|more|fee|plus|surcharge|charge)\b")


def _only_asks_how_to_close(reading: Reading) -> bool:
    """Every sentence of the turn is a question about closing, and it names no price ("what's
    the address?", "can I pick it up tomorrow?")."""
    text = reading.text
    spans = sentence_spans(text)
    return (
        not reading.prices
        and bool(spans)
        and all(_is_question(text[a:b]) and _closes(text[a:b]) for a, b in spans)
    )


def _confirms_the_hand_over(ctx: Context, index: int) -> float | None:
    """The other side asked only how to close after the speaker's offer ("I can do $160" ->
    "can I pick it up tomorrow?") and the speaker says yes or names the time: a deal at the
    offer."""
    reading = ctx.readings[index]
    previous = ctx.previous_other(index)
    if previous is None or reading.prices or reading.ending is not None:
        return None
    text = ctx.readings[previous].text
    if (
        not _only_asks_how_to_close(ctx.readings[previous])
        or ITEM_QUESTION_RE.search(text)
        or not _COLLECTS_RE.search(text)
    ):
        return None
    answered = _YES_OPENING_RE.match(reading.text) is not None or (
        _WHEN_WHERE_RE.search(text) is not None and not _REFUSING_WORD_RE.search(reading.text)
    )
    if (
        not answered
        or _asks_beyond_closing(reading)
        or CONTINUES_RE.search(reading.text)
        or _EXTRA_COST_RE.search(reading.text)
    ):
        return None
    own = ctx.previous_other(previous)
    if own is None or own == index:
        return None
    offer = ctx.readings[own].firm_offer()
    return offer if offer is not None and ctx.plausible(offer) else None


# Talk of the offer form that closes a CraigslistBargain chat: "send it", "please send the offer",
# "sending now", "sent", "submit whenever", "waiting for it", "accepting when it arrives" (not
# "make an offer", which invites one).
_FORM_TALK_RE = re.compile(
    r"\b(?:send|submit|enter|put in|place)(?:ing)? (?:it|that|the offer|your offer|my offer|"
    r"the deal)"
    r"\b|\b(?:send|submit)(?:ing)? (?:the |an |your |my )?offer\b|"
    r"\b(?:i'll|i will|let me) make (?:the|my) offer\b|"
    r"^\W*(?:(?:ok|okay|great|thanks|thank you|perfect|alright)\W+)*(?:sent|submitted|sending|"
    r"submitting)(?: it| now| the offer)*\W*$|"
    r"\b(?:sending|submitting) (?:it |the offer )?now\b|\bsubmit whenever\b|"
    r"\bwaiting for (?:it|the offer|your offer)\b|"
    r"\baccept(?:ing)? (?:it )?(?:when|once|after) (?:it|you)\b|^\W*accepted\b"
)
# Something else asked to be sent: "can you send pics of it", "send me the carfax"
_SEND_ME_RE = re.compile(
    r"\bsend (?:me|us|over)\b|\b(?:pics?|photos?|pictures?|video|carfax|link|address|number|"
    r"info|details|specs)\b"
)
# What a turn must not say before the form closes a deal: a refusal or a push for other terms.
_FORM_BLOCKERS_RE = re.compile(
    r"\b(?:no|not|can't|cannot|won't|don't|unless|but|if|instead|lower|higher|less|more)\b|n't\b"
)


def _closes_through_the_form(ctx: Context, index: int) -> float | None:
    """The turn talks of sending the offer form ("Great, I'll send the offer.", "Sending now.")
    while a price stands, after the other side's last turn assented, thanked or answered without
    a new price or a refusal: a deal at the latest price put forward in the window."""
    reading = ctx.readings[index]
    form = _FORM_TALK_RE.search(reading.text)
    if form is None or reading.ending is not None:
        return None
    rest = reading.text[: form.start()] + " " + reading.text[form.end() :]
    if _FORM_BLOCKERS_RE.search(rest) or any(ctx.plausible(m.amount) for m in reading.prices):
        return None
    previous = ctx.previous_other(index)
    if previous is None or _SEND_ME_RE.search(ctx.readings[previous].text):
        return None  # "could you send me the carfax?" -> "sure, I'll send it over"
    if _FORM_BLOCKERS_RE.search(without_positive_negations(ctx.readings[previous].text)):
        return None  # "no, too much for me" -> "ok, sending it anyway"
    for j in range(index - 1, -1, -1):
        turn = ctx.readings[j]
        if turn.ending is not None and not turn.farewell_only:
            return None
        offer = turn.proposal(ctx.plausible)
        if offer is not None:
            return offer
        if any(ctx.plausible(m.amount) for m in turn.prices):
            return None
    return None


# Thanks for a price and nothing else: "thank you!! i really appreciate it", "aww thanks, that's
# really nice of you" (not thanks for the facts or for the time: "thanks for letting me know").
_THANKS_ONLY_RE = re.compile(
    r"^\W*(?:(?:aww+|aw|oh|wow|haha|ha|omg|ok|okay|i know)\W+)*(?:thank you|thanks|thx|ty|"
    r"i appreciate it)"
    r"(?! for (?:the info|the information|letting me know|your time|the help|asking|answering|"
    r"getting back))"
    r"(?:\W+(?:so much|very much|a lot|a bunch|again|i (?:really )?appreciate (?:it|that)|"
    r"(?:that's|thats|that is|you're|youre|you are) (?:really |very |so )?(?:nice|kind|sweet|"
    r"generous|awesome|the best)(?: of you)?|i know|haha|lol))*\W*$"
)
# The offering side then hands the item over: "no problem, hope you enjoy the desk", "let me
# know when you can come", "bring cash and the title is yours".
_HANDS_OVER_RE = re.compile(
    r"\b(?:enjoy (?:it|them|the \w+)|let me know when|when (?:can|do|would|will) you (?:come|pick|"
    r"get|grab|swing)|come (?:by|get|grab|pick)|bring (?:the )?cash|(?:is|are) (?:all )?yours|"
    r"(?:my|the) address|see you|pick (?:it|them) up)\b"
)


def _thanked_then_handed_over(ctx: Context, index: int) -> float | None:
    """After the speaker's offer the other side only thanked for it ("for you, $130" -> "thank
    you!! i really appreciate it") and the speaker now hands the item over ("no problem, hope you
    enjoy the desk"): a deal at the offer."""
    reading = ctx.readings[index]
    previous = ctx.previous_other(index)
    if previous is None or reading.ending is not None or reading.prices:
        return None
    thanks = ctx.readings[previous]
    if thanks.prices or thanks.ending is not None or not _THANKS_ONLY_RE.match(thanks.text):
        return None
    own = ctx.previous_other(previous)
    if own is None or own == index or ctx.readings[own].ending is not None:
        return None
    text = reading.text
    asks_more = any(
        _is_question(text[a:b]) and not _closes(text[a:b]) for a, b in sentence_spans(text)
    )
    pushes = CONTINUES_RE.search(re.sub(r"\blet me know when\b", " ", text))
    if asks_more or not _HANDS_OVER_RE.search(text) or pushes:
        return None
    return ctx.readings[own].proposal(ctx.plausible)


_SPLIT_RE = re.compile(
    r"\b(?:split (?:it|the difference)|meet (?:you |me |us )?(?:halfway|half way|in the middle)|"
    r"(?:go|come|settle) (?:halfway|half way|in the middle))\b"
)
_REFUSED_BEFORE_RE = re.compile(r"(?:\b(?:not|no|never|cannot|won't)\b|n't)[^.!?]{0,15}$")


def _split_difference(ctx: Context, index: int) -> float | None:
    """The price turn ``index`` proposes by splitting the difference, naming no number ("How
    about we meet in the middle?" after $150 and $160 proposes $155): the midpoint of its side's
    latest price and the other side's; None otherwise."""
    reading = ctx.readings[index]
    split = _SPLIT_RE.search(reading.text)
    if (
        split is None
        or _REFUSED_BEFORE_RE.search(reading.text, 0, split.start())
        or any(ctx.plausible(m.amount) for m in reading.prices)
    ):
        return None
    speaker = ctx.window[index]["speaker"]
    latest: dict[bool, float] = {}
    for j in range(index - 1, -1, -1):
        amounts = [
            m.amount
            for m in ctx.readings[j].prices
            if m.kind in _TABLE_KINDS and ctx.plausible(m.amount)
        ]
        if amounts:
            latest.setdefault(ctx.window[j]["speaker"] == speaker, amounts[-1])
    if len(latest) < 2 or _same(latest[True], latest[False]):
        return None
    return round((latest[True] + latest[False]) / 2, 2)


def _discounted(ctx: Context, index: int) -> float | None:
    """The price turn ``index`` offers as a change to the price on the table ("I can take $5
    off" after $50 is $45; "10% off" after $200 is $180): the turn's own price, else the latest
    price of the window before it, else the list price, less the discount. A cut starts from the
    seller's latest price and a raise ("add 20 and it's yours", "I can go 20 more") from the
    buyer's, earlier changes included ("I offered 420, I'll add 50" -> "add another 30" is 500).
    None without a change, or when the turn names a new price of its own ("$45, that's $5 off"
    offers $45)."""
    cut = ctx.readings[index].discount
    if cut is None:
        return None
    list_price = _list_price(ctx.scenario)
    effective = [_effective_prices(ctx, k) for k in range(index)]
    earlier = [p for prices in effective for p in prices]
    own = _named_prices(ctx, index)
    known = earlier + ([list_price] if list_price is not None else [])
    if any(not any(_same(p, k) for k in known) for p in own):
        return None
    amount, percent = cut
    # a cut starts from the seller's prices, a raise from the buyer's; a percentage comes off the
    # price named ("15% off" is not off an earlier cut), an amount off the latest put forward
    side = "buyer" if amount < 0 else "seller"
    sides = [
        p
        for k in range(index)
        if ctx.window[k]["speaker"] == side
        for p in (_named_prices(ctx, k) if percent else effective[k])
    ]
    bases = own or sides or earlier or ([list_price] if list_price is not None else [])
    if not bases:
        return None
    price = round(bases[-1] * (1 - amount / 100) if percent else bases[-1] - amount, 2)
    return price if price > 0 and ctx.plausible(price) else None


def _named_prices(ctx: Context, index: int) -> list[float]:
    """The plausible prices turn ``index`` names."""
    return [m.amount for m in ctx.readings[index].prices if ctx.plausible(m.amount)]


def _effective_prices(ctx: Context, index: int) -> list[float]:
    """The prices turn ``index`` puts forward: the one its change to the price on the table
    makes ("I offered 420. I'll add 50." puts forward 470), else those it names."""
    made = _discounted(ctx, index) if ctx.readings[index].discount is not None else None
    return [made] if made is not None else _named_prices(ctx, index)


def _latest_firm(ctx: Context, upto: int, speaker: str) -> float | None:
    for j in range(upto, -1, -1):
        if ctx.window[j]["speaker"] != speaker:
            continue
        offer = ctx.readings[j].firm_offer()
        if offer is not None and ctx.plausible(offer):
            return offer
    return None


def _matching_firm_prices(ctx: Context, index: int) -> float | None:
    """Both sides' latest firm prices up to ``index``, when they are equal."""
    seller = _latest_firm(ctx, index, "seller")
    buyer = _latest_firm(ctx, index, "buyer")
    if seller is not None and buyer is not None and _same(seller, buyer):
        return seller
    return None


def _offers_of(ctx: Context, upto: int, speaker: str) -> list[float]:
    """The prices that ``speaker``'s turns up to ``upto`` propose (:meth:`Reading.proposal`:
    offers and price questions, else conditional prices), in order."""
    return [
        offer
        for j in range(upto + 1)
        if ctx.window[j]["speaker"] == speaker
        and (offer := ctx.readings[j].proposal(ctx.plausible)) is not None
    ]


def _beyond_other_offer(ctx: Context, index: int, amount: float) -> bool:
    """``amount``, said by the speaker of turn ``index``, gives the other side at least what it
    last offered, after the two sides had been apart: a seller who asked more than the buyer's
    latest offer and now says that price or less ("$450 and no lower" -> "would you do $420?"
    -> "I can do $410 for you"), or a buyer who offered less than the seller's latest and now
    says that price or more."""
    speaker = ctx.window[index]["speaker"]
    if speaker not in ("seller", "buyer") or index == 0:
        return False
    theirs = _offers_of(ctx, index - 1, "buyer" if speaker == "seller" else "seller")
    if not theirs:
        return False
    asked = theirs[-1]
    sign = 1.0 if speaker == "seller" else -1.0  # a seller gives more by asking less
    apart = any(
        sign * (own - asked) > _PRICE_TOLERANCE for own in _offers_of(ctx, index - 1, speaker)
    )
    return apart and sign * (amount - asked) <= _PRICE_TOLERANCE


def _counter_offer(ctx: Context, index: int) -> bool:
    """The accepting clause names its own price, unlike any the other side put on the table
    ("I'll take it for $40" when nobody offered $40 is an offer), or the turn goes on to state
    another firm price of its own ("Yes, and I'll add the case. $500."). A window in which the
    other side says nothing cannot show what it offered: "Alright, $45 it is" there accepts."""
    if ctx.previous_other(index) is None:
        return False
    stated = ctx.stated(index)
    table = ctx.table(index)
    if stated and not any(_same(s, t) for s in stated for t in table):
        return not _beyond_other_offer(ctx, index, stated[0])
    if not stated and table and _own_conditional_price(ctx, index, table):
        return True
    return _restates_own_price(ctx, index, table)


def _own_conditional_price(ctx: Context, index: int, table: list[float]) -> bool:
    """The accepting clause sets its own price on a condition, off the other side's table: "$25
    and it's yours if you grab it today" to a $20 offer is a counter-offer."""
    reading = ctx.readings[index]
    return any(
        m.kind == "conditional"
        and ctx.plausible(m.amount)
        and any(a <= m.start < b for a, b in reading.accept_regions)
        and not any(_same(m.amount, t) for t in table)
        for m in reading.prices
    )


def _restates_own_price(ctx: Context, index: int, table: list[float]) -> bool:
    """After its acceptance, the turn states a firm price that is on nobody's table: a weak
    "Yes" answering a question, followed by the speaker's own price, is not an acceptance."""
    reading = ctx.readings[index]
    position = reading.accept
    if position is None:
        return False
    later = [
        m.amount
        for m in reading.prices
        if m.kind == "offer" and m.start > position and ctx.plausible(m.amount)
    ]
    return any(not any(_same(p, t) for t in table) for p in later)


# ---------------------------------------------------------------------------------------------
# Deciding
# ---------------------------------------------------------------------------------------------


def _asks_again(ctx: Context, index: int) -> bool:
    """After accepting, the turn asks for another price ("Deal... well, almost. $55?"), or its
    acceptance follows a price it asks for, on nobody's table: "how about $90? then we have a
    deal" agrees to $90 if the other side does, not to the other side's $85."""
    reading = ctx.readings[index]
    position = reading.accept
    questions = [m for m in reading.prices if m.kind == "question"]
    if position is None or not questions:
        return False
    table = ctx.table(index)
    asked = [
        m.amount
        for m in questions
        if m.start > position
        or (ctx.plausible(m.amount) and not any(_same(m.amount, t) for t in table))
    ]
    if not asked:
        return False
    bound = bind_price(ctx, index)
    return bound is None or not any(_same(a, bound) for a in asked)


# A later sentence that pushes back opens like this ("OK. But ...", "Sure. Hmm, ...").
_PUSHBACK_OPENING_RE = re.compile(
    r"^\W*(?:but(?! (?:please|pls|just|remember|make sure|note)\b)|however|though|although|still|"
    # not "let me know when you're leaving", "let me send you the address"
    r"hmm+|let me(?! know (?:when|what time|where|once|how soon|a good time|what works)|"
    r" (?:send|give|text) you)|actually|"
    r"wait|unless|if|except)\b"
)


# A later sentence that only offers something extra: "Actually, I have a spare cable too, want it?"
_GIFT_RE = re.compile(
    r"^\W*actually\W+(?:i (?:have|also have|can (?:throw in|include|add))|i'll (?:throw in|"
    r"include|add)"
    r"|(?:you|u) can (?:have|keep))\b"
)


def _without_soft_ifs(text: str) -> str:
    """``text`` with the "if" of every soft condition ("if you want", "if that works") blanked,
    same length: such an "if" adds no terms, so it does not resist an acceptance."""
    chars = list(text)
    for match in SOFT_IF_RE.finditer(text):
        for inner in re.finditer(r"\bif\b", match.group(0)):
            chars[match.start() + inner.start() : match.start() + inner.end()] = "  "
    return "".join(chars)


_LEADING_HESITATION_RE = re.compile(r"\W*(?:(?:hmm+|uh+|um+|ugh|well|oh)\W+)+(?=\w)")


# What a rider after an assent may arrange without reopening the deal: when, where and how the
# item changes hands and is paid for ("ok but i cant get there till 6", "yes if you can hold it
# till saturday", "sure but bring a dolly").
_ARRANGEMENT_RE = re.compile(
    r"\b(?:pick(?:ing)?(?: it| them)? up|pickup|come|coming|get (?:there|here)|grab|collect|"
    r"drop(?:ping)? (?:it|them|by|off)|bring|meet|text|call|message|address|"
    r"today|tonight|tomorrow|tmrw|morning|afternoon|evening|night|weekend|weekday|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|after|before|until|till|til|"
    r"\d+ ?(?:am|pm|ish)|o'?clock|noon|min|mins|minutes|hour|hours|hr|late|early|busy|"
    r"cash|venmo|paypal|zelle|cashapp|bank|atm|change|check|help|load|carry|lift|truck|van|car|"
    r"trailer|dolly|straps|stairs|parking|porch|door|garage|lobby|building|house|place|"
    r"keys?|move|moving|ready|home|work|hold|on my way|heads up|just so you know|fyi)"
    r"(?:s|es|ed|ing)?\b"
)
# What makes a rider reopen the deal: a price (masked as "$99"), a change to it, more items or
# services, a check, a test or a person still to consult, doubt, or a way out ("ok but can you
# knock off 20", "yes if you throw in the charger", "sure but let me ask my wife").
_REOPENING_RIDER_RE = re.compile(
    r"\$9|\b(?:price|offer|deal|lowest|lower|less|more|cheaper|discount|knock|come down|"
    r"go down|budget|afford|swing|expensive|pricey|too much|steep|worth|paid|firm|flexib\w*|"
    r"negotia\w*|best|max|limit|extra|additional|plus|fee|fees|cost|tax|shipping|separate\w*|"
    r"includ\w*|throw|add|also|instead|match|another|other (?:offer|buyer|guy|people|person)|"
    r"someone|somebody|look at|see (?:it|them|the|if|how|pics|photos)|pics|photos|inspect\w*|"
    r"check (?:it|them|with|out|if|first)|measure|test|try (?:it|them|on)|mechanic|title|carfax|"
    r"warranty|guarantee|receipt|think|sleep|decide|consider|ask|talk|wife|husband|partner|"
    r"roommate|boyfriend|girlfriend|dad|mom|parents|not sure|unsure|maybe|idk|hmm+|only if|"
    r"if not|otherwise|unless|(?:i'?m|count me) out|pass|no way|comfortable|deposit|up ?front|"
    r"same price|halfway|middle|split|works? (?:ok|fine|right|well)|might(?! be\b)|pay for|"
    r"comes? with|came with|buy|low|high|range|out of|(?:do|can|could|would|will) you deliver|"
    r"get back to you|let you know|confirm|hold off|understand|walk ?through|agree\w*|commit\w*|"
    r"unfortunately|sadly|sorry|"
    r"(?:does|is|are|did|has) (?:it|that|this|they|there|the \w+)(?! (?:cool|ok|okay|fine|"
    r"alright|too late|too early)\b)|how much|what about|"
    r"still)\b"
)
_CONDITION_ON_OTHER_RE = re.compile(r"\bif (?:you|u)\b")


def _only_arranges(text: str, position: int, on_terms: bool) -> bool:
    """What follows the assent at ``position`` only arranges the hand-over and names no price:
    "ok but i wont be off work till 7" still agrees, its "but" pushes back on nothing. A
    condition for the other side ("sure, if you can pick it up today") arranges only when the
    offer answered was itself made on terms (``on_terms``: "$220 if I pick up tomorrow?" ->
    "ok if you can come before noon"); otherwise it waits for the other side's commitment."""
    rest = _without_soft_ifs(text)[position:]
    return (
        _ARRANGEMENT_RE.search(rest) is not None
        and _REOPENING_RIDER_RE.search(rest) is None
        and (on_terms or _CONDITION_ON_OTHER_RE.search(rest) is None)
    )


def _resists(reading: Reading, position: int) -> bool:
    """After a weak acceptance, the turn pushes back: in the accepting sentence, or in a later
    sentence that names a price or opens with a contrast ("OK. But I need it delivered.").
    A later aside without either ("That works. I can't use it anyway!") does not."""
    text = _without_soft_ifs(reading.text)
    # a hesitation the acceptance opens with is not a doubt after it: "hmm ok fine"
    lead = _LEADING_HESITATION_RE.match(text, position)
    position = lead.end() if lead is not None else position
    for start, end in sentence_spans(text):
        if end <= position:
            continue
        if start <= position:  # the accepting sentence
            closing = _is_question(text[start:end]) and _closes(text[position:end])
            if not closing and (
                CONTINUES_RE.search(text, position, end)
                or LATER_DOUBT_RE.search(text, position, end)
            ):
                return True
            continue
        sentence = text[start:end]
        if LATER_DOUBT_RE.search(sentence) or (
            _PUSHBACK_OPENING_RE.search(sentence) and not _GIFT_RE.search(sentence)
        ):
            return True
        names_price = any(start <= m.start < end for m in reading.prices)
        if names_price and CONTINUES_RE.search(sentence):
            return True
    return False


# Words that make an assent follow from what was just said: "oh nice, then yes", "in that case,
# deal"
_SETTLING = r"\b(?:then|in that case|if so)"
_THEN_BEFORE_RE = re.compile(_SETTLING + r"\W*$")
# A clause of three words or more before a closing "yeah" (not "sure" or "ok": those agree).
_POINT_BEFORE_RE = re.compile(r"\w+\W+\w+\W+\w+\W*$")
_AFFIRMATION_LAST_RE = re.compile(r"(?:yeah|yea|yes|yep|yup|ya)\W*$")


def _concedes_a_point(text: str, position: int) -> bool:
    """The weak acceptance at ``position`` is a "yeah" that closes a sentence stating a point, and
    affirms that point only: "location is handy yeah." grants the location, not a price ("sounds
    simple enough, sure" still agrees)."""
    for start, end in sentence_spans(text):
        if start <= position < end:
            return (
                _POINT_BEFORE_RE.search(text, start, position) is not None
                and _AFFIRMATION_LAST_RE.fullmatch(text, position, end) is not None
                and _THEN_BEFORE_RE.search(text, start, position) is None  # "oh nice, then yes"
            )
    return False


# What may come before an acceptance that still opens the turn: "oh thats a good price. any
# wobbles?"
_OPENER_RE = re.compile(r"\W*(?:(?:oh|ah|ahh|wow|well|hmm+|cool|nice)\W+)*")


def _weak_accept_counts(ctx: Context, index: int, _depth: int = 0) -> bool:
    """A weak "OK." counts only if it answers a price or an acceptance, does not push back (the
    turn's first weak acceptance not pushed back after it is the one read: "It's a bit high. But
    ok, that works.", but not a rider that only arranges the hand-over: "ok but i cant get there
    till 6") and does not answer a question about facts ("Is it still available at $600?" ->
    "Yes it is!", "Are you interested?" -> "Yes I am.")."""
    reading = ctx.readings[index]
    answered = ctx.previous_other(index)
    on_terms = answered is not None and any(
        m.kind == "conditional" for m in ctx.readings[answered].prices
    )
    position = next(
        (
            p
            for p in sorted(reading.weak_accepts)
            if (not _answers_a_fact(ctx, index, p) or _settled_by_an_answer(ctx, index, _depth))
            and not (_resists(reading, p) and not _only_arranges(reading.text, p, on_terms))
            and not _concedes_a_point(reading.text, p)
        ),
        None,
    )
    if position is None or DECLINING_FAREWELL_RE.search(reading.text):
        return False
    if any(m.kind == "refused" for m in reading.prices):
        return False
    conditional = [m.amount for m in reading.prices if m.kind == "conditional"]
    # a price with terms agrees only to the same price on the table: "could we do 65?" -> "ok,
    # 65 for the pair."
    if conditional and not all(
        any(_same(c, t) for t in ctx.table(index, _depth + 1)) for c in conditional
    ):
        return False
    asked = [m.amount for m in reading.prices if m.kind == "question" and m.start > position]
    if asked:  # a question may restate the price it agrees to: "Okay, for $470 can you ...?"
        table = ctx.table(index, _depth + 1)
        if any(not any(_same(a, t) for t in table) for a in asked):
            return False
    if (
        _OPENER_RE.fullmatch(reading.text, 0, position) is not None
        and _asks_about_the_item(reading, position)
        and not _explicit(ctx, index)
    ) or _praises_own_price(ctx, index):
        return False
    previous = ctx.previous_other(index)
    if previous is None:
        return False
    prev = ctx.readings[previous]
    if (
        _acknowledges_a_delay(reading.text, prev.text)
        or _notes_the_asking_price(ctx, index)
        or _moves_the_day(prev.text, reading.text)
    ):
        return False
    if _NO_PROBLEM_RE.match(reading.text) and not any(m.kind == "question" for m in prev.prices):
        return False  # "no problem" to thanks or to news, not to "can you do $150?"
    if (
        prev.proposal(ctx.plausible) is not None
        or _asks_for_a_deal(prev)
        or _discounted(ctx, previous) is not None
        or _split_difference(ctx, previous) is not None
    ):
        return True
    # "ok $65 sounds good": the turn names the price it agrees to, put on the table earlier.
    if any(_same(p, t) for p in ctx.stated(index) for t in ctx.table(index, _depth + 1)):
        return True
    # "I saw your offer of $150 and I can't argue with that": it quotes what it accepts.
    if ctx.quoted(index):
        return True
    if _term_granted(ctx, previous) or _answers_a_plea(ctx, index):
        return True
    if _settled_by_an_answer(ctx, index, _depth):
        return True
    # "is it still working?" -> "yes, works great" -> "ok cool, I'll come get it": coming to
    # collect takes the other side's offer still on the table
    if _COMES_TO_COLLECT_RE.search(reading.text) and ctx.table(index, _depth + 1):
        return True
    # "OK." after an acceptance confirms it, but only after one that itself counts: "Yes, it is
    # near the park." -> "Great!" agrees to nothing, nor does "ok" after "nah that's ok, bye".
    if (
        prev.accept is None
        or _depth >= len(ctx.window)
        or (prev.ending is not None and not prev.reopens)
    ):
        return False
    return _accepts(ctx, previous, _depth + 1) or _conditional_accept(ctx, previous)


def _settled_by_an_answer(ctx: Context, index: int, _depth: int = 0) -> bool:
    """The weak acceptance follows an answer that settles it: to the speaker's question ("then
    yes") or to the terms the other side set with its agreement ("fine, I have a van"). Such an
    acceptance counts even though it answers something other than a price."""
    return _accepts_once_answered(ctx, index, _depth) or _grants_the_terms(ctx, index, _depth)


def _grants_the_terms(ctx: Context, index: int, _depth: int = 0) -> bool:
    """The other side agreed with terms ("I can do that but you'll have to carry it down") and
    the speaker takes them ("that's fine, I have a friend to help"): a deal at the price agreed."""
    previous = ctx.previous_other(index)
    if previous is None or not ctx.readings[previous].accepts_with_terms:
        return False
    return bind_price(ctx, previous, _depth + 1) is not None


_REFUSING_OPENING_RE = re.compile(r"^\W*(?:no|nope|nah|sorry|unfortunately)\b")
# An acceptance that the answer just given settles: "ok then", "then yes", "in that case, deal",
# or one that leaves no doubt: "done", "ok sold", "alright im in", "ok works", "oh nice deal".
_SETTLED_RE = re.compile(_SETTLING + r"\b")
_EXPLICIT_ASSENT_RE = re.compile(
    r"^\W*(?:(?:ok|okay|alright|oh|nice|cool|great|sweet|awesome|perfect)\W+)*(?:deal|done|sold|"
    r"i'm in|im in|(?:that )?works(?: for me)?|i'm good with (?:that|it)|im good with (?:that|it)|"
    r"sounds good|say less|bet)\b"
)


def _accepts_once_answered(ctx: Context, index: int, _depth: int = 0) -> bool:
    """The speaker asked about the item or a term while the other side's price stood, got an
    answer without a price, and now agrees "then" or without doubt: "I could do $95 for the
    bundle" -> "does it include the games?" -> "yes, all of them" -> "oh nice, then yes" (or
    "done") is a deal at $95."""
    reading = ctx.readings[index]
    settled = _SETTLED_RE.search(reading.text) or _EXPLICIT_ASSENT_RE.match(reading.text)
    if not reading.weak_accepts or not settled:
        return False
    answer = ctx.previous_other(index)
    if answer is None or ctx.readings[answer].prices or ctx.readings[answer].has_question:
        return False
    if _REFUSING_OPENING_RE.match(ctx.readings[answer].text):
        return False  # "payment plan?" -> "no, cash only" -> "ok, I'll have to save up then"
    asked = ctx.previous_other(answer)
    if asked is None or asked == index or not ctx.readings[asked].has_question:
        return False
    if ctx.readings[asked].prices:
        return False  # the speaker's own price question or counter
    return bool(ctx.table(index, _depth + 1))


# A request for a term of the deal: "could you deliver?", "would you include the leaf?"
_TERM_REQUEST_RE = re.compile(
    r"\b(?:would|could|can|will) (?:you|u)\b[^?]*\b(?:include|throw (?:in|it in|them in)|toss in|"
    r"add|leave)\b"
)
_YES_OPENING_RE = re.compile(
    r"^\W*(?:yes|yeah|yep|yup|ya|sure|of course|definitely|absolutely|for sure|certainly|"
    r"no problem|ok|okay)\b(?!\s+(?:not|but)\b)"
)


_WHEN_WHERE_RE = re.compile(r"\b(?:when|what time|how soon|where)\b")


def _term_granted(ctx: Context, previous: int) -> bool:
    """Turn ``previous`` grants, with a plain yes (or a time or place when asked when or where)
    and no price, a term that the speaker asked for after the price it offered: "best I can do
    is 160" -> "could you deliver?" -> "yeah for sure" -> "perfect!". The speaker's OK that
    follows closes at that price."""
    granted = ctx.readings[previous]
    asking = ctx.previous_other(previous)
    if asking is None or ctx.readings[asking].prices:
        return False
    text = ctx.readings[asking].text
    # "when can I pick it up?" is answered with a time, not a yes: "anytime after 5"
    answered = _YES_OPENING_RE.match(granted.text) is not None or (
        _WHEN_WHERE_RE.search(text) is not None and not _REFUSING_WORD_RE.search(granted.text)
    )
    if (
        granted.prices
        or granted.ending is not None
        or _EXTRA_COST_RE.search(granted.text)
        or not answered
        or _asks_beyond_closing(granted)
        or any(_resists(granted, p) for p in (0, *granted.weak_accepts))
    ):
        return False
    requests = [
        text[a:b]
        for a, b in sentence_spans(text)
        if _is_question(text[a:b])
        and (
            _TERM_REQUEST_RE.search(text[a:b])
            or (_closes(text[a:b]) and ITEM_QUESTION_RE.search(text[a:b]) is None)
        )
    ]
    offering = ctx.previous_other(asking)
    return (
        bool(requests)
        and offering is not None
        and offering != previous
        and (ctx.readings[offering].proposal(ctx.plausible) is not None)
    )


# A bare acknowledgement ("ok", "lol ok", "ok thanks") and the words of a refusal ("no sorry",
# "cant", "then buy it new", "good luck") that no plea holds.
_BARE_ACK_RE = re.compile(
    r"^\W*(?:(?:lol|dang|oh|ah|well|hmm+)\W+)?(?:ok|okay|k|kk|alright|all right|sure|fine)"
    r"(?:\W+(?:thanks|thank you|thx|ty|then|np))?\W*$"
)
# ... and a "yes" or "will do", which grant a point or promise, not a price
_AGREES_WITH_A_POINT_RE = re.compile(r"^\W*(?:yes|yeah|yea|yep|yup|ya|will do)\b")
_REFUSING_WORD_RE = re.compile(
    r"\b(?:no|nope|nah|not|can't|cannot|cant|won't|wont|sorry|firm|lowest|then|good luck|hold out|"
    r"elsewhere|pass|too)\b|n't\b"
)


def _answers_a_plea(ctx: Context, index: int) -> bool:
    """The other side held to its price, naming no number and asking nothing, after the speaker
    pushed back or asked for less: it argued for it ("I can only do $150" -> "that's too low" ->
    "it's all I have" -> "ok fine") or stood firm ("I can do $160" -> "can you go any lower?" ->
    "sorry, that's my best" -> "ok, that works"). The speaker's OK takes that price; a bare "ok",
    a "yes" or "will do" grants a point, not the price."""
    previous = ctx.previous_other(index)
    text = ctx.readings[index].text
    if previous is None or _BARE_ACK_RE.match(text) or _AGREES_WITH_A_POINT_RE.match(text):
        return False
    held = ctx.readings[previous]
    if held.prices or held.has_question or held.ending is not None:
        return False
    own = ctx.previous_other(previous)
    if own is None or own == index:
        return False
    pushback = ctx.readings[own]
    if pushback.prices or pushback.accept is not None or pushback.ending is not None:
        return False
    if pushback.has_question:
        # asked for less: "can you go any lower?", "is that firm?"
        if not _ASKS_FOR_LESS_RE.search(pushback.text):
            return False
    elif held.accept is not None or _REFUSING_WORD_RE.search(held.text):
        return False  # after a pushback, an argument for the price, not a refusal
    offering = ctx.previous_other(own)
    return offering is not None and ctx.readings[offering].proposal(ctx.plausible) is not None


_ASKS_FOR_LESS_RE = re.compile(
    r"\b(?:lower|lowest|less|firm|best|budge|wiggle|flexible|negotiable|room|discount|"
    r"come down|go down|do better|any better|"
    # ... or checks the offer stands: "really?", "you would do that?"
    r"really|seriously|for real|(?:are )?you sure|is that right|you(?:'d| would| will) do that)\b"
)


# The other side puts the decision off: "idk man, let me see if anyone else bites at 180".
_DEFERS_RE = re.compile(
    r"\b(?:(?:let me|(?:i'll|i will|i need to|i have to|gotta)) (?:think|(?:see|check) (?:if|what|"
    r"how|"
    r"whether)|check|ask|sleep on|talk (?:to|with|it)|run (?:it|that|this) (?:by|past))|"
    r"(?:i'll|i will) (?:let you know|get back|message you|text you|call you|email you)|idk|"
    r"not sure yet)\b"
)
# ... or asks to hear back later: "ok well let me know, 265 is my max" -> "will do"
_ASKS_TO_HEAR_RE = re.compile(
    r"\b(?:let me know|keep me posted|hit me up|get back to me|text me|tell me)\b"
)
_PROMISE_RE = re.compile(
    r"^\W*(?:(?:ok|okay|sure|yes|yeah|yep|k)\W+)?(?:will do|i will|sure will)\b"
)


_BARE_OK_RE = re.compile(r"^\W*(?:ok|okay|k|kk|alright|all right|i see|got it)\W*$")


_ASSENT_THEN_ASKS_RE = re.compile(
    r"^\W*(?:ok|okay|k|great|cool|nice|alright|sounds good|perfect|good)\W+(?!deal\b)\w"
)


def _notes_the_asking_price(ctx: Context, index: int) -> bool:
    """A bare "ok" to the asking price stated as a fact, before anyone bargained ("The table is
    $200." -> "ok") notes the price; it does not take it, nor does an assent that goes on to ask
    something ("yes, $200" -> "ok. can you help load it?")."""
    reading = ctx.readings[index]
    asks_on = reading.has_question and _ASSENT_THEN_ASKS_RE.match(reading.text) is not None
    if _BARE_OK_RE.match(reading.text) is None and not asks_on:
        return False
    list_price = _list_price(ctx.scenario)
    previous = ctx.previous_other(index)
    if list_price is None or previous is None:
        return False
    prev = ctx.readings[previous]
    if prev.has_question or _asks_for_a_deal(prev):
        return False
    if any(ctx.readings[j].discount is not None for j in range(index)):
        return False  # "10% off?" bargains without naming a price
    prices = [m.amount for j in range(index) for m in ctx.readings[j].prices]
    return bool(prices) and all(_same(p, list_price) for p in prices)


def _acknowledges_a_delay(text: str, prior: str) -> bool:
    """A weak "OK" that answers the other side putting off its decision ("let me see if anyone
    else bites at $180" -> "ok well hit me up") or a promise to get back ("let me know" -> "will
    do") agrees to nothing."""
    spans = sentence_spans(prior)
    last = prior[spans[-1][0] : spans[-1][1]] if spans else prior
    deferral = _DEFERS_RE.search(prior)
    if deferral is not None:
        # ... unless a later sentence makes a fresh offer ("let me think. ok $180 final")
        end = next((b for a, b in spans if a <= deferral.start() < b), len(prior))
        if not re.search(PRICE, prior[end:]):
            return True
    return bool(_ASKS_TO_HEAR_RE.search(last) and _PROMISE_RE.match(text))


# Words that agree to a price in so many words (not "That's great", which may greet a fact).
_EXPLICIT_ACCEPT_RE = re.compile(
    r"\b(?:(?:fine|ok|okay|good) (?:with|by) me|works for me|(?:i|we) can (?:do|accept|live with) "
    r"(?:that|it|"
    + PRICE
    + r")|that works|"
    + PRICE
    + r" (?:is|would be|works)(?: \w+)? (?:fine|ok|"
    r"okay|good|great|perfect)?)"
)


def _explicit(ctx: Context, index: int) -> bool:
    """The turn says what it agrees to in so many words, before any question ("That's fine with
    me.", "Sure, I can do $150.", "$90 is fine."), not a bare "OK": a question about the item
    after it does not take the agreement back."""
    text = ctx.readings[index].text
    spans = sentence_spans(text)
    first_question = next((a for a, b in spans if _is_question(text[a:b])), len(text))
    head = text[:first_question]
    return bool(ctx.stated(index)) or _EXPLICIT_ACCEPT_RE.search(head) is not None


def _answers_a_fact(ctx: Context, index: int, position: int) -> bool:
    """The weak acceptance at ``position`` answers a question about facts, not a price: it goes
    on to state a fact ("Yes it is!", "Ok, good to know"), the rest of the turn wishes for
    another price ("Okay. I was hoping to pay less."), or it opens the turn and the other side's
    last sentence asked about the item or the listing ("Are you interested?", "Is the price
    firm?")."""
    text = ctx.readings[index].text
    later = [(a, b) for a, b in sentence_spans(text) if a > position]
    # (a question about the other side's wishes wishes nothing: "when are you hoping to move in?")
    if any(WISH_RE.search(text, a, b) and not _is_question(text[a:b]) for a, b in later):
        return True
    previous = ctx.previous_other(index)
    prior = ctx.readings[previous].text if previous is not None else ""
    spans = sentence_spans(prior)
    asked = prior[spans[-1][0] : spans[-1][1]] if spans else ""  # its last sentence
    if _asks_to_agree_strictly(asked) or (
        previous is not None and _split_difference(ctx, previous) is not None
    ):
        return False  # "Is $200 a deal?" -> "Yes it is." agrees, as "Split the difference?" -> "ok"
    phrase = re.match(r"\W*\w+(?:\s+(?:thing|right))?", text[position:])
    if FACTUAL_ANSWER_RE.match(text, position + (phrase.end() if phrase else 0)):
        return True
    if position == 0 and _is_question(asked) and ITEM_QUESTION_RE.search(asked) is not None:
        return True
    # A "yes" that opens the turn answers the other side's question; when none of its questions
    # asks to agree to a price ("It's $120. Do you live nearby?" -> "Yes, ten minutes away."),
    # the "yes" agrees to no price, unless the turn also made a new offer ("I can do $2200. Can I
    # put up cameras?" -> "Yes absolutely!" takes both).
    questions = [prior[a:b] for a, b in spans if _is_question(prior[a:b])]
    offer = ctx.readings[previous].proposal(ctx.plausible) if previous is not None else None
    list_price = _list_price(ctx.scenario)
    # ... not a price the answering side had put on the table itself, echoed with a doubt ("22
    # maybe... any other perks?" to the seller's $22: "yea, it charges fast" answers the perks)
    new_offer = (
        offer is not None
        and (list_price is None or not _same(offer, list_price))
        and not any(_CLARIFYING_PRICE_RE.search(q) for q in questions)
    )
    if offer is not None and new_offer and previous is not None and HESITATION_RE.search(prior):
        own = [
            m.amount for j in (index, *ctx.other_turns(previous)) for m in ctx.readings[j].prices
        ]
        new_offer = not any(_same(offer, o) for o in own)
    # ... the "yes" opens the turn, or its first sentence after a greeting ("Hi, thanks for
    # reaching out. Yes small dogs are allowed ...")
    opens = position == 0 or (
        any(a == position for a, _ in sentence_spans(text))
        and _GREETING_ONLY_RE.fullmatch(text, 0, position) is not None
    )
    return (
        not new_offer
        and bool(questions)
        and opens
        and YES_OPENING_RE.match(text[position:]) is not None
        and not any(_asks_to_agree(q) for q in questions)
    )


_GREETING_ONLY_RE = re.compile(
    r"\W*(?:(?:hi|hello|hey|thanks|thank you|thx)(?: there)?(?: for (?:reaching out|"
    r"your (?:message|"
    r"interest|inquiry)|asking|writing))?\W*)+"
)


def _asks_to_agree_strictly(sentence: str) -> bool:
    """The sentence asks for agreement in so many words ("Would you take $40?", "Deal?"), not
    for an offer ("Would you like to make an offer?")."""
    return bool(
        (CLOSING_ASK_RE.search(sentence) or DEAL_QUESTION_RE.search(sentence))
        and not OFFER_INVITATION_RE.search(sentence)
    )


def _asks_to_agree(question: str) -> bool:
    """The question asks the other side to agree to a price or a deal ("Would you take $40?",
    "Does that work?", "Deal?", "Ok?"), not about anything else ("Do you live nearby?", "Would
    you like to make an offer?", "Is that too much?")."""
    if OFFER_INVITATION_RE.search(question) or _CLARIFYING_PRICE_RE.search(question):
        return False
    return bool(
        CLOSING_ASK_RE.search(question)
        or DEAL_QUESTION_RE.search(question)
        or AGREE_TAG_RE.search(question)
        or re.search(PRICE, question)
        or len(re.findall(r"[a-z']+", question)) <= 2
    )


# A question that checks what a price covers: "Is it $2800 for the whole unit?", "Is that $50
# including shipping?"; a "yes" to it agrees to nothing.
_CLARIFYING_PRICE_RE = re.compile(
    r"\b(?:(?:is|does) (?:it|that|this|the (?:price|rent|cost)|the)|(?:so )?(?:it's|that's)) "
    + PRICE
    + r"\s?(?:(?:rent|price|a month|monthly) )?(?:for|including|include|with|per|a month|a week|"
    r"monthly|total|plus|each|or|/)(?!\w)|"
    # "is $1588 the rent after the special?", "which phone is $150, the moto or the huawei"
    r"\bis " + PRICE + r" (?:the|your) (?:rent|price|total|cost|monthly)\b|"
    r"\bwhich (?:\w+ )?(?:is|are) "
    + PRICE
    + r"|"
    # "is that both tables for 100 or 100 each", "whats the 50 for?", "is 3500 per month?"
    + PRICE
    + r"(?: total)? or (?:(?:"
    + PRICE
    + r"|\d+) )?(?:each|apiece|per)\b|"
    r"\bwhat(?:'s| is) (?:the )?" + PRICE + r" for\b|"
    # "so the 1448 is for a year", "is 275 for both?", "so i'd pay you 39 every month?"
    r"\bthe " + PRICE + r" (?:is )?(?:for|per|including|includes)\b|"
    r"\bis " + PRICE + r" (?:for|per) (?:both|each|all|the (?:pair|set|lot)|one|two)\b|"
    r"\bso (?:i|we)(?:'d| would)? (?:pay|owe)(?: you)? " + PRICE + r"|"
    # "hi the 2br is 2100?"
    r"\b(?:the|this|that) [\w ]{1,20}? is " + PRICE + r"\s*(?:/\s?\w+|a month|per \w+)?\s*\?|"
    r"\bis "
    + PRICE
    + r"\s?(?:per \w+|a month|monthly|/\s?\w+)(?![^?]*\b(?:ok|okay|fine|good|alright|"
    r"doable|possible|acceptable|work)\b)"
)


def _praises_own_price(ctx: Context, index: int) -> bool:
    """A weak acceptance that names no price, in a turn that proposes its own price, off the
    other side's table: "$500 is my final offer. That is a fair price." and "How about $19?
    That is a fair price for it." praise the speaker's own offer."""
    if ctx.stated(index):
        return False
    table = ctx.table(index, len(ctx.window))
    own = [
        m.amount
        for m in ctx.readings[index].prices
        if m.kind in _OFFER_KINDS and ctx.plausible(m.amount)
    ]
    return any(not any(_same(p, t) for t in table) for p in own)


def _asks_about_the_item(reading: Reading, position: int) -> bool:
    """After a weak "OK", the turn asks about something other than closing the deal ("Ok,
    great. What condition is it in?"): the "OK" acknowledges an answer, it does not accept.
    Checked only for a turn that opens with its weak acceptance."""
    text = reading.text
    return any(
        start >= position and _is_question(text[start:end]) and not _closes(text[start:end])
        for start, end in sentence_spans(text)
    )


def _asks_for_a_deal(reading: Reading) -> bool:
    """The turn asks the other side to agree ("so we got a deal?"): a "yes" to it accepts."""
    text = reading.text
    return any(
        _is_question(text[start:end]) and DEAL_QUESTION_RE.search(text, start, end)
        for start, end in sentence_spans(text)
    )


def _conditional_accept(ctx: Context, index: int) -> bool:
    """Turn ``index`` agrees to the price on the table on a condition ("I can do that if you pick
    it up", "Yes, if you deliver"): not a deal yet, but the other side's "OK" then closes it."""
    reading = ctx.readings[index]
    position = reading.accept
    previous = ctx.previous_other(index)
    if position is None or previous is None or ctx.readings[previous].table_offer() is None:
        return False
    if reading.ending is not None or reading.has_question:
        return False
    if any(m.kind in {"refused", "question"} for m in reading.prices):
        return False
    rest = reading.text[position:]
    condition = _CONDITION_ONLY_RE.search(rest)
    if condition is None:
        return False
    resisting = CONTINUES_RE.search(rest)
    return resisting is None or resisting.start() >= condition.start()


def _accepts(ctx: Context, index: int, _depth: int = 0) -> bool:
    """Turn ``index`` accepts (a strong acceptance, or a weak one that counts)."""
    if ctx.readings[index].strong_accept is not None:
        return True
    return _weak_accept_counts(ctx, index, _depth)


def _puts_price_on_table(reading: Reading) -> bool:
    return reading.standing_offer() is not None or reading.has_question


# A price stated with a hedge, a duty for the other side, a comparison, a scoff or someone
# else's offer is no commitment: "I might do $150", "$150 is possible", "$150 would be tough",
# "for $150 you have to pick it up", "$150 and you pick it up", "$150 would barely cover what I
# paid", "lol 150", "I'd rather not go to 150", "I already turned down 150", "I could think about
# 150".
_HEDGE_RE = re.compile(
    r"\b(?:might|(?:i|we|it|that|this) may|may be|possibly|(?<!as soon as )possible|a stretch|"
    r"pushing it|cutting it close|"
    r"(?:be|is|'s|sounds|seems) (?:a (?:bit|little) |pretty |really |very |kinda |kind of )?"
    r"(?:tough|hard|difficult)|you(?:'d|'ll| would| will)? (?:have|need) to|you must|"
    r"and you(?:'ll| will)? (?:pick|come|get|grab|pay|bring|haul|deliver|move)|"
    r"barely|hardly|huh|lol|lmao|seriously|"
    r"rather not|prefer not|turned down|"
    r"(?:others|someone|somebody|people|another buyer)(?: have| has| already)* offered|"
    r"think about|thinking about)\b"
)


def decide(ctx: Context, last: int) -> PriceVerdict:
    """The state after turn ``last`` of the context's window (steps 1-5 of the module doc)."""
    reading = ctx.readings[last]
    accepts = _accepts(ctx, last)

    if reading.ending is not None and not reading.reopens:
        if reading.farewell_only:
            declines = (
                DECLINING_FAREWELL_RE.search(reading.text) is not None
                or _BARE_OK_BYE_RE.match(reading.text) is not None
            )
            if accepts and (reading.strong_accept is not None or not declines):
                return _deal(ctx, last)
            return _carry_over(ctx, last, default=PriceVerdict("no_deal", reason="walk_away"))
        strong = reading.strong_accept
        if strong is None or strong < reading.ending:
            return PriceVerdict("no_deal", reason=reading.ending_reason)

    # Closings read from the turns before, in this order: a commitment to the other side's
    # condition binds the price set on that condition, not its fallback ("$721 if you pick it up
    # with cash tonight; after tonight $900." -> "OK, I will bring the cash now!" is a deal at
    # $721); a closing offer taken; a deal declared with the hand-over; the hand-over confirmed.
    closings: tuple[tuple[Callable[[Context, int], float | None], str], ...] = (
        (_commits_to_condition, "commitment to the condition"),
        (_takes_closing_offer, "closing offer taken"),
        (_declares_with_hand_over, "acceptance"),
        (_confirms_the_hand_over, "acceptance"),
        (_thanked_then_handed_over, "acceptance"),
        (_closes_through_the_form, "acceptance"),
    )
    for closing, why in closings:
        price = closing(ctx, last)
        if price is not None:
            return PriceVerdict("deal", price=price, reason=why)

    if accepts:
        if _counter_offer(ctx, last) or _asks_again(ctx, last):
            return PriceVerdict("ongoing", reason="counter-offer")
        return _deal(ctx, last)

    if reading.ending is None and _only_actions(ctx.window[last]["text"]):
        return _carry_over(ctx, last, default=PriceVerdict("ongoing"), acting=True)

    # Step 4: the last turn states the other side's standing offer as its own firm price.
    firm = reading.firm_offer()
    previous = ctx.previous_other(last)
    if (
        firm is not None
        and previous is not None
        and not reading.has_question
        and not HESITATION_RE.search(reading.text)
        and ctx.plausible(firm)
        and not _inside_condition(reading, firm)
        and not FINAL_OFFER_RE.search(reading.text)
        and not _resists_after_price(reading, firm)
        and not _CLARIFYING_PRICE_RE.search(reading.text)
        and not _HEDGE_RE.search(reading.text)
    ):
        other = ctx.readings[previous].standing_offer()
        asked_what_it_covers = _CLARIFYING_PRICE_RE.search(ctx.readings[previous].text)
        if other is not None and _same(firm, other) and not asked_what_it_covers:
            return PriceVerdict("deal", price=firm, reason="both sides stated the price")

    # An acknowledgement or a farewell keeps a finished round finished
    # ("I'll pass." -> "Alright, no problem. Take care!").
    if ACKNOWLEDGE_RE.search(reading.text):
        return _carry_over(ctx, last, default=PriceVerdict("ongoing"))
    return PriceVerdict("ongoing")


_CONTRAST_AFTER_PRICE_RE = re.compile(r"\b(?:but|however|though|although|instead|rather|prefer)\b")
_EXTRA_AFTER_PRICE_RE = re.compile(r"\s*(?:plus|\+)\s")  # "$200 plus $10 shipping"


# Nothing but "ok" and a goodbye takes leave, it agrees to nothing: "the rent is 1795 we dont
# negotiate" -> "ok bye".
_BARE_OK_BYE_RE = re.compile(
    r"^\W*(?:ok|okay|k|alright|all right|fine)\W+(?:bye|goodbye|good bye|cya|"
    r"have a (?:good|nice|great) (?:day|one|night|evening))\W*$"
)


def _resists_after_price(reading: Reading, amount: float) -> bool:
    """After stating ``amount``, the turn pushes back ("Yes, I could pay $450 but I'd prefer
    $420."): stating the price there does not agree to it."""
    ends = [m.end for m in reading.prices if _same(m.amount, amount)]
    return bool(ends) and (
        _CONTRAST_AFTER_PRICE_RE.search(reading.text, ends[-1]) is not None
        or _EXTRA_AFTER_PRICE_RE.match(reading.text, ends[-1]) is not None
    )


def _inside_condition(reading: Reading, amount: float) -> bool:
    """The speaker states the price inside an "if" about themselves ("if I do $40 I could not
    afford ..."): a hypothetical, not a firm price.  Terms set for the other side ("if you pay
    cash, I will sell it for $56") do not count here."""
    text = reading.text
    for mention in reading.prices:
        if not _same(mention.amount, amount):
            continue
        start = max((a for a, _ in sentence_spans(text) if a <= mention.start), default=0)
        if _OWN_HYPOTHETICAL_RE.search(text, start, mention.start):
            return True
    return False


_OWN_HYPOTHETICAL_RE = re.compile(
    r"\bif (?:i|we|it (?:had|came|were|was|included)|they (?:had|came|were|included))\b[^.!?,]*$"
)


def _only_actions(text: str) -> bool:
    """The turn is role-play only ("*hands over the cash*"): nothing is said outside actions."""
    return ACTION_RE.search(text) is not None and not ACTION_RE.sub(" ", text).strip(" \t\n.,;:!-")


_ON_THE_WAY_RE = re.compile(
    r"\b(?:on my way|omw|heading (?:over|out|there)|leaving now|be there|"
    r"see you (?:soon|then|there|today|tonight|tomorrow|in a bit))\b"
)


def _past_a_closing_answer(ctx: Context, previous: int) -> int:
    """The other side's conditional offer behind its plain answer to the speaker's question about
    closing ("$150 if you come today" -> "what's the address?" -> "12 Elm street"): the turn
    whose condition a commitment now answers; else ``previous`` itself."""
    answer = ctx.readings[previous]
    if answer.prices or answer.has_question or answer.ending is not None:
        return previous
    asking = ctx.previous_other(previous)
    if asking is None or not _only_asks_how_to_close(ctx.readings[asking]):
        return previous
    offering = ctx.previous_other(asking)
    if offering is None or CONDITION_RE.search(ctx.readings[offering].text) is None:
        return previous
    return offering


def _commits_to_condition(ctx: Context, index: int) -> float | None:
    """The price turn ``index`` closes by committing to the condition of the other side's latest
    turn: "I can do $30 if you come get it today." (or "I'll go that low if you pick it up." to a
    $30 offer) -> "I'll come by this afternoon." is a deal at $30. The commitment does the
    errand the condition named (collecting, paying, delivering, meeting, signing), asks nothing,
    resists nothing and names no other price."""
    reading = ctx.readings[index]
    previous = ctx.previous_other(index)
    if previous is None or reading.ending is not None or _asks_beyond_closing(reading):
        return None
    previous = _past_a_closing_answer(ctx, previous)
    prev = ctx.readings[previous]
    condition = CONDITION_RE.search(prev.text)
    if condition is None or not _errand_or_time(next(g for g in condition.groups() if g)):
        return None
    clause = re.split(r"[.!?;,]| but | otherwise ", prev.text[condition.start() :])[0]
    asked = set(re.findall(r"[a-z]+", clause))
    errand = frozenset().union(*(e for e in ERRANDS if e & asked))
    # Pushing back first and committing after ("money is tight. heading over with the cash!")
    # still commits; pushing back after every acceptance does not.
    if HESITATION_RE.search(reading.text) or all(
        _resists(reading, p) for p in (*reading.weak_accepts, 0)
    ):
        return None
    conditional = [m.amount for m in prev.prices if m.kind == "conditional"]
    if conditional:
        price: float | None = conditional[-1]
    elif _conditional_accept(ctx, previous):
        price = bind_price(ctx, previous)
    elif _bare_condition(ctx, previous):
        price = next(iter(ctx.table(previous)), None)
    elif (offer := _offer_after_condition(prev, condition.start())) is not None:
        price = offer
    else:
        return None
    if price is None or not ctx.plausible(price):
        return None
    if any(
        m.kind != "reference" and ctx.plausible(m.amount) and not _same(m.amount, price)
        for m in reading.prices
    ):
        return None
    words = set(re.findall(r"[a-z]+", reading.text))
    if _moves_the_day(prev.text, reading.text) or _other_span(clause, reading.text):
        return None
    errand = errand | (asked - _CONDITION_FILLER)
    commits = any(
        COMMITMENT_RE.search(reading.text[start:end]) or _ASSENT_RE.search(reading.text[start:end])
        for start, end in sentence_spans(reading.text)
    )
    if _PLAIN_YES_RE.match(reading.text):
        return price  # "of course, tomorrow?" to "ok, but you pick it up"
    if not commits:
        return None
    if errand & _EXTRAS:
        return price  # adding the extra needs no errand done: "sure", "I can do that"
    if errand & ERRANDS[0] and _ON_THE_WAY_RE.search(reading.text):
        return price  # coming to collect: "great, on my way", "ok see you soon"
    # the errand done ("signed" for "sign"), or a day named for a deadline ("by friday" ->
    # "i can do thursday")
    if {_stem(w) for w in words} & {_stem(w) for w in errand} or (
        _names_a_time(asked) and _names_a_time(words)
    ):
        return price
    return None


_SPAN_RE = re.compile(r"\b(\d+)\s*(month|week|day|year)s?\b")


def _other_span(condition: str, text: str) -> bool:
    """The answer names another length than the condition asked: "if you sign for 18 months" ->
    "I can only do 12 months"."""
    asked = dict((unit, n) for n, unit in _SPAN_RE.findall(condition))
    return any(unit in asked and asked[unit] != n for n, unit in _SPAN_RE.findall(text))


_SAME_DAY = frozenset({"today", "tonight", "now", "asap"})
_LATER_DAY = frozenset(
    {"tomorrow", "tmrw", "tmr", "weekend", "next", "monday", "tuesday", "wednesday", "thursday"}
    | {"friday", "saturday", "sunday"}
)


def _moves_the_day(condition: str, text: str) -> bool:
    """``text`` answers a condition to be met today (``condition``: "$430 if you pick it up
    today") with a later day ("I'll pick it up tomorrow"): new terms, not the ones offered."""
    found = CONDITION_RE.search(condition)
    if found is None:
        return False
    asked = set(re.findall(r"[a-z]+", re.split(r"[.!?;]", condition[found.start() :])[0]))
    words = set(re.findall(r"[a-z]+", text))
    # "I can't come today, tomorrow ok?" names the same day only to refuse it
    refused = _SAME_DAY_REFUSED_RE.search(text) is not None
    return bool(asked & _SAME_DAY and words & _LATER_DAY and (refused or not words & _SAME_DAY))


_SAME_DAY_REFUSED_RE = re.compile(
    r"(?:\b(?:can't|cannot|cant|not|won't|unable)\b|n't\b)[^.!?]{0,30}\b(?:today|tonight|now)\b"
)


def _names_a_time(words: set[str]) -> bool:
    return any(_WHEN_RE.fullmatch(word) for word in words)


# A plain yes to the condition: "Of course.", "for sure, tomorrow?"
_PLAIN_YES_RE = re.compile(
    r"^\W*(?:of course|for sure|definitely|absolutely|certainly|no problem|say less|bet|works)\b"
    r"(?!\s+not\b)"
)


def _offer_after_condition(reading: Reading, start: int) -> float | None:
    """The firm price a turn states after its condition, in the same sentence: "if you can sign
    the lease by friday i can do 2100"."""
    for a, b in sentence_spans(reading.text):
        if a <= start < b:
            offers = [m.amount for m in reading.prices if m.kind == "offer" and start < m.start < b]
            return offers[-1] if offers else None
    return None


def _errand_or_time(word: str) -> bool:
    """The word a condition turns on is an errand ("pick", "pay") or a time ("sunday")."""
    return word in ERRAND_WORDS or _WHEN_RE.fullmatch(word) is not None


def _asks_beyond_closing(reading: Reading) -> bool:
    """The turn asks something other than how to close ("Saturday morning ok?" closes)."""
    text = reading.text
    return any(_is_question(text[a:b]) and not _closes(text[a:b]) for a, b in sentence_spans(text))


# Words of a condition that name no errand: a reply that repeats the rest ("if you can pick it up
# Saturday morning" -> "Saturday morning is perfect.") commits to it.
_CONDITION_FILLER = frozenset(
    [
        "if",
        "you",
        "can",
        "could",
        "will",
        "would",
        "are",
        "be",
        "able",
        "to",
        "willing",
        "just",
        "please",
        "ok",
        "okay",
        "fine",
        "with",
        "it",
        "them",
        "up",
        "the",
        "a",
        "an",
        "this",
        "that",
        "my",
        "me",
        "i",
        "we",
        "and",
        "or",
        "then",
        "for",
        "of",
        "in",
        "on",
        "at",
        "by",
        "is",
        "was",
        "so",
        "do",
        "get",
        "come",
    ]
)
# Assent to the condition itself: "Cash is fine.", "Pickup is no problem."
_ASSENT_RE = re.compile(
    r"\b(?:is|are|works?|would be) (?:fine|ok|okay|no problem|good|perfect)\b|\bworks\b(?! for you)"
)


def _bare_condition(ctx: Context, index: int) -> bool:
    """Turn ``index`` answers the price on the table with a condition alone, naming no price:
    "Can you go to $140?" -> "Only if you come get it yourself."
    """
    reading = ctx.readings[index]
    return (
        _BARE_CONDITION_RE.match(reading.text) is not None
        and not reading.prices
        and not reading.has_question
        and reading.ending is None
        and bool(ctx.table(index))
    )


_BARE_CONDITION_RE = re.compile(
    r"\W*(?:(?:ok|okay|sure|yes|yeah)\W+)?(?:only )?(?:if|as long as) you\b"
)


# An offer that closes the deal once taken: "12k even and it's yours", "$1700 and the place is
# yours", "Let's make it $40 and we have a deal", "$900 and we're done".
_CLOSING_OFFER_RE = re.compile(
    PRICE
    + r"[^.!?$]{0,16}?\band (?:(?:it's|its|it is|they're|they are|the \w+ (?:is|are)) (?:all )?yours|"
    r"(?:it's|it is|that's) a deal|(?:we|you)(?:'ve| have)? (?:got |have )?(?:a|yourself a|"
    r"ourselves "
    r"a) deal|(?:we're|we are|were) (?:done|good|set)|you can have (?:it|them))\b"
)
# Taking it: thanks, joy or slang that says yes ("thank you!!", "yay", "say less"), or a
# question or commitment that arranges the hand-over.
_TAKING_RE = re.compile(
    r"^\W*(?:(?:oh|omg|wow|yes|yay|ok|okay)\W+)*(?:thanks?|thank you|thx|ty|tysm|yay|awesome|sweet|"
    r"amazing|perfect|say less|bet)\b"
)


def _takes_closing_offer(ctx: Context, index: int) -> float | None:
    """Turn ``index`` takes the other side's closing offer ("ok 12k even and it's yours" ->
    "thank you!! *hands over the cash*"): with thanks or joy, or by arranging the hand-over,
    naming no other price and neither hesitating nor pushing back."""
    reading = ctx.readings[index]
    previous = ctx.previous_other(index)
    if previous is None or reading.ending is not None or HESITATION_RE.search(reading.text):
        return None
    prev = ctx.readings[previous]
    closing = list(_CLOSING_OFFER_RE.finditer(prev.text))
    if not closing or prev.has_question:
        return None
    offered = [
        m.amount
        for m in prev.prices
        if m.kind in _OFFER_KINDS and m.start <= closing[-1].start() and ctx.plausible(m.amount)
    ]
    if not offered:
        return None
    price = offered[-1]
    if any(not _same(m.amount, price) and ctx.plausible(m.amount) for m in reading.prices):
        return None
    text = ACTION_RE.sub(" ", reading.text)
    if CONTINUES_RE.search(text):
        return None
    arranging = any(_is_question(text[a:b]) and _closes(text[a:b]) for a, b in sentence_spans(text))
    if _TAKING_RE.match(text) or arranging or _accepts(ctx, index):
        return price
    return None


_ASSENT_OPENING_RE = re.compile(r"^\W*(?:fine|ok|okay|alright|sure|deal)\W")
_HAND_OVER_RE = re.compile(
    r"\b(?:i(?:'ll| will) (?:give|send|text) you (?:the|my) address|you can (?:bring|drop|"
    r"pick) (?:it|them)|"
    r"i(?:'ll| will) (?:pick (?:it|them) up|come (?:by|get|pick)|be there)|see you (?:then|"
    r"tomorrow|"
    r"tonight|soon))\b"
)


def _declares_with_hand_over(ctx: Context, index: int) -> float | None:
    """Turn ``index`` assents, names a price and arranges the hand-over, asking nothing, while
    the other side's price is out of the window: "Fine. $1,800. I will give you the address. You
    can bring it over tomorrow." declares the deal at $1,800."""
    reading = ctx.readings[index]
    if (
        ctx.previous_other(index) is None
        or ctx.table(index)
        or reading.ending is not None
        or reading.has_question
        or not _ASSENT_OPENING_RE.match(reading.text)
        or not _HAND_OVER_RE.search(reading.text)
        or CONTINUES_RE.search(reading.text)
    ):
        return None
    spans = sentence_spans(reading.text)
    head = spans[1][1] if len(spans) > 1 else len(reading.text)
    named = [m.amount for m in reading.prices if m.kind == "offer" and m.start < head]
    others = {m.amount for m in reading.prices if ctx.plausible(m.amount)}
    if len(named) != 1 or not ctx.plausible(named[0]) or len(others) > 1:
        return None
    return named[0]


def _carry_over(
    ctx: Context, last: int, default: PriceVerdict, *, acting: bool = False
) -> PriceVerdict:
    """The state before turn ``last`` if the round was already over, else ``default``
    (``acting``: the turn is role-play only, whatever prices its actions name)."""
    reading = ctx.readings[last]
    if not acting and (_puts_price_on_table(reading) or HESITATION_RE.search(reading.text)):
        return PriceVerdict("ongoing") if default.state == "no_deal" else default
    if last > 0:
        before = decide(ctx, last - 1)
        if before.terminal:
            return before
    return default


def _conditional_price(ctx: Context, index: int) -> float | None:
    """A weak "OK, that works." to "$132 if I pick it up?" accepts the price with its terms."""
    if ctx.readings[index].strong_accept is not None:
        return None
    for j in ctx.other_turns(index):
        offer = ctx.readings[j].table_offer()
        if offer is not None:
            return offer if ctx.plausible(offer) else None
    return None


def _named_anyhow(ctx: Context, index: int) -> float | None:
    """The last resort of an acceptance that binds no price on the table: the price its own
    accepting clause names, in whatever role but a refused one ("Great, deal at $420 if it comes
    with lights then!"), else the latest price the other side named in the window, neither
    refused nor a reference ("It retails for $450 new" is not what it asks) unless it quotes the
    acceptor ("You said $450?")."""
    reading = ctx.readings[index]
    own = [
        m.amount
        for m in reading.prices
        if m.kind != "refused"
        and ctx.plausible(m.amount)
        and any(a <= m.start < b for a, b in reading.accept_regions)
    ]
    if own:
        return own[-1]
    for j in ctx.other_turns(index):
        quoted = ctx.quotes(j)
        named = [
            m.amount
            for m in ctx.readings[j].prices
            if ctx.plausible(m.amount)
            and (m.kind not in {"refused", "reference"} or m.start in quoted)
        ]
        if named:
            return named[-1]
    return None


def _deal(ctx: Context, index: int) -> PriceVerdict:
    price = bind_price(ctx, index)
    if price is None:
        price = _conditional_price(ctx, index)
    if price is None:
        price = _named_anyhow(ctx, index)
    if price is None:
        return PriceVerdict("deal", price=None, reason="price_not_found")
    return PriceVerdict("deal", price=price, reason="acceptance")


class PriceRulesJudge(RulesJudge[PriceVerdict]):
    """Keyword-and-price rules that label the state after the last turn of a window."""

    def empty(self) -> PriceVerdict:
        """``ongoing``, reason ``empty window``."""
        return PriceVerdict("ongoing", reason="empty window")

    def read(self, window: Sequence[Turn], scenario: Mapping[str, Any] | None) -> PriceVerdict:
        """Decide ``ongoing``, ``deal`` (with its price) or ``no_deal`` after the last turn."""
        ctx = Context.read(window, scenario)
        return decide(ctx, ctx.last)
