"""A rule-based critic (a simulator, not a language model).

It reads the transcript that :func:`icl_aif.engine.protocol.critic_transcript` renders (``Round N`` headers,
``seller: ...`` / ``buyer: ...`` lines, an ``Outcome: ...`` line), diagnoses the improved player's
most recent round and returns numbered suggestions. The diagnoses, in order of priority:

- broke the deal (no deal): close the deal, concede faster near the end;
- large first concession (over 30% of the opening gap): anchor high / anchor low;
- large total concession (over 50% of the opening gap): hold firm, small steps;
- accepted early (a deal within its first three turns): do not accept too early;

then general advice (value of the item, willingness to walk away, patience) in a seeded random order.
The phrases match the feedback lexicon of :mod:`icl_aif.games.price.simulators`, so scripted players react.
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
from icl_aif.games.price.moderator.prices import standing_offer
from icl_aif.games.price.scenario import SEATS, ScenarioConfig
from icl_aif.models.base import TextReplyModel, last_user_text

_LINE = re.compile(r"^(seller|buyer): (.*)$")

_ADVICE: dict[str, dict[Seat, str]] = {
    "close": {
        "seller": "You lost the sale: when the round is running out, concede faster near the end "
        "so that a deal still closes.",
        "buyer": "You lost the purchase: when the round is running out, concede faster near the end "
        "so that a deal still closes.",
    },
    "anchor": {
        "seller": "Your first concession was large. Anchor high: defend the full asking price and "
        "keep your first counter-offer close to your opening.",
        "buyer": "Your first concession was large. Anchor low: defend your opening offer and keep "
        "your first counter-offer close to your opening.",
    },
    "firm": {
        "seller": "You gave up most of the gap. Hold firm and give ground in small steps, each "
        "smaller than the last.",
        "buyer": "You gave up most of the gap. Hold firm and give ground in small steps, each "
        "smaller than the last.",
    },
    "early": {
        "seller": "Do not accept too early: let the buyer come up at least twice before you agree.",
        "buyer": "Do not accept too early: let the seller come down at least twice before you agree.",
    },
    "value": {
        "seller": "Stress the quality and value of the {item} so the buyer sees why it is worth "
        "the price.",
        "buyer": "Point out the flaws of the {item} and the alternatives you have, so the seller "
        "sees why it is worth less to you.",
    },
    "walk": {
        "seller": "Be ready to walk away from offers far below what the {item} is worth; say so "
        "calmly.",
        "buyer": "Be ready to walk away when the price stays above what the {item} is worth to you; "
        "say so calmly.",
    },
    "patience": {
        "seller": "Stay friendly and patient; buyers pay more to a calm seller.",
        "buyer": "Stay friendly and patient; sellers give more to a calm buyer.",
    },
}
_GENERAL = ("value", "walk", "patience")


@dataclass(frozen=True)
class RoundSummary:
    """The improved player's most recent round as the critic reads it."""

    own_offers: list[float]
    own_turns: int
    deal: bool


def last_round(transcript: str, side: Seat) -> RoundSummary | None:
    """Parse the last ``Round N`` block of a critic transcript."""
    block = simulation.last_round_lines(transcript)
    if block is None:
        return None
    own_offers: list[float] = []
    own_turns = 0
    deal = False
    for line in block:
        match = _LINE.match(line)
        if match and match.group(1) == side:
            own_turns += 1
            offer = standing_offer(match.group(2))
            if offer is not None:
                own_offers.append(offer)
        elif line.startswith("Outcome: deal"):
            deal = True
    return RoundSummary(own_offers=own_offers, own_turns=own_turns, deal=deal)


def diagnose(summary: RoundSummary | None, side: Seat, scenario: ScenarioConfig) -> list[str]:
    """The advice keys that the round calls for, most important first."""
    if summary is None:
        return []
    keys: list[str] = []
    gap = scenario.list_price - scenario.buyer_open
    if not summary.deal:
        keys.append("close")
    offers = summary.own_offers
    if len(offers) >= 2 and abs(offers[1] - offers[0]) > 0.3 * gap:
        keys.append("anchor")
    if offers and abs(offers[-1] - offers[0]) > 0.5 * gap:
        keys.append("firm")
    if summary.deal and summary.own_turns <= 3:
        keys.append("early")
    return keys


class ScriptedCritic(TextReplyModel):
    """Diagnoses the improved player's last round and suggests what to change (a simulator)."""

    side: Seat
    scenario: ScenarioConfig
    suggestions: int = 3
    seed: int = 0
    stream_seed: int | None = None

    _rng: random.Random = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Seed this game's random choices (``stream_seed`` when set: a paired arm's own)."""
        self._rng = simulation.critic_rng("scripted", SEATS, self.side, self.seed, self.stream_seed)

    @property
    def _llm_type(self) -> str:
        return "scripted-critic"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """Numbered suggestions for the improved player."""
        summary = last_round(last_user_text(messages), self.side)
        keys = diagnose(summary, self.side, self.scenario)
        chosen = simulation.choose_advice(keys, _GENERAL, self._rng, self.suggestions)
        lines = [_ADVICE[k][self.side].format(item=self.scenario.item) for k in chosen]
        return simulation.numbered(lines)


def build_critic(request: SimulatorRequest) -> ScriptedCritic:
    """``scripted:critic`` for the critic role."""
    return ScriptedCritic(
        side=request.side,
        scenario=request.scenario,
        suggestions=request.suggestions,
        seed=request.seed,
        stream_seed=request.stream_seed,
    )
