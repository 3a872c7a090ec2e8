"""The vendor stubs answer with tool calls that the vendors' SDKs and LangChain read.

For each vendor a stub queues :meth:`VendorStub.tool_reply`; the model the project builds for the
vendor binds one tool, forced by name where the integration can, and the test checks the parsed
``AIMessage.tool_calls`` and the tool definition (and tool choice) the stub received. No request
leaves 127.0.0.1.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.output_parsers.openai_tools import parse_tool_call

from icl_aif.models.base import ModelRequest
from icl_aif.models.registry import build_request, split_model_string
from icl_aif.testing import FAKE_KEY, WIRE_FORMATS
from icl_aif.testing.plugin import StartStub
from icl_aif.testing.stubs import VendorStub
from icl_aif.testing.wire import TOOL_CALL_ID, TOOL_USE_ID

TOOL = "make_move"
PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "What to say to the other side."},
        "move": {"type": "string", "enum": ["talk", "offer", "accept", "reject", "walk_away"]},
        "terms": {
            "type": "object",
            "properties": {"price": {"type": "number"}},
            "description": "The terms of an offer.",
        },
    },
    "required": ["message", "move"],
}
SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL,
        "description": "Say something to the other side and make one move.",
        "parameters": PARAMETERS,
    },
}
ARGS: dict[str, Any] = {"message": "How about $17?", "move": "offer", "terms": {"price": 17.0}}
OFFER = "I'll give you $12 for it."
MESSAGES = [
    SystemMessage("You are the seller of a balloon. Answer with make_move."),
    HumanMessage(OFFER),
]

IDS = {
    "openai": TOOL_CALL_ID,
    "anthropic": TOOL_USE_ID,
    "cohere": TOOL_CALL_ID,
    "ai21": TOOL_CALL_ID,
}
"""The id each vendor's tool-call reply gives the call."""

FORCED = {
    "openai": {"type": "function", "function": {"name": TOOL}},
    "anthropic": {"type": "tool", "name": TOOL},
    "cohere": "REQUIRED",  # Cohere cannot name the tool: a tool call is required
    "ai21": None,  # AI21's chat API takes no tool choice
}
"""What each LangChain integration sends for ``bind_tools(..., tool_choice=TOOL)``."""


def project_model(stub: VendorStub) -> BaseChatModel:
    """The chat model icl-aif builds for the stub's vendor, pointed at the stub."""
    provider, name = split_model_string(stub.model)
    request = ModelRequest(
        spec=stub.model,
        provider=provider,
        name=name,
        role="seller",
        seed=0,
        timeout=2.0,
        base_url=stub.base_url,
    )
    return build_request(request)


def expected_call(vendor: str) -> dict[str, Any]:
    return {"name": TOOL, "args": ARGS, "id": IDS[vendor], "type": "tool_call"}


def assert_tool_sent(vendor: str, sent: dict[str, Any]) -> None:
    """The request body carries the tool definition in the vendor's request format."""
    if vendor == "anthropic":
        assert sent["tools"] == [
            {
                "name": TOOL,
                "description": SCHEMA["function"]["description"],
                "input_schema": PARAMETERS,
            }
        ]
    else:
        assert sent["tools"] == [SCHEMA]


@pytest.mark.parametrize("vendor", list(WIRE_FORMATS))
def test_langchain_model_reads_the_tool_call(vendor: str, vendor_stub: StartStub) -> None:
    stub = vendor_stub(vendor)
    model = project_model(stub)
    if type(model).bind_tools is BaseChatModel.bind_tools:
        # icl-aif reaches Cohere and AI21 through its own adapters over the official SDKs
        # (icl_aif.models.cohere.CohereChat, icl_aif.models.ai21.AI21Chat), not langchain-cohere
        # or langchain-ai21 (neither is installed; langchain-ai21 needs langchain-core < 0.4).
        # The adapters have no bind_tools and keep only the reply's text, so there are no
        # AIMessage.tool_calls to check; test_sdk_reads_the_tool_call covers their wire format.
        pytest.skip(
            f"{type(model).__name__} ({vendor}) does not implement bind_tools and reads only "
            "the text of a reply"
        )
    stub.tool_reply(TOOL, ARGS)
    reply = model.bind_tools([SCHEMA], tool_choice=TOOL).invoke(MESSAGES)
    stub.check()

    assert isinstance(reply, AIMessage)
    assert reply.tool_calls == [expected_call(vendor)]
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["input_tokens"] == stub.usage["input_tokens"]
    (sent,) = stub.bodies
    assert_tool_sent(vendor, sent)
    assert sent.get("tool_choice") == FORCED[vendor]


def test_anthropic_text_beside_the_tool_call(vendor_stub: StartStub) -> None:
    stub = vendor_stub("anthropic")
    stub.tool_reply(TOOL, ARGS, text="Let me counter.")
    reply = project_model(stub).bind_tools([SCHEMA], tool_choice=TOOL).invoke(MESSAGES)
    assert reply.text == "Let me counter."
    assert isinstance(reply, AIMessage) and reply.tool_calls == [expected_call("anthropic")]


def test_openai_text_beside_the_tool_call(vendor_stub: StartStub) -> None:
    stub = vendor_stub("openai")
    stub.tool_reply(TOOL, ARGS, text="Let me counter.")
    reply = project_model(stub).bind_tools([SCHEMA], tool_choice=TOOL).invoke(MESSAGES)
    assert reply.content == "Let me counter."
    assert isinstance(reply, AIMessage) and reply.tool_calls == [expected_call("openai")]


def cohere_tool_calls(stub: VendorStub) -> list[dict[str, Any]]:
    """Ask Cohere's v2 chat API through the official SDK, with the tool and a required call.

    Cohere's v2 API cannot force a tool by name: ``tool_choice`` is ``REQUIRED`` or ``NONE``."""
    import cohere

    client = cohere.ClientV2(api_key=FAKE_KEY, base_url=stub.base_url, timeout=2.0)
    response = client.chat(
        model=split_model_string(stub.model)[1],
        messages=[{"role": "user", "content": OFFER}],  # type: ignore[list-item]
        tools=[SCHEMA],  # type: ignore[list-item]
        tool_choice="REQUIRED",
        request_options={"max_retries": 0},
    )
    assert response.finish_reason == "TOOL_CALL"
    assert response.message.tool_plan == "I will make an offer."
    return [call.model_dump() for call in response.message.tool_calls or []]


def ai21_tool_calls(stub: VendorStub) -> list[dict[str, Any]]:
    """Ask AI21's chat completions through the official SDK, with the tool.

    The SDK's ``create`` has no ``tool_choice`` parameter, so no tool choice is sent."""
    import ai21
    from ai21.models.chat import ChatMessage

    client = ai21.AI21Client(api_key=FAKE_KEY, api_host=stub.base_url, num_retries=0, timeout_sec=2)
    response = client.chat.completions.create(
        model=split_model_string(stub.model)[1],
        messages=[ChatMessage(role="user", content=OFFER)],
        tools=[SCHEMA],  # type: ignore[list-item]
    )
    choice = response.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "I will make an offer."
    return [call.model_dump() for call in choice.message.tool_calls or []]


@pytest.mark.parametrize("vendor", ["cohere", "ai21"])
def test_sdk_reads_the_tool_call(vendor: str, vendor_stub: StartStub) -> None:
    """The official SDK behind the project's adapter parses the stub's tool-call reply, and the
    call it returns is what LangChain makes of an OpenAI-style tool call."""
    stub = vendor_stub(vendor)
    stub.tool_reply(TOOL, ARGS, text="I will make an offer.")
    raw = cohere_tool_calls(stub) if vendor == "cohere" else ai21_tool_calls(stub)
    stub.check()

    assert [json.loads(call["function"]["arguments"]) for call in raw] == [ARGS]
    assert [parse_tool_call(call, return_id=True) for call in raw] == [expected_call(vendor)]
    (sent,) = stub.bodies
    assert_tool_sent(vendor, sent)
    if vendor == "cohere":
        assert sent["tool_choice"] == "REQUIRED"
    else:
        assert "tool_choice" not in sent
