"""``cohere:MODEL``: Cohere's v2 chat API through the official ``cohere`` SDK (``AsyncClientV2.chat``).

Not langchain-cohere's ChatCohere: it drops ``max_tokens`` given to its constructor, has no field for
``p`` or ``seed``, leaves the SDK's own retries on (2 by default), drops ``usage.cached_tokens`` and
rejects a conversation whose last message is not from the user.

Usage: ``usage.billed_units`` (the tokens Cohere charges for; ``usage.tokens``, which also counts the
chat template, if billed units are missing) and ``usage.cached_tokens``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.outputs import ChatResult

from icl_aif.models.base import ModelRequest, chat_result
from icl_aif.models.keys import api_key
from icl_aif.models.sdk import SDKChatModel, tool_calls_of, with_tool_calls
from icl_aif.models.vendors import decoding, require

if TYPE_CHECKING:
    import httpx

KEY_VARIABLE = "COHERE_API_KEY"
SDK_KEY_VARIABLE = "CO_API_KEY"  # the SDK's own name, accepted as well


class CohereChat(SDKChatModel):
    """A Cohere chat model (v2 chat API) with the SDK's retries turned off."""

    @property
    def _llm_type(self) -> str:
        return "cohere-v2-chat"

    def _build_client(self, http_client: httpx.Client | httpx.AsyncClient) -> Any:
        import cohere
        import httpx

        asynchronous = isinstance(http_client, httpx.AsyncClient)
        client: Any = cohere.AsyncClientV2 if asynchronous else cohere.ClientV2
        return client(
            api_key=self.api_key.get_secret_value(),
            base_url=self.base_url,
            timeout=self.timeout,
            httpx_client=http_client,
            client_name="icl-aif",
        )

    def _send(
        self,
        client: Any,
        messages: list[dict[str, str]],
        stop: list[str] | None,
        extra: dict[str, Any],
    ) -> Any:
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "p": self.top_p,
            "seed": self.seed,
            "stop_sequences": stop,
        }
        request = {key: value for key, value in request.items() if value is not None}
        request.update(extra)
        # Retries are done once, around every model, by icl_aif.models.calls.
        return client.chat(**request, request_options={"max_retries": 0})

    def _tool_choice(self, choice: str | None) -> dict[str, Any]:
        """Cohere cannot force a tool by name: any choice but ``auto`` or ``none`` is
        ``REQUIRED`` (the bound tools are the ones it may call)."""
        if choice is None or choice == "auto":
            return {}
        return {"tool_choice": "NONE" if choice == "none" else "REQUIRED"}

    def _read(self, response: Any) -> ChatResult:
        content = getattr(response.message, "content", None) or []
        text = "".join(item.text for item in content if getattr(item, "type", None) == "text")
        calls = tool_calls_of(getattr(response.message, "tool_calls", None))
        usage = response.usage
        counts = (usage.billed_units or usage.tokens) if usage is not None else None
        cached = getattr(usage, "cached_tokens", None)
        result = chat_result(
            text,
            input_tokens=_count(getattr(counts, "input_tokens", None)),
            output_tokens=_count(getattr(counts, "output_tokens", None)),
            cached_tokens=_count(cached),
            metadata={
                "model_name": self.model,
                "id": getattr(response, "id", None),
                "finish_reason": getattr(response, "finish_reason", None),
            },
        )
        return with_tool_calls(result, calls)


def _count(value: float | None) -> int | None:
    return None if value is None else int(value)


def build_cohere(request: ModelRequest) -> CohereChat:
    """``cohere:MODEL``, e.g. ``cohere:command-a-03-2025``; key COHERE_API_KEY (or CO_API_KEY)."""
    require("cohere", "cohere", request.spec)
    fallback = api_key(SDK_KEY_VARIABLE, request.spec, required=False)
    key = api_key(KEY_VARIABLE, request.spec, required=fallback is None) or fallback
    settings = decoding(request)
    return CohereChat(
        model=request.name,
        api_key=key,
        base_url=request.base_url,
        temperature=settings["temperature"],
        max_tokens=settings["max_tokens"],
        top_p=request.top_p,
        seed=request.sampling_seed,
        timeout=request.timeout,
        model_kwargs=dict(request.params),
    )
