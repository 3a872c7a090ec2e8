"""What the games' rules judges share: the name ``rules``, the verdict of an empty window and
the async twin of :meth:`RulesJudge.classify` that the engine calls
(:class:`~icl_aif.games.base.Judge`). A game's rules judge subclasses :class:`RulesJudge` and
reads a non-empty window in :meth:`RulesJudge.read`."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, Generic, TypeVar

from icl_aif.core.transcript import Turn, Verdict

__all__ = ["GameJudge", "RulesJudge"]

VerdictT = TypeVar("VerdictT", bound=Verdict)


class RulesJudge(ABC, Generic[VerdictT]):
    """Rules that label the state after the last line of a window (no model); typed over the
    game's verdict (the price game's carries the price)."""

    name = "rules"

    @abstractmethod
    def empty(self) -> VerdictT:
        """The verdict of an empty window: ``ongoing``."""

    @abstractmethod
    def read(self, window: Sequence[Turn], scenario: Mapping[str, Any] | None) -> VerdictT:
        """The verdict after the last line of a non-empty ``window`` (``scenario``: the judge's
        view of the game's scenario, :meth:`~icl_aif.games.base.Game.judge_info`)."""

    def classify(
        self, window: Sequence[Turn], scenario: Mapping[str, Any] | None = None
    ) -> VerdictT:
        """``ongoing``, ``deal`` (with its terms) or ``no_deal`` (with its reason)."""
        if not window:
            return self.empty()
        return self.read(window, scenario)

    async def aclassify(
        self,
        window: Sequence[Turn],
        scenario: Mapping[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> VerdictT:
        """Async twin of :meth:`classify`; makes no model calls, so ``calls`` is left alone."""
        return self.classify(window, scenario)


class GameJudge(RulesJudge[Verdict]):
    """A rules judge whose verdicts are plain :class:`~icl_aif.core.transcript.Verdict`s."""

    def empty(self) -> Verdict:
        """``ongoing``, reason ``empty window``."""
        return Verdict("ongoing", reason="empty window")
