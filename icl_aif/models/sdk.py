"""Thin LangChain chat models over vendor SDKs whose LangChain integration cannot be used as is.

A subclass says how to build the SDK's client around an httpx client, how to send one chat request
and how to read the reply. This base holds the common decoding fields, turns LangChain messages into
``{role, content}`` dicts, runs the sync and async paths, and builds the httpx clients itself so that
an SDK error always carries the HTTP response it came from (``exc.response``): some SDKs drop the
headers, and :mod:`icl_aif.models.retries` reads the status and ``Retry-After`` from there.

SDK imports happen in the subclasses' client builders, so importing this module needs no extra.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, ToolCall
from langchain_core.messages.tool import tool_call
from langchain_core.outputs import ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr, SecretStr

from icl_aif.models.base import message_text
from icl_aif.models.vendors import DEFAULT_MAX_TOKENS

if TYPE_CHECKING:
    import httpx

_ROLES = {"system": "system", "human": "user", "ai": "assistant"}

# The last HTTP error response seen in this context (one SDK call), set by the httpx event hook.
_error_response: ContextVar[httpx.Response | None] = ContextVar(
    "icl_aif_sdk_error_response", default=None
)


def chat_messages(messages: Sequence[BaseMessage]) -> list[dict[str, str]]:
    """LangChain messages as ``{"role", "content"}`` dicts with plain-text content."""
    converted = []
    for message in messages:
        role = _ROLES.get(message.type)
        if role is None:
            raise ValueError(f"unsupported message type {message.type!r}")
        converted.append({"role": role, "content": message_text(message)})
    return converted


def tool_calls_of(calls: Sequence[Any] | None) -> list[ToolCall]:
    """An SDK reply's OpenAI-style tool calls (``id``, ``function.name``, ``function.arguments``
    as JSON) as LangChain tool calls; a call whose arguments are not a JSON object is dropped."""
    read: list[ToolCall] = []
    for call in calls or ():
        function = getattr(call, "function", None)
        try:
            args = json.loads(getattr(function, "arguments", None) or "{}")
        except json.JSONDecodeError:
            continue
        if isinstance(args, dict):
            name = str(getattr(function, "name", ""))
            read.append(tool_call(name=name, args=args, id=getattr(call, "id", None)))
    return read


def with_tool_calls(result: ChatResult, calls: list[ToolCall]) -> ChatResult:
    """``result`` whose message makes ``calls``."""
    if calls:
        message = result.generations[0].message
        message.tool_calls = calls  # type: ignore[attr-defined]
    return result


def _remember_error(response: httpx.Response) -> None:
    if response.is_error:
        _error_response.set(response)


async def _aremember_error(response: httpx.Response) -> None:
    _remember_error(response)


def _attach_response(exc: BaseException) -> None:
    """Give ``exc`` the HTTP error response of this call if it has none of its own."""
    response = _error_response.get()
    if response is not None and getattr(exc, "response", None) is None:
        with contextlib.suppress(AttributeError):  # read-only attributes, __slots__
            exc.response = response  # type: ignore[attr-defined]


class SDKChatModel(BaseChatModel):
    """A chat model whose reply is one call of a vendor SDK; SDK retries are the subclass's to disable.

    ``model_kwargs`` are sent with every request as extra request fields.
    """

    model: str
    api_key: SecretStr = Field(repr=False)
    base_url: str | None = None
    temperature: float | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    top_p: float | None = None
    seed: int | None = None
    timeout: float = 60.0
    model_kwargs: dict[str, Any] = Field(default_factory=dict)

    _clients: dict[bool, Any] = PrivateAttr(default_factory=dict)

    # What subclasses implement.

    def _build_client(self, http_client: httpx.Client | httpx.AsyncClient) -> Any:
        """The SDK client (async if ``http_client`` is) for this model's key and endpoint."""
        raise NotImplementedError

    def _send(
        self,
        client: Any,
        messages: list[dict[str, str]],
        stop: list[str] | None,
        extra: dict[str, Any],
    ) -> Any:
        """Start one chat request: the SDK response, or an awaitable of it for an async client.

        ``extra`` holds ``model_kwargs`` and the call's keyword arguments, to send as they are.
        """
        raise NotImplementedError

    def _read(self, response: Any) -> ChatResult:
        """The chat result (text, usage and the tool calls it makes) of an SDK response."""
        raise NotImplementedError

    def _tool_choice(self, choice: str | None) -> dict[str, Any]:
        """The request fields that say which tool to call (``choice``: a tool's name, ``any``,
        ``required``, ``auto`` or None), as the vendor takes them; none by default."""
        return {}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Send ``tools`` (OpenAI's function format, which these SDKs take) with every request,
        and the vendor's form of ``tool_choice`` (:meth:`_tool_choice`)."""
        kwargs.pop("ls_structured_output_format", None)  # tracing metadata, not a request field
        formatted = [convert_to_openai_tool(tool) for tool in tools]
        return self.bind(tools=formatted, **self._tool_choice(tool_choice), **kwargs)

    # Shared machinery.

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "top_p": self.top_p,
            "seed": self.seed,
            **self.model_kwargs,
        }

    def _client(self, asynchronous: bool) -> Any:
        """The SDK client for the sync or async path, built on first use."""
        client = self._clients.get(asynchronous)
        if client is None:
            import httpx

            http: httpx.Client | httpx.AsyncClient
            if asynchronous:
                http = httpx.AsyncClient(
                    timeout=self.timeout, event_hooks={"response": [_aremember_error]}
                )
            else:
                http = httpx.Client(
                    timeout=self.timeout, event_hooks={"response": [_remember_error]}
                )
            client = self._clients[asynchronous] = self._build_client(http)
        return client

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        token = _error_response.set(None)
        try:
            response = self._send(
                self._client(False), chat_messages(messages), stop, {**self.model_kwargs, **kwargs}
            )
        except Exception as exc:
            _attach_response(exc)
            raise
        finally:
            _error_response.reset(token)
        return self._read(response)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        token = _error_response.set(None)
        try:
            response = await self._send(
                self._client(True), chat_messages(messages), stop, {**self.model_kwargs, **kwargs}
            )
        except Exception as exc:
            _attach_response(exc)
            raise
        finally:
            _error_response.reset(token)
        return self._read(response)
