"""A rule-based critic (a simulator, not a language model).

It reads the improved player's most recent round from its record
(:class:`~icl_aif.games.critics.RoundSummary`: its lines and its outcome) and returns numbered
suggestions. The diagnoses, in order of priority:

- broke the deal (no deal): close the deal, concede faster near the end;
- large first concession (over 30% of the opening gap): anchor high / anchor low;
- large total concession (over 50% of the opening gap): hold firm, small steps;
- accepted early (a deal within its first three turns): do not accept too early;

then general advice (value of the item, willingness to walk away, patience) in a seeded random order.
The phrases match the feedback lexicon of :mod:`icl_aif.games.price.simulators`, so scripted players react.
"""

from __future__ import annotations

from icl_aif.core.transcript import Seat
from icl_aif.games.critics import RoundSummary, ScriptedCritic, last_round
from icl_aif.games.price.judge.prices import standing_offer
from icl_aif.games.price.scenario import SEATS, PriceTerms, ScenarioConfig

__all__ = ["ADVICE", "PriceCritic", "diagnose"]

ADVICE: dict[str, dict[Seat, str]] = {
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
GENERAL = ("value", "walk", "patience")

Summary = RoundSummary[float | None, PriceTerms]


def diagnose(summary: Summary | None, scenario: ScenarioConfig) -> list[str]:
    """The advice keys that the round calls for, most important first."""
    if summary is None:
        return []
    keys: list[str] = []
    gap = scenario.list_price - scenario.buyer_open
    if not summary.deal:
        keys.append("close")
    offers = [offer for offer in summary.own() if offer is not None]
    if len(offers) >= 2 and abs(offers[1] - offers[0]) > 0.3 * gap:
        keys.append("anchor")
    if offers and abs(offers[-1] - offers[0]) > 0.5 * gap:
        keys.append("firm")
    if summary.deal and len(summary.own()) <= 3:
        keys.append("early")
    return keys


class PriceCritic(ScriptedCritic):
    """Diagnoses the improved player's last round and suggests what to change (a simulator)."""

    GAME = "scripted"
    LLM_TYPE = "scripted-critic"
    SEATS = SEATS
    GENERAL = GENERAL

    scenario: ScenarioConfig

    def diagnose(self) -> list[str]:
        """The advice keys of the last round (:func:`diagnose`)."""
        summary = last_round(self.rounds, self.side, standing_offer, PriceTerms)
        return diagnose(summary, self.scenario)

    def advice(self, key: str) -> str:
        """The suggestion of ``key`` for the improved seat, naming the item."""
        return ADVICE[key][self.side].format(item=self.scenario.item)
