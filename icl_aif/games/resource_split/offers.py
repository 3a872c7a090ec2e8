"""How a line of the resource split is read: an offer, an acceptance, a walk-away or talk.

The format the briefs teach, the simulators write and the judge reads (case-insensitive):

- an **offer** names the units of every resource for both sides, from the speaker's side:
  ``Offer: I take A=6 B=2 C=5, you take A=4 B=8 C=5.`` (``get``, ``keep`` or ``receive`` for
  ``take``; ``A: 6`` for ``A=6``; commas or ``and`` between the resources). A line that names
  resources (``A=6``) or starts with ``Offer:`` but does not give all three to both sides is a
  **malformed** offer; an offer whose two shares of some resource do not add up to its amount is
  an **invalid** split. Neither can be accepted.
- an **acceptance** says ``I accept``, ``I agree``, ``agreed``, ``accepted``, ``it's a deal``,
  ``we have a deal`` or starts a sentence with ``Deal``; not when negated (``I can't accept``,
  ``no deal``) or asked (``Deal?``). It should restate the offer it accepts, from the acceptor's
  side: ``I accept: you take A=6 B=2 C=5, I take A=4 B=8 C=5.``
- a **walk-away** (``I walk away``, ``no deal``, ``I'm out``, ``I'll pass``, ``I quit``) or a
  **refusal** (``I refuse to continue``, ``I won't negotiate``, ``stop negotiating``) in a line
  that makes no offer and accepts nothing ends the round without a deal.

Everything else is talk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from icl_aif.games.resource_split.scenario import RESOURCES, Bundle
from icl_aif.games.talk import PLAIN_TALK as TALK
from icl_aif.games.talk import Ending

__all__ = ["LineReading", "Split", "read_line", "read_split"]


_ITEM = r"[ABC]\s*[=:]\s*\d+"
_ITEMS = rf"{_ITEM}(?:\s*(?:,|;|and|&)?\s*{_ITEM})*"
_VERB = r"(?:take|get|keep|receive|have)"
_MINE = re.compile(rf"\b(?:I|me)\s+(?:would\s+|will\s+|'ll\s+)?{_VERB}\s*:?\s*({_ITEMS})", re.I)
_YOURS = re.compile(rf"\byou\s+(?:would\s+|will\s+|'ll\s+)?{_VERB}\s*:?\s*({_ITEMS})", re.I)
_ONE = re.compile(r"([ABC])\s*[=:]\s*(\d+)", re.I)
_ANY_ITEM = re.compile(rf"\b{_ITEM}", re.I)
_OFFER_LABEL = re.compile(r"^\s*(?:my\s+)?(?:counter-?)?offer\s*:", re.I)


@dataclass(frozen=True)
class Split:
    """A split as a line states it, from the speaker's side: ``mine`` for the speaker,
    ``yours`` for the other side."""

    mine: Bundle
    yours: Bundle

    def adds_up(self, amounts: Bundle) -> bool:
        """True when the two shares of every resource make its amount."""
        return all(self.mine.get(r) + self.yours.get(r) == amounts.get(r) for r in RESOURCES)

    def totals(self) -> Bundle:
        """The units of each resource the split gives out."""
        return Bundle(**{r: self.mine.get(r) + self.yours.get(r) for r in RESOURCES})

    def swapped(self) -> Split:
        """The same split from the other side."""
        return Split(mine=self.yours, yours=self.mine)


@dataclass(frozen=True)
class LineReading:
    """What one line does: the split it states (if any), whether it tries to state one and
    fails (``malformed``), whether it accepts, and whether it ends the round (``walk_away`` or
    ``refusal``; only for a line without a split or an acceptance)."""

    split: Split | None
    malformed: bool
    accepts: bool
    ending: Ending | None


def _bundle(items: str) -> Bundle | None:
    """The bundle ``A=6 B=2 C=5`` names, or None unless it names each resource once."""
    found = [(r.upper(), int(n)) for r, n in _ONE.findall(items)]
    names = [r for r, _ in found]
    if sorted(names) != sorted(RESOURCES):
        return None
    if any(n > 1000 for _, n in found):
        return None
    return Bundle(**dict(found))


def _last_bundle(text: str, pattern: re.Pattern[str]) -> tuple[bool, Bundle | None]:
    """Whether ``text`` names a share by ``pattern``, and the last such share if readable."""
    matches = list(pattern.finditer(text))
    if not matches:
        return False, None
    return True, _bundle(matches[-1].group(1))


def read_split(text: str) -> Split | None:
    """The split ``text`` states (both shares, each naming A, B and C; the last of each)."""
    _, mine = _last_bundle(text, _MINE)
    _, yours = _last_bundle(text, _YOURS)
    if mine is None or yours is None:
        return None
    return Split(mine=mine, yours=yours)


def read_line(text: str) -> LineReading:
    """Read one line of a round (see the module's format)."""
    split = read_split(text)
    tries = bool(_ANY_ITEM.search(text) or _OFFER_LABEL.search(text))
    malformed = split is None and tries
    accepts = TALK.accepts(text)
    ending = None if split is not None or accepts else TALK.ending(text)
    return LineReading(split=split, malformed=malformed, accepts=accepts, ending=ending)
