"""What every backend is built from: a request naming the model, its role and its settings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import InputTokenDetails, UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult

from icl_aif.transcript import Speaker


@dataclass(frozen=True)
class ModelRequest:
    """Everything a provider needs to build the model for one role of one game.

    ``side`` is the seat a player model plays; for the critic it is the improved player's side.
    ``seed`` is derived from the experiment seed and the game, so a simulator's randomness does not
    depend on which games run at the same time. ``stream_seed``, when set, reseeds a model's
    random choices after its private values are drawn from ``seed``: a paired feedback arm keeps the
    game's players (same private values) with randomness of its own (see ``icl_aif.arms``).
    ``game`` names the game and ``scenario`` is its scenario, and ``persona`` the rival's persona
    (``rival_persona``, on the rival's request only), passed through untouched for the game's
    simulators (``scripted:``); the model layer never reads them.
    """

    spec: str
    provider: str
    name: str
    role: str
    side: Speaker
    scenario: Any
    seed: int
    game: str = "price"
    persona: str | None = None
    stream_seed: int | None = None
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
    content = message.content
    return content if isinstance(content, str) else str(message.text)


def chat_result(
    text: str,
    *,
    input_tokens: int | None = None,
    output_tokens: int | None = None,
    cached_tokens: int | None = None,
    metadata: dict[str, Any] | None = None,
) -> ChatResult:
    """One assistant message with LangChain ``usage_metadata`` (none if the reply reported none)."""
    usage: UsageMetadata | None = None
    if input_tokens is not None or output_tokens is not None:
        usage = UsageMetadata(
            input_tokens=input_tokens or 0,
            output_tokens=output_tokens or 0,
            total_tokens=(input_tokens or 0) + (output_tokens or 0),
        )
        if cached_tokens:
            usage["input_token_details"] = InputTokenDetails(cache_read=cached_tokens)
    message = AIMessage(content=text, usage_metadata=usage, response_metadata=metadata or {})
    return ChatResult(generations=[ChatGeneration(message=message)])


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

    def reported_usage(self) -> dict[str, int]:
        """Token usage to report with every reply (``input_tokens``, ``output_tokens``,
        ``cached_input_tokens``); none by default: simulators use no tokens."""
        return {}

    def _reply(self, messages: Sequence[BaseMessage]) -> ChatResult:
        text = self.respond(messages)
        usage = self.reported_usage()
        if not usage:
            return chat_result(text)
        return chat_result(
            text,
            input_tokens=usage.get("input_tokens", 0),
            output_tokens=usage.get("output_tokens", 0),
            cached_tokens=usage.get("cached_input_tokens", 0),
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages)
