"""A replay fake: answers with a fixed list of replies, in order (for tests and dry runs).

``replay:NAME`` with ``params.replies`` (a list of strings). Each game builds its own instance, so
every game starts again at the first reply; running out of replies is an error, never a silent loop.
The messages it received are kept in ``received`` and, like every call, in ``calls.jsonl``.

With ``params.usage`` (``{input_tokens, output_tokens, cached_input_tokens}``) every reply reports
that token usage, as LangChain ``usage_metadata`` with cached tokens under
``input_token_details.cache_read``, so cost and usage accounting can be tested without a vendor.
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage
from pydantic import Field

from icl_aif.models.base import ModelRequest, TextReplyModel

USAGE_KEYS = ("input_tokens", "output_tokens", "cached_input_tokens")


class ReplayModel(TextReplyModel):
    """Returns ``replies`` one after another and records what it was sent."""

    name: str = "replay"
    replies: list[str] = Field(default_factory=list)
    usage: dict[str, int] | None = None
    received: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "replay"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """The next reply in the list."""
        self.received.append(list(messages))
        index = len(self.received) - 1
        if index >= len(self.replies):
            raise RuntimeError(
                f"replay model {self.name!r} has {len(self.replies)} replies and was called again"
            )
        return self.replies[index]

    def reported_usage(self) -> dict[str, int]:
        """``params.usage``, reported with every reply."""
        return dict(self.usage or {})


def build_replay(request: ModelRequest) -> ReplayModel:
    """``replay:NAME`` with ``params.replies`` and optional ``params.usage``."""
    replies = request.params.get("replies")
    if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
        raise ValueError("replay models need params.replies: a list of strings")
    usage = request.params.get("usage")
    if usage is not None and (
        not isinstance(usage, dict)
        or not set(usage) <= set(USAGE_KEYS)
        or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in usage.values()
        )
    ):
        raise ValueError(
            "params.usage must map some of input_tokens, output_tokens, cached_input_tokens "
            "to counts >= 0"
        )
    return ReplayModel(name=request.name or "replay", replies=list(replies), usage=usage)
