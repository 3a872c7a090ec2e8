"""The size-price bargaining game of seed 004 (see :mod:`icl_aif.games.size_price.game`)."""

from icl_aif.games.size_price.game import SizePriceGame

__all__ = ["SizePriceGame"]
