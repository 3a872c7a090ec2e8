"""Moderators: decide after each utterance whether a round is ongoing, a deal or no deal."""

from __future__ import annotations

from icl_aif.games.price.judge.prices import PriceMention, find_prices, standing_offer
from icl_aif.games.price.judge.rules import PriceRulesJudge

__all__ = ["PriceMention", "PriceRulesJudge", "find_prices", "standing_offer"]
