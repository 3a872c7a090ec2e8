"""The size-price game's rule-based critic (a simulator, not a language model).

It reads the transcript the engine renders for the critic (``Round N`` headers, ``seller: ...`` /
``buyer: ...`` lines, an ``Outcome: ...`` line worded by
:meth:`~icl_aif.games.size_price.game.SizePriceGame.outcome_sentence`), diagnoses the improved
player's most recent round from the scenario's economics and returns numbered suggestions. The
diagnoses, in order:

- no deal: the surplus was lost, concede faster;
- a first concession of more than 15% of the largest joint surplus ``S*``: open high (seller) or
  low (buyer);
- a deal that left it less than half of the surplus (bargaining power below 0.5): hold firm;
- the other side's first offer accepted at once for less than half: do not accept the first offer;
- a deal it accepted on one of the round's last two lines: raise its minimum, be ready to walk
  away;
- for the buyer, offers below the efficient quantity ``n*`` (less than 95% of ``S*``) that the
  seller turned down: propose the efficient quantity;

then general advice (point out its side's case, be ready to walk away (not after a no deal), make
an ambitious first offer) in a seeded random order. Each suggestion uses one phrase of the players' feedback
lexicon (:data:`icl_aif.games.size_price.simulators.LEXICON`), so scripted players react.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from icl_aif.core.transcript import Seat
from icl_aif.games import simulation
from icl_aif.games.base import SimulatorRequest
from icl_aif.games.size_price.offers import Offer, read_line
from icl_aif.games.size_price.scenario import (
    ROLE_NAMES,
    SEATS,
    SizePriceScenario,
    SizePriceTerms,
    bargaining_power,
    joint_surplus,
    max_surplus,
    payoffs,
)
from icl_aif.models.base import TextReplyModel, last_user_text

__all__ = ["ADVICE", "RoundSummary", "ScriptedCritic", "build_critic", "diagnose", "last_round"]

_LINE = re.compile(r"^(seller|buyer): (.*)$")
_DEAL = re.compile(r"^Outcome: deal on (\d+) units? at \$([\d,]+(?:\.\d+)?) each")

ADVICE: dict[str, str] = {
    "close": "The round ended with no deal, so both of you earned nothing. Concede faster as "
    "your lines run out: any deal that pays you something beats none.",
    "anchor_seller": "Your first concession gave away a large part of the surplus. Open high "
    "and keep your next prices close to your first one.",
    "anchor_buyer": "Your first concession gave away a large part of the surplus. Open low and "
    "keep your next prices close to your first one.",
    "firm": "The {rival} kept more of the gains than you did. Hold firm and give ground a "
    "little at a time.",
    "early": "Do not accept the first offer when it leaves you less than half of the gains; "
    "counter once before you agree.",
    "volume": "Your offers asked for too few units, and the {rival} turned them down. Propose "
    "the efficient quantity, where the last unit is still worth more than it costs, and bargain "
    "over the price of that total surplus.",
    "remind": "Point out your side's constraints when you counter, so your price looks "
    "grounded rather than greedy.",
    "walk": "Be ready to walk away from a deal far below your target, and say so calmly.",
    "late": "You took the last offer on the table. Raise your minimum: the {rival} moves when "
    "you show you would rather walk away than accept a poor deal.",
    "ambitious": "Make an ambitious first offer: the first numbers on the table shape the rest "
    "of the round.",
}
"""The critic's suggestions by diagnosis (``{rival}`` filled in)."""

_GENERAL = ("remind", "walk", "ambitious")


@dataclass(frozen=True)
class RoundSummary:
    """The improved player's most recent round as the critic reads it: its own offers, whether
    it accepted before making one, and the deal's terms if there was one."""

    own_offers: list[Offer]
    accepted_at_once: bool
    terms: SizePriceTerms | None
    accepted_late: bool = False


def last_round(transcript: str, side: Seat, max_lines: int = 10) -> RoundSummary | None:
    """The last ``Round N`` block of a critic transcript, from ``side``'s seat (``max_lines``:
    the round's cap, to tell an acceptance on one of its last two lines)."""
    block = simulation.last_round_lines(transcript)
    if block is None:
        return None
    offers: list[Offer] = []
    accepted_at_once = False
    accepted_late = False
    terms: SizePriceTerms | None = None
    said = 0
    for line in block:
        match = _LINE.match(line)
        said += match is not None
        if match and match.group(1) == side:
            reading = read_line(match.group(2))
            if reading.proposes and reading.offer is not None:
                offers.append(reading.offer)
            elif reading.accepts:
                accepted_at_once = accepted_at_once or not offers
                accepted_late = said >= max_lines - 1
        elif found := _DEAL.match(line):
            price = float(found.group(2).replace(",", ""))
            terms = SizePriceTerms(quantity=int(found.group(1)), unit_price=price)
    return RoundSummary(
        own_offers=offers,
        accepted_at_once=accepted_at_once,
        terms=terms,
        accepted_late=accepted_late,
    )


def diagnose(summary: RoundSummary | None, scenario: SizePriceScenario, side: Seat) -> list[str]:
    """The advice keys the round calls for, most important first."""
    if summary is None:
        return []
    keys: list[str] = []
    best = max_surplus(scenario)
    terms = summary.terms
    if terms is None:
        keys.append("close")
    offers = summary.own_offers
    if len(offers) >= 2:
        values = [payoffs(scenario, int(o.quantity), o.unit_price)[side] for o in offers[:2]]
        if values[0] - values[1] > 0.15 * best:
            keys.append(f"anchor_{side}")
    if terms is not None:
        alpha = bargaining_power(scenario, side, terms)
        if alpha is not None and alpha < 0.5:
            keys.append("firm")
            if summary.accepted_at_once:
                keys.append("early")
        if summary.accepted_late:
            keys.append("late")
    small = [o for o in offers if joint_surplus(scenario, int(o.quantity)) < 0.95 * best]
    if side == "buyer" and small and (terms is None or terms.quantity != small[-1].quantity):
        keys.append("volume")
    return keys


class ScriptedCritic(TextReplyModel):
    """Diagnoses the improved player's last round and suggests what to change (a simulator)."""

    side: Seat
    scenario: SizePriceScenario
    suggestions: int = 3
    seed: int = 0
    stream_seed: int | None = None

    _rng: random.Random = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Seed this game's random choices (``stream_seed`` when set: a paired arm's own)."""
        self._rng = simulation.critic_rng(
            "size_price", SEATS, self.side, self.seed, self.stream_seed
        )

    @property
    def _llm_type(self) -> str:
        return "scripted-size-price-critic"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """Numbered suggestions for the improved player."""
        summary = last_round(last_user_text(messages), self.side, 2 * self.scenario.max_exchanges)
        keys = diagnose(summary, self.scenario, self.side)
        general = [k for k in _GENERAL if k not in keys and not ("close" in keys and k == "walk")]
        self._rng.shuffle(general)
        chosen = [*keys, *general][: self.suggestions]
        values = {"rival": ROLE_NAMES[SEATS.other(self.side)]}
        lines = [ADVICE[k].format_map(values) for k in chosen]
        return simulation.numbered(lines)


def build_critic(request: SimulatorRequest) -> ScriptedCritic:
    """``scripted:critic`` for the critic role of the size-price game."""
    return ScriptedCritic(
        side=request.side,
        scenario=request.scenario,
        suggestions=request.suggestions,
        seed=request.seed,
        stream_seed=request.stream_seed,
    )
