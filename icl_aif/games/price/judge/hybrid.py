"""The hybrid moderator: the rules decide when they are confident, a model only when they are not.

The rules read every window first (no call, as fast as the ``rules`` mode). Their reading of the
last turn (:class:`icl_aif.games.price.judge.rules.Reading`: its prices, acceptance and ending cues,
questions) says how sure the verdict is. :func:`ambiguity` returns why a window is ambiguous, or
None when the rules are confident:

* ``ongoing`` is confident when the last turn has no acceptance and no ending cue and either puts
  a price or a question on the table or mentions a price in another role (a refused, reference or
  conditional price). It is ambiguous when the turn has an acceptance cue that the rules did not
  count (a counter-offer in disguise, "OK, but...", an acceptance inside a question), an ending cue
  they overruled (a threat that reopens), or nothing they recognise at all (no price, no
  question, no cue: an unusual walk-away or acceptance may hide there).
* ``deal`` is confident when the last turn accepts with a phrase, asks nothing, and the price was
  bound to one offer. It is ambiguous when no price could be bound, when the turn also asks a
  question, when the turn also has an ending cue, when the deal was inferred without an acceptance
  phrase (both sides stated the price, a farewell carried a deal over), or when the other side's
  latest offering turn put several different prices on the table.
* ``no_deal`` is confident when the last turn has its own ending phrase (not only a farewell), no
  acceptance cue, no question and no new price. It is ambiguous otherwise (a farewell carrying over
  the previous state, a refusal that keeps talking).

Ambiguous windows go to the :class:`icl_aif.games.price.judge.llm.LLMJudge`; if its reply cannot be
read, the rules' verdict stands. Every verdict says which decided (``decided_by``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from icl_aif.core.transcript import Turn
from icl_aif.games.price.judge.llm import LLMJudge
from icl_aif.games.price.judge.prices import OFFER_KINDS
from icl_aif.games.price.judge.rules import Context, Reading, decide
from icl_aif.games.price.verdict import PriceVerdict

__all__ = ["HybridJudge", "ambiguity", "rules_reading"]

_PRICE_TOLERANCE = 0.005


def _distinct(amounts: Sequence[float]) -> int:
    seen: list[float] = []
    for amount in amounts:
        if not any(abs(amount - s) < _PRICE_TOLERANCE for s in seen):
            seen.append(amount)
    return len(seen)


def _latest_offers(ctx: Context, last: int) -> list[float]:
    """Offer-kind prices of the other side's latest turn that put any on the table."""
    for j in ctx.other_turns(last):
        offers = [m.amount for m in ctx.readings[j].prices if m.kind in OFFER_KINDS]
        if offers:
            return offers
    return []


def _ongoing_ambiguity(reading: Reading) -> str | None:
    if reading.accept is not None or reading.accepts_with_terms:
        return "acceptance cue without a deal"
    if reading.ending is not None:
        return "ending cue without an ending"
    if not reading.prices and not reading.has_question:
        return "no price, question or cue"
    return None


def _deal_ambiguity(ctx: Context, reading: Reading, verdict: PriceVerdict, last: int) -> str | None:
    if verdict.price is None:
        return "acceptance without a bindable price"
    if reading.has_question:
        return "acceptance mixed with a question"
    if reading.ending is not None:
        return "acceptance and ending cues"
    if reading.accept is None:
        return "deal without an acceptance phrase"
    if not ctx.stated(last) and _distinct(_latest_offers(ctx, last)) > 1:
        return "several prices on the table"
    return None


def _no_deal_ambiguity(reading: Reading) -> str | None:
    if reading.ending is None or reading.farewell_only:
        return "no ending phrase of its own"
    if reading.accept is not None:
        return "acceptance and ending cues"
    if reading.has_question or reading.standing_offer() is not None:
        return "ending that keeps talking"
    return None


def ambiguity(ctx: Context, verdict: PriceVerdict) -> str | None:
    """Why the rules' ``verdict`` on the window's last turn is uncertain, or None if confident."""
    last = len(ctx.window) - 1
    reading = ctx.readings[last]
    if verdict.state == "deal":
        return _deal_ambiguity(ctx, reading, verdict, last)
    if verdict.state == "no_deal":
        return _no_deal_ambiguity(reading)
    return _ongoing_ambiguity(reading)


def rules_reading(
    window: Sequence[Turn], scenario: Mapping[str, Any] | None = None
) -> tuple[PriceVerdict, str | None]:
    """The rules' verdict on ``window`` and why it is ambiguous (None when confident)."""
    if not window:
        return PriceVerdict("ongoing", reason="empty window", decided_by="rules"), None
    ctx = Context.read(window, scenario)
    verdict = replace(decide(ctx, ctx.last), decided_by="rules")
    return verdict, ambiguity(ctx, verdict)


class HybridJudge:
    """Rules first; the model only for windows the rules are not confident about."""

    name = "hybrid"

    def __init__(self, llm: LLMJudge) -> None:
        self.llm = llm

    async def aclassify(
        self,
        window: Sequence[Turn],
        scenario: Mapping[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> PriceVerdict:
        """The rules' verdict when confident, else the model's (the rules' if it is unreadable)."""
        verdict, why = rules_reading(window, scenario)
        if why is None:
            return verdict
        asked = await self.llm.ask(window, scenario, calls)
        return verdict if asked is None else asked
