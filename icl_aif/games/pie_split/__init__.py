"""The pie split of seed 003 (see :mod:`icl_aif.games.pie_split.game`)."""

from icl_aif.games.pie_split.game import PieSplitGame

__all__ = ["PieSplitGame"]
