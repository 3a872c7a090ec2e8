"""Rate limits per provider: requests and tokens per minute, shared by every game of the process.

Configured with the top-level ``rate_limits`` key, by provider name (``openai``, ``anthropic``, ...;
an OpenAI-compatible server reached with ``base_url`` counts as ``openai``)::

    rate_limits:
      openai: {requests_per_minute: 500, tokens_per_minute: 200000}

Each limit is a leaky bucket (:class:`aiolimiter.AsyncLimiter`): up to a minute's allowance may go
out at once, then capacity comes back continuously, as vendors meter it. :func:`icl_aif.models.calls.invoke`
acquires one request and the request's estimated tokens before every attempt, retries included.

What is counted as tokens: an estimate made before the call, the characters of every message
divided by 4 (rounded up) plus the call's ``max_tokens`` (what the reply may use). It is not
corrected by the usage reported afterwards, so it errs on the safe side for short replies. A
request estimated above the whole ``tokens_per_minute`` waits for a full bucket instead of failing.

Limiters are kept in a process-wide registry keyed by provider, so all games of a run share them.
An ``AsyncLimiter`` belongs to one event loop: when a new loop asks (a new ``asyncio.run``, as
tests do), the provider gets fresh limiters for it. Games played in other processes (the Ray
executor, :mod:`icl_aif.run.executors`) share one set of buckets through :func:`share`: every
acquisition is then asked of the object it installs. Worker processes of this machine
(:mod:`icl_aif.run.processes`) each hold an equal share of the allowance instead
(:func:`set_process_share`).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from aiolimiter import AsyncLimiter

from icl_aif.config.settings import RateLimit
from icl_aif.core.transcript import Message

logger = logging.getLogger(__name__)

PERIOD_S = 60.0  # the window of "per minute"; tests shrink it to keep waits short
CHARS_PER_TOKEN = 4


def tokens_in(chars: int) -> int:
    """Estimated tokens of ``chars`` characters of text: characters / 4, rounded up."""
    return math.ceil(chars / CHARS_PER_TOKEN)


def estimate_tokens(messages: Sequence[Message], max_tokens: int | None) -> int:
    """Tokens a request may use: message characters / 4 (rounded up) plus ``max_tokens``."""
    return tokens_in(sum(len(m["content"]) for m in messages)) + (max_tokens or 0)


@dataclass
class ProviderLimiter:
    """The request and token buckets of one provider on one event loop."""

    provider: str
    limit: RateLimit
    loop: asyncio.AbstractEventLoop
    requests: AsyncLimiter | None
    tokens: AsyncLimiter | None

    @classmethod
    def create(cls, provider: str, limit: RateLimit) -> ProviderLimiter:
        """Fresh buckets for this process's share of ``limit`` on the running loop."""
        rpm, tpm = limit.requests_per_minute, limit.tokens_per_minute
        share = _SHARE[0]
        return cls(
            provider=provider,
            limit=limit,
            loop=asyncio.get_running_loop(),
            requests=AsyncLimiter(rpm * share, PERIOD_S) if rpm else None,
            tokens=AsyncLimiter(tpm * share, PERIOD_S) if tpm else None,
        )

    async def acquire(self, tokens: int) -> float:
        """Wait until one request of about ``tokens`` tokens may go out; return the seconds waited."""
        loop = asyncio.get_running_loop()
        started = loop.time()
        if self.requests is not None:
            await self.requests.acquire(min(1, self.requests.max_rate))  # a share may be < 1
        if self.tokens is not None and tokens > 0:
            await self.tokens.acquire(min(tokens, self.tokens.max_rate))
        waited = loop.time() - started
        if waited > 0.001:
            logger.debug("%s rate limit: waited %.3f s", self.provider, waited)
        return waited


class Limiter(Protocol):
    """Anything that makes a request wait for its provider's limits."""

    async def acquire(self, tokens: int) -> float:
        """Wait until one request of about ``tokens`` tokens may go out; return the seconds waited."""
        ...


SharedLimiters = Callable[[str, RateLimit], Limiter]
"""Gives the limiter of a provider with a limit, when the buckets live outside this process."""

_LIMITERS: dict[str, ProviderLimiter] = {}
_SHARED: list[SharedLimiters] = []
_SHARE = [1.0]  # this process's share of every allowance (set_process_share)


def set_process_share(fraction: float) -> None:
    """Give this process ``fraction`` of every allowance from now on (a worker of
    :mod:`icl_aif.run.processes` holds 1 / workers); buckets made before keep their size."""
    if not 0 < fraction <= 1:
        raise ValueError(f"a process share is in (0, 1], got {fraction}")
    _SHARE[0] = fraction


def share(limiters: SharedLimiters | None) -> None:
    """Take every limiter from ``limiters`` from now on (None: back to this process's buckets)."""
    _SHARED.clear()
    if limiters is not None:
        _SHARED.append(limiters)


def limiter_for(provider: str, limit: RateLimit | None) -> Limiter | None:
    """The shared limiter of ``provider`` on the running loop, or None when it has no limits.

    Call it from a coroutine. A provider whose limits changed (another experiment in the same
    process) gets new buckets. After :func:`share`, the limiter comes from the shared buckets.
    """
    if limit is None or (limit.requests_per_minute is None and limit.tokens_per_minute is None):
        return None
    if _SHARED:
        return _SHARED[0](provider, limit)
    current = _LIMITERS.get(provider)
    if current is None or current.loop is not asyncio.get_running_loop() or current.limit != limit:
        current = _LIMITERS[provider] = ProviderLimiter.create(provider, limit)
        logger.debug("rate limits for %s: %s", provider, limit)
    return current


def reset() -> None:
    """Forget every limiter (tests)."""
    _LIMITERS.clear()
