"""The single-item price game of seed 002 (see :mod:`icl_aif.games.price.game`)."""

from icl_aif.games.price.game import PriceGame

__all__ = ["PriceGame"]
