"""Calling a role's model: one place that converts messages, times the call and records it."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from icl_aif.context import GameContext
from icl_aif.models.base import message_text
from icl_aif.protocol import Message

logger = logging.getLogger(__name__)


class ModelCallError(Exception):
    """A model call failed; the call is recorded and the game ends with this reason."""

    def __init__(self, role: str, cause: BaseException) -> None:
        super().__init__(f"{role} model failed: {type(cause).__name__}: {cause}")
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
    """Token usage as the backend reported it, or None when it reports none."""
    usage = getattr(message, "usage_metadata", None)
    if not usage:
        return None
    return {"input_tokens": usage["input_tokens"], "output_tokens": usage["output_tokens"]}


async def call_model(
    ctx: GameContext, role: str, round_number: int, messages: Sequence[Message]
) -> str:
    """Send ``messages`` to ``role``'s model, record the call, and return the reply text."""
    model = ctx.models[role]
    record: dict[str, Any] = {
        "game_id": ctx.game_id,
        "round": round_number,
        "role": role,
        "model": ctx.model_ids[role],
        "messages": [dict(m) for m in messages],
    }
    started = time.perf_counter()
    try:
        result = await model.ainvoke(to_langchain(messages))
    except Exception as exc:
        record.update(output=None, usage=None, error=f"{type(exc).__name__}: {exc}")
        record["latency_s"] = round(time.perf_counter() - started, 6)
        ctx.calls.append(record)
        logger.warning("game %s round %s: %s call failed: %s", ctx.game_id, round_number, role, exc)
        raise ModelCallError(role, exc) from exc
    text = message_text(result).strip()
    record.update(output=text, usage=usage_of(result), error=None)
    record["latency_s"] = round(time.perf_counter() - started, 6)
    ctx.calls.append(record)
    return text
