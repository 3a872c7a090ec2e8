"""Calling a role's model: one place that converts messages, times the call and records it."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from icl_aif import limits, pricing
from icl_aif.config import ExperimentConfig
from icl_aif.context import GameContext
from icl_aif.models.base import message_text
from icl_aif.models.keys import redact
from icl_aif.models.registry import retry_rule
from icl_aif.protocol import Message
from icl_aif.retries import backoff, delay

logger = logging.getLogger(__name__)
_JITTER = random.Random()  # waits only; never touches the results


class ModelCallError(Exception):
    """A model call failed; the call is recorded and the game ends with this reason."""

    def __init__(self, role: str, error: str) -> None:
        super().__init__(f"{role} model failed: {error}")
        self.role = role


_CONVERT: dict[str, type[BaseMessage]] = {
    "system": SystemMessage,
    "user": HumanMessage,
    "assistant": AIMessage,
}


def to_langchain(messages: Sequence[Message]) -> list[BaseMessage]:
    """Plain ``{role, content}`` dicts to LangChain messages."""
    return [_message(m["role"], m["content"]) for m in messages]


@lru_cache(maxsize=65536)
def _message(role: str, content: str) -> BaseMessage:
    # Histories repeat the same messages on every call; models never mutate their input messages.
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
    parsed: Any = None  # a structured-output runnable's parsed value; not part of the record

    def record(self) -> dict[str, Any]:
        """The call's fields in ``calls.jsonl`` order."""
        return {
            "output": self.output,
            "usage": self.usage,
            "error": self.error,
            "attempts": self.attempts,
            "cost_usd": self.cost_usd,
            "latency_s": self.latency_s,
            "limit_wait_s": self.limit_wait_s,
        }


async def invoke(
    model: BaseChatModel | Runnable[Any, Any],
    model_id: str,
    messages: Sequence[Message],
    config: ExperimentConfig,
    *,
    max_tokens: int | None = None,
) -> tuple[CallResult, BaseException | None]:
    """Send ``messages`` to ``model``, retrying what is retryable; never raises a model failure.

    Failures that the provider of ``model_id`` says are worth another try (its
    ``should_retry``, by default :func:`icl_aif.retries.is_retryable`) are tried again up to
    ``retry.attempts`` times.
    Every attempt first waits for the provider's rate limits (:mod:`icl_aif.limits`). The result
    holds the call's cost (:mod:`icl_aif.pricing`); errors are redacted of keys. The exception
    of a failed call comes back beside the result, for chaining.

    ``model`` may also be a structured-output runnable built with ``include_raw=True``
    (``model.with_structured_output(schema, include_raw=True)``): the raw message gives the
    output text and usage (a tool call's arguments as JSON when the text is empty), and the
    parsed value comes back in ``CallResult.parsed`` (None when the reply did not parse).
    """
    prompt = to_langchain(messages)
    settings = config.retry
    provider = model_id.partition(":")[0]
    limiter = limits.limiter_for(provider, config.rate_limits.get(provider))
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
            if settings.attempts < 2 or not should_retry(first):
                raise
            await asyncio.sleep(delay(settings, _JITTER, first, 1))
            async for retrying in AsyncRetrying(
                stop=stop_after_attempt(settings.attempts - 1),
                wait=backoff(settings, _JITTER, before=1),
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
            cost_usd=pricing.call_cost(model_id, None, config.prices),
            latency_s=round(time.perf_counter() - started, 6),
            limit_wait_s=round(waited, 6),
        )
        return failed, exc
    parsed: Any = None
    if isinstance(reply, dict) and "raw" in reply:  # with_structured_output(include_raw=True)
        parsed, reply = reply.get("parsed"), reply["raw"]
    usage = usage_of(reply)
    done = CallResult(
        output=_reply_text(reply),
        usage=usage,
        error=None,
        attempts=attempts,
        cost_usd=pricing.call_cost(model_id, usage, config.prices),
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
    ctx: GameContext, role: str, round_number: int, messages: Sequence[Message]
) -> str:
    """Send ``messages`` to ``role``'s model through :func:`invoke` and record the call.

    A failure (not retryable, or the last try) raises :class:`ModelCallError` after the call is
    recorded.
    """
    model = ctx.models[role]
    model_id = ctx.model_ids[role]
    result, exc = await invoke(
        model, model_id, messages, ctx.config, max_tokens=_max_tokens(ctx, role, model)
    )
    ctx.calls.append(
        {
            "game_id": ctx.game_id,
            "round": round_number,
            "role": role,
            "model": model_id,
            "messages": list(messages),  # plain dicts, never changed once made: shared
            **result.record(),
        }
    )
    if result.output is None:
        error = result.error or "no reply"
        logger.warning(
            "game %s round %s: %s call failed: %s", ctx.game_id, round_number, role, error
        )
        raise ModelCallError(role, error) from exc
    return result.output


def _max_tokens(ctx: GameContext, role: str, model: Any) -> int | None:
    """The reply budget of a call: the role's ``max_tokens``, else the built model's, else None."""
    role_config = getattr(ctx.config.roles, role, None)
    configured = getattr(role_config, "max_tokens", None)
    if isinstance(configured, int):
        return configured
    built = getattr(model, "max_tokens", None)
    return built if isinstance(built, int) else None
