"""How a line of the pie split is read: an offer, an acceptance, a walk-away or talk.

The format the briefs ask for, the simulators write and the judge reads (case-insensitive):

- an **offer** names both shares, from the speaker's side, and its number:
  ``Offer 3: 60 for me and 40 for you.`` (also ``I get 60 and you get 40``; ``60%`` is read as
  60% of the pie). Offers are numbered from 1 across both sides in the order they are made. A
  line that names only one share is not an offer. A split whose shares do not add up to the pie
  is an **invalid** offer: it never makes a deal.
- an **acceptance** says ``I accept``, ``I agree``, ``agreed``, ``accepted``, ``it's a deal``,
  ``we have a deal`` or starts a sentence with ``Deal``; a negated one (``I can't accept``,
  ``no deal``) or a question (``Deal?``) is not. It should restate the offer it accepts, from
  the acceptor's side: ``I accept offer 3: 60 for you and 40 for me.``
- a **walk-away** (``I walk away``, ``no deal``, ``I'm out``, ``I'll pass``) or a **refusal**
  (``I refuse to continue``, ``I won't negotiate``, ``stop negotiating``) in a line that makes no
  offer and accepts nothing ends the round without a deal.

Everything else is talk.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from icl_aif.games.talk import PLAIN_TALK as TALK
from icl_aif.games.talk import Ending

__all__ = ["LineReading", "Split", "read_line", "same_split"]


_AMOUNT = r"(\d+(?:\.\d+)?)\s*(%|percent\b)?"
_OF_PIE = r"(?:\s+of\s+(?:the|this)\s+pie)?"
_MINE = (
    re.compile(rf"{_AMOUNT}{_OF_PIE}\s+(?:is\s+)?for\s+me\b", re.I),
    re.compile(rf"\bI\s+(?:get|take|keep|receive)\s+{_AMOUNT}", re.I),
)
_YOURS = (
    re.compile(rf"{_AMOUNT}{_OF_PIE}\s+(?:is\s+)?for\s+you\b", re.I),
    re.compile(rf"\byou\s+(?:get|take|keep|receive)\s+{_AMOUNT}", re.I),
)
_NUMBER = re.compile(
    r"\boffer\s*(?:no\.?\s*|number\s*|#\s*)?(\d+)(?!\d|\.\d)(?!\s*(?:%|percent|for\b|of\b))", re.I
)


@dataclass(frozen=True)
class Split:
    """A split as a line states it, from the speaker's side: ``mine`` for the speaker,
    ``yours`` for the other side (in the pie's units), and the offer's number if it has one."""

    mine: float
    yours: float
    number: int | None = None

    def adds_up(self, pie: float) -> bool:
        """True when the two shares make the whole pie (within a millionth of it)."""
        return math.isclose(self.mine + self.yours, pie, rel_tol=0.0, abs_tol=1e-6 * pie)


@dataclass(frozen=True)
class LineReading:
    """What one line does: the split it states (if any), whether it accepts, whether it ends
    the round (``walk_away`` or ``refusal``; only for a line without a split or an acceptance)."""

    split: Split | None
    accepts: bool
    ending: Ending | None


def _amount(match: re.Match[str], pie: float) -> float:
    value = float(match.group(1))
    return value * pie / 100 if match.group(2) else value


def _last_share(text: str, patterns: tuple[re.Pattern[str], ...], pie: float) -> float | None:
    found = [(m.start(), _amount(m, pie)) for p in patterns for m in p.finditer(text)]
    return max(found)[1] if found else None


def read_split(text: str, pie: float) -> Split | None:
    """The split ``text`` states (both shares needed; the last of each if it names several)."""
    mine = _last_share(text, _MINE, pie)
    yours = _last_share(text, _YOURS, pie)
    if mine is None or yours is None:
        return None
    numbers = _NUMBER.findall(text)
    return Split(mine=mine, yours=yours, number=int(numbers[-1]) if numbers else None)


def read_line(text: str, pie: float) -> LineReading:
    """Read one line of a round (see the module's format)."""
    split = read_split(text, pie)
    accepts = TALK.accepts(text)
    ending = None if split is not None or accepts else TALK.ending(text)
    return LineReading(split=split, accepts=accepts, ending=ending)


def same_split(a: Split, b: Split, pie: float) -> bool:
    """True when two splits, from the same speaker's side, give the same shares."""
    tolerance = 1e-6 * pie
    return math.isclose(a.mine, b.mine, abs_tol=tolerance) and math.isclose(
        a.yours, b.yours, abs_tol=tolerance
    )
