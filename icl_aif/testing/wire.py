"""What the vendor stub servers answer: reply bodies in each vendor's wire format.

Plain data and functions (no server, no pytest), so a test can build a body by hand, e.g. for
``pytest-httpserver``'s own ``httpserver`` fixture. Usage is given in the terms a run records in
``calls.jsonl`` (``input_tokens``, ``output_tokens``, ``cached_input_tokens``) and written into
each vendor's fields so that the vendor's SDK, read by icl-aif, records exactly those figures.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

FAKE_KEY = "sk-test-Zq8Xv3LmN0pRsTuVwXyZ123456"
"""The key the stub fixtures put in the vendor's key variable: shaped like a real one, so the
redaction of keys in run records is exercised."""

REPLY_LINE = "I can't go that low, but I could do $17."
"""What a stub says when a test names no reply text."""

TOOL_CALL_ID = "call_stub_1"
"""The id of the tool call in an OpenAI, Cohere or AI21 tool-call reply."""

TOOL_USE_ID = "toolu_stub_1"
"""The id of the ``tool_use`` block in an Anthropic tool-call reply."""

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


def _function_call(name: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """A tool call as OpenAI, Cohere v2 and AI21 write it: the arguments as a JSON string."""
    return {
        "id": TOOL_CALL_ID,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(dict(args))},
    }


def openai_tool_body(
    name: str, args: Mapping[str, Any], text: str = "", usage: Usage | None = None
) -> dict[str, Any]:
    """A chat completion that calls the tool ``name`` with ``args`` (``finish_reason``
    ``tool_calls``); ``content`` is ``text``, or null when it is empty."""
    body = openai_body(text, usage)
    choice = body["choices"][0]
    choice["message"] = {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [_function_call(name, args)],
    }
    choice["finish_reason"] = "tool_calls"
    return body


def anthropic_tool_body(
    name: str, args: Mapping[str, Any], text: str = "", usage: Usage | None = None
) -> dict[str, Any]:
    """A message that calls the tool ``name`` with ``args``: a ``text`` block (only if ``text``)
    then a ``tool_use`` block, ``stop_reason`` ``tool_use``."""
    body = anthropic_body(text, usage)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    blocks.append({"type": "tool_use", "id": TOOL_USE_ID, "name": name, "input": dict(args)})
    body["content"] = blocks
    body["stop_reason"] = "tool_use"
    return body


def cohere_tool_body(
    name: str, args: Mapping[str, Any], text: str = "", usage: Usage | None = None
) -> dict[str, Any]:
    """A v2 chat reply that calls the tool ``name`` with ``args`` (``finish_reason``
    ``TOOL_CALL``); ``text`` is the ``tool_plan`` (left out when empty), and there is no
    ``content``."""
    body = cohere_body(text, usage)
    message: dict[str, Any] = {"role": "assistant"}
    if text:
        message["tool_plan"] = text
    message["tool_calls"] = [_function_call(name, args)]
    body["message"] = message
    body["finish_reason"] = "TOOL_CALL"
    return body


def ai21_tool_body(
    name: str, args: Mapping[str, Any], text: str = "", usage: Usage | None = None
) -> dict[str, Any]:
    """A chat completion of AI21's API that calls the tool ``name`` with ``args`` (the OpenAI
    shape: ``finish_reason`` ``tool_calls``, ``content`` null when ``text`` is empty)."""
    body = ai21_body(text, usage)
    choice = body["choices"][0]
    choice["message"] = {
        "role": "assistant",
        "content": text or None,
        "tool_calls": [_function_call(name, args)],
    }
    choice["finish_reason"] = "tool_calls"
    return body


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


class ToolBodyBuilder(Protocol):
    """``tool_body(name, args, text="", usage=None)``: a reply body that calls the tool ``name``
    with the arguments ``args``, saying ``text`` beside the call (if any), with ``usage`` as a run
    should record it (None: the wire format's default usage)."""

    def __call__(
        self, name: str, args: Mapping[str, Any], text: str = ..., usage: Usage | None = None
    ) -> dict[str, Any]: ...


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
    tool_body: ToolBodyBuilder
    """A reply that calls one tool: ``tool_body(name, args, text, usage)``."""


WIRE_FORMATS: dict[str, WireFormat] = {
    "openai": WireFormat(
        "openai",
        "/v1/chat/completions",
        "/v1",
        "openai:gpt-4o-mini",
        "OPENAI_API_KEY",
        openai_body,
        OPENAI_USAGE,
        openai_tool_body,
    ),
    "anthropic": WireFormat(
        "anthropic",
        "/v1/messages",
        "",
        "anthropic:claude-stub",
        "ANTHROPIC_API_KEY",
        anthropic_body,
        ANTHROPIC_USAGE,
        anthropic_tool_body,
    ),
    "cohere": WireFormat(
        "cohere",
        "/v2/chat",
        "",
        "cohere:command-r7b-12-2024",
        "COHERE_API_KEY",
        cohere_body,
        COHERE_USAGE,
        cohere_tool_body,
    ),
    "ai21": WireFormat(
        "ai21",
        "/studio/v1/chat/completions",
        "/studio/v1",
        "ai21:jamba-mini",
        "AI21_API_KEY",
        ai21_body,
        AI21_USAGE,
        ai21_tool_body,
    ),
}
"""The wire formats the stubs speak, by provider name."""
