"""What ``icl-aif serve`` refuses before a route runs: oversized bodies and foreign origins.

- :class:`BodyLimit` (ASGI middleware) caps every request body at :data:`MAX_BODY_BYTES`: a
  larger ``Content-Length`` is answered 413 without reading the body, and a body without one
  (chunked, streamed) is counted while it is read and answered 413 once it passes the cap, so the
  server never holds more than the cap (and uvicorn's own read buffer) of one request. The 413
  closes the connection: the rest of the body is never read.
- :func:`origin_problem` is the rule for requests that change something (POST): one whose
  ``Origin`` (or, without it, ``Referer``) is not this server is refused (403), and a browser's
  request authenticated by the token cookie must carry one of the two. A script that sends
  ``Authorization: Bearer <token>`` and no ``Origin`` (curl, a study platform's backend) passes.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from fastapi.responses import Response

logger = logging.getLogger(__name__)

__all__ = ["MAX_BODY_BYTES", "BodyLimit", "origin_problem"]

MAX_BODY_BYTES = 64 * 1024
"""Bytes of one request body (64 KiB): a submission of 10 suggestions of 1,000 characters is a
few KiB in most scripts; anything much larger is not an annotator's form."""

DEFAULT_PORTS = {"http": 80, "https": 443}

# the ASGI interface, as uvicorn calls the app
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

Refusal = Callable[[str], Response]
"""The 413 answer for a request path (a JSON problem for the API, a page for the rest)."""


class _TooLarge(Exception):
    """The body being read has passed the cap."""


class BodyLimit:
    """ASGI middleware answering 413 to a request whose body is over ``limit`` bytes.

    ``refusal(path)`` gives the answer; it is sent with ``Connection: close``.
    """

    def __init__(self, app: ASGIApp, limit: int, refusal: Refusal) -> None:
        self.app = app
        self.limit = limit
        self.refusal = refusal

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            logger.warning("a body of %d bytes refused unread (%s)", declared, scope["path"])
            await self._refuse(scope, send)
            return
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    raise _TooLarge
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, watched)
        except _TooLarge:
            logger.warning(
                "a body over %d bytes refused while read (%s)", self.limit, scope["path"]
            )
            if started:  # cannot happen with this app's routes: they read before they answer
                raise
            await self._refuse(scope, send)

    async def _refuse(self, scope: Scope, send: Send) -> None:
        response = self.refusal(scope["path"])
        response.headers["Connection"] = "close"

        async def nothing_more() -> Message:
            return {"type": "http.disconnect"}

        await response(scope, nothing_more, send)


def _content_length(scope: Scope) -> int | None:
    """The declared body size, or None (absent, or not a number: the HTTP layer refuses those)."""
    for name, value in scope.get("headers", []):
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def origin_problem(
    own: str, origin: str | None, referer: str | None, *, cookie_only: bool
) -> str | None:
    """Why a state-changing request to the server at ``own`` (its URL, from the request's
    ``Host``) is refused (403), or None if it may go on.

    ``origin`` (else ``referer``) must name this server: the same scheme, host and port. With
    neither, the request passes unless ``cookie_only`` (the token cookie is its only credential:
    a browser's request, which must say where it comes from); a bearer token, or no credentials
    at all (then the route answers 401), passes.
    """
    source = origin if origin is not None else referer
    if source is not None:
        server = _origin(own)
        if server is not None and _origin(source) == server:
            return None
        shown = source if len(source) <= 100 else source[:100] + "..."
        return f"refused: the request comes from {shown}, not from this server's own pages"
    if cookie_only:
        return (
            "refused: a browser's form must carry the Origin or Referer of this server; "
            "a script sends Authorization: Bearer <token>"
        )
    return None


def _origin(address: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of a URL (the port filled in), or None if it has none."""
    try:
        parts = urlsplit(address.strip())
        scheme, host = parts.scheme.lower(), parts.hostname
        port = parts.port or DEFAULT_PORTS.get(scheme)
    except ValueError:  # a port that is not a number
        return None
    if not scheme or not host or port is None:
        return None
    return scheme, host, port
