"""How a line of the size-price game is read: an offer, an acceptance, a walk-away or talk.

The format the briefs teach, the simulators write and the judge reads (case-insensitive):

- an **offer** names a quantity and a unit price: ``OFFER: 12 units at $9.50 each`` (seed 004's
  ``u units at $p each`` with a tag). Without the tag, ``12 units at $9.50 each`` (also ``unit``,
  ``pieces``, ``items``, ``pairs``; ``at $9.50`` or ``for $9.50 each``/``per unit``; ``9.50
  dollars``) is an offer too, unless the line accepts. When a line names several, the tagged one
  counts, else the last. A line with the ``OFFER:`` tag but no quantity-and-price after it is a
  **malformed** offer; a quantity that is not a whole number of at least 1, above the scenario's
  ``max_quantity``, or a negative price make an **invalid** offer: neither is ever accepted.
- an **acceptance** (in a line without an ``OFFER:`` tag) says ``ACCEPT``/``I accept``,
  ``accepted``, ``I agree``, ``agreed``, ``it's a deal``, ``we have a deal`` or starts a sentence
  with ``Deal``; not when negated (``I can't accept``) or asked (``Do you accept?``). It binds the
  other side's standing offer; the quantity and price it restates (``I accept: 12 units at $9.50
  each``) must be that offer's.
- a **walk-away** (``I walk away``, ``no deal``, ``I'm out``, ``I pass``) or a **refusal** (``I
  refuse to continue``, ``I won't negotiate``, ``stop negotiating``) in a line that makes no offer
  and accepts nothing ends the round without a deal.

Everything else is talk.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from icl_aif.games.size_price.scenario import format_price
from icl_aif.games.talk import Ending, TalkRules, sentences

__all__ = [
    "Ending",
    "LineReading",
    "Offer",
    "read_line",
    "read_offer",
    "sentences",
]


PRICE_TOLERANCE = 0.005
"""Half a cent: two unit prices this close are the same price."""

_NUMBER = r"[-−]?\s*\d[\d,]*(?:\.\d+)?|[-−]?\s*\.\d+"
_COUNTER = r"(?:units?|pieces?|items?|pairs?)"


def _price(key: str) -> str:
    return (
        rf"(?:(?P<sign{key}>[-−])\s*)?\$\s*(?P<price{key}>{_NUMBER})"
        rf"|(?P<words{key}>{_NUMBER})\s*(?:dollars?|usd)\b"
    )


_EACH = r"(?:each|apiece|per\s+(?:unit|piece|item|pair)|a\s+(?:unit|piece|item|pair))"
_OFFER = re.compile(
    rf"(?P<quantity>{_NUMBER})\s*{_COUNTER}\b\s*(?:of\s+[^,.;:!?$]{{1,60}}?\s+)?"
    rf"(?:(?:at|@)\s*(?:{_price('a')})(?:\s*{_EACH})?|for\s+(?:{_price('f')})\s*{_EACH})",
    re.I,
)
_TAG = re.compile(r"\boffer\s*:", re.I)


TALK = TalkRules(
    accept=re.compile(
        r"\b(?:i|we)\s+(?:(?:will|shall|hereby|gladly|happily)\s+)?(?:accept|agree)\b"
        r"|\baccept(?:ed)?\b\s*(?:[:.!]|$)|^\W*accept\b|\bagreed\b"
        r"|\b(?:it'?s|it\s+is|that'?s|that\s+is|we\s+have|you\s+have|you'?ve\s+got)\s+a\s+deal\b"
        r"|^\W*deal\b",
        re.I,
    ),
    negated_accept=re.compile(
        r"\b(?:not|never|no|cannot|can'?t|won'?t|don'?t|do\s+not|will\s+not|unable\s+to|refuse\s+to"
        r"|rather\s+not|if|unless|would|could)\b[^.!?]{0,16}?\b(?:accept|agree|deal)",
        re.I,
    ),
    refusal=re.compile(
        r"\bi\s+refuse\s+to\s+(?:continue|negotiate|go\s+on|play)\b"
        r"|\bi\s+(?:won'?t|will\s+not)\s+(?:negotiate|continue|go\s+on)\b"
        r"|\bi\s*'?a?m\s+done\s+negotiating\b|\bstop\s+negotiating\b",
        re.I,
    ),
    walk=re.compile(
        r"\bwalk(?:ing)?\s+away\b|\bno\s+deal\b|\bi'?m\s+out\b|\bi\s+am\s+out\b|\bi\s+pass\b"
        r"|\bi'?ll\s+pass\b|\bi\s+quit\b|\bend\s+the\s+negotiation\b",
        re.I,
    ),
    negated_walk=re.compile(
        r"\b(?:not|never|won'?t|don'?t|do\s+not|will\s+not|wouldn'?t|rather\s+not|no\s+need\s+to)"
        r"\b[^.!?,]{0,12}?\bwalk",
        re.I,
    ),
)
"""How the size-price judge reads acceptances (``ACCEPT``, "I hereby accept") and endings."""


@dataclass(frozen=True)
class Offer:
    """A quantity and a unit price as a line states them (``quantity`` as written: it may be
    fractional or not positive, which makes the offer invalid)."""

    quantity: float
    unit_price: float

    def problem(self, max_quantity: int | None = None) -> str | None:
        """Why the offer is invalid, in words; None for a valid one."""
        if not self.quantity.is_integer():
            return f"{self.quantity:g} units is not a whole number of units"
        if self.quantity < 1:
            return f"{self.quantity:g} units: the quantity must be at least 1"
        if max_quantity is not None and self.quantity > max_quantity:
            return (
                f"{self.quantity:g} units is more than the {max_quantity} units an offer may name"
            )
        if self.unit_price < 0:
            return f"a unit price of {format_price(self.unit_price)} is negative"
        return None

    def same(self, other: Offer) -> bool:
        """Same quantity, and unit prices within half a cent."""
        return self.quantity == other.quantity and math.isclose(
            self.unit_price, other.unit_price, rel_tol=0.0, abs_tol=PRICE_TOLERANCE
        )

    def text(self) -> str:
        """``12 units at $9.50 each``."""
        n = int(self.quantity) if self.quantity.is_integer() else self.quantity
        return f"{n} unit{'s' if n != 1 else ''} at {format_price(self.unit_price)} each"


@dataclass(frozen=True)
class LineReading:
    """What one line does: the offer it states or, in an acceptance, restates (``offer``),
    whether it accepts, whether it carries the ``OFFER:`` tag with no readable offer
    (``malformed``), whether it ends the round (only a line without an offer or an
    acceptance)."""

    offer: Offer | None
    accepts: bool
    ending: Ending | None
    malformed: bool = False

    @property
    def proposes(self) -> bool:
        """True when the line makes a new offer (it states one and does not accept)."""
        return self.offer is not None and not self.accepts


def _number(text: str) -> float:
    return float(re.sub(r"[\s,]", "", text.replace("−", "-")))


def _offer(match: re.Match[str]) -> Offer:
    quantity = _number(match.group("quantity"))
    key = "a" if match.group("pricea") or match.group("wordsa") else "f"
    price = _number(match.group(f"price{key}") or match.group(f"words{key}"))
    if match.group(f"sign{key}"):
        price = -abs(price)
    return Offer(quantity=quantity, unit_price=price)


def read_offer(text: str) -> tuple[Offer | None, bool]:
    """The offer ``text`` states (the one after an ``OFFER:`` tag, else the last) and whether it
    has the tag."""
    tag = _TAG.search(text)
    if tag is not None:
        found = _OFFER.search(text, tag.end())
        return (_offer(found) if found else None), True
    matches = list(_OFFER.finditer(text))
    return (_offer(matches[-1]) if matches else None), False


def read_line(text: str) -> LineReading:
    """Read one line of a round (see the module's format)."""
    offer, tagged = read_offer(text)
    if tagged:
        return LineReading(offer=offer, accepts=False, ending=None, malformed=offer is None)
    accepts = TALK.accepts(text)
    ending = None if offer is not None or accepts else TALK.ending(text)
    return LineReading(offer=offer, accepts=accepts, ending=ending)
