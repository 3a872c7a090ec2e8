"""Asking a player model for its line and its binding move (``moves: structured``).

The move is asked for in up to three forms, in the order the llm moderator asks for its verdict
(:mod:`icl_aif.games.price.judge.llm`), and the form that read it is recorded on the turn's
``move`` (``path``) and on the call (``method``, ``parse``):

1. ``tool``: the vendor's tool calling, the tool :data:`~icl_aif.games.moves.TOOL_NAME` forced
   (``model.bind_tools([schema], tool_choice=TOOL_NAME)``; the arguments of the reply's first
   tool call are the move);
2. ``schema``: JSON-schema output (``method="json_schema"``), only on models that implement their
   own ``with_structured_output``;
3. ``plain``: a plain request whose system prompt also asks for the move as JSON in a fenced
   block (``prompts/clauses/moves_fenced.txt``), read as ``fenced``; the line is the reply
   without the block.

Path memory works as the moderator's: the asker of one role of one game remembers the form that
last produced a move and starts there; a form that cannot be built, or whose call fails with a
non-retryable error, is dropped for the rest of the game. A reply no form could read comes back
without a move (the speaker node treats it as an invalid move: the player is asked again).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from icl_aif.core.transcript import Message
from icl_aif.games.moves import TOOL_NAME
from icl_aif.models.calls import CallSettings, ModelCallError, invoke
from icl_aif.models.request_forms import RequestForms
from icl_aif.models.retries import is_retryable

__all__ = ["METHODS", "MoveAsker", "MoveReply", "read_fenced_move"]

logger = logging.getLogger(__name__)

Method = Literal["tool", "schema", "plain"]
METHODS: tuple[Method, ...] = ("tool", "schema", "plain")

_FENCE = re.compile(r"```(?:json|JSON)?\s*(\{.*?\})\s*```", re.DOTALL)


@dataclass(frozen=True)
class MoveReply:
    """A player's reply: its line, the move's arguments as sent (None when none could be read),
    and the path that read them (``tool``, ``schema``, ``fenced``; None)."""

    message: str
    data: Any
    path: str | None


def read_fenced_move(text: str) -> tuple[str, dict[str, Any] | None]:
    """``(line, move arguments)`` from a plain reply: the first fenced JSON object holding a
    ``move``, and the reply without that block; ``(text, None)`` without one."""
    for match in _FENCE.finditer(text):
        try:
            data = json.loads(match.group(1))
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict) and "move" in data:
            line = (text[: match.start()] + text[match.end() :]).strip()
            return line, data
    return text.strip(), None


def _default_structured_output(model: BaseChatModel) -> bool:
    return type(model).with_structured_output is BaseChatModel.with_structured_output


@dataclass
class MoveAsker:
    """Asks one player model for its line and move, down the fallback chain (module docstring).

    ``schema`` is the game's move model (:func:`icl_aif.games.moves.move_schema`); ``fenced`` the
    system-prompt addition of the plain form.
    """

    model: BaseChatModel
    model_id: str
    schema: type[BaseModel]
    fenced: str
    forms: RequestForms[Method] = field(init=False)
    _runnables: dict[Method, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.forms = RequestForms(METHODS, f"player {self.model_id}: move form")

    def _runnable(self, method: Method) -> Any:
        if method not in self._runnables:
            if method == "plain":
                runnable: Any = self.model
            elif method == "tool":
                runnable = self.model.bind_tools([self.schema], tool_choice=TOOL_NAME)
            elif _default_structured_output(self.model):
                raise NotImplementedError("LangChain's default with_structured_output is tools")
            else:
                runnable = self.model.with_structured_output(
                    self.schema, method="json_schema", include_raw=True
                )
            self._runnables[method] = runnable
        return self._runnables[method]

    def messages(self, method: Method, messages: Sequence[Message]) -> list[Message]:
        """What one call of ``method`` sends: the plain form adds the fenced-move clause to the
        system prompt (or sends it as one, without a system prompt)."""
        if method != "plain":
            return list(messages)
        if messages and messages[0]["role"] == "system":
            first = Message(role="system", content=f"{messages[0]['content']}\n\n{self.fenced}")
            return [first, *messages[1:]]
        return [Message(role="system", content=self.fenced), *messages]

    async def ask(
        self,
        messages: Sequence[Message],
        settings: CallSettings,
        *,
        role: str,
        calls: list[dict[str, Any]],
        labels: Mapping[str, Any],
        max_tokens: int | None = None,
    ) -> MoveReply:
        """The player's line and move; every call is appended to ``calls`` (``labels``, the
        model, the messages, the result, ``method`` and ``parse``). A failure of the plain form,
        or a retryable failure that outlasted its retries, raises
        :class:`icl_aif.models.calls.ModelCallError` for ``role``."""
        last_text = ""
        for method in self.forms.chain():
            try:
                runnable = self._runnable(method)
            except (NotImplementedError, ValueError, TypeError) as unsupported:
                self.forms.drop(method, f"{type(unsupported).__name__}: {unsupported}")
                continue
            sent = self.messages(method, messages)
            asked = {"role": role, "round": labels.get("round"), "method": method}
            result, exc = await invoke(
                runnable, self.model_id, sent, settings, max_tokens=max_tokens, asked=asked
            )
            reply = None if result.output is None else _read(method, result.output, result.parsed)
            calls.append(
                {
                    **labels,
                    "model": self.model_id,
                    "messages": sent,
                    **result.record(),
                    "method": method,
                    "parse": reply.path if reply is not None else None,
                }
            )
            if result.output is None:
                error = result.error or "no reply"
                if method == "plain" or (exc is not None and is_retryable(exc)):
                    raise ModelCallError(role, error) from exc
                self.forms.drop(method, error)
                continue
            assert reply is not None
            if reply.path is None:
                last_text = reply.message
                logger.debug("player %s: %s reply held no move", self.model_id, method)
                continue
            self.forms.remember(method)
            return reply
        return MoveReply(message=last_text, data=None, path=None)


def _read(method: Method, output: str, parsed: Any) -> MoveReply:
    """A reply's line and move arguments, with the path that read them (None: no move)."""
    if method == "plain":
        line, fenced = read_fenced_move(output)
        return MoveReply(line, fenced, "fenced" if fenced is not None else None)
    data: Any = parsed
    if data is None:  # e.g. arguments the schema refused: read the raw JSON, checked later
        try:
            loaded: Any = json.loads(output)
        except json.JSONDecodeError:
            loaded = None
        data = loaded if isinstance(loaded, dict) and "move" in loaded else None
    if data is None:
        return MoveReply(output, None, None)
    message = data.get("message") if isinstance(data, dict) else getattr(data, "message", "")
    if not message and not _is_arguments_json(output):
        message = output  # the line was said as text beside the tool call
    return MoveReply(str(message or ""), data, method)


def _is_arguments_json(output: str) -> bool:
    try:
        return isinstance(json.loads(output), dict)
    except json.JSONDecodeError:
        return False
