"""Calling a role's model: one place that converts messages, times the call and records it."""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt

from icl_aif.context import GameContext
from icl_aif.models.base import message_text
from icl_aif.models.keys import redact
from icl_aif.protocol import Message
from icl_aif.retries import backoff, is_retryable

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


async def call_model(
    ctx: GameContext, role: str, round_number: int, messages: Sequence[Message]
) -> str:
    """Send ``messages`` to ``role``'s model, retrying what is retryable; record the call.

    Retryable failures (see :mod:`icl_aif.retries`) are tried again up to ``retry.attempts`` times;
    any other failure, or the last one, raises :class:`ModelCallError` after the call is recorded.
    """
    model = ctx.models[role]
    record: dict[str, Any] = {
        "game_id": ctx.game_id,
        "round": round_number,
        "role": role,
        "model": ctx.model_ids[role],
        "messages": [dict(m) for m in messages],
    }
    prompt = to_langchain(messages)
    settings = ctx.config.retry
    attempts = 0
    started = time.perf_counter()
    try:
        async for attempt in AsyncRetrying(
            stop=stop_after_attempt(settings.attempts),
            wait=backoff(settings, _JITTER),
            retry=retry_if_exception(is_retryable),
            reraise=True,
        ):
            with attempt:
                attempts += 1
                result = await model.ainvoke(prompt)
    except Exception as exc:
        error = redact(f"{type(exc).__name__}: {exc}")
        record.update(output=None, usage=None, error=error, attempts=attempts)
        record["latency_s"] = round(time.perf_counter() - started, 6)
        ctx.calls.append(record)
        logger.warning(
            "game %s round %s: %s call failed: %s", ctx.game_id, round_number, role, error
        )
        raise ModelCallError(role, error) from exc
    text = message_text(result).strip()
    record.update(output=text, usage=usage_of(result), error=None, attempts=attempts)
    record["latency_s"] = round(time.perf_counter() - started, 6)
    ctx.calls.append(record)
    return text
