"""What every backend is built from: a request naming the model, its role and the game it serves."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from icl_aif.config import ScenarioConfig
from icl_aif.transcript import Speaker


@dataclass(frozen=True)
class ModelRequest:
    """Everything a provider needs to build the model for one role of one game.

    ``side`` is the seat a player model plays; for the critic it is the improved player's side.
    ``seed`` is derived from the experiment seed and the game, so a simulator's randomness does not
    depend on which games run at the same time.
    """

    spec: str
    provider: str
    name: str
    role: str
    side: Speaker
    scenario: ScenarioConfig
    seed: int
    suggestions: int = 3
    temperature: float | None = None
    max_tokens: int | None = None
    top_p: float | None = None
    sampling_seed: int | None = None
    timeout: float = 60.0
    base_url: str | None = None
    params: dict[str, Any] = field(default_factory=dict)


def message_text(message: BaseMessage) -> str:
    """The text of a message whether its content is a string or a list of blocks."""
    return str(message.text)


def reply(text: str) -> ChatResult:
    """A chat result holding one assistant message."""
    return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def last_user_text(messages: Sequence[BaseMessage]) -> str:
    """The text of the most recent user message, or '' if there is none."""
    for message in reversed(messages):
        if message.type == "human":
            return message_text(message)
    return ""


class TextReplyModel(BaseChatModel):
    """A chat model computed in process: subclasses say what to reply in :meth:`respond`.

    ``_agenerate`` is implemented directly, so the async path runs no thread pool.
    """

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """The reply to ``messages``."""
        raise NotImplementedError

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return reply(self.respond(messages))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return reply(self.respond(messages))
