"""Deal or No Deal of seeds 000 and 001 (see :mod:`icl_aif.games.dond.game`)."""

from icl_aif.games.dond.game import DondGame

__all__ = ["DondGame"]
