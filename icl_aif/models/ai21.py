"""``ai21:MODEL``: AI21's Jamba chat completions through the official ``ai21`` SDK.

langchain-ai21 requires langchain-core < 0.4, so this is a thin adapter over
``AsyncAI21Client(...).chat.completions.create``. The SDK sends ``POST {api_host}/chat/completions``
(default host ``https://api.ai21.com/studio/v1``; ``base_url`` replaces it). AI21's chat API has no
seed, so ``seed`` is not sent. Its errors carry the status but not the response headers: the base
adapter attaches the HTTP response, so ``Retry-After`` is honoured.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Any

from langchain_core.outputs import ChatResult

from icl_aif.models.base import ModelRequest, chat_result
from icl_aif.models.keys import api_key
from icl_aif.models.sdk import SDKChatModel, tool_calls_of, with_tool_calls
from icl_aif.models.vendors import decoding, require

if TYPE_CHECKING:
    import httpx

logger = logging.getLogger(__name__)

KEY_VARIABLE = "AI21_API_KEY"
_SDK_RETRIES_VARIABLE = "AI21_NUM_RETRIES"


class AI21Chat(SDKChatModel):
    """An AI21 chat model (Jamba); the SDK makes no retries of its own unless AI21_NUM_RETRIES is set."""

    @property
    def _llm_type(self) -> str:
        return "ai21-chat"

    def _build_client(self, http_client: httpx.Client | httpx.AsyncClient) -> Any:
        import ai21
        import httpx

        quiet_sdk_logging()
        if os.environ.get(_SDK_RETRIES_VARIABLE, "0").strip() not in ("", "0"):
            # The SDK reads it over any num_retries=0 given to its constructor.
            logger.warning(
                "%s is set: the ai21 SDK retries on its own, on top of icl-aif's retries",
                _SDK_RETRIES_VARIABLE,
            )
        asynchronous = isinstance(http_client, httpx.AsyncClient)
        client: Any = ai21.AsyncAI21Client if asynchronous else ai21.AI21Client
        return client(
            api_key=self.api_key.get_secret_value(),
            api_host=self.base_url,
            timeout_sec=self.timeout,
            num_retries=0,
            http_client=http_client,
            via="icl-aif",
        )

    def _send(
        self,
        client: Any,
        messages: list[dict[str, str]],
        stop: list[str] | None,
        extra: dict[str, Any],
    ) -> Any:
        from ai21.models.chat import ChatMessage

        request: dict[str, Any] = {
            "model": self.model,
            "messages": [ChatMessage(role=m["role"], content=m["content"]) for m in messages],
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "top_p": self.top_p,
            "stop": stop,
        }
        request = {key: value for key, value in request.items() if value is not None}
        request.update(extra)
        return client.chat.completions.create(**request)

    def _read(self, response: Any) -> ChatResult:
        choice = response.choices[0]
        usage = response.usage
        result = chat_result(
            choice.message.content or "",
            input_tokens=getattr(usage, "prompt_tokens", None),
            output_tokens=getattr(usage, "completion_tokens", None),
            metadata={
                "model_name": self.model,
                "id": getattr(response, "id", None),
                "finish_reason": getattr(choice, "finish_reason", None),
            },
        )
        # AI21's chat API takes no tool choice: the bound tools are offered, not forced
        return with_tool_calls(result, tool_calls_of(getattr(choice.message, "tool_calls", None)))


def quiet_sdk_logging() -> None:
    """Undo what ``import ai21`` does to logging: it adds its own stderr handler to the ``ai21``
    and ``httpx`` loggers, which prints every failed call again beside the application's logging."""
    from ai21.logger import CensorSecretsFormatter

    for name in ("ai21", "httpx"):
        target = logging.getLogger(name)
        for handler in list(target.handlers):
            if isinstance(handler.formatter, CensorSecretsFormatter):
                target.removeHandler(handler)


def build_ai21(request: ModelRequest) -> AI21Chat:
    """``ai21:MODEL``, e.g. ``ai21:jamba-mini``; key AI21_API_KEY."""
    require("ai21", "ai21", request.spec)
    key = api_key(KEY_VARIABLE, request.spec)
    settings = decoding(request)
    if request.sampling_seed is not None:
        logger.debug("%s: AI21's chat API takes no seed; not sent", request.spec)
    return AI21Chat(
        model=request.name,
        api_key=key,
        base_url=request.base_url,
        temperature=settings["temperature"],
        max_tokens=settings["max_tokens"],
        top_p=request.top_p,
        timeout=request.timeout,
        model_kwargs=dict(request.params),
    )
