"""A few-shot language-model moderator that works with any backend.

The model reads a system prompt (``prompts/price/moderator/system.txt``), few-shot examples
(``prompts/price/moderator/examples.jsonl``: each a user turn with a window labelled by speaker and an
assistant turn with the answer) and the window to judge, and answers
``{"state": "ongoing" | "deal" | "no_deal", "price": number | null, "reason": "..."}``.

Not every vendor can be held to a JSON schema, so the answer is asked for in up to three ways,
in this order, and read in four (the *parse path*, recorded with every verdict and call):

1. ``schema``: ``model.with_structured_output(Answer, method="json_schema")`` (on models whose
   ``with_structured_output`` is LangChain's default, this is tool calling);
2. ``json_mode``: ``with_structured_output(Answer, method="json_mode")``, only on models that
   implement their own ``with_structured_output`` (LangChain's default has no JSON mode);
3. ``fenced``: a plain request whose system prompt also asks for the object in a fenced
   ```` ```json ```` block; the first fenced block (else the first bare ``{...}`` object) is read;
4. ``regex``: when that plain reply holds no readable object, a state word and a ``$`` price in
   it (no extra call).

Path memory: each moderator (one per experiment, or per ``moderator-eval``) remembers, for its
model, the request form that last produced a verdict, and starts every later call there; forms
above it are never tried again. A form that cannot be built (``NotImplementedError``, an unsupported
argument) or whose call fails with a non-retryable error (an API 400 for an unsupported
``response_format``) is dropped at once; a reply that cannot be read moves on to the next form for
that call. The chain therefore only moves down, and a model that cannot do schemas pays for the
failed attempt once, not on every call. A retryable failure that outlasted its retries, or a failure
of the plain request, raises :class:`icl_aif.models.calls.ModelCallError` (the round ends with an error).

Every call goes through :func:`icl_aif.models.calls.invoke` (rate limits, retries, cost, redaction) and is
appended to the ``calls`` list given to :meth:`LLMJudge.aclassify`, as a ``calls.jsonl``
record without ``game_id`` and ``round`` (the game adds them), with ``method`` (the request form)
and ``parse`` (the path that read the reply, or null).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import STATES, Message, State, Turn, format_money
from icl_aif.games.price.judge.evaluation import LabelledWindow, parse_labelled
from icl_aif.games.price.judge.rules import read_turn
from icl_aif.games.price.verdict import PriceVerdict
from icl_aif.models.calls import ModelCallError, invoke
from icl_aif.models.request_forms import RequestForms
from icl_aif.models.retries import is_retryable

__all__ = [
    "EXAMPLES",
    "METHODS",
    "Answer",
    "LLMJudge",
    "answer_json",
    "read_fenced",
    "read_regex",
    "verdict_from_data",
]

logger = logging.getLogger(__name__)

EXAMPLES = "price/moderator/examples.jsonl"
SYSTEM = "price/moderator/system.txt"
WINDOW = "price/moderator/window.txt"
FENCED = "price/moderator/fenced.txt"

Method = Literal["schema", "json_mode", "plain"]
METHODS: tuple[Method, ...] = ("schema", "json_mode", "plain")
_LANGCHAIN_METHOD = {"schema": "json_schema", "json_mode": "json_mode"}

REASON_MAX = 160


class Answer(BaseModel):
    """The moderator's answer, as the JSON schema the model is held to."""

    state: State = Field(description="The state after the last turn.")
    price: float | None = Field(description="The agreed price in dollars; null unless a deal.")
    reason: str = Field(max_length=REASON_MAX, description="A few words on why.")


# ---------------------------------------------------------------------------------------------
# Reading replies
# ---------------------------------------------------------------------------------------------

_STATE_ALIASES = {
    "ongoing": "ongoing",
    "on_going": "ongoing",
    "deal": "deal",
    "no_deal": "no_deal",
    "nodeal": "no_deal",
}
_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(\{.*?\})\s*```", re.DOTALL)
_STATE_FIELD_RE = re.compile(
    r"\"?state\"?\s*[:=]\s*\"?(no[ _-]?deal|on[ _-]?going|deal)\b", re.IGNORECASE
)
_STATE_WORD_RE = re.compile(r"\b(no[ _-]?deal|on[ _-]?going|deal)\b", re.IGNORECASE)
_PRICE_FIELD_RE = re.compile(r"\"?price\"?\s*[:=]\s*\"?\$?\s*(\d[\d,]*(?:\.\d+)?)", re.IGNORECASE)
_DOLLAR_RE = re.compile(r"\$\s*(\d[\d,]*(?:\.\d+)?)")


def _state(value: Any) -> State | None:
    key = re.sub(r"[\s-]+", "_", str(value).strip().lower())
    state = _STATE_ALIASES.get(key)
    return state if state in STATES else None


def _amount(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return (
            float(value) if value == value and value not in (float("inf"), float("-inf")) else None
        )
    if isinstance(value, str):
        match = re.search(r"\d[\d,]*(?:\.\d+)?", value)
        if match:
            return float(match.group(0).replace(",", ""))
    return None


def verdict_from_data(data: Any) -> tuple[State, float | None, str] | None:
    """(state, price, reason) from a parsed answer (a dict or an :class:`Answer`), or None."""
    if isinstance(data, BaseModel):
        data = data.model_dump()
    if not isinstance(data, Mapping):
        return None
    state = _state(data.get("state", ""))
    if state is None:
        return None
    price = _amount(data.get("price")) if state == "deal" else None
    reason = str(data.get("reason") or "").strip()[:REASON_MAX]
    return state, price, reason


def _first_object(text: str) -> Any:
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            return value
    return None


def read_fenced(text: str) -> tuple[State, float | None, str] | None:
    """The answer in the first fenced ```json block, else in the first bare JSON object."""
    for match in _FENCE_RE.finditer(text):
        try:
            found = verdict_from_data(json.loads(match.group(1)))
        except json.JSONDecodeError:
            continue
        if found is not None:
            return found
    return verdict_from_data(_first_object(text))


def read_regex(text: str) -> tuple[State, float | None, str] | None:
    """The last resort: a state word (``state: deal`` first, else the first one) and a price."""
    field = _STATE_FIELD_RE.search(text)
    state = _state(field.group(1)) if field else None
    if state is None:
        word = _STATE_WORD_RE.search(text)
        state = _state(word.group(1)) if word else None
    if state is None:
        return None
    price = None
    if state == "deal":
        match = _PRICE_FIELD_RE.search(text) or _DOLLAR_RE.search(text)
        price = float(match.group(1).replace(",", "")) if match else None
    return state, price, text.strip().splitlines()[0][:REASON_MAX] if text.strip() else ""


# ---------------------------------------------------------------------------------------------
# Prompts
# ---------------------------------------------------------------------------------------------


def scenario_line(scenario: Mapping[str, Any] | None) -> str:
    """``Item: lamp; asking price: $35; buyer's first offer: $25.`` from whatever is known."""
    if not scenario:
        return ""
    parts = []
    if scenario.get("item"):
        parts.append(f"Item: {scenario['item']}")
    for key, label in (("list_price", "asking price"), ("buyer_open", "buyer's first offer")):
        value = scenario.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            parts.append(f"{label}: {format_money(value)}")
    return "; ".join(parts) + ".\n" if parts else ""


def window_text(
    prompts: PromptLibrary, window: Sequence[Turn], scenario: Mapping[str, Any] | None
) -> str:
    """The user turn that shows a window, each line labelled by its speaker."""
    return prompts.render(
        WINDOW,
        scenario=scenario_line(scenario),
        count=len(window),
        turns="\n".join(f"{t['speaker']}: {t['text']}" for t in window),
        last_speaker=window[-1]["speaker"] if window else "seller",
    )


def answer_json(label: State, price: float | None, reason: str) -> str:
    """An answer as the one-line JSON object the model should write."""
    return json.dumps(
        {"state": label, "price": price if label == "deal" else None, "reason": reason},
        ensure_ascii=False,
    )


_DEFAULT_REASONS = {
    "deal": "the last turn accepts a price on the table",
    "no_deal": "a side ends the negotiation",
    "ongoing": "the negotiation goes on",
}


def example_answer(example: LabelledWindow) -> str:
    """The assistant turn of a few-shot example (its ``reason`` key, else a generic one)."""
    reason = example.extra.get("reason")
    text = reason if isinstance(reason, str) and reason else _DEFAULT_REASONS[example.label]
    price = example.price
    return answer_json(example.label, None if price is None else _plain_number(price), text)


def _plain_number(amount: float) -> float | int:
    return int(amount) if float(amount).is_integer() else amount


def load_examples(prompts: PromptLibrary, path: Path | None = None) -> list[LabelledWindow]:
    """The few-shot examples: ``path``, else ``prompts/price/moderator/examples.jsonl``."""
    from icl_aif.core.errors import UsageError

    if path is None:
        return parse_labelled(prompts.text(EXAMPLES), prompts.root / EXAMPLES)
    try:
        content = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"roles.moderator.examples: cannot read {path} ({exc})") from None
    return parse_labelled(content, path)


# ---------------------------------------------------------------------------------------------
# The moderator
# ---------------------------------------------------------------------------------------------


class LLMJudge:
    """Asks a chat model for the state after a window's last turn (see the module docstring)."""

    name = "llm"

    def __init__(
        self,
        model: BaseChatModel,
        model_id: str,
        config: ExperimentConfig,
        prompts: PromptLibrary | None = None,
        examples: Sequence[LabelledWindow] | None = None,
    ) -> None:
        self.model = model
        self.model_id = model_id
        self.config = config
        self.prompts = prompts or PromptLibrary()
        self.examples = (
            list(examples)
            if examples is not None
            else load_examples(self.prompts, config.roles.moderator.examples)
        )
        self.max_tokens = config.roles.moderator.max_tokens
        self.forms = RequestForms(METHODS, f"moderator {model_id}")  # the path memory
        self._runnables: dict[Method, Any] = {}
        self._prefix: dict[Method, list[Message]] = {}

    # -- prompts ----------------------------------------------------------------------------

    def prefix(self, method: Method) -> list[Message]:
        """System prompt and few-shot turns for ``method`` (fenced answers for ``plain``)."""
        if method not in self._prefix:
            system = self.prompts.render(SYSTEM)
            if method == "plain":
                system += "\n\n" + self.prompts.render(FENCED)
            messages = [Message(role="system", content=system)]
            for example in self.examples:
                answer = example_answer(example)
                if method == "plain":
                    answer = f"```json\n{answer}\n```"
                messages.append(
                    Message(
                        role="user",
                        content=window_text(self.prompts, example.turns, example.scenario),
                    )
                )
                messages.append(Message(role="assistant", content=answer))
            self._prefix[method] = messages
        return self._prefix[method]

    def messages(
        self, method: Method, window: Sequence[Turn], scenario: Mapping[str, Any] | None
    ) -> list[Message]:
        """Everything one call sends."""
        asked = Message(role="user", content=window_text(self.prompts, window, scenario))
        return [*self.prefix(method), asked]

    # -- the fallback chain -------------------------------------------------------------------

    @property
    def dropped(self) -> set[Method]:
        """The request forms this model cannot do."""
        return self.forms.dropped

    def _runnable(self, method: Method) -> Any:
        if method not in self._runnables:
            if method == "plain":
                self._runnables[method] = self.model
            else:
                if method == "json_mode" and _default_structured_output(self.model):
                    raise NotImplementedError(
                        "LangChain's default with_structured_output has no JSON mode"
                    )
                self._runnables[method] = self.model.with_structured_output(
                    Answer, method=_LANGCHAIN_METHOD[method], include_raw=True
                )
        return self._runnables[method]

    async def ask(
        self,
        window: Sequence[Turn],
        scenario: Mapping[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> PriceVerdict | None:
        """The model's verdict, or None when no reply could be read (calls are appended)."""
        for method in self.forms.chain():
            try:
                runnable: Runnable[Any, Any] = self._runnable(method)
            except (NotImplementedError, ValueError, TypeError) as unsupported:
                self.forms.drop(method, f"{type(unsupported).__name__}: {unsupported}")
                continue
            messages = self.messages(method, window, scenario)
            result, exc = await invoke(
                runnable,
                self.model_id,
                messages,
                self.config,
                max_tokens=self.max_tokens,
                asked={"role": "moderator", "method": method},  # a game's response cache
            )
            found, parse = (None, None) if result.output is None else _read(method, result)
            if calls is not None:
                calls.append(
                    {
                        "role": "moderator",
                        "model": self.model_id,
                        "messages": [dict(m) for m in messages],
                        **result.record(),
                        "method": method,
                        "parse": parse,
                    }
                )
            if result.output is None:
                error = result.error or "no reply"
                if method == "plain" or (exc is not None and is_retryable(exc)):
                    raise ModelCallError("moderator", error) from exc
                self.forms.drop(method, error)
                continue
            if found is None:
                logger.debug("moderator %s: %s reply unreadable", self.model_id, method)
                continue
            self.forms.remember(method)
            state, price, reason = found
            return _verdict(state, price, reason, window, parse)
        return None

    async def aclassify(
        self,
        window: Sequence[Turn],
        scenario: Mapping[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> PriceVerdict:
        """The state after the window's last turn; ``ongoing`` when no reply could be read."""
        if not window:
            return PriceVerdict("ongoing", reason="empty window", decided_by="llm")
        verdict = await self.ask(window, scenario, calls)
        if verdict is None:
            return PriceVerdict("ongoing", reason="unreadable reply", decided_by="llm")
        return verdict


def _default_structured_output(model: BaseChatModel) -> bool:
    return type(model).with_structured_output is BaseChatModel.with_structured_output


def _read(method: Method, result: Any) -> tuple[tuple[State, float | None, str] | None, str | None]:
    """What a reply says, and the parse path that read it."""
    if method != "plain":
        found = verdict_from_data(result.parsed)
        if found is None:  # e.g. a reason longer than the schema allows: read the raw JSON
            found = verdict_from_data(_first_object(result.output))
        return found, (method if found is not None else None)
    found = read_fenced(result.output)
    if found is not None:
        return found, "fenced"
    found = read_regex(result.output)
    return found, ("regex" if found is not None else None)


def _verdict(
    state: State, price: float | None, reason: str, window: Sequence[Turn], parse: str | None
) -> PriceVerdict:
    """A model's answer as a verdict; ``no_deal`` reasons are ``walk_away`` or ``refusal``."""
    if state == "no_deal":
        ending = read_turn(window[-1]["text"]).ending_reason
        return PriceVerdict("no_deal", reason=ending or "refusal", decided_by="llm", parse=parse)
    if state == "deal" and price is None:
        return PriceVerdict("deal", reason="price_not_found", decided_by="llm", parse=parse)
    return PriceVerdict(state, price=price, reason=reason or None, decided_by="llm", parse=parse)
