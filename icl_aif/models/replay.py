"""A replay fake: answers with a fixed list of replies, in order (for tests and dry runs).

``replay:NAME`` with ``params.replies`` (a list of strings). Each game builds its own instance, so
every game starts again at the first reply; running out of replies is an error, never a silent loop.
The messages it received are kept in ``received`` and, like every call, in ``calls.jsonl``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from icl_aif.models.base import ModelRequest, reply


class ReplayModel(BaseChatModel):
    """Returns ``replies`` one after another and records what it was sent."""

    name: str = "replay"
    replies: list[str] = Field(default_factory=list)
    received: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "replay"

    def _next(self, messages: list[BaseMessage]) -> ChatResult:
        self.received.append(list(messages))
        index = len(self.received) - 1
        if index >= len(self.replies):
            raise RuntimeError(
                f"replay model {self.name!r} has {len(self.replies)} replies and was called again"
            )
        return reply(self.replies[index])

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._next(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._next(messages)


def build_replay(request: ModelRequest) -> ReplayModel:
    """``replay:NAME`` with ``params.replies``."""
    replies = request.params.get("replies")
    if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
        raise ValueError("replay models need params.replies: a list of strings")
    return ReplayModel(name=request.name or "replay", replies=list(replies))
