"""Which model failures are worth another try, and how long to wait before it.

Retryable: HTTP 408, 409, 429 and 5xx, timeouts and dropped connections. Everything else (400, 401,
403, 404, a context that is too long, a malformed reply) fails at once. A ``Retry-After`` (or
``retry-after-ms``) header sets the wait; otherwise exponential backoff with full jitter.

Which failures are retried is each provider's rule (``Provider.should_retry`` in
:mod:`icl_aif.models.providers`): :func:`is_retryable` by default, which reads the HTTP status or,
without one, the exception names; :func:`sdk_retry_rule` for SDKs whose exception types say it.
"""

from __future__ import annotations

import email.utils
import random
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any

from tenacity import RetryCallState

from icl_aif.config.settings import RetryConfig

RETRYABLE_STATUS = frozenset({408, 409, 429})
_TRANSIENT_NAMES = ("Timeout", "Connection", "RemoteProtocol", "ReadError", "WriteError")


def status_of(exc: BaseException) -> int | None:
    """The HTTP status behind an SDK exception, if it carries one."""
    for candidate in (
        getattr(exc, "status_code", None),
        getattr(_response(exc), "status_code", None),
    ):
        if isinstance(candidate, int):
            return candidate
    return None


def retryable_status(status: int) -> bool:
    """True for HTTP 408, 409, 429 and 5xx."""
    return status in RETRYABLE_STATUS or status >= 500


def is_retryable(exc: BaseException) -> bool:
    """True for rate limits, server errors, timeouts and dropped connections (the default rule)."""
    status = status_of(exc)
    if status is not None:
        return retryable_status(status)
    names = [type(e).__name__ for e in _chain(exc)]
    return any(part in name for name in names for part in _TRANSIENT_NAMES)


def sdk_retry_rule(module: str) -> Callable[[BaseException], bool]:
    """The retry rule of an SDK with OpenAI-style exception types (``openai``, ``anthropic``).

    Its ``RateLimitError``, ``APIConnectionError`` (timeouts included) and
    ``InternalServerError`` are retried; any other ``APIStatusError`` by its status code; any
    other ``APIError`` (a reply that does not parse) is not. Exceptions from elsewhere, or when
    the SDK was never imported, go to :func:`is_retryable`.
    """

    def should_retry(exc: BaseException) -> bool:
        sdk = sys.modules.get(module)  # the SDK raised it only if it is imported
        if sdk is not None:
            transient = (sdk.RateLimitError, sdk.APIConnectionError, sdk.InternalServerError)
            if isinstance(exc, transient):
                return True
            if isinstance(exc, sdk.APIStatusError):
                return retryable_status(exc.status_code)
            if isinstance(exc, sdk.APIError):
                return False
        return is_retryable(exc)

    should_retry.__qualname__ = f"sdk_retry_rule({module!r})"
    return should_retry


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait, from ``retry-after-ms`` or ``Retry-After``."""
    headers = headers_of(exc)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time()) if parsed is not None else None


def delay(
    settings: RetryConfig, rng: random.Random, exc: BaseException | None, attempt: int
) -> float:
    """Seconds to wait after failed attempt number ``attempt`` (1-based) raised ``exc``.

    The server's Retry-After when it sent one (capped at ``max_wait``), else exponential backoff
    with full jitter.
    """
    asked = retry_after(exc) if exc is not None else None
    if asked is not None:
        return min(asked, settings.max_wait)
    ceiling = min(settings.max_wait, settings.initial_wait * 2 ** (attempt - 1))
    return rng.uniform(0, ceiling)


def backoff(settings: RetryConfig, rng: random.Random, *, before: int = 0) -> Any:
    """A tenacity ``wait`` computing :func:`delay`; ``before`` attempts were made outside tenacity."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome is not None else None
        return delay(settings, rng, exc, before + state.attempt_number)

    return wait


def headers_of(exc: BaseException) -> Mapping[str, str] | None:
    """The response headers behind an SDK exception (lower-case names), if it carries them.

    From ``exc.response.headers`` (httpx-based SDKs) or the exception's own ``headers`` mapping
    (Cohere's ``ApiError``).
    """
    for candidate in (getattr(_response(exc), "headers", None), getattr(exc, "headers", None)):
        if isinstance(candidate, Mapping):
            return {str(name).lower(): str(value) for name, value in candidate.items()}
    return None


def _response(exc: BaseException) -> Any:
    return getattr(exc, "response", None)


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen
