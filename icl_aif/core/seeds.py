"""Seeds and ids derived from the experiment seed: every game, role and arm gets its own.

Plain functions of their arguments, so that a game's randomness never depends on which games run
beside it, and so that the analysis (bootstrap seeds) can derive them without the engine.
"""

from __future__ import annotations

import hashlib


def derive_seed(seed: int, *parts: object) -> int:
    """A stable 63-bit seed from the experiment seed and labels (game index, role, ...)."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def game_id_for(index: int) -> str:
    """The id of the ``index``-th run of an experiment."""
    return f"g{index:05d}"
