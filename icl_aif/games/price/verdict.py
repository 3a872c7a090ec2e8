"""The price game's verdict: the engine's :class:`~icl_aif.core.transcript.Verdict` with the price."""

from __future__ import annotations

from dataclasses import dataclass

from icl_aif.core.transcript import Verdict

__all__ = ["PriceVerdict"]


@dataclass(frozen=True)
class PriceVerdict(Verdict):
    """A verdict of the price game's judges: ``price`` is set only for ``deal`` (and may still be
    None when no price could be bound); the terms of a deal are ``{"price": price}``."""

    price: float | None = None

    def __post_init__(self) -> None:
        if self.state == "deal" and self.terms is None:
            object.__setattr__(self, "terms", {"price": self.price})
