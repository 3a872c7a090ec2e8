"""What the vendor stub servers answer: reply bodies in each vendor's wire format.

Plain data and functions (no server, no pytest), so a test can build a body by hand, e.g. for
``pytest-httpserver``'s own ``httpserver`` fixture. Usage is given in the terms a run records in
``calls.jsonl`` (``input_tokens``, ``output_tokens``, ``cached_input_tokens``) and written into
each vendor's fields so that the vendor's SDK, read by icl-aif, records exactly those figures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

FAKE_KEY = "sk-test-Zq8Xv3LmN0pRsTuVwXyZ123456"
"""The key the stub fixtures put in the vendor's key variable: shaped like a real one, so the
redaction of keys in run records is exercised."""

REPLY_LINE = "I can't go that low, but I could do $17."
"""What a stub says when a test names no reply text."""

Usage = Mapping[str, int]
"""Token counts as a run records them: ``input_tokens`` (cached ones included),
``output_tokens`` and ``cached_input_tokens``."""


def _tokens(usage: Usage) -> tuple[int, int, int]:
    return (
        usage.get("input_tokens", 0),
        usage.get("output_tokens", 0),
        usage.get("cached_input_tokens", 0),
    )


def openai_body(text: str = REPLY_LINE, usage: Usage | None = None) -> dict[str, Any]:
    """A chat completion of OpenAI's API (and of OpenAI-compatible servers)."""
    prompt, completion, cached = _tokens(OPENAI_USAGE if usage is None else usage)
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def anthropic_body(text: str = REPLY_LINE, usage: Usage | None = None) -> dict[str, Any]:
    """A message of Anthropic's Messages API. Anthropic counts cache reads apart from
    ``input_tokens``; langchain-anthropic adds them back, so the body holds input minus cached."""
    prompt, completion, cached = _tokens(ANTHROPIC_USAGE if usage is None else usage)
    return {
        "id": "msg_stub",
        "type": "message",
        "role": "assistant",
        "model": "claude-stub",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": prompt - cached,
            "output_tokens": completion,
            "cache_read_input_tokens": cached,
            "cache_creation_input_tokens": 0,
        },
    }


def cohere_body(text: str = REPLY_LINE, usage: Usage | None = None) -> dict[str, Any]:
    """A reply of Cohere's v2 chat API. The usage is in ``billed_units``; ``usage.tokens`` (which
    also counts the chat template) is 7 input and 2 output tokens more, so a test tells them apart."""
    prompt, completion, cached = _tokens(COHERE_USAGE if usage is None else usage)
    return {
        "id": "chat-stub",
        "finish_reason": "COMPLETE",
        "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
        "usage": {
            "billed_units": {"input_tokens": prompt, "output_tokens": completion},
            "tokens": {"input_tokens": prompt + 7, "output_tokens": completion + 2},
            "cached_tokens": cached,
        },
    }


def ai21_body(text: str = REPLY_LINE, usage: Usage | None = None) -> dict[str, Any]:
    """A chat completion of AI21's API, which reports no cached tokens."""
    prompt, completion, _ = _tokens(AI21_USAGE if usage is None else usage)
    return {
        "id": "chat-stub",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "tool_calls": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


OPENAI_USAGE: Usage = {"input_tokens": 42, "output_tokens": 9, "cached_input_tokens": 32}
ANTHROPIC_USAGE: Usage = {"input_tokens": 70, "output_tokens": 9, "cached_input_tokens": 30}
COHERE_USAGE: Usage = {"input_tokens": 38, "output_tokens": 9, "cached_input_tokens": 24}
AI21_USAGE: Usage = {"input_tokens": 41, "output_tokens": 9, "cached_input_tokens": 0}


def error_body(kind: str, message: str) -> dict[str, Any]:
    """An error body every one of the four SDKs reads (``{"error": {"type", "message"}}``)."""
    return {"error": {"type": kind, "message": message}}


class BodyBuilder(Protocol):
    """``body(text=REPLY_LINE, usage=None)``: a reply body saying ``text`` with ``usage`` as a
    run should record it (None: the wire format's default usage)."""

    def __call__(self, text: str = ..., usage: Usage | None = None) -> dict[str, Any]: ...


@dataclass(frozen=True)
class WireFormat:
    """One vendor's chat endpoint as a stub serves it."""

    vendor: str
    """The provider name, e.g. ``openai``."""
    path: str
    """The path the SDK posts a chat request to."""
    base_path: str
    """What follows ``http://host:port`` in the ``base_url`` a role gives the SDK."""
    model: str
    """A ``provider:model`` string a role uses with the stub."""
    key_variable: str
    """The environment variable the provider reads its key from."""
    body: BodyBuilder
    """The reply body: ``body(text, usage)``."""
    usage: Usage
    """What a run records from a reply with the default usage."""


WIRE_FORMATS: dict[str, WireFormat] = {
    "openai": WireFormat(
        "openai",
        "/v1/chat/completions",
        "/v1",
        "openai:gpt-4o-mini",
        "OPENAI_API_KEY",
        openai_body,
        OPENAI_USAGE,
    ),
    "anthropic": WireFormat(
        "anthropic",
        "/v1/messages",
        "",
        "anthropic:claude-stub",
        "ANTHROPIC_API_KEY",
        anthropic_body,
        ANTHROPIC_USAGE,
    ),
    "cohere": WireFormat(
        "cohere",
        "/v2/chat",
        "",
        "cohere:command-r7b-12-2024",
        "COHERE_API_KEY",
        cohere_body,
        COHERE_USAGE,
    ),
    "ai21": WireFormat(
        "ai21",
        "/studio/v1/chat/completions",
        "/studio/v1",
        "ai21:jamba-mini",
        "AI21_API_KEY",
        ai21_body,
        AI21_USAGE,
    ),
}
"""The wire formats the stubs speak, by provider name."""
