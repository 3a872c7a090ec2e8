"""The resource split of seed 003 (see :mod:`icl_aif.games.resource_split.game`)."""

from icl_aif.games.resource_split.game import ResourceSplitGame

__all__ = ["ResourceSplitGame"]
