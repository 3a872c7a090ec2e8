"""Calling a model: one place that converts messages, times the call and records it.

This is the model layer: a call takes a built model, its ``provider:model`` id, plain messages and
the call settings (retries, rate limits, prices), never a game's context or scenario. The engine
says which role and game a call belongs to (:meth:`icl_aif.engine.context.GameContext.call_model`).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from icl_aif.config.settings import Price, RateLimit, RetryConfig
from icl_aif.core.transcript import Message
from icl_aif.models import cache as response_cache
from icl_aif.models import limits, pricing
from icl_aif.models.base import keeps_state, message_text
from icl_aif.models.keys import redact
from icl_aif.models.registry import retry_rule
from icl_aif.models.retries import backoff, delay

_JITTER = random.Random()  # waits only; never touches the results


class ModelCallError(Exception):
    """A model call failed; the call is recorded and the game ends with this reason."""

    def __init__(self, role: str, error: str) -> None:
        super().__init__(f"{role} model failed: {error}")
        self.role = role
        self.error = error


class CallSettings(Protocol):
    """How calls are made: retries, rate limits and prices by provider.

    An :class:`icl_aif.config.experiment.ExperimentConfig` is one; the model layer reads nothing else of it.
    """

    @property
    def retry(self) -> RetryConfig: ...

    @property
    def rate_limits(self) -> Mapping[str, RateLimit]: ...

    @property
    def prices(self) -> Mapping[str, Price]: ...


_CONVERT: dict[str, type[BaseMessage]] = {
    "system": SystemMessage,
    "user": HumanMessage,
    "assistant": AIMessage,
}


MESSAGES_KEPT = 4096
"""Converted messages :func:`to_langchain` keeps, the least recently used going first. Histories
repeat the same messages on every call of a game, and games their system prompts and templated
lines: the quickstart converts about 2,100 messages a game, 99.5 % of them found here. Each game
adds a few messages never seen before, so a cache much larger than the games in flight need only
grows with the games played (bench/memory.py)."""


def to_langchain(messages: Sequence[Message]) -> list[BaseMessage]:
    """Plain ``{role, content}`` dicts to LangChain messages."""
    return [_message(m["role"], m["content"]) for m in messages]


@lru_cache(maxsize=MESSAGES_KEPT)
def _message(role: str, content: str) -> BaseMessage:
    # Models never mutate their input messages: one object serves every call that sends it.
    return _CONVERT[role](content=content)


def usage_of(message: BaseMessage) -> dict[str, int] | None:
    """Token usage as the backend reported it (cached input tokens included), or None."""
    usage = getattr(message, "usage_metadata", None)
    if not usage:
        return None
    details = usage.get("input_token_details") or {}
    return {
        "input_tokens": usage["input_tokens"],
        "output_tokens": usage["output_tokens"],
        "cached_input_tokens": int(details.get("cache_read", 0) or 0),
    }


@dataclass(frozen=True)
class CallResult:
    """What one model call produced, as recorded in ``calls.jsonl`` (``output`` None on failure)."""

    output: str | None
    usage: dict[str, int] | None
    error: str | None
    attempts: int
    cost_usd: float | None
    latency_s: float
    limit_wait_s: float
    parsed: Any = None  # a structured-output runnable's parsed value, or the arguments of the
    # reply's first tool call; not part of the record
    cache: str | None = None  # with a response cache: "hit" or "miss" (icl_aif.models.cache)

    def record(self) -> dict[str, Any]:
        """The call's fields in ``calls.jsonl`` order (``cache`` only with a response cache)."""
        fields = {
            "output": self.output,
            "usage": self.usage,
            "error": self.error,
            "attempts": self.attempts,
            "cost_usd": self.cost_usd,
            "latency_s": self.latency_s,
            "limit_wait_s": self.limit_wait_s,
        }
        if self.cache is not None:
            fields["cache"] = self.cache
        return fields


async def invoke(
    model: BaseChatModel | Runnable[Any, Any],
    model_id: str,
    messages: Sequence[Message],
    settings: CallSettings,
    *,
    max_tokens: int | None = None,
    asked: Mapping[str, Any] | None = None,
) -> tuple[CallResult, BaseException | None]:
    """Send ``messages`` to ``model``, retrying what is retryable; never raises a model failure.

    Failures that the provider of ``model_id`` says are worth another try (its
    ``should_retry``, by default :func:`icl_aif.models.retries.is_retryable`) are tried again up to
    ``settings.retry.attempts`` times.
    Every attempt first waits for the provider's rate limits (:mod:`icl_aif.models.limits`). The result
    holds the call's cost (:mod:`icl_aif.models.pricing`); errors are redacted of keys. The exception
    of a failed call comes back beside the result, for chaining.

    ``model`` may also be a structured-output runnable built with ``include_raw=True``
    (``model.with_structured_output(schema, include_raw=True)``): the raw message gives the
    output text and usage (a tool call's arguments as JSON when the text is empty), and the
    parsed value comes back in ``CallResult.parsed`` (None when the reply did not parse). A
    reply that calls a tool (a model with tools bound) gives its first call's arguments there.

    ``asked`` says who asks (``role``, and ``round`` and ``method`` where known): with a
    response cache bound to the game being played (:func:`icl_aif.models.cache.bind`) such a call is
    looked up first, a hit coming back as the stored call (``cache``: ``hit``), and a reply that
    missed is stored at once (``cache``: ``miss``; failures are never stored).
    """
    replicate = response_cache.scope() if asked is not None else None
    if replicate is None:
        return await _invoke(model, model_id, messages, settings, max_tokens)
    assert asked is not None
    started = time.perf_counter()
    key, who = replicate.key(model_id, messages, asked, max_tokens)
    stored = replicate.cache.get(key)
    if stored is not None:
        if keeps_state(model):  # free, and its state must move as without the cache
            await _invoke(model, model_id, messages, settings, max_tokens)
        hit = CallResult(
            output=stored["output"],
            usage=stored.get("usage"),
            error=None,
            attempts=stored.get("attempts", 1),
            cost_usd=stored.get("cost_usd"),
            latency_s=round(time.perf_counter() - started, 6),
            limit_wait_s=0.0,
            parsed=stored.get("parsed"),
            cache="hit",
        )
        return hit, None
    result, exc = await _invoke(model, model_id, messages, settings, max_tokens)
    if result.output is not None:
        entry = replicate.entry(model_id, who, result)
        if entry is not None:
            held = replicate.cache.put(key, entry)
            if held is not entry:  # another writer stored this call first: its reply holds
                result = replace(result, output=held["output"], parsed=held.get("parsed"))
    return replace(result, cache="miss"), exc


async def _invoke(
    model: BaseChatModel | Runnable[Any, Any],
    model_id: str,
    messages: Sequence[Message],
    settings: CallSettings,
    max_tokens: int | None,
) -> tuple[CallResult, BaseException | None]:
    """:func:`invoke` without the cache."""
    prompt = to_langchain(messages)
    retry = settings.retry
    provider = model_id.partition(":")[0]
    limiter = limits.limiter_for(provider, settings.rate_limits.get(provider))
    tokens = limits.estimate_tokens(messages, max_tokens) if limiter else 0
    waited = 0.0
    attempts = 0

    async def attempt() -> Any:
        nonlocal attempts, waited
        attempts += 1
        if limiter is not None:
            waited += await limiter.acquire(tokens)
        return await model.ainvoke(prompt)

    started = time.perf_counter()
    try:
        try:  # the first attempt outside tenacity: most calls need no more, and it costs ~30 us
            reply: Any = await attempt()
        except Exception as first:
            should_retry = retry_rule(model_id)  # looked up on failure only: calls stay cheap
            if retry.attempts < 2 or not should_retry(first):
                raise
            await asyncio.sleep(delay(retry, _JITTER, first, 1))
            async for retrying in AsyncRetrying(
                stop=stop_after_attempt(retry.attempts - 1),
                wait=backoff(retry, _JITTER, before=1),
                retry=retry_if_exception(should_retry),
                reraise=True,
            ):
                with retrying:
                    reply = await attempt()
    except Exception as exc:
        failed = CallResult(
            output=None,
            usage=None,
            error=redact(f"{type(exc).__name__}: {exc}"),
            attempts=attempts,
            cost_usd=pricing.call_cost(model_id, None, settings.prices),
            latency_s=round(time.perf_counter() - started, 6),
            limit_wait_s=round(waited, 6),
        )
        return failed, exc
    parsed: Any = None
    if isinstance(reply, dict) and "raw" in reply:  # with_structured_output(include_raw=True)
        parsed, reply = reply.get("parsed"), reply["raw"]
    elif getattr(reply, "tool_calls", None):  # a model with a tool bound called it
        parsed = reply.tool_calls[0].get("args")
    usage = usage_of(reply)
    done = CallResult(
        output=_reply_text(reply),
        usage=usage,
        error=None,
        attempts=attempts,
        cost_usd=pricing.call_cost(model_id, usage, settings.prices),
        latency_s=round(time.perf_counter() - started, 6),
        limit_wait_s=round(waited, 6),
        parsed=parsed,
    )
    return done, None


def _reply_text(reply: BaseMessage) -> str:
    """The reply's text, or the first tool call's arguments as JSON when there is no text."""
    text = message_text(reply).strip()
    tool_calls = getattr(reply, "tool_calls", None)
    if not text and tool_calls:
        return json.dumps(tool_calls[0].get("args", {}), ensure_ascii=False)
    return text


async def call_model(
    model: BaseChatModel | Runnable[Any, Any],
    model_id: str,
    messages: Sequence[Message],
    settings: CallSettings,
    *,
    role: str,
    calls: list[dict[str, Any]],
    labels: Mapping[str, Any],
    max_tokens: int | None = None,
) -> str:
    """Send ``messages`` to ``model`` through :func:`invoke`, append the call to ``calls`` and
    return the reply's text.

    The record is ``labels`` (who made the call: ``game_id``, ``round``, ``role``), then the
    model, the messages and :meth:`CallResult.record`. A failure (not retryable, or the last
    try) raises :class:`ModelCallError` for ``role`` after the call is recorded.
    """
    asked = {"role": role, "round": labels.get("round")}
    result, exc = await invoke(
        model, model_id, messages, settings, max_tokens=max_tokens, asked=asked
    )
    calls.append(
        {
            **labels,
            "model": model_id,
            "messages": list(messages),  # plain dicts, never changed once made: shared
            **result.record(),
        }
    )
    if result.output is None:
        raise ModelCallError(role, result.error or "no reply") from exc
    return result.output
