"""Path memory of a fallback chain of request forms (structured output, then plainer forms).

The llm moderator (:mod:`icl_aif.games.price.judge.llm`) and a player's binding moves
(:mod:`icl_aif.engine.move_asker`) ask a model for structured answers in forms ordered from the most
structured to plain text. A :class:`RequestForms` remembers, for one model, the form that last
produced an answer and starts every later call there; a form the model cannot do is dropped for
good. The chain therefore only moves down, and a model pays for a failed form once, not on
every call. The last form (plain text) is never dropped.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

__all__ = ["RequestForms"]

logger = logging.getLogger(__name__)

Form = TypeVar("Form", bound=str)


@dataclass
class RequestForms(Generic[Form]):
    """The forms of ``order`` still worth trying for one model (``who`` names it in logs)."""

    order: Sequence[Form]
    who: str
    working: Form | None = None  # the form that last produced an answer
    dropped: set[Form] = field(default_factory=set)  # forms this model cannot do

    def chain(self) -> list[Form]:
        """The forms to try, in order: from the remembered one down, minus dropped ones."""
        start = self.order.index(self.working) if self.working is not None else 0
        return [form for form in self.order[start:] if form not in self.dropped]

    def drop(self, form: Form, why: str) -> None:
        """Never try ``form`` again (the last form stays: it is plain text)."""
        if form != self.order[-1] and form not in self.dropped:
            self.dropped.add(form)
            logger.info("%s: %s dropped (%s)", self.who, form, why)

    def remember(self, form: Form) -> None:
        """``form`` produced an answer: later calls start there (never above a lower one)."""
        if self.working is None or self.order.index(form) > self.order.index(self.working):
            self.working = form
