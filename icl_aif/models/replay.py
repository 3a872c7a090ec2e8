"""A replay fake: answers with a fixed list of replies, in order (for tests and dry runs).

``replay:NAME`` with ``params.replies`` (a list of strings). Each game builds its own instance, so
every game starts again at the first reply; running out of replies is an error, never a silent loop.
The messages it received are kept in ``received`` and, like every call, in ``calls.jsonl``.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage
from pydantic import Field

from icl_aif.models.base import ModelRequest, TextReplyModel


class ReplayModel(TextReplyModel):
    """Returns ``replies`` one after another and records what it was sent."""

    name: str = "replay"
    replies: list[str] = Field(default_factory=list)
    received: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "replay"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """The next reply in the list."""
        self.received.append(list(messages))
        index = len(self.received) - 1
        if index >= len(self.replies):
            raise RuntimeError(
                f"replay model {self.name!r} has {len(self.replies)} replies and was called again"
            )
        return self.replies[index]


def build_replay(request: ModelRequest) -> ReplayModel:
    """``replay:NAME`` with ``params.replies``."""
    replies = request.params.get("replies")
    if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
        raise ValueError("replay models need params.replies: a list of strings")
    return ReplayModel(name=request.name or "replay", replies=list(replies))
