"""Reading acceptances and endings in free text, for the games whose judges read talk.

A line is cut into sentences; an acceptance is an accepting sentence that is neither a question
nor negated; an ending is a refusal to go on, else a walk-away sentence that is not negated.
:data:`PLAIN_TALK` holds the phrases the split games read; a game with wordings of its own
builds a :class:`TalkRules` with its patterns (the size-price game does).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["PLAIN_TALK", "Ending", "TalkRules", "sentences"]

Ending = Literal["walk_away", "refusal"]

_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+")


def sentences(text: str) -> list[str]:
    """``text`` cut after ``.``, ``!``, ``?`` and ``;``."""
    return [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]


@dataclass(frozen=True)
class TalkRules:
    """The patterns of an acceptance, a refusal to go on and a walk-away, and of their
    negations."""

    accept: re.Pattern[str]
    negated_accept: re.Pattern[str]
    refusal: re.Pattern[str]
    walk: re.Pattern[str]
    negated_walk: re.Pattern[str]

    def accepts(self, text: str) -> bool:
        """True when a sentence of ``text`` accepts, unasked and unnegated."""
        for sentence in sentences(text):
            if sentence.endswith("?") or self.negated_accept.search(sentence):
                continue
            if self.accept.search(sentence):
                return True
        return False

    def ending(self, text: str) -> Ending | None:
        """``refusal`` when ``text`` refuses to go on, ``walk_away`` when a sentence walks away
        (unnegated), else None."""
        if self.refusal.search(text):
            return "refusal"
        for sentence in sentences(text):
            if self.walk.search(sentence) and not self.negated_walk.search(sentence):
                return "walk_away"
        return None


PLAIN_TALK = TalkRules(
    accept=re.compile(
        r"\b(?:i|we)\s+(?:accept|agree)\b|\baccepted\b|\bagreed\b"
        r"|\b(?:it'?s|it\s+is|that'?s|that\s+is|we\s+have|you\s+have|you'?ve\s+got)\s+a\s+deal\b"
        r"|^deal\b",
        re.I,
    ),
    negated_accept=re.compile(
        r"\b(?:not|never|no|cannot|can'?t|won'?t|don'?t|do\s+not|will\s+not|refuse\s+to"
        r"|rather\s+not)\b[^.!?,]{0,12}?\b(?:accept|agree|deal)",
        re.I,
    ),
    refusal=re.compile(
        r"\bi\s+refuse\s+to\s+(?:continue|negotiate|go\s+on|play)\b"
        r"|\bi\s+(?:won'?t|will\s+not)\s+(?:negotiate|continue|go\s+on|play)\b"
        r"|\bi'?m\s+done\s+negotiating\b|\bi\s+am\s+done\s+negotiating\b|\bstop\s+negotiating\b",
        re.I,
    ),
    walk=re.compile(
        r"\bwalk(?:ing)?\s+away\b|\bno\s+deal\b|\bi'?m\s+out\b|\bi\s+am\s+out\b"
        r"|\bi'?ll\s+pass\b|\bi\s+quit\b",
        re.I,
    ),
    negated_walk=re.compile(
        r"\b(?:not|never|won'?t|don'?t|do\s+not|will\s+not|wouldn'?t|rather\s+not|no\s+need\s+to)"
        r"\b[^.!?,]{0,12}?\bwalk",
        re.I,
    ),
)
"""The phrases of the pie split and the resource split."""
