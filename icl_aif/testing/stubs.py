"""Local stub servers that speak a vendor's wire format, so a vendor SDK runs for real in a test.

A :class:`VendorStub` is a ``pytest-httpserver`` server on 127.0.0.1 with a queue of answers:
replies with token usage, a 429 with ``Retry-After``, a 5xx, a 401, a body that is not JSON, a
reply that comes late. Requests are answered in the order the answers were queued; a request
nothing was queued for is answered 418 (never retried) and listed by :meth:`VendorStub.check`.
This module needs the ``testing`` extra (``pip install 'icl-aif[testing]'``).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from icl_aif.testing.wire import REPLY_LINE, WIRE_FORMATS, Usage, WireFormat, error_body

Answer = Callable[[Request], Response]
"""How a stub answers one request."""

UNQUEUED_STATUS = 418
"""The status of the answer to a request nothing was queued for: not one icl-aif retries."""


def json_response(body: Any, status: int = 200, **headers: str) -> Response:
    """A JSON response with ``status`` and extra ``headers``."""
    return Response(
        json.dumps(body), status=status, headers=headers, content_type="application/json"
    )


def respond_in_order(server: HTTPServer, path: str, *answers: Answer) -> None:
    """Make ``server`` answer the next POSTs to ``path`` with ``answers``, one each, in order
    (``pytest-httpserver``'s ordered expectations: any other request first fails the server)."""
    for answer in answers:
        server.expect_ordered_request(path, method="POST").respond_with_handler(answer)


class VendorStub:
    """A stub of one vendor's chat endpoint on 127.0.0.1, started by :meth:`start`.

    Queue answers with :meth:`reply`, :meth:`tool_reply`, :meth:`rate_limit`, :meth:`fail`,
    :meth:`deny`, :meth:`malformed` and :meth:`slow`; each takes ``times`` (how many requests it
    answers; None: every request the queued answers leave, in any order of queuing). Read what the
    SDK sent with :attr:`requests` and :attr:`bodies`.
    """

    def __init__(self, wire: WireFormat, server: HTTPServer) -> None:
        self.wire = wire
        self.server = server

    @classmethod
    def start(cls, vendor: str) -> VendorStub:
        """A running stub of ``vendor`` (``openai``, ``anthropic``, ``cohere`` or ``ai21``) on a
        free port of 127.0.0.1; :meth:`stop` it when done."""
        if vendor not in WIRE_FORMATS:
            raise ValueError(f"no stub for {vendor!r}; stubs: {', '.join(WIRE_FORMATS)}")
        server = HTTPServer(host="127.0.0.1", port=0, threaded=True)
        server.no_handler_status_code = UNQUEUED_STATUS
        server.start()
        return cls(WIRE_FORMATS[vendor], server)

    def stop(self) -> None:
        """Stop the server (answers still being computed, e.g. slow ones, are dropped)."""
        if self.server.is_running():
            self.server.stop()

    # --- what a role needs ------------------------------------------------------------------

    @property
    def vendor(self) -> str:
        """The provider name, e.g. ``openai``."""
        return self.wire.vendor

    @property
    def base_url(self) -> str:
        """The ``base_url`` that points the vendor's SDK at this stub."""
        return f"http://127.0.0.1:{self.server.port}{self.wire.base_path}"

    @property
    def model(self) -> str:
        """A ``provider:model`` string for this stub, e.g. ``openai:gpt-4o-mini``."""
        return self.wire.model

    @property
    def key_variable(self) -> str:
        """The environment variable the provider reads its key from."""
        return self.wire.key_variable

    @property
    def usage(self) -> dict[str, int]:
        """What a run records as the usage of a reply queued without ``usage``."""
        return dict(self.wire.usage)

    def role(self, model: str | None = None, **settings: Any) -> dict[str, Any]:
        """A role's settings that play against this stub: ``model`` (default :attr:`model`),
        :attr:`base_url`, a 2-second timeout, then ``settings``."""
        return {
            "model": model or self.model,
            "base_url": self.base_url,
            "timeout": 2.0,
            **settings,
        }

    # --- answers ----------------------------------------------------------------------------

    def queue(self, answer: Answer, times: int | None = 1) -> None:
        """Answer the next ``times`` requests with ``answer`` (None: every request the other
        queued answers leave)."""
        if times is None:
            self.server.expect_request(self.wire.path, method="POST").respond_with_handler(answer)
            return
        if times < 1:
            raise ValueError(f"times must be at least 1 or None, not {times}")
        for _ in range(times):
            self.server.expect_oneshot_request(self.wire.path, method="POST").respond_with_handler(
                answer
            )

    def reply(
        self, text: str = REPLY_LINE, *, usage: Usage | None = None, times: int | None = 1
    ) -> None:
        """A normal reply saying ``text``; ``usage`` as a run should record it (default:
        :attr:`usage`)."""
        body = self.wire.body(text, usage)
        self.queue(lambda _: json_response(body), times)

    def tool_reply(
        self,
        name: str,
        args: Mapping[str, Any],
        *,
        text: str = "",
        usage: Usage | None = None,
        times: int | None = 1,
    ) -> None:
        """A reply that calls the tool ``name`` with the arguments ``args`` (in the vendor's
        tool-call format, see :attr:`WireFormat.tool_body`), saying ``text`` beside the call if
        given; ``usage`` as a run should record it (default: :attr:`usage`)."""
        body = self.wire.tool_body(name, args, text, usage)
        self.queue(lambda _: json_response(body), times)

    def rate_limit(self, retry_after: float = 0.2, *, times: int | None = 1) -> None:
        """HTTP 429 with ``Retry-After: retry_after`` (seconds)."""
        body = error_body("rate_limit_error", "slow down")
        headers = {"Retry-After": f"{retry_after:g}"}
        self.queue(lambda _: json_response(body, 429, **headers), times)

    def fail(self, status: int = 500, *, times: int | None = 1) -> None:
        """An error status with a vendor-shaped error body (default: 500, which is retried)."""
        body = error_body("api_error", f"stub failure {status}")
        self.queue(lambda _: json_response(body, status), times)

    def deny(self, *, times: int | None = 1) -> None:
        """HTTP 401: the key is refused (never retried)."""
        body = error_body("authentication_error", "Incorrect API key provided: sk-test-***")
        self.queue(lambda _: json_response(body, 401), times)

    def malformed(self, *, times: int | None = 1) -> None:
        """HTTP 200 with a body that is not JSON."""
        self.queue(lambda _: Response("{not json", content_type="application/json"), times)

    def slow(
        self,
        seconds: float,
        text: str = REPLY_LINE,
        *,
        usage: Usage | None = None,
        times: int | None = 1,
    ) -> None:
        """A normal reply sent after ``seconds`` (longer than the role's ``timeout``: a timeout)."""
        body = self.wire.body(text, usage)

        def late(_: Request) -> Response:
            time.sleep(seconds)
            return json_response(body)

        self.queue(late, times)

    # --- what arrived -----------------------------------------------------------------------

    @property
    def requests(self) -> list[Request]:
        """Every request the stub received, in order (headers included)."""
        return [request for request, _ in self.server.log]

    @property
    def bodies(self) -> list[Any]:
        """The JSON body of every request received, in order (None for one that is not JSON)."""
        return [request.get_json(silent=True) for request in self.requests]

    def wait_for(self, count: int, timeout: float = 10.0) -> None:
        """Wait until ``count`` requests have been answered (late answers to abandoned requests
        included), or ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while len(self.server.log) < count and time.monotonic() < deadline:
            time.sleep(0.02)

    def check(self) -> None:
        """Raise AssertionError if a request arrived that no queued answer was left for."""
        if self.server.assertions:
            first = str(self.server.assertions[0]).splitlines()[0][:300]
            raise AssertionError(f"{self.vendor} stub: {first}")
