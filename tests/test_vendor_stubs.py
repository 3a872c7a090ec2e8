"""Vendor backends through their real SDKs against local stub servers that speak each wire format.

Each test plays a one-round game whose seller is the vendor model and whose buyer is scripted, and
checks both what the SDK sent and what the run recorded. No request leaves 127.0.0.1.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from icl_aif.testing import FAKE_KEY as SECRET
from icl_aif.testing import REPLY_LINE as SELLER_LINE
from icl_aif.testing import WIRE_FORMATS, assert_key_not_recorded, load_played
from icl_aif.testing.stubs import json_response, respond_in_order
from icl_aif.testing.wire import anthropic_body, cohere_body
from tests.conftest import quickstart, run


def stub_spec(name: str, usage: dict[str, int], auth_error: str) -> dict[str, Any]:
    """The stub's wire format, with what a run records from its default reply and the error
    class a 401 becomes: written out here, not taken from the stubs, so that a change in how an
    SDK reads the wire shows."""
    wire = WIRE_FORMATS[name]
    return {
        "path": wire.path,
        "body": wire.body,
        "model": wire.model,
        "base": lambda server: server.url_for(wire.base_path).rstrip("/"),
        "key": wire.key_variable,
        "usage": usage,
        "auth_error": auth_error,
    }


VENDORS: dict[str, dict[str, Any]] = {
    "openai": stub_spec(
        "openai",
        {"input_tokens": 42, "output_tokens": 9, "cached_input_tokens": 32},
        "AuthenticationError",
    ),
    # langchain-anthropic counts cache reads into input_tokens
    "anthropic": stub_spec(
        "anthropic",
        {"input_tokens": 70, "output_tokens": 9, "cached_input_tokens": 30},
        "AuthenticationError",
    ),
    # billed units, not usage.tokens (which counts the chat template too)
    "cohere": stub_spec(
        "cohere",
        {"input_tokens": 38, "output_tokens": 9, "cached_input_tokens": 24},
        "UnauthorizedError",
    ),
    "ai21": stub_spec(
        "ai21",
        {"input_tokens": 41, "output_tokens": 9, "cached_input_tokens": 0},
        "Unauthorized",
    ),
}


def recorded(directory: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The only game of a run and its seller's calls."""
    played = load_played(directory)
    return played.game, played.calls_of("seller")


def assert_no_secret(directory: Path) -> None:
    assert_key_not_recorded(directory, SECRET)


def play(
    vendor: str,
    server: HTTPServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *extra: str,
    probe_models: bool = False,  # the preflight request has its own tests (test_preflight.py)
) -> Path:
    spec = VENDORS[vendor]
    monkeypatch.setenv(spec["key"], SECRET)
    monkeypatch.chdir(tmp_path)  # no stray .env
    config = quickstart(
        "runs=1",
        "rounds=1",
        "feedback.source=none",
        f"roles.seller.model={spec['model']}",
        f"roles.seller.base_url={spec['base'](server)}",
        "roles.seller.timeout=2",
        "retry.initial_wait=0.01",
        "retry.attempts=3",
        *extra,
    )
    return run(config, tmp_path / "run", probe_models=probe_models).directory


@pytest.mark.parametrize("vendor", VENDORS)
def test_normal_reply_sends_the_request_and_records_usage(
    vendor: str, httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = VENDORS[vendor]
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(spec["body"]())
    directory = play(vendor, httpserver, tmp_path, monkeypatch)
    game, calls = recorded(directory)
    assert game["status"] == "complete"
    assert calls and all(c["usage"] == spec["usage"] and c["attempts"] == 1 for c in calls)
    assert all(c["output"] == SELLER_LINE for c in calls)

    request, _ = httpserver.log[0]
    sent = request.get_json()
    first = calls[0]["messages"]
    if vendor == "openai":
        assert sent["model"] == "gpt-4o-mini"
        assert sent["temperature"] == 1.0  # the paper's OpenAI default
        assert sent["max_completion_tokens"] == 512 and sent["max_tokens"] == 512  # extra_body too
        assert sent["messages"] == first
        assert request.headers["Authorization"] == f"Bearer {SECRET}"
    elif vendor == "anthropic":
        assert sent["model"] == "claude-stub"
        assert sent["temperature"] == 1.0 and sent["max_tokens"] == 512
        assert sent["system"] == first[0]["content"]
        assert [m["role"] for m in sent["messages"]] == [m["role"] for m in first[1:]]
        # the SDK sends the key as x-api-key or (anthropic 2.x) as a bearer token
        assert SECRET in request.headers.get("x-api-key", "") + request.headers.get(
            "Authorization", ""
        )
    elif vendor == "cohere":
        assert sent["model"] == "command-r7b-12-2024"
        assert sent["temperature"] == 0.75  # the paper's Cohere default
        assert sent["max_tokens"] == 512
        assert sent["messages"] == first  # system, user and assistant turns, text content
        assert sent["stream"] is False and "p" not in sent and "seed" not in sent
        assert request.headers["Authorization"] == f"Bearer {SECRET}"
    else:
        assert sent["model"] == "jamba-mini"
        assert sent["temperature"] == 0.7  # the paper's AI21 default
        assert sent["max_tokens"] == 512
        assert sent["messages"] == first
        assert sent["stream"] is False and "top_p" not in sent
        assert request.headers["Authorization"] == f"Bearer {SECRET}"
    assert_no_secret(directory)


@pytest.mark.parametrize("vendor", VENDORS)
def test_429_with_retry_after_then_success(
    vendor: str, httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = VENDORS[vendor]
    limited = {"error": {"type": "rate_limit_error", "message": "slow down"}}
    respond_in_order(
        httpserver,
        spec["path"],
        lambda _: json_response(limited, 429, **{"Retry-After": "0.2"}),
        lambda _: json_response(spec["body"]()),
    )
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(spec["body"]())
    directory = play(vendor, httpserver, tmp_path, monkeypatch)
    game, calls = recorded(directory)
    assert game["status"] == "complete"
    assert calls[0]["attempts"] == 2 and calls[0]["latency_s"] >= 0.2
    assert all(c["attempts"] == 1 for c in calls[1:])


@pytest.mark.parametrize("vendor", VENDORS)
def test_500_then_success(
    vendor: str, httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = VENDORS[vendor]
    failed = {"error": {"type": "api_error", "message": "boom"}}
    respond_in_order(
        httpserver,
        spec["path"],
        lambda _: json_response(failed, 500),
        lambda _: json_response(spec["body"]()),
    )
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(spec["body"]())
    game, calls = recorded(play(vendor, httpserver, tmp_path, monkeypatch))
    assert game["status"] == "complete" and calls[0]["attempts"] == 2


@pytest.mark.parametrize("vendor", VENDORS)
def test_401_ends_the_game_with_a_reason_and_no_key_anywhere(
    vendor: str, httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = VENDORS[vendor]
    denied = {
        "error": {
            "type": "authentication_error",
            "message": f"Incorrect API key provided: {SECRET[:8]}***{SECRET[-4:]}",
        }
    }
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(denied, status=401)
    directory = play(vendor, httpserver, tmp_path, monkeypatch)
    game, calls = recorded(directory)
    assert game["status"] == "error" and spec["auth_error"] in game["error"]
    assert calls[0]["attempts"] == 1  # never retried
    assert game["rounds"][0]["outcome"] == "error"
    assert len(httpserver.log) == 1
    assert_no_secret(directory)
    assert SECRET[-4:] + '"' not in (directory / "calls.jsonl").read_text()


@pytest.mark.parametrize("vendor", VENDORS)
def test_malformed_body_is_an_error_not_a_retry(
    vendor: str, httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = VENDORS[vendor]
    httpserver.expect_request(spec["path"], method="POST").respond_with_data(
        "{not json", content_type="application/json"
    )
    game, calls = recorded(play(vendor, httpserver, tmp_path, monkeypatch))
    assert game["status"] == "error"
    assert calls[0]["attempts"] == 1 and calls[0]["output"] is None


@pytest.mark.parametrize("vendor", VENDORS)
def test_slow_reply_times_out_and_is_retried(
    vendor: str, httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = VENDORS[vendor]

    def slow(_: Request) -> Response:
        time.sleep(1.5)
        return json_response(spec["body"]())

    httpserver.expect_request(spec["path"], method="POST").respond_with_handler(slow)
    game, calls = recorded(
        play(
            vendor,
            httpserver,
            tmp_path,
            monkeypatch,
            "roles.seller.timeout=0.5",
            "retry.attempts=2",
        )
    )
    assert game["status"] == "error" and "Timeout" in game["error"]
    assert calls[0]["attempts"] == 2
    # The server answers the abandoned requests late: let it finish so no later test sees them.
    deadline = time.monotonic() + 10
    while len(httpserver.log) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)


def cache_marks(body: dict[str, Any]) -> list[tuple[int, int]]:
    """(message, block) positions that carry cache_control in an Anthropic request body."""
    return [
        (i, j)
        for i, message in enumerate(body["messages"])
        if isinstance(message["content"], list)
        for j, block in enumerate(message["content"])
        if "cache_control" in block
    ]


def test_anthropic_marks_the_last_message_for_prompt_caching(
    httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    httpserver.expect_request("/v1/messages", method="POST").respond_with_json(anthropic_body())
    directory = play("anthropic", httpserver, tmp_path, monkeypatch)
    _, calls = recorded(directory)
    bodies = [request.get_json() for request, _ in httpserver.log]
    assert len(bodies) == len(calls) >= 2
    for body, call in zip(bodies, calls, strict=True):
        last = len(body["messages"]) - 1
        assert cache_marks(body) == [(last, len(body["messages"][last]["content"]) - 1)]
        block = body["messages"][last]["content"][-1]
        assert block["cache_control"] == {"type": "ephemeral"}
        assert block["text"] == call["messages"][-1]["content"]  # the text itself is unchanged
        assert "cache_control" not in body and isinstance(body["system"], str)
        assert call["usage"]["cached_input_tokens"] == 30  # cache reads are recorded


def test_anthropic_prompt_cache_can_be_switched_off(
    httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    httpserver.expect_request("/v1/messages", method="POST").respond_with_json(anthropic_body())
    play("anthropic", httpserver, tmp_path, monkeypatch, "roles.seller.params.prompt_cache=false")
    bodies = [request.get_json() for request, _ in httpserver.log]
    assert bodies and all(cache_marks(b) == [] and "cache_control" not in b for b in bodies)
    assert all(isinstance(m["content"], str) for b in bodies for m in b["messages"])


@pytest.mark.parametrize(
    ("vendor", "expected"),
    [
        ("cohere", {"temperature": 0.3, "max_tokens": 64, "p": 0.9, "seed": 5}),
        ("ai21", {"temperature": 0.3, "max_tokens": 64, "top_p": 0.9}),  # no seed in AI21's API
        ("anthropic", {"temperature": 0.3, "max_tokens": 64, "top_p": 0.9}),
    ],
)
def test_role_decoding_settings_reach_the_wire(
    vendor: str,
    expected: dict[str, Any],
    httpserver: HTTPServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = VENDORS[vendor]
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(spec["body"]())
    settings = ("temperature=0.3", "max_tokens=64", "top_p=0.9", "seed=5")
    play(vendor, httpserver, tmp_path, monkeypatch, *(f"roles.seller.{s}" for s in settings))
    sent = httpserver.log[0][0].get_json()
    assert {key: sent.get(key) for key in expected} == expected
    assert "seed" not in sent or vendor == "cohere"


def test_cohere_accepts_the_sdk_key_variable(
    httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    httpserver.expect_request("/v2/chat", method="POST").respond_with_json(cohere_body())
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    monkeypatch.setitem(VENDORS["cohere"], "key", "CO_API_KEY")
    game, _ = recorded(play("cohere", httpserver, tmp_path, monkeypatch))
    assert game["status"] == "complete"
    assert httpserver.log[0][0].headers["Authorization"] == f"Bearer {SECRET}"
