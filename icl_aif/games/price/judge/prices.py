"""Find the prices in one utterance and say what role each plays.

Extraction
----------
A *price* is a number with a money marker (``$15``, ``15$``, ``$ 15``, ``USD 14``, ``14 USD``,
``14 dollars``, ``15 bucks``, ``50 cents``, ``$1.2k``), a spelled-out amount with a marker
(``fifteen dollars``, ``one hundred and twenty dollars``, ``a dollar fifty``), a spoken pair
(``twelve fifty`` is 12.5, ``two twenty`` is 220; see :func:`find_prices` for the ``scale`` hint),
or a bare number next to a price cue (``how about 15?``, ``I can do 14``, ``Ten and it's yours``).
A dollar amount followed by cents (``12 dollars and 50 cents``) is one price.  Differences
(``fifty off``, ``$5 more``) are not prices.

Roles
-----
Each mention gets one kind, checked in this order (the first that applies wins):

``refused``
    the speaker turns the price down: ``$12 is too low``, ``I can't do $18``, ``No deal at $12``,
    ``Can you go lower than $15?``, or an echo such as ``$12? No way.``
``reference``
    a price that is not on the table: ``I saw one for $14 elsewhere``, ``it cost me $8``,
    ``these used to go for $25``, ``the shop next door sells them for $11``, ``you offered $12``.
``conditional``
    a price tied to extra terms: ``$15 if you buy two``, ``I could do $12 if you pay cash today``.
    A price inside the condition itself (``If you can do $14, we have a deal``) is an offer.
``question``
    a price asked as a question: ``Would you take $13?``, ``Deal at $15?``.
``offer``
    anything else: a firm price on the table, including limits (``I can't go lower than $15``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

__all__ = [
    "OFFER_KINDS",
    "QUOTED_BEFORE_RE",
    "SOFT_IF_RE",
    "PriceKind",
    "PriceMention",
    "discount",
    "find_prices",
    "names_a_price",
    "normalize",
    "sentence_spans",
    "standing_offer",
    "with_apostrophes",
    "with_sentence_breaks",
    "without_item",
    "without_positive_negations",
]

PriceKind = Literal["offer", "question", "reference", "conditional", "refused"]

# ---------------------------------------------------------------------------------------------
# Number words
# ---------------------------------------------------------------------------------------------

_UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
}
_TEENS = {
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fourty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_NUMBER_WORDS = [*_UNITS, *_TEENS, *_TENS, "hundred", "thousand"]
_WORD = r"(?:" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
# A run of number words, joined by spaces, hyphens or "and"; "a hundred" counts as well.
_WORD_RUN_RE = re.compile(
    rf"\b(?:an?\s+(?=(?:hundred|thousand)\b))?{_WORD}(?:(?:\s+and\s+|[\s-]+){_WORD})*\b",
    re.IGNORECASE,
)
_TOKEN_RE = re.compile(r"[a-z]+", re.IGNORECASE)

_DIGITS_RE = re.compile(
    r"(?<![\w.,/])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w,]\d|/\d|\d)|(?<![\w.])\.\d{1,2}\b"
)

# ---------------------------------------------------------------------------------------------
# Money markers and cues
# ---------------------------------------------------------------------------------------------

_PREFIX_RE = re.compile(r"(?:US\s?\$|\$|USD|US dollars?)\s?$", re.IGNORECASE)
_THOUSANDS_SUFFIX_RE = re.compile(r"[kK]\b")
_GRAND_RE = re.compile(r"\s?grand\b", re.IGNORECASE)
_HUNDRED_RE = re.compile(r"\s?hundred\b", re.IGNORECASE)
_K_ABOVE_LEVEL = 3.0  # a "k" amount over three times the price level is no price
# Before a bare number: an age ("my son is 7"), not a price.
_AGE_BEFORE_RE = re.compile(
    r"\b(?:son|daughter|kids?|child|children|boy|girl|nephew|niece|grandson|granddaughter|he|she)"
    r"(?:'s| is| are| turns| turned)\s+$",
    re.IGNORECASE,
)
# After "5k": not money ("5k miles", "10k run", "4k video").
_K_UNIT_AFTER_RE = re.compile(
    r"\s*(?:(?:mostly|highway|city|original|total|actual|road)\s+)*(?:mi\b|miles?|km|kms|run|race|"
    r"steps|views|followers|subscribers|resolution|video|"
    r"display|tv|monitor|screen|rpm)",
    re.IGNORECASE,
)
_DOLLAR_SUFFIX_RE = re.compile(r"\s?(?:\$|USD\b|US dollars?\b|dollars?\b|bucks?\b)", re.IGNORECASE)
_CENT_SUFFIX_RE = re.compile(r"\s?(?:cents?\b|¢)", re.IGNORECASE)
_CENTS_JOINER_RE = re.compile(r"\s*,?\s*(?:and\s+)?", re.IGNORECASE)

# Words right before a bare number that make it a price ("how about 15", "I can do 14").
_BARE_CUE_RE = re.compile(
    r"(?:\bhow about|\bwhat about|\bhow's|\bhows|\bhow (?:does|would|do you feel about)|\bsay|"
    # typed short: "how bout 430?", "what abt 430"
    r"\bhow ?bout|\bhow abt|\bwhat (?:abt|bout)|"
    r"\boffer(?:ing|ed)?(?:\s+of)?|"
    r"\bcounter(?:\s+(?:with|at))?|\bat|\bfor|\bto|\bdo|\bpay|\btake|\baccept|\bgive you|"
    r"\bmake(?: it)?|\bmak(?:es|ing) it|\bbrings? it(?: down| up)? to|\bput in|\bsubmit|\bbut|"
    r"\bdid|\bwould|\bmanage|\bswing|\bsettle(?:\s+(?:on|for|at))?|\bland (?:on|at)|"
    r"\bsplit (?:it|the difference)(?:\s+at|,)?|\bmeet(?:\s+you)?(?:\s+(?:halfway|in the middle))?"
    r"(?:\s+at|,)?|\bits|"
    r"\bin the middle(?:\s+at|,)?|"
    r"\bthan|\baround|\babout|\bonly|"
    r"\bjust|\bis|'s|\bbe|\bmax|\bmaximum|\bminimum|\bbudget|\blike|\bwith|\bgo|\bso|"
    r"\bdoing|\bpaying|\btaking|\bgiving|\bdeal|\bprice(?:\s+(?:of|is|at))?|\bgive|\bconsider|"
    r"\bagree(?:\s+(?:on|to))?|\bprefer|\byour|\bcall it|\bmaybe|\bperhaps|"
    r"\b(?:go|sell|let it go) (?:under|below|over|above|lower than|higher than|less than|"
    r"more than))"
    # human chat puts a word or two between the verb and the number: "pay you 35",
    # "pay the full 200", "take maybe 90", "do at least 933", "do your 2000"
    r"(?:\s+(?:you|u|ya|me|the|full|whole|maybe|like|roughly|approximately|only|just|around|about|"
    r"at least|"
    r"your|even|original|first|earlier|initial|last))*\s+$",
    re.IGNORECASE,
)
# Words right before a bare number that make it a price when it is near the price level: "I can
# only afford 170", "I was thinking 170", "I'd need 170 at least", "I only have 170", "ill bring
# 170", "would u be cool w 170" (not "I need 2 days", "I have 3 kids", "ill bring 2 friends").
_LEVEL_CUE_RE = re.compile(
    r"\b(?:afford|spend|need|thinking|thought|have|got|figured|expect(?:ing)?|bring|hoping|"
    r"willing(?: to)?|try|throw|w/?)"
    r"(?:\s+(?:you|me|maybe|like|around|about|at least|only|just|even|more like|roughly))*\s+$",
    re.IGNORECASE,
)
# An assent right before a bare number names the price it takes ("ugh fine, 260", "yeah ok 8400",
# "you got it, 110", "then 400 is fine").
_ASSENT_BEFORE_RE = re.compile(
    r"\b(?:ok|okay|okie|okey|k|kk|fine|sure|alright|aight|yes|yep|yeah|ya|deal|done|sold|got it|"
    r"fair|bet|"
    r"enough|agreed|perfect|great|cool|then)\W{0,4}$",
    re.IGNORECASE,
)
# A number written with a thousands separator ("13,500") is an amount, not a count or a year.
_THOUSANDS_SEPARATOR_RE = re.compile(r"^\d{1,3}(?:,\d{3})+(?:\.\d+)?$")
# A sentence that is nothing but a number ("1725", "1750?", "how about 90!") puts it on the table.
_LONE_NUMBER_AROUND_RE = re.compile(
    r"^[\s\W]*(?:ok|okay|so|well|um|hmm|how about|what about)?\W*(?:lol|haha|pls|please|cash|tops|"
    r"max|final|firm|even|then)?\W*$"
)
# After a number at the start of a line: a list marker ("1. ...", "2) ..."), not "5400. last".
_LIST_MARKER_RE = re.compile(r"[.)]\s+\S")
_LIST_MARKER_MAX = 100
# A number that opens a turn's sentence, set off by a comma ("40, my boss needs the money.") or
# followed by the speaker's terms or a "deal" ("40 and I pick it up today?", "40 deal.").
_OPENING_NUMBER_AFTER_RE = re.compile(
    r"\s*(?:[,!]|(?:and|if|plus) (?:i|i'll|you|we|ok|okay|done)\b|deal\b|"
    r"and (?!a half\b)\w+ (?:\w+ )?(?:free|included|thrown in)\b|"
    # "600 delivered and ...", "350 i can live with", "65 and were done" (typed for "we're")
    r"(?:delivered|shipped|picked up|including|included|without|w/o|with|plus|total|flat|today|"
    r"tonight|now|please|pls|lol|done|if|fine|ok|okay)\b|"
    r"i (?:can|could|will|'ll|pick|come|get|grab|pay|bring)\b|"
    r"and (?:pick|come|get|grab|bring|pay|deliver|meet)\b|(?:that is|that's|thats) it\b|"
    # "40 from me", "2150/mo is what i can do", "1475 + 1st month free"
    r"from me\b|/\s?(?:mo|month|mth|wk|week)\b|\+|"
    r"and were (?:done|good|set)\b)"
)
# Before a second option's price: "250 for the desk, 300 with the chair", "90 or 100 delivered".
_OPTION_BEFORE_RE = re.compile(r"(?:[,;]|\bor)\s*$")
# What may come before a number that opens its sentence: "no, 5000 and you move it".
_INTERJECTION_RE = re.compile(
    r"^\W*(?:(?:no|nope|nah|ok|okay|well|yes|yeah|sorry|hmm+|fine|alright|look)\W+)?$",
    re.IGNORECASE,
)
# Words right after a bare number that make it a price ("Ten and it's yours", "Fifteen it is").
_BARE_AFTER_CUE_RE = re.compile(
    r"\s*(?:,?\s*and (?:it's|it is|its|we have|we've got|we got|you've got|you got|you have|you'll "
    r"have|we'll have|i'll|i will|we can|we're|we are|you can have|the \w+ is|it'?s? yours|"
    r"call it|deal|(?:that's|thats|that is) (?:my|the|it|final|firm|as (?:low|high|far|much))\b)|"
    r"then\b(?!\s+(?:i|we|you|it|the|that)\b)|it is\b|it's a deal|(?:would|will|should|"
    r"could) (?:work|be (?:fine|ok|okay|"
    r"good|great|perfect|acceptable|fair))|sounds (?:great|perfect|fine|reasonable|fantastic|ok|"
    r"okay|like a (?:deal|fair|good|great))|is (?:fine|good|great|ok|okay|perfect|a deal|doable|"
    r"reasonable|acceptable)|is (?:a bit |a little |way |much |still )?too (?:low|high|much)|"
    r"is (?:my|"
    r"the|our) (?:absolute |very |rock |final )?(?:final|best|last|lowest|bottom|floor|minimum|"
    r"maximum|max|limit|offer|price|top|budget)|is as (?:low|high|far) as|works\b|work\b|is fine|"
    r"be (?:all right|alright|ok|okay|"
    r"fine|"
    r"good|acceptable)\b|,? (?:last|lowest|best|bottom|max)(?: price| offer| one)?\b|"
    r"is (?:really |actually |honestly |truly )?(?:the |my )?(?:most|max|highest|lowest|least|best)"
    r"\b|(?:and )?(?:fr |tbh |honestly |really )?(?:that's|thats|that is|is)(?: really| honestly|"
    r" literally)? "
    r"all (?:i|we|i've)\b|is fair|sounds (?:good|fair)|,? final\b|"
    r",? firm\b|tops\b|or nothing|obo\b|and (?:(?:we're|we are|i'm|i am) )?(?:good|done|set)|"
    r"/\s?(?:mo|month|mth|wk|week)\b|for (?:the|it|this|"
    r"that|them|both|a|an|my|your)\b|"
    # "90 in cash", "160 even", "6000 is a steal", "5100 is actually a great deal", "18 is all I
    # have"
    r"(?:in )?cash\b|even\b|from me\b|"
    r"is (?:already |honestly |really )?(?:a )?(?:steal|bargain|cheap)\b|"
    r"is (?:actually |really |still |all )?(?:a |an )?(?:\w+ )?(?:deal|price|"
    r"offer)\b|sounds like a \w+|is all (?:i|i've|we)\b)",
    re.IGNORECASE,
)
# What must not follow a bare number for it to be a price ("5 years", "2 of them", "10%").
_NOT_MONEY_AFTER_RE = re.compile(
    r"\s*(?:%|percent|per ?cent|years?|yrs?|months?|weeks?|days?|hours?|hrs?|minutes?|mins?|"
    r"seconds?|secs?|times?|items?|pieces?|pcs|units?|of\b|people|miles?|km|inches|inch|"
    r"in\b(?! cash)|cm|mm|kg|lbs?|pounds?|feet|foot|ft|am\b|pm\b|a\.m|p\.m|o'clock|th\b|st\b|"
    r"nd\b|rd\b|x\b|more\b|model\b|edition\b|version\b|-\d+(?:\s*mm|\s+lens)|"
    r"left\b|others?\b|ones?\b|gb|tb|mb|gigs?\b|hz|watts?|w\b|volts?|v\b|-year|-month|-day|-inch|"
    r":\d|"
    r"pro\b|mini\b|br\b|bd\b|ba\b|bdrm\b|bed\b|bath\b|"
    # a height or a size ("5'8", "48 wide"), a street address ("5390 Broadway", "14 Elm Ct")
    r"['’]\s?\d|\"|wide\b|tall\b|long\b|deep\b|high\b|sq\.? ?f(?:ee)?t|sqft|square|sf\b|"
    r"(?:[a-z]+ )?(?:st|street|ave|avenue|rd|road|blvd|boulevard|dr|drive|ln|lane|ct|court|pkwy)\b|"
    r"broadway\b)",
    re.IGNORECASE,
)
# After a price: it is a difference, not a price ("fifty off", "$5 more", "$10 cheaper").
_DELTA_AFTER_RE = re.compile(
    r"\s*(?:off\b|discount|more\b|less\b|extra\b|cheaper|lower\b|higher\b|difference|apart|"
    r"(?:for |in |of )?(?:shipping|delivery|postage|tax|fees?)\b|"
    # "the 500 pet deposit", "the 200 credit", "venmo you 50 now to hold it"
    r"(?:(?:pet|security|cleaning|move[- ]in|holding) )?(?:deposit|credit)\b|pet (?:rent|fee)\b|"
    r"(?:now )?(?:to hold|as a (?:hold|deposit)|down\b|up ?front))"
)
# Before a price: it is an add-on or a difference ("plus $5", "knock off $10").
_DELTA_BEFORE_RE = re.compile(
    r"\b(?:plus|add|adding|extra|another|additional|knock off|take off|discount of|"
    r"(?:reduce|lower|drop|cut|bring)(?: it| the price)?(?: down)? by|shipping(?: is|"
    r" of| costs?)?|delivery(?: is| of| costs?)?)\s*$"
)
# Before a bare hour: a visit, not a price ("I can be there at 7", "pick it up around 6").
_TIME_BEFORE_RE = re.compile(
    r"\b(?:be there|be over|come(?: by| over| get it)?|meet|pick (?:it |them )?up|arrive|stop by|"
    r"swing by|drop (?:it |them )?off|see you|tonight|tomorrow|today|morning|afternoon|evening|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|weekend|bring|work|home|back|free)"
    r"\b[^.!?$]{0,20}\b(?:at|around|by|after|before|like)\s+$",
    re.IGNORECASE,
)
_THOUSANDS_SHORTHAND_LOW = 0.02  # below this share of the price level, "14" means 14,000
# ... when the number ends its clause or a price phrase follows ("14?", "22 even", "14 and ...").
_THOUSANDS_END_RE = re.compile(
    r"\s*(?:$|[?!.,;:)]|(?:and|even|then|cash|firm|obo|or|is|it|for|tops|max|final|work|works|"
    r"deal|sounds|with|w|plus|ok|okay|fine|done|flat)\b)",
    re.IGNORECASE,
)
_THE_BEFORE_RE = re.compile(r"\b(?:for|of|all) the\s+$", re.IGNORECASE)
_SPAN_BEFORE_RE = re.compile(r"\bthe (?:first|last|next)\s+$", re.IGNORECASE)
_SPAN_MAX = 100
_COUNT_AFTER_THE_MAX = 10
_MONTH_BEFORE_RE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+$", re.IGNORECASE
)
_DAYS_IN_A_MONTH = 31
_SMALL_BARE_WORD_MINIMUM = 5  # "I'll take two" is not a price; "how about fifteen?" is.
_A_DOLLAR_RE = re.compile(r"\b(an?)\s+(?=(?:dollar|buck)\b)", re.IGNORECASE)
# After "two dollars fifty": a unit means the second number is not cents ("2 dollars 30 items").
_UNIT_AFTER_RE = re.compile(r"\s*(?:[a-z]+s\b|%|\$|dollar|buck|cent)", re.IGNORECASE)

# ---------------------------------------------------------------------------------------------
# Role cues.  Each list is matched against lower-case text around one mention.
# ---------------------------------------------------------------------------------------------

# After the price, in the same clause: the speaker turns it down.
_REFUSED_AFTER = [
    r"too (?:low|high|much|little|steep|expensive|cheap|rich|pricey)",
    r"^\s*(?:is|'s) (?:still )?(?:a bit |kinda |kind of |pretty |way |really |very |a little |"
    r"little |"
    r"bit |a tad |too )?(?:low|high)\b",
    r"(?:is|'s|seems|sounds|feels|would be|was)\s+(?:\w+\s+){0,2}?(?:a lot|steep|pricey|"
    r"expensive|(?:a bit|a little|a tad|way|so|too|kinda|kind of|pretty|rather|quite) much|"
    r"a (?:stretch|reach))\b",
    r"(?:is|'s|would be)\s+not\s+(?:enough|acceptable|possible|doable|workable|happening|"
    r"an option)",
    r"(?:isn't|is not|ain't|won't|doesn't|does not|will not|wouldn't)\s+(?:\w+\s+)?(?:enough|work|"
    r"cut it|do it|happen|fly|going to work|acceptable|possible|doable|realistic|reasonable|"
    r"going to happen|cover)",
    r"out of (?:the question|my (?:budget|range|price range))",
    r"(?:is|'s|seems|sounds)\s+(?:way|much|far|a lot|a bit|a little|too)\s+(?:higher|more|lower|"
    r"less|"
    r"under|below|over|above|off)\b",
    r"(?:below|under|less than) (?:my|what i|what it|the) (?:cost|budget|minimum|floor|bottom|"
    r"paid|asking(?: price)?|list(?:ing|ed)? price)",
    r"(?:above|over|beyond|more than) (?:my|what i) (?:budget|limit|max|maximum|can|want|am|'m)",
    r"(?:below|under|less than|above|over|more than) what (?:i|we)(?:'m|'re| am| are| was| were)? "
    r"(?:hoping|looking|expecting|wanting|willing|able|want|need|can|could|had in mind)",
    # "$12,500 is more of a drop than I can take"
    r"(?:more|less|lower|higher|further)(?: of a (?:drop|cut|discount|jump|loss|hit))? than i "
    r"(?:can|could|want|'m willing|am willing|'d like|would like)",
    r"\b(?:unreasonable|ridiculous|insulting|absurd|laughable|a joke|a lowball|lowball|"
    r"a non-starter|non-starter|a no-go|no good|way off|off the table|a dealbreaker|robbery)\b",
    r"^\s*[?!.]*\s*(?:no way|no thanks|no chance|not a chance|not happening|forget it|"
    r"not even close)",
    r"^\s*(?:is|'s)\s+(?:a\s+)?no\b",
    r"^\s*(?:is\s+)?(?:prob|probably|likely|def|definitely) not\b",  # "but 90 prob not"
    r"(?:i|we) (?:can't|cannot|won't) (?:do|accept|take|go)\b(?! (?:any )?(?:higher|lower|further|"
    r"more|less|up|down|over|under|above|below)\b)",
]
# Before the price, in the same clause, ending right at it: the speaker turns it down.
_REFUSED_BEFORE = [
    r"\b(?:can't|cannot|can not|cant|won't|wont|wouldn't|wouldnt|couldn't|couldnt|will not|"
    r"would not|"
    r"could not|unable to|"
    r"not able to|not willing to|not going to|not gonna|"
    r"(?:no way|no chance|not a chance)(?: that)? (?:i|we)(?:'d|'ll| would| will|"
    r" can| could)?|refuse to|never|don't want to|do not want to|not about to|"
    r"not prepared to)\s+(?:\w+\s+){0,3}?(?:do|accept|take|pay|go|sell|part with|let it go|give|"
    r"agree|consider|justify|afford|spend|drop|come down|go down|go up|budge|settle|settle for|"
    r"settle on)\b[^$\d]*$",
    r"\b(?:not|no)\s+(?:at|for|even|with)\s*$",
    r"\bnot interested (?:at|for|in)\s*$",
    r"\b(?:not|never)\s+(?:paying|spending|buying|selling|giving|accepting|taking|doing|"
    r"going|letting|parting)\b[^$\d]*$",
    # "i'd keep it before selling for 25"
    r"\b(?:keep|hold) (?:it|them|onto it)\b[^$\d]{0,20}\b(?:before|than) (?:selling|letting it go|"
    r"sell(?:ing)? it|i sell)(?: it)? (?:for|at)\s*$",
    r"\bno deal (?:at|for|with)\s*$",
    r"\bpass(?:ing)? (?:at|on)\s*$",
    # "I'd rather keep using it myself than sell it for $100"
    r"\b(?:rather|prefer to)\b[^$\d]{0,40}\b(?:than|before) (?:sell(?:ing)?|let(?:ting)? (?:it|"
    r"them) go)"
    r"(?: it| them)? (?:for|at)\s*$",
    r"\b(?:reject|rejecting|decline|declining|turn down|turning down|pass on|passing on|say no to|"
    r"can't agree to|won't agree to)\b[^$\d]*$",
    r"\bnowhere near\s*$",
    r"\b(?<!why )(?:not|never|no)\s*$",
]
# Before the price: a limit ("I can't go lower than $15") is an offer, not a refusal.
_LIMIT_BEFORE_RE = re.compile(
    r"\b(?:less|more|lower|higher|cheaper|further|further down|further up|better)\s+than\b|"
    r"\b(?:below|under|above|over|beyond|past|a penny (?:more|less) than|anything (?:below|under|"
    r"above|over))\b",
)
# In a question, "better/lower than $15" asks for a different price: $15 is turned down.
_QUESTION_COMPARE_BEFORE_RE = re.compile(
    r"\b(?:better|lower|less|cheaper|higher|more|further|under|below)\s+(?:than\s+)?(?:that\s+)?$"
)

# An echo that checks the other side's price rather than doubting it: "You're asking $11,500?"
_CHECKING_ECHO_RE = re.compile(r"\b(?:you're|you are|youre|ur) asking\b")
# A price checked, not offered: "it's $100 right?", "you're asking 450, correct?".
_CHECKED_BEFORE_RE = re.compile(
    r"\b(?:it's|its|it is|asking|listed at|price is|that's|that is)\s*$"
)
_CHECKED_AFTER_RE = re.compile(r"\s*,?\s*(?:right|correct)\s*\?")
# A question that checks the listing's price, not one that proposes it: "is the iphone still
# $400?", "asking price is $4200?", "is it still listed at 400?"
_LISTING_CHECK_BEFORE_RE = re.compile(
    r"\b(?:still(?: listed at| going for| selling for| for| at)?|asking price(?: is| of)?|"
    r"list(?:ed)? price(?: is| of)?|price is still)\s*$"
)
# A price the speaker quotes from the other side ("you offered $12", "your $12").
_QUOTED_BEFORE_RE = re.compile(
    r"\b(?:you|you've|you'd|you have|you're|youre|ur)\s+(?:\w+\s+){0,2}?(?:said|offered|asked|"
    r"asked for|wanted|"
    r"mentioned|quoted|proposed|suggested|put|offer|ask|want|asking|offering|"
    r"suggesting)\b[^$\d]*$|"
    # the other side's listing, quoted: "I see you are selling it for $220", "you listed it at"
    r"\b(?:you're|you are|you've been|you were)\s+(?:selling|listing|charging|pricing)\b[^$\d]*$|"
    r"\byou(?:'ve| have)?\s+(?:got\s+(?:it|them|this|that)\s+)?(?:listed|priced)\b[^$\d]*$|"
    r"\byour\s+(?:(?:\w+\s+){0,2}?(?:offer|price|"
    r"counter|counteroffer|counter-offer|number|figure|proposal|ask|asking price|suggestion)\s*"
    r"(?:of\s*|is\s*)?)?$"
)

# After a price asked on its own, the speaker's limit: "240? I really can't go higher".
_OWN_LIMIT_RE = re.compile(
    r"\W*(?:i|we)(?: really| just)? (?:can't|cannot|cant|won't) (?:go|pay|do|afford|offer|spend)"
    r"(?: any)? (?:higher|more|further|over|above)\b",
    re.IGNORECASE,
)
# A sale declared at the price, right before it: "Sold at $3700!", "ok, sold to you for 80".
_DECLARED_SALE_RE = re.compile(
    r"(?:^|[.!?]\s*)\W*(?:(?:ok|okay|alright|fine|then|great|deal|done|sure)\W+)*sold(?: it)?"
    r"(?: to you)? (?:at|for)\s*$",
    re.IGNORECASE,
)
# Before the price: a past tense that proposes ("what if I paid $115?", "if we spent 90").
_HYPOTHETICAL_PAY_RE = re.compile(
    r"\b(?:what if|if|suppose|say) (?:i|we) (?:paid|spent|gave you|offered)\b[^$\d]*$"
)
# Before the price, in the same clause: it is a reference price, not an offer.
_REFERENCE_BEFORE = [
    r"\b(?:saw|seen|see (?:them|these|those|one|it)|spotted|found|noticed|came across|"
    r"look(?:ed)? up)\b",
    r"\bcost(?:s|ed)?\s+(?:me|us|him|her|them|my)\b",
    r"\b(?:paid|spent|bought|purchased|sold|went for|gone for|retails?|retailed|retailing|msrp)\b",
    r"\bgot (?:it|this|mine|them|one|these|those|that)\s+for\b",
    r"\bused to\b",
    r"\b(?:originally|usually|normally|typically|generally|regularly|often|ordinarily)\b",
    r"\b(?:sells|goes for|going for|going rate|market (?:price|value|rate)|lists? for|charges?|"
    r"charging|asks|asking for them)\b",
    r"\b(?:they|these|those|people|others|folks|stores?|shops?|retailers?|dealers?|sellers?|"
    r"vendors?|someone|somebody|anyone|anybody|everyone|everybody|amazon|ebay|craigslist|walmart|"
    r"the guy|"
    r"other sellers?|next door|across the street|down the (?:street|road))\b.*\b(?:sell|sells|"
    r"selling|sold|go|goes|going|went|cost|costs|list|listed|listing|charge|charges|charging|"
    r"price|priced|pricing|ask|asks|asking|offer|offers|offering|want|wants|were|was|had)\b",
    r"\b(?:worth|valued at|value of|value is|appraised|estimate[sd]?)\b",
    # the listing quoted: "the listing says $6200", "listed at 690, any wiggle room?"
    r"\b(?:(?:the|your) (?:listing|ad|post|posting)(?: (?:says|said|shows|has it|price))?|"
    r"(?:listing|ad|post) (?:says|said|shows))(?: (?:at|for|is|of))?\s*$|"
    r"^\W*(?:it's |it is |its )?(?:listed|priced|advertised|posted) (?:at|for)\s*$",
    r"\b(?:alone|by itself|on its own) (?:is|was|costs?|runs?|goes for)\b",
    r"\b(?:new ones?|brand new|new price|new (?:it|they|these)|in stores?|online|elsewhere|"
    r"last time|last (?:week|month|year)|years? ago)\b",
    r"\b(?:compared to|versus|vs\.?|instead of|rather than|up from|down from|from)\s*$",
]
# After the price, in the same clause: it is a reference price.
_REFERENCE_AFTER = [
    r"^\s*(?:brand\s+)?new\b",
    r"^[^.?!]{0,40}?\b(?:elsewhere|online|in (?:the )?stores?|at (?:the |a )?(?:store|shop|mall|"
    r"market)|on (?:amazon|ebay|craigslist|etsy|facebook|marketplace)|down the (?:street|road)|"
    r"across the street|next door|last (?:week|month|year|time)|\w+ (?:years?|months?|weeks?) ago|"
    r"back then|at retail|retail|new in|brand new|used to|originally)\b",
]

# Conditions that attach extra terms to a price (the start of a condition clause).
_CONDITION_RE = re.compile(
    r"\b(?:if|as long as|provided(?: that)?|providing|on (?:the )?condition|assuming|only when|"
    r"when you (?:buy|take|pay|pick|get|grab|purchase|throw)|in exchange for|with the purchase)\b"
)
# "if" clauses that add no terms: "if that works", "if you want", "let me know if".
_SOFT_IF_RE = re.compile(
    r"\b(?:what|even|as|see|wonder|wondering|know|check|tell me|ask|asking|not sure|unsure|"
    r"let me know|curious|sure)\s+if\b|\bif (?:you (?:want|like|wish|prefer|insist|please|'d like|"
    r"would like|agree|accept|are interested|'re interested|are ready|'re ready)|that (?:works|"
    r"helps|sounds good|suits you|sounds (?:fair|ok|okay|reasonable|alright))|"
    # "if that's okay" (the "'s" follows "that" with no space)
    r"that(?:'s| is| would be|'d be) (?:okay|ok|fine|alright|all right|fair|good|convenient|"
    r"easier|easiest|better for you|helpful)|(?:that's|that is|it's|it is) convenient|"
    r"it (?:helps|works)|possible|need be|necessary|so|not|anything|that's too (?:much|high|low|"
    r"steep)|that's more than|that's still|that's a bit)\b"
)
# Shared with the rules: an "if" that adds no terms does not make an acceptance conditional.
SOFT_IF_RE = _SOFT_IF_RE
# Bundle / multi-item terms: "$25 for both", "$15 each", "two for $20".
_BUNDLE_AFTER_RE = re.compile(
    r"\s*(?:each|apiece|a piece|per (?:item|piece|unit|one)|for (?:both|the two|two|three|four|"
    r"the pair|the set|the lot|all of them|all three|the bundle|everything|each)|per)\b"
)
_BUNDLE_BEFORE_RE = re.compile(
    r"\b(?:two|three|four|both|pair|bundle|set of \w+)\s+(?:for|at)\s*$|\beach\s+(?:for|at)?\s*$"
)

# Clause boundaries inside a sentence.
_CLAUSE_BREAK_RE = re.compile(
    r",|;|:|\s[-–—]\s|—|\(|\)|\b(?:but|and|so|while|whereas|though|although|however|because|since|"
    r"yet|then|plus|or)\b"
)
# Right after a price, the subject of a new clause: "200$ my final price is ...", "$50 i can do".
_NEW_SUBJECT_RE = re.compile(r"\W*(?:my|i|i'm|i'll|i'd|i've|we|we're|we'll)\b")
# A price declared as the speaker's own opens a clause of its own: "i paid 230$ for it last price
# is 140$" offers $140.
_DECLARED_PRICE_RE = re.compile(
    r"\b(?:my |the |our )?(?:last|final|lowest|best|bottom|firm|asking) (?:price|offer|number)"
    r"(?: is| would be| will be|:)?\s*$"
)
# A speaker's own offer opens a clause of its own, even typed without a comma: "can't let it go
# for that low i could give it for 50", "what you've mentioned i can give it to you for $190".
_MODAL_SUBJECT_RE = re.compile(r"\b(?:i|we) (?:can|could|will|would)\b|\b(?:i'll|i'd|we'll|we'd)\b")
_RELATIVE_BEFORE_RE = re.compile(
    r"\b(?:that|which|who|where|when|if|unless|whether|than|no way|no chance|not|never|doubt|"
    r"don't think|do not think|wish)\W*$"
)
_SENTENCE_END_RE = re.compile(r"(?:[.!?…]+|\n+)(?=\s|$|[\"')\]])|[.!?]+$|\n")
# A sentence that is nothing but an echo of a price: "$12?", "Only $12?!", "Twelve dollars, really?"
_ECHO_FILLER_RE = re.compile(
    r"^(?:\W|\b(?:what|only|just|seriously|really|you want|you're asking|huh|hmm|wow|whoa|oh|"
    r"come on|excuse me|sorry|pardon|for real|that's|that is|is that|a mere)\b)*$"
)
_REJECTION_RE = re.compile(
    r"\b(?:no|nope|too (?:low|high|much|little|steep|expensive|cheap)|no way|not a chance|can't|"
    r"cannot|won't|ridiculous|insulting|joke|lowball|kidding|come on|not happening|forget it)\b"
)

# Negations that agree: "No problem, deal!", "Not bad, I'll take it.", "I can't argue with that."
POSITIVE_NEGATION_RE = re.compile(
    r"\b(?:no (?:problem|problemo|prob|probs|worries|worry|doubt|complaints)|not (?:a problem|bad|"
    r"an issue|too bad)|(?:i )?(?:don't|do not) see why not|why not|(?:i )?(?:don't|do not) mind|"
    r"(?:i )?(?:can't|cannot|couldn't|won't) (?:wait|complain|go wrong|beat (?:that|it|this)|"
    r"pass (?:it|that|this) up|pass up|turn (?:it|that|this) down|resist|ask for more|be happier|"
    r"argue with|say no to|refuse)|"
    r"(?:i )?won't regret|(?:doesn't|does not|won't|wouldn't|can't) hurt|(?:don't|do not) worry|"
    r"not (?:gonna|going to) argue|hard to (?:turn down|pass up|say no to|refuse|beat))\b"
)


def without_positive_negations(text: str) -> str:
    """``text`` with every negation that agrees ("no problem", "not bad") blanked, same length."""
    return POSITIVE_NEGATION_RE.sub(lambda m: " " * len(m.group(0)), text)


# Shared with the rules: before a price, the speaker quotes it from the other side.
QUOTED_BEFORE_RE = _QUOTED_BEFORE_RE

# Kinds that put a price on the table.
OFFER_KINDS: frozenset[str] = frozenset({"offer", "question"})


@dataclass(frozen=True)
class PriceMention:
    """One price in an utterance: its amount in dollars, its span in the text and its role."""

    amount: float
    start: int
    end: int
    kind: PriceKind


@dataclass(frozen=True)
class _Number:
    value: float
    start: int
    end: int
    is_word: bool
    pair: bool = False  # "twelve fifty": a spoken pair, read as dollars-and-cents or hundreds
    alt: float | None = None  # the other reading of a spoken pair


# ---------------------------------------------------------------------------------------------
# Text helpers
# ---------------------------------------------------------------------------------------------


def normalize(text: str) -> str:
    """Lower-case ``text`` and unify quote marks and dashes, keeping every index the same."""
    table = str.maketrans(
        {"’": "'", "‘": "'", "ʼ": "'", "`": "'", "“": '"', "”": '"', "\u00a0": " "}
    )
    lowered = text.translate(table)
    # str.lower() can change the length of a few characters; keep such characters as they are.
    return "".join(ch.lower() if len(ch.lower()) == 1 else ch for ch in lowered)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Split ``text`` into sentences; each span includes its final punctuation.

    A full stop between digits (``$12.50``) does not end a sentence.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        end = match.end()
        if end <= start:
            continue
        if text[start:end].strip():
            spans.append((start, end))
        start = end
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def _sentence_of(spans: list[tuple[int, int]], position: int) -> tuple[int, int]:
    for start, end in spans:
        if start <= position < end:
            return start, end
    return (0, 0) if not spans else spans[-1]


# ---------------------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------------------


def _below_100(words: list[str], i: int) -> tuple[int, int] | None:
    """Parse 1..99 from ``words[i:]``; return (value, next index)."""
    if i >= len(words):
        return None
    word = words[i]
    if word in _TENS:
        value = _TENS[word]
        if i + 1 < len(words) and words[i + 1] in _UNITS and words[i + 1] != "zero":
            return value + _UNITS[words[i + 1]], i + 2
        return value, i + 1
    if word in _TEENS:
        return _TEENS[word], i + 1
    if word in _UNITS:
        return _UNITS[word], i + 1
    return None


def _below_1000(words: list[str], i: int) -> tuple[int, int] | None:
    """Parse 1..999 (and "fifteen hundred"-style 1100..9900) from ``words[i:]``."""
    if (
        i < len(words)
        and words[i] in ("a", "an")
        and i + 1 < len(words)
        and words[i + 1] == "hundred"
    ):
        value, j = 1, i + 1
    else:
        head = _below_100(words, i)
        if head is None:
            return None
        value, j = head
    if j < len(words) and words[j] == "hundred":
        value *= 100
        j += 1
        k = j + 1 if j < len(words) and words[j] == "and" else j
        tail = _below_100(words, k)
        if tail is not None:
            value += tail[0]
            j = tail[1]
    return value, j


def _parse_words(words: list[str], i: int) -> tuple[int, int] | None:
    """Parse a whole number from ``words[i:]``, up to the thousands."""
    if (
        i < len(words)
        and words[i] in ("a", "an")
        and i + 1 < len(words)
        and words[i + 1] == "thousand"
    ):
        value, j = 1, i + 1
    else:
        head = _below_1000(words, i)
        if head is None:
            return None
        value, j = head
    if j < len(words) and words[j] == "thousand":
        value *= 1000
        j += 1
        k = j + 1 if j < len(words) and words[j] == "and" else j
        tail = _below_1000(words, k)
        if tail is not None:
            value += tail[0]
            j = tail[1]
    return value, j


def _word_numbers(text: str) -> list[_Number]:
    """Spelled-out numbers in ``text``, including spoken pairs such as "twelve fifty"."""
    numbers: list[_Number] = []
    for run in _WORD_RUN_RE.finditer(text):
        tokens = [
            (m.group(0).lower(), run.start() + m.start(), run.start() + m.end())
            for m in _TOKEN_RE.finditer(run.group(0))
        ]
        words = [t[0] for t in tokens]
        i = 0
        while i < len(words):
            parsed = _parse_words(words, i)
            if parsed is None:
                i += 1
                continue
            value, j = parsed
            start, end = tokens[i][1], tokens[j - 1][2]
            pair = False
            # Spoken pairs: a number under 100 followed directly by 10..99.  "twelve fifty" is
            # 12.50; with a single digit first, "two twenty" is 220 (as "one fifty" is 150).
            if 1 <= value < 100 and j < len(words) and words[j - 1] != "and":
                cents = _below_100(words, j)
                gap = text[end : tokens[j][1]] if j < len(tokens) else ""
                if cents is not None and 10 <= cents[0] <= 99 and "and" not in gap:
                    small, large = value + cents[0] / 100, float(value * 100 + cents[0])
                    main, alt = (large, small) if value < 10 else (small, large)
                    end = tokens[cents[1] - 1][2]
                    numbers.append(_Number(main, start, end, True, pair=True, alt=alt))
                    i = cents[1]
                    continue
            numbers.append(_Number(float(value), start, end, True, pair=pair))
            i = j
    return numbers


def _one_dollar(text: str) -> list[_Number]:
    """ "a dollar", "a buck": the number one written as an article."""
    return [_Number(1.0, m.start(), m.end(1), True) for m in _A_DOLLAR_RE.finditer(text)]


def _digit_numbers(text: str) -> list[_Number]:
    numbers = []
    for match in _DIGITS_RE.finditer(text):
        raw = match.group(0).replace(",", "")
        numbers.append(_Number(float(raw), match.start(), match.end(), False))
    return numbers


def _money_value(
    number: _Number, text: str, numbers: list[_Number]
) -> tuple[float, int, int] | None:
    """The dollar amount of ``number`` if written as money, with the span of the whole price."""
    before = text[: number.start]
    after = text[number.end :]
    value, start, end = number.value, number.start, number.end
    marked = number.pair
    prefix = _PREFIX_RE.search(before[-8:]) if before else None
    if prefix is not None:
        marked = True
        start = number.start - (len(before[-8:]) - prefix.start())
    if not number.is_word and (k := _THOUSANDS_SUFFIX_RE.match(after)) is not None:
        value *= 1000
        end += k.end()
        after = text[end:]
        # "13k", "12.5k": thousands of dollars, unless a unit follows ("5k miles")
        if not _NOT_MONEY_AFTER_RE.match(after) and not _K_UNIT_AFTER_RE.match(after):
            marked = True
    if not number.is_word and number.value < 100 and (hundred := _HUNDRED_RE.match(after)):
        value *= 100  # "48 hundred cash", "25 hundred a month"
        end += hundred.end()
        after = text[end:]
        marked = True
    if (grand := _GRAND_RE.match(after)) is not None:  # "3 grand", "three grand"
        value *= 1000
        end += grand.end()
        after = text[end:]
        marked = True
    if (cent := _CENT_SUFFIX_RE.match(after)) is not None and prefix is None and not number.pair:
        return round(value / 100, 2), start, end + cent.end()
    if (dollar := _DOLLAR_SUFFIX_RE.match(after)) is not None:
        marked = True
        end += dollar.end()
    if not marked:
        return None
    # "12 dollars and 50 cents", "$12 and 50 cents"; "a dollar fifty", "two dollars and fifty"
    joiner = _CENTS_JOINER_RE.match(text, end)
    if joiner is not None:
        for other in numbers:
            if other.start != joiner.end() or other.value >= 100 or other.pair:
                continue
            cent = _CENT_SUFFIX_RE.match(text, other.end)
            if cent is not None:
                return value + other.value / 100, start, cent.end()
            spoken = dollar is not None and "," not in text[end : other.start]
            if spoken and other.value >= 10 and not _UNIT_AFTER_RE.match(text, other.end):
                return value + other.value / 100, start, other.end
    return value, start, end


def _alone_in_sentence(number: _Number, text: str) -> bool:
    """The number is the whole sentence, bar punctuation and an opener ("1725", "1750?"), or
    opens it, set off by a comma ("40, and that's final")."""
    line_start = text.rfind("\n", 0, number.start) + 1
    if (
        number.value < _LIST_MARKER_MAX
        and _LIST_MARKER_RE.match(text, number.end)
        and not text[line_start : number.start].strip()
    ):
        return False  # "1. Ask the buyer ...": a numbered list, not a price
    spans = sentence_spans(text)
    start, end = _sentence_of(spans, number.start)
    rest = text[start : number.start] + " " + text[number.end : end]
    if _LONE_NUMBER_AROUND_RE.match(rest):
        return True
    return bool(_INTERJECTION_RE.match(text[start : number.start])) and bool(
        _OPENING_NUMBER_AFTER_RE.match(text, number.end)
    )


# After a number that ends its sentence: nothing but chat filler ("lol 275", "for me, 375.").
_SENTENCE_TAIL_RE = re.compile(
    r"[^\w$]*(?:(?:lol|haha|today|tonight|now|then|please|pls|cash)\b\W*)?$"
)
# Before a number that ends its sentence, what makes it a count, a model, a size or a date.
_NOT_A_PRICE_BEFORE_RE = re.compile(
    r"\b(?:size|model|year|gen|generation|version|number|no|iphone|galaxy|series|mark|mk|apt|unit|"
    r"room|floor|age|ages|route|highway|hwy|exit|channel|level|grade|class|since|in|from|until|"
    r"till|of|by|on|about|around|is|was|are|were|have|has|had|got|get|with|x|v|ps|xbox|windows|"
    r"ios|android|bedroom|bath|bathroom|page|chapter|part|step|option|plan|the|a|an|my|your|his|"
    r"her|our|their|top|under|over|than|like|every|each|per)\W*$|#\s*$",
    re.IGNORECASE,
)
_YEAR_LOW, _YEAR_HIGH = 1950, 2035
_OPENING_LOW, _OPENING_HIGH = 0.25, 2.0  # a message-opening number's range, times the price level
# ... and what comes right before it: a comma, a laugh or an assent ("for me, 375", "lol 275",
# "sounds good 240 today").
_FINAL_NUMBER_BEFORE_RE = re.compile(
    r"(?:,|\b(?:lol|haha|me|good|fine|great|ok|okay))\s*$", re.IGNORECASE
)


def _ends_its_sentence(number: _Number, text: str) -> bool:
    """A digit number that ends its sentence, bar chat filler, after words that make it no count
    or date: "i dont need the case lol 275", "That works for me, 375."."""
    if number.is_word or _YEAR_LOW <= number.value <= _YEAR_HIGH:
        return False
    spans = sentence_spans(text)
    start, end = _sentence_of(spans, number.start)
    if not _SENTENCE_TAIL_RE.match(text[number.end : end]):
        return False
    before = text[start : number.start]
    return bool(_FINAL_NUMBER_BEFORE_RE.search(before)) and not _NOT_A_PRICE_BEFORE_RE.search(
        before
    )


def _opens_the_message(number: _Number, text: str, scale: float | None) -> bool:
    """A digit number that opens the message, near the price level: "40 my boss wants it gone"
    answers an offer with a price even when typed without a comma."""
    return _near_the_level(number, scale) and bool(_INTERJECTION_RE.match(text[: number.start]))


def _near_the_level(number: _Number, scale: float | None) -> bool:
    """A digit number, no year, within the range of prices around the level ``scale``."""
    return (
        scale is not None
        and not number.is_word
        and not _YEAR_LOW <= number.value <= _YEAR_HIGH
        and _OPENING_LOW * scale <= number.value <= _OPENING_HIGH * scale
    )


def _bare_value(
    number: _Number, text: str, scale: float | None = None, after_a_price: bool = False
) -> float | None:
    """The value of an unmarked number that still reads as a price ("how about 15?", "13,500",
    a number said on its own, "1725", one that opens the message near the price level, or,
    after a price, another option near the level: "250 for the desk, 300 with the chair")."""
    before = text[max(0, number.start - 40) : number.start]
    cued = (
        _BARE_CUE_RE.search(before)
        or _ASSENT_BEFORE_RE.search(before)
        or (_LEVEL_CUE_RE.search(before) and _near_the_level(number, scale))
        or (
            after_a_price
            and _near_the_level(number, scale)
            and _OPTION_BEFORE_RE.search(before)
            and _OPENING_NUMBER_AFTER_RE.match(text, number.end)
        )
    )
    separated = not number.is_word and bool(
        _THOUSANDS_SEPARATOR_RE.match(text[number.start : number.end])
    )
    if (
        not cued
        and not separated
        and not _BARE_AFTER_CUE_RE.match(text, number.end)
        and not _alone_in_sentence(number, text)
        and not _ends_its_sentence(number, text)
        and not _opens_the_message(number, text, scale)
    ):
        return None
    if _NOT_MONEY_AFTER_RE.match(text, number.end):
        return None
    if number.value <= 12 and _TIME_BEFORE_RE.search(text, 0, number.start):
        return None
    if number.value < _COUNT_AFTER_THE_MAX and _THE_BEFORE_RE.search(text, 0, number.start):
        return None  # "55 for the 3": a count of items
    if number.value < _SPAN_MAX and _SPAN_BEFORE_RE.search(text, 0, number.start):
        return None  # "after the first 12": months or items
    if number.value <= _DAYS_IN_A_MONTH and _MONTH_BEFORE_RE.search(text, 0, number.start):
        return None  # "so june 1 is fine": a date
    if _AGE_BEFORE_RE.search(text, 0, number.start):
        return None
    if number.is_word and number.value < _SMALL_BARE_WORD_MINIMUM:
        return None
    if number.value <= 0:
        return None
    return number.value


def _in_thousands(value: float, scale: float | None) -> float:
    """A bare number far below a price level of thousands, whose thousandfold is near it, is said
    in thousands: "14 and we got a deal?" or "how about 8.4?" for a $16,000 car."""
    if scale is None or scale < 1000 or value >= 100:
        return value
    if value < _THOUSANDS_SHORTHAND_LOW * scale and 0.3 * scale <= value * 1000 <= 3 * scale:
        return value * 1000
    return value


def _far_above_in_thousands(text: str, money: tuple[float, int, int], scale: float | None) -> bool:
    """A "k" amount far above the price level counts something else: "It's at 104k now" is the
    mileage of a $10,500 car."""
    amount, start, end = money
    return (
        scale is not None
        and scale > 0
        and amount > _K_ABOVE_LEVEL * scale
        and text[start:end].rstrip().lower().endswith("k")
        and not text[start:end].lstrip().startswith("$")
    )


def _closer(value: float, alt: float, scale: float) -> float:
    """The reading of a spoken pair closer (in ratio) to the price level ``scale``."""
    return alt if abs(math.log(alt / scale)) < abs(math.log(value / scale)) else value


def _raw_prices(text: str, scale: float | None = None) -> list[tuple[float, int, int]]:
    """Every price in ``text`` as (amount, start, end), without overlaps, in order."""
    numbers = sorted(
        _digit_numbers(text) + _word_numbers(text) + _one_dollar(text), key=lambda n: n.start
    )
    found: list[tuple[float, int, int]] = []
    for number in numbers:
        if number.alt is not None and scale is not None and scale > 0:
            chosen = _closer(number.value, number.alt, scale)
            number = _Number(chosen, number.start, number.end, True, pair=True)
        money = _money_value(number, text, numbers)
        if money is None:
            bare = _bare_value(number, text, scale, after_a_price=bool(found))
            if bare is None:
                continue
            if _THOUSANDS_END_RE.match(text, number.end):
                bare = _in_thousands(bare, scale)
            money = (bare, number.start, number.end)
        if _DELTA_AFTER_RE.match(text, money[2]) or _DELTA_BEFORE_RE.search(text, 0, money[1]):
            continue
        if _far_above_in_thousands(text, money, scale):
            continue
        found.append(money)
    found.sort(key=lambda p: (p[1], -(p[2] - p[1])))
    result: list[tuple[float, int, int]] = []
    for amount, start, end in found:
        if result and start < result[-1][2]:
            continue
        result.append((amount, start, end))
    return result


# ---------------------------------------------------------------------------------------------
# Roles
# ---------------------------------------------------------------------------------------------


def _clause_bounds(
    text: str, sentence: tuple[int, int], start: int, end: int, spans: list[tuple[int, int]]
) -> tuple[int, int]:
    """The clause around a mention: between the nearest clause breaks outside any price span. A
    price followed by a new subject ends a clause too, for run-on chat typed without commas ("i
    bought it for 200$ my final price is 120$")."""
    s_start, s_end = sentence
    left, right = s_start, s_end
    for match in _CLAUSE_BREAK_RE.finditer(text, s_start, s_end):
        if any(a <= match.start() < b for a, b in spans):
            continue
        if match.end() <= start:
            left = match.end()
        elif match.start() >= end:
            right = match.start()
            break
    for _, b in spans:
        if left < b <= start and _NEW_SUBJECT_RE.match(text, b, start):
            left = b
    declared = _DECLARED_PRICE_RE.search(text, left, start)
    if declared is not None:
        left = declared.start()
    for match in _MODAL_SUBJECT_RE.finditer(text, left, start):
        if match.start() > left and not _RELATIVE_BEFORE_RE.search(text, left, match.start()):
            left = match.start()
    return left, right


def _any(patterns: list[str], text: str) -> bool:
    return any(re.search(p, text) for p in patterns)


def _condition_kind(
    text: str, sentence: tuple[int, int], start: int, end: int, spans: list[tuple[int, int]]
) -> bool:
    """True when the sentence ties the price at ``start:end`` to a condition outside the price.

    A trailing condition ("$12 if you pay cash") binds the nearest price before it; a leading one
    ("If you buy two, I'll do $15") binds the prices of the main clause that follows it.
    """
    s_start, s_end = sentence
    for match in _CONDITION_RE.finditer(text, s_start, s_end):
        soft = _SOFT_IF_RE.search(
            text, max(s_start, match.start() - 20), min(s_end, match.end() + 40)
        )
        if soft is not None and soft.start() <= match.start() <= soft.end():
            continue
        if match.start() >= end:
            # trailing: no other price between the mention and the condition
            if not any(end <= a < match.start() for a, _ in spans):
                return True
            continue
        if any(a < match.start() for a, _ in spans if a >= s_start):
            continue  # the condition trails an earlier price
        comma = text.find(",", match.end(), s_end)
        cond_end = comma if comma != -1 else s_end
        between = text[cond_end:start]
        if start >= cond_end and not re.search(r"\b(?:otherwise|else|or)\b", between):
            return True  # "If you buy two, I'll do $15"
    return False


def _is_echo(sentence_text: str, mention_text: str) -> bool:
    """A sentence that only repeats a price, asked or exclaimed: "$12?", "Hmm, $750...", "$12?!"."""
    rest = sentence_text.replace(mention_text, " ", 1)
    return sentence_text.rstrip().endswith(("?", "?!", "!?", "...", "…")) and bool(
        _ECHO_FILLER_RE.match(rest)
    )


def _kind(
    text: str, start: int, end: int, sentences: list[tuple[int, int]], spans: list[tuple[int, int]]
) -> PriceKind:
    sentence = _sentence_of(sentences, start)
    c_start, c_end = _clause_bounds(text, sentence, start, end, spans)
    before = text[c_start:start]
    after = text[end:c_end]
    sentence_text = text[sentence[0] : sentence[1]].strip()
    is_question = sentence_text.endswith("?") or sentence_text.endswith("?!")

    # refused
    if _is_echo(sentence_text, text[start:end]):
        following = text[sentence[1] : sentence[1] + 80]
        if _OWN_LIMIT_RE.match(following):
            return "question"  # "240? I really can't go higher": the speaker's own last offer
        if _REJECTION_RE.search(following) or _REJECTION_RE.search(sentence_text):
            return "refused"
        if _CHECKING_ECHO_RE.search(sentence_text):
            return "reference"  # "You're asking $11,500?" checks the other side's price
        return "question"
    if _any(_REFUSED_AFTER, after) and not re.search(r"\bnot too\b", after):
        return "refused"
    if not _LIMIT_BEFORE_RE.search(before) and _any(_REFUSED_BEFORE, before):
        return "refused"
    if is_question and _QUESTION_COMPARE_BEFORE_RE.search(before):
        return "refused"
    if _CHECKED_BEFORE_RE.search(before) and _CHECKED_AFTER_RE.match(after):
        return "reference"  # "it's $100 right?" checks the listing, it offers nothing
    if is_question and _LISTING_CHECK_BEFORE_RE.search(before) and not after.strip(" ?!.,"):
        return "reference"
    # reference
    if _QUOTED_BEFORE_RE.search(before):
        following = without_positive_negations(text[end : sentence[1]])
        if _REJECTION_RE.search(following):
            return "refused"
        return "reference"
    declared = _DECLARED_SALE_RE.search(text, sentence[0], start)
    # "What if I paid $115 cash?" proposes a price; it recalls no price paid
    proposes = declared is not None or _HYPOTHETICAL_PAY_RE.search(before) is not None
    if not proposes and (_any(_REFERENCE_BEFORE, before) or _any(_REFERENCE_AFTER, after)):
        return "reference"
    # conditional
    if _condition_kind(text, sentence, start, end, spans):
        return "conditional"
    if _BUNDLE_AFTER_RE.match(text, end) or _BUNDLE_BEFORE_RE.search(before):
        return "conditional"
    # question
    if is_question:
        return "question"
    return "offer"


def find_prices(text: str, scale: float | None = None) -> list[PriceMention]:
    """Every price mentioned in ``text``, in order, with its amount in dollars and its role.

    ``scale`` is an optional price level (a list price, or the other prices of the conversation):
    a spoken pair is read as dollars-and-cents or as hundreds, whichever is closer to it
    ("three seventy-five" is 3.75 near 4 and 375 near 400).  Without it, "twelve fifty" is 12.50
    and "two twenty" is 220.

    >>> [(p.amount, p.kind) for p in find_prices("I saw one for $14 online. Would you take $12?")]
    [(14.0, 'reference'), (12.0, 'question')]
    """
    return list(_find_prices(text, scale))


READINGS_KEPT = 1024
"""Utterances whose prices :func:`find_prices` (and the rules moderator's ``read_turn``) keep,
the least recently used going first. A game reads each of its lines again after every later line
of the moderator's window, and games repeat the same lines (openers, templated replies): the
quickstart looks up about 800 lines a game, 99.3 % of them found here. New lines keep coming with
every game, so a larger cache only grows with the games played (bench/memory.py)."""


@lru_cache(maxsize=READINGS_KEPT)
def _find_prices(text: str, scale: float | None) -> tuple[PriceMention, ...]:
    # Memoised: games repeat the same lines (openers, templated replies) thousands of times.
    lowered = normalize(text)
    raw = _raw_prices(lowered, scale)
    sentences = sentence_spans(lowered)
    spans = [(s, e) for _, s, e in raw]
    return tuple(
        PriceMention(round(amount, 2), start, end, _kind(lowered, start, end, sentences, spans))
        for amount, start, end in raw
    )


def without_item(text: str, item: str | None) -> str:
    """``text`` with every mention of the item's name (any case) read as "item": "1980 Schwinn",
    "4K TV" and "2007 Ford Focus" name no price, and "Sealed box" accepts nothing. The name as
    the scenario spells it only; a player's shorter mention ("the 1980 bike") is read as it
    is."""
    if not item or item.lower() not in text.lower():
        return text
    return re.sub(re.escape(item), "item", text, flags=re.IGNORECASE)


# Contractions typed without their apostrophe ("ill take it", "thats a deal"): each
# pattern is (a word, what follows it for the word to be read as the contraction, the contraction).
_BARE_CONTRACTIONS: tuple[tuple[str, str, str], ...] = (
    ("im", "", "i'm"),
    ("ive", "", "i've"),
    (
        # "ill" is a contraction before any verb-like word but the few that make it "sick"
        # ("I'm ill", "ill health")
        r"(?<!\bam )(?<!\bim )(?<!\bi'm )(?<!\bfeel )(?<!\bfeeling )(?<!\bwas )(?<!\bbeen )"
        r"(?<!\bvery )(?<!\bfell )(?<!\bgot )ill",
        r"(?=\s+(?!(?:health|will|fitting|effects?|feelings?|advised|repute|at ease|people|"
        r"patients?|"
        r"and|or|with|from|for|in|of|but|so|too|to|the|a|an)\b)[a-z])",
        "i'll",
    ),
    (
        "id",
        r"(?=\s+(?:take|do|pay|like|love|go|be|need|say|rather|prefer|accept|consider|want|sell|"
        r"give|settle|have|probably|definitely|really|agree|buy|gladly|happily|still|even|"
        r"never)\b)",
        "i'd",
    ),
    ("thats", "", "that's"),
    ("whats", "", "what's"),
    ("theres", "", "there's"),
    ("heres", "", "here's"),
    ("thatll", "", "that'll"),
    ("thatd", "", "that'd"),
    ("itll", "", "it'll"),
    (
        "its",
        r"(?=\s+(?:(?:a deal|yours|all yours|fine|ok|okay|good|great|perfect|a bit|a little|too|"
        r"not|been|worth|still|only|just|really|very|pretty|in great|a steal|settled|done|sold|"
        r"going|gonna|listed|priced|already|brand|new|like|no|nothing|the best|the lowest|my)\b|"
        r"\$|\d))",
        "it's",
    ),
    ("youre", "", "you're"),
    ("youve", "", "you've"),
    ("youll", "", "you'll"),
    ("weve", "", "we've"),
    ("theyre", "", "they're"),
)
_BARE_CONTRACTION_RE = re.compile(
    "|".join(
        rf"\b(?P<w{i}>{word}){after}\b" for i, (word, after, _) in enumerate(_BARE_CONTRACTIONS)
    ),
    re.IGNORECASE,
)


def with_apostrophes(text: str) -> str:
    """``text`` with contractions typed fast put back: "ill take it" reads "i'll take it",
    "thats a deal" "that's a deal", "youve got a deal" "you've got a deal". Negations ("dont",
    "cant") are left as typed. A word that is also a word of its own
    ("ill", "id", "its") is read as the contraction only before a word that makes it one ("its a
    deal", not "its condition"). Chat shorthand is spelled out ("can u do 110" reads "can you do
    110", "330 n were done" "330 and were done", "tmrw", "pls", "np") and stretched words are
    shortened ("yesss" reads "yes"). Indices change; read prices in the returned text."""

    def restore(match: re.Match[str]) -> str:
        index = int(next(name for name, value in match.groupdict().items() if value)[1:])
        return _BARE_CONTRACTIONS[index][2]

    text = _ELONGATED_RE.sub(_shortened, text)
    text = _MISSING_SPACE_RE.sub(", ", text)
    text = _MISSPELLED_RE.sub(lambda m: _MISSPELLED[m.group(0).lower()], text)
    text = _SWAPPED_LETTERS_RE.sub(lambda m: _SWAPPED_LETTERS[m.group(0).lower()], text)
    text = _LETTER_O_ZERO_RE.sub("0", text)
    text = _SHORTHAND_RE.sub(lambda m: _SHORTHAND[m.group(0).lower().rstrip()], text)
    return _BARE_CONTRACTION_RE.sub(restore, text)


# Chat shorthand spelled out: "330 n were done", "400 w the game", "can u do 110", "see u tmrw".
_SHORTHAND = {
    "n": "and",
    "w/": "with ",
    "w": "with",
    "u": "you",
    "ur": "your",
    "urs": "yours",
    "r": "are",
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "tmrow": "tomorrow",
    "pls": "please",
    "plz": "please",
    "np": "no problem",
}
_SHORTHAND_RE = re.compile(
    r"(?<=[a-z0-9] )n(?= [a-z])|\bw/\s*|"
    # "w" before a word, unless a watt rating ("65 w charger")
    r"\bw(?= (?!(?:speaker|amp|output|power|rms|bulb|led|light|charger|adapter|usb|max|peak|solar|"
    r"panel|motor)\b)[a-z]{2,})|"
    r"(?<![$'])\b(?:u|ur|urs|r|tmrw|tmr|tmrow|pls|plz|np)\b(?!['.-]\w)",
    re.IGNORECASE,
)


# A comma typed without the space after it: "ok,meet u at 85", "90,its yours" (not "1,500").
_MISSING_SPACE_RE = re.compile(r"(?<=[a-z]),(?=[a-z0-9])|(?<=[0-9]),(?=[a-z])", re.IGNORECASE)
# Key words typed wrong, spelled right ("alrigth", "defintely"), and words run together.
_MISSPELLED = {
    **dict.fromkeys(["alrigth", "alrite", "alrght", "allright", "a lright", "alrigt"], "alright"),
    **dict.fromkeys(
        ["defintely", "definately", "definetly", "definitly", "defenitely"], "definitely"
    ),
    **dict.fromkeys(["absolutly", "absolutley", "absoloutely", "absoulutely"], "absolutely"),
    **dict.fromkeys(["perfcet", "perfct", "perfec", "prefect"], "perfect"),
    **dict.fromkeys(["thnaks", "thansk", "tahnks", "thnks"], "thanks"),
    **dict.fromkeys(["agred", "agreeed"], "agreed"),
    **dict.fromkeys(["aceptable", "acceptible", "acceptabel"], "acceptable"),
    **dict.fromkeys(["tomorow", "tommorow", "tommorrow", "tomorrrow"], "tomorrow"),
    **dict.fromkeys(["intrested", "interseted", "intersted"], "interested"),
    "wiling": "willing",
    "iwill": "i will",
    "ithink": "i think",
}
_MISSPELLED_RE = re.compile(
    r"\b(?:" + "|".join(sorted(map(re.escape, _MISSPELLED), key=len, reverse=True)) + r")\b",
    re.IGNORECASE,
)
# Key words typed with two neighbouring letters swapped ("sonuds good", "wolud work", "that
# wroks", "pefrect", "acecpt"): each such slip of these words is read as the word, bar the slips
# that are words of their own and could be meant ("oaky", "dela").
_SWAPPED_LETTERS_WORDS = frozenset(
    {
        "sounds",
        "sound",
        "would",
        "works",
        "perfect",
        "great",
        "awesome",
        "accept",
        "accepted",
        "agreed",
        "agree",
        "alright",
        "definitely",
        "absolutely",
        "certainly",
        "excellent",
        "fantastic",
        "wonderful",
        "thanks",
        "thank",
        "yours",
        "yourself",
        "offer",
        "price",
        "tomorrow",
        "tonight",
        "deliver",
        "interested",
        "reasonable",
        "deal",
        "sure",
        "fine",
        "okay",
        "lowest",
        "final",
        "budget",
        "cheaper",
        "expensive",
        "afford",
        "elsewhere",
        "willing",
    }
)


def _swapped(word: str) -> set[str]:
    return {word[:i] + word[i + 1] + word[i] + word[i + 2 :] for i in range(len(word) - 1)} - {word}


_SWAPPED_LETTERS = {
    slip: word
    for word in _SWAPPED_LETTERS_WORDS
    for slip in _swapped(word)
    if slip not in _SWAPPED_LETTERS_WORDS and slip not in {"oaky", "dela"}  # words of their own
}
_SWAPPED_LETTERS_RE = re.compile(
    r"\b(?:" + "|".join(sorted(_SWAPPED_LETTERS, key=lambda w: (-len(w), w))) + r")\b",
    re.IGNORECASE,
)
# A letter "o" typed for a zero at the end of a number: "15o and its urs".
_LETTER_O_ZERO_RE = re.compile(r"(?<=\b\d)o\b|(?<=\b\d\d)o\b|(?<=\b\d\d\d)o\b")
# Words stretched for feeling: "yesss", "okkk", "yeahhh", "sooo", "perfecttt", "fiiine".
_ELONGATED_RE = re.compile(
    r"\b(?:y+e+s+|o+k+|ye+a+h+|ya+y+|so{3,}|su+re+|no{3,}|pe+rfe+ct+|dea+l+|do+ne+|fi+ne+)\b",
    re.IGNORECASE,
)
_REPEATS_RE = re.compile(r"(.)\1+")
# Each plain word under its letters said once each ("yes", "ok", "yeah", ... "perfect").
_PLAIN_WORDS = {
    _REPEATS_RE.sub(r"\1", word): word
    for word in ("yes", "ok", "yeah", "yay", "so", "sure", "no", "perfect", "deal", "done", "fine")
}


def _shortened(match: re.Match[str]) -> str:
    """The plain word a stretched one stands for ("yesss" -> "yes")."""
    word = match.group(0)
    return _PLAIN_WORDS.get(_REPEATS_RE.sub(r"\1", word.lower()), word)


# Run-on chat: a sentence left without its full stop ("if needed Where are you located?", "I
# am in Hayward  I will pay $150") ends before a capitalised opener or at a double space.
_RUN_ON_BREAK_RE = re.compile(
    r"(?<=[a-z0-9])[ \t]+(?=(?:Do|Does|Did|Where|What|When|How|Can|Could|Would|Will|Is|Are|Thanks|"
    r"Thank you|Yes|Also|Please|Let me|Let's|Lets|Great|Perfect|Awesome|Sounds|Sure|Cool)\b)|"
    r"(?<=[a-z0-9])[ \t]+(?=SOLD\W*$)|(?<=[a-z0-9])[ \t]{2,}(?=[A-Za-z$])"
)


def with_sentence_breaks(text: str) -> str:
    """``text`` with a full stop put where a run-on chat line starts a new sentence without one:
    before a capitalised question word, "Thanks" or "Great" after a lower-case word, and at a
    double space between words. Indices change; read prices in the returned text."""
    return _RUN_ON_BREAK_RE.sub(". ", text)


# A question typed without its question mark opens like this: "would you do 100", "ok. any
# issues", "how old is it" (not "can do 150", "will do", "how nice", "what a deal").
_UNMARKED_QUESTION_RE = re.compile(
    r"\W*(?:(?:ok|okay|k|so|and|but|well|hmm+|alright|cool|great|nice|sure|yes|yeah|hi|hey|also|"
    r"oh|perfect|good|bet|deal|done|sweet|awesome|yep|yup|pls|please|thanks|thx)\W+)*(?:(?:would|"
    r"could|can|will|is|are|was|were|does|did|have|has)\s+(?:you|"
    r"u|ya|it|"
    r"they|that|this|there|he|she|we|i|the|those|these|\$|\d)\b|(?:could|can|would|will) \w+ be\b|"
    r"(?:do|does) (?:you|u|ya|they|i|we|it|the)\b|any(?:thing|one|body) (?!else\b)|"
    r"any (?!(?:time|way|day|how|longer|more|less|further|lower|higher|offer)\b)[a-z]+ [a-z]+|"
    r"any (?:issues|problems|"
    r"damage|scratches|dents|rust|stains|leaks|marks|wear|chance|way|room|flexibility|wiggle|"
    r"discount|pets|questions|other|more)\b|what(?!\s+(?:a|an)\b)|whats|what's|how(?!\s+(?:nice|"
    r"cool|great|sweet|awesome|lovely|fun|exciting|wonderful|kind|generous)\b)|hows|how's|"
    r"(?:when|where|why) (?:can|could|should|would|will|do|does|did|is|are|r|u|you|works)\b|"
    r"wheres|where's|who (?:is|are|else|would)\b|which (?:one|is|are|do|color|model|year)\b|"
    r"mind if|ok if|okay if|cool if|possible to)\b",
    re.IGNORECASE,
)


def with_question_marks(text: str) -> str:
    """``text`` with a question mark put after each line's last sentence that opens like a
    question but ends with no punctuation ("would you do 100", "ok. any issues"), as people
    type fast. Indices of what comes before are kept; read prices in the returned text."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        stripped = line.rstrip()
        if not stripped or stripped[-1] in ".!?…,;:)\"'*" or not stripped[-1].isalnum():
            continue
        spans = sentence_spans(stripped)
        if spans and _UNMARKED_QUESTION_RE.match(stripped, spans[-1][0]):
            lines[i] = stripped + "?" + line[len(stripped) :]
    return "\n".join(lines)


# A discount off a price on the table: "I can take $5 off", "5$ off", "knock off 10", "20% off".
_DISCOUNT_RE = re.compile(
    r"(?:\b(?:take|knock|knocking|taking|give you|do)\s+(?:off\s+)?|\bdiscount of\s+|"
    r"\b(?:reduce|lower|drop|cut|bring)(?: it| the price)?(?: down)? by\s+)"
    r"(?P<before>\$\s?\d+(?:\.\d+)?|\d+(?:\.\d+)?(?:\s?(?:dollars?|bucks)|\$)?)"
    r"(?P<percent>\s?(?:%|percent))?"
    r"(?(percent)|(?:\s+off\b)?)"
    r"|(?P<after>\$\s?\d+(?:\.\d+)?|\d+(?:\.\d+)?(?:\s?(?:dollars?|bucks)|\$)?)"
    r"(?P<percent2>\s?(?:%|percent))?"
    r"\s+(?:off|discount)\b",
    re.IGNORECASE,
)


# A change said relative to the price on the table: "can you do 20 less?", "knock off another 20"
# lower it; "add 20 and it's yours", "20 more", "I can go 10 higher" raise it (not "20 more
# minutes", "less than 20").
_AMOUNT = (
    r"(?:\$\s?\d+(?:\.\d+)?|\d+(?:\.\d+)?(?:\s?(?:dollars?|bucks)|\$)?|"
    # "twenty", "twenty-five", "a hundred", "fifty bucks"
    r"(?:an?\s+)?" + _WORD + r"(?:[\s-]+" + _WORD + r")*(?:\s(?:dollars?|bucks))?)"
    r"(?:\s?(?:%|percent))?"
)
_COUNTED_AFTER = (
    r"(?:days?|hours?|minutes?|mins?|weeks?|months?|years?|people|miles?|pictures?|photos?|"
    r"questions?|times?|items?|pieces?|pounds?|lbs?|inches|feet|%|percent)"
)
_LOWER_RE = re.compile(
    r"(?P<amount>" + _AMOUNT + r")\s+(?:less|lower|cheaper)\b(?!\s+than)|"
    r"\b(?:knock|take)(?:\s+off)?\s+another\s+(?P<another>" + _AMOUNT + r")|"
    r"\banother\s+(?P<off>" + _AMOUNT + r")\s+off\b|"
    # in words, as the digit discounts above: "knock off fifty", "fifty bucks off", "five percent
    # off"
    r"\b(?:knock|take|knocking|taking)\s+off\s+(?P<knocked>" + _AMOUNT + r")|"
    r"\b(?P<words_off>(?:an?\s+)?" + _WORD + r"(?:[\s-]+" + _WORD + r")*(?:\s(?:dollars?|bucks))?"
    r"(?:\s?(?:%|percent))?)\s+off\b",
    re.IGNORECASE,
)
_RAISE_RE = re.compile(
    r"(?P<amount>"
    + _AMOUNT
    + r")\s+(?:more|higher|extra)\b(?!\s+than)(?!\s+"
    + _COUNTED_AFTER
    + r"\b)|"
    r"\b(?:add|adding|another|additional)\s+(?P<added>" + _AMOUNT + r")\b(?!\s*(?:off\b|%|"
    r"percent|" + _COUNTED_AFTER + r"\b))",
    re.IGNORECASE,
)


_SMALL_CHANGE_WORD_MINIMUM = 5


def _amount_value(raw: str) -> tuple[float, bool] | None:
    """The amount of a change written in digits or words, and whether it is a percentage
    ("twenty-five" is (25.0, False), "5%" (5.0, True))."""
    percent = bool(re.search(r"%|percent", raw, re.IGNORECASE))
    digits = re.sub(r"[^\d.]", "", raw)
    if digits:
        try:
            return float(digits), percent
        except ValueError:
            return None
    words = [w.lower() for w in _TOKEN_RE.findall(raw) if w.lower() not in ("dollars", "dollar")]
    words = [w for w in words if w not in ("bucks", "buck", "percent")]
    if words and words[0] in ("a", "an"):
        words[0] = "one"  # "a hundred"
    elif words and words[0] in ("hundred", "thousand"):
        words.insert(0, "one")  # "another hundred"
    parsed = _parse_words(words, 0) if words else None
    if parsed is None or parsed[1] != len(words):
        return None
    if parsed[0] < _SMALL_CHANGE_WORD_MINIMUM:
        return None  # "one off the master bedroom", "one more thing"
    return float(parsed[0]), percent


def discount(text: str) -> tuple[float, bool] | None:
    """The last change ``text`` makes to the price on the table, as (amount off, is a
    percentage): "I can take $5 off" is (5.0, False), "20% off" (20.0, True), "can you do 20
    less?" (20.0, False); a raise is an amount below zero ("add 20 and it's yours" is (-20.0,
    False)). None without one."""
    found: tuple[int, float, bool] | None = None  # (position, amount, percentage)
    for match in _DISCOUNT_RE.finditer(text):
        if match.group("before") is not None and not re.search(
            r"\boff\b|%|percent|discount|\bby\b", match.group(0), re.IGNORECASE
        ):
            continue  # "take 50" is a price, not a discount
        raw = match.group("before") or match.group("after")
        amount = float(re.sub(r"[^\d.]", "", raw))
        found = (match.start(), amount, bool(match.group("percent") or match.group("percent2")))
    lowered: list[tuple[int, int]] = []
    for pattern, sign in ((_LOWER_RE, 1.0), (_RAISE_RE, -1.0)):
        for match in pattern.finditer(text):
            if any(a <= match.start() < b for a, b in lowered):
                continue  # the "another 20" of "knock off another 20"
            if sign > 0:
                lowered.append(match.span())
            raw = next(g for g in match.groups() if g is not None)
            value = _amount_value(raw)
            if value is None:
                continue
            amount, percent = value
            if amount > 0 and (found is None or match.start() > found[0]):
                found = (match.start(), sign * amount, percent)
    return None if found is None else (found[1], found[2])


def standing_offer(text: str) -> float | None:
    """The last price in ``text`` that puts a price on the table (kind offer or question)."""
    offers = [m.amount for m in find_prices(text) if m.kind in OFFER_KINDS]
    return offers[-1] if offers else None


# Anything that may be a price; only a line that has one of these is read by :func:`find_prices`.
_PRICE_HINT = re.compile(
    r"[\d$€£]|\b(?:dollars?|bucks|usd|cents?|grand|one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand)\b",
    re.IGNORECASE,
)


def names_a_price(text: str) -> bool:
    """True when ``text`` names a price, as the rules moderator reads prices."""
    return _PRICE_HINT.search(text) is not None and bool(find_prices(text))
