"""Anthropic prompt caching for append-only conversations.

The improved player's prompt only grows (system brief, past rounds, feedback turns, then the current
round), so each request marks its last content block with ``cache_control: {"type": "ephemeral"}``:
Anthropic caches the prefix up to that block and, on the next request, reads the longest cached
prefix it finds within the 20 blocks before the new mark. Prompts shorter than the model's minimum
cacheable length (1024 tokens and up, by model) are simply not cached.

The mark is a block-level breakpoint, not langchain-anthropic's ``cache_control`` invoke kwarg (which
it sends as the newer top-level request field for the direct API): block-level breakpoints are also
understood by Anthropic-compatible endpoints reached through ``base_url``.

Imported only after ``langchain_anthropic`` was found (see :func:`icl_aif.models.vendors.build_anthropic`).
"""

from __future__ import annotations

from typing import Any

from langchain_anthropic import ChatAnthropic
from langchain_core.language_models import LanguageModelInput

EPHEMERAL: dict[str, str] = {"type": "ephemeral"}


def mark_last_block(messages: list[dict[str, Any]], cache_control: dict[str, str]) -> bool:
    """Put ``cache_control`` on the last content block of the last message (Anthropic wire format).

    String content becomes one text block. Blocks are copied, never changed in place. False if the
    last message has no block to mark.
    """
    if not messages:
        return False
    last = messages[-1]
    content = last.get("content")
    if isinstance(content, str):
        if not content:
            return False
        last["content"] = [{"type": "text", "text": content, "cache_control": cache_control}]
        return True
    if isinstance(content, list) and content and isinstance(content[-1], dict):
        last["content"] = [*content[:-1], {**content[-1], "cache_control": cache_control}]
        return True
    return False


class PrefixCachingChatAnthropic(ChatAnthropic):
    """ChatAnthropic that marks every request's last message block as a prompt-cache breakpoint.

    ``prompt_cache=False`` sends requests unchanged. A call that passes its own ``cache_control``
    keyword is left alone.
    """

    prompt_cache: bool = True

    def _get_request_payload(
        self,
        input_: LanguageModelInput,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        payload: dict[str, Any] = super()._get_request_payload(input_, stop=stop, **kwargs)
        if self.prompt_cache and "cache_control" not in payload:
            mark_last_block(payload.get("messages") or [], EPHEMERAL)
        return payload
