"""Stub servers' helpers shared by the vendor tests: reply bodies in a vendor's wire format and
readers of what a run recorded. Every stub listens on 127.0.0.1 (pytest-httpserver)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from icl_aif.records import read_jsonl

SECRET = "sk-test-Zq8Xv3LmN0pRsTuVwXyZ123456"
SELLER_LINE = "I can't go that low, but I could do $17."


def openai_body(text: str = SELLER_LINE) -> dict[str, Any]:
    return {
        "id": "chatcmpl-stub",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": 42,
            "completion_tokens": 9,
            "total_tokens": 51,
            "prompt_tokens_details": {"cached_tokens": 32},
        },
    }


def json_response(body: dict[str, Any], status: int = 200, **headers: str) -> Response:
    return Response(
        json.dumps(body), status=status, headers=headers, content_type="application/json"
    )


def recorded(directory: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    (game,) = read_jsonl(directory / "games.jsonl")
    calls = [c for c in read_jsonl(directory / "calls.jsonl") if c["role"] == "seller"]
    return game, calls


def assert_no_secret(directory: Path) -> None:
    for path in directory.rglob("*"):
        text = path.read_text(encoding="utf-8")
        assert SECRET not in text and SECRET[:12] not in text, path.name


def respond_in_order(
    server: HTTPServer, path: str, *replies: Callable[[Request], Response]
) -> None:
    for reply in replies:
        server.expect_ordered_request(path, method="POST").respond_with_handler(reply)
