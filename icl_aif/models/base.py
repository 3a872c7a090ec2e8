"""What every backend is built from: a request naming the model, its role and its settings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolCall
from langchain_core.messages.ai import InputTokenDetails, UsageMetadata
from langchain_core.messages.tool import tool_call
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableBinding
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from icl_aif.core.transcript import without_move_note


@dataclass(frozen=True)
class ModelRequest:
    """Everything a provider needs to build the model for one role of one game: the model string
    and the role's settings, no game.

    ``seed`` is derived from the experiment seed and the game, so a model's randomness does not
    depend on which games run at the same time. ``stream_seed``, when set, reseeds a model's
    random choices after its private values are drawn from ``seed``: a paired feedback arm keeps the
    game's players (same private values) with randomness of its own (see ``icl_aif.engine.arms``).
    ``simulator`` builds the game's simulator of a kind (``scripted:KIND``) for this role: the games
    layer hands it in (:func:`icl_aif.engine.context.build_model`), the ``scripted`` provider calls it,
    and the model layer knows nothing of the game behind it.
    """

    spec: str
    provider: str
    name: str
    role: str
    seed: int
    stream_seed: int | None = None
    simulator: Callable[[str], BaseChatModel] | None = None
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


def keeps_state(model: Any) -> bool:
    """True for a model whose replies depend on the calls it answered before (a simulator's
    random stream, a replay's position): its ``keeps_state`` attribute, seen through bound
    tools. The response cache asks such a model on a hit too (:mod:`icl_aif.models.cache`), so that its
    state moves as in a run without the cache."""
    while isinstance(model, RunnableBinding):
        model = model.bound
    return bool(getattr(model, "keeps_state", False))


class TextReplyModel(BaseChatModel):
    """A chat model computed in process: subclasses say what to reply in :meth:`respond`.

    ``_agenerate`` is implemented directly, so the async path runs no thread pool. Such a model
    keeps state between calls (:attr:`keeps_state`): a simulator draws from a random stream that
    each reply advances, a replay walks its list.
    """

    keeps_state: ClassVar[bool] = True
    """Its replies depend on the calls it answered before (:func:`keeps_state`)."""

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """The reply to ``messages``."""
        raise NotImplementedError

    def respond_move(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        """The reply to ``messages`` and the binding move it makes (``{"move": KIND, "terms":
        ...}``, the arguments of a move tool beside ``message``), or None for a reply without one
        (the default: :meth:`respond`'s text alone). Asked only when a tool is bound."""
        return self.respond(messages), None

    def reported_usage(self) -> dict[str, int]:
        """Token usage to report with every reply (``input_tokens``, ``output_tokens``,
        ``cached_input_tokens``); none by default: simulators use no tokens."""
        return {}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind tools as a vendor's chat model does: with a tool bound, a reply that makes a move
        (:meth:`respond_move`) calls the first tool with ``message`` and the move's fields. Only a
        model that makes moves (overrides :meth:`respond_move`) takes tools; any other raises
        :class:`NotImplementedError`, as LangChain's default does, so that a caller that asks
        for structured output falls back to text at once."""
        if type(self).respond_move is TextReplyModel.respond_move:
            raise NotImplementedError(f"{self._llm_type} makes no moves and calls no tools")
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        # LangChain's tracing metadata: converting the schema again on every call costs more than
        # a simulator's reply
        kwargs.pop("ls_structured_output_format", None)
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def _reply(
        self, messages: Sequence[BaseMessage], tools: Sequence[dict[str, Any]] | None = None
    ) -> ChatResult:
        call: ToolCall | None = None
        if tools:
            text, move = self.respond_move(without_move_notes(messages))
            if move is not None:
                name = tools[0]["function"]["name"]
                call = tool_call(name=name, args={"message": text, **move}, id=f"call_{name}")
        else:
            text = self.respond(messages)
        usage = self.reported_usage()
        result = chat_result(
            "" if call is not None else text,
            input_tokens=usage.get("input_tokens", 0) if usage else None,
            output_tokens=usage.get("output_tokens", 0) if usage else None,
            cached_tokens=usage.get("cached_input_tokens", 0) if usage else None,
        )
        if call is not None:
            result.generations[0].message.tool_calls = [call]  # type: ignore[attr-defined]
        return result

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages, kwargs.get("tools"))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._reply(messages, kwargs.get("tools"))


def without_move_notes(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """``messages`` with the move notes of binding moves taken off the lines (what was said):
    a simulator reads the talk, as it does without moves."""
    out: list[BaseMessage] = []
    for message in messages:
        text = message.content
        if isinstance(text, str) and "[move: " in text:
            message = message.model_copy(update={"content": without_move_note(text)})
        out.append(message)
    return out
