"""Moderators: decide after each utterance whether a round is ongoing, a deal or no deal."""

from __future__ import annotations

from icl_aif.games.price.moderator.prices import PriceMention, find_prices, standing_offer
from icl_aif.games.price.moderator.rules import RulesModerator

__all__ = ["PriceMention", "RulesModerator", "find_prices", "standing_offer"]
