"""``chaos:``: fault injection around any backend, to show that runs survive bad providers.

``chaos:MODEL?error_rate=0.2&timeout_rate=0.05&garbage_rate=0.05`` wraps ``MODEL`` (any
``provider:model`` string) and, on every call, with these probabilities:

- ``error_rate``: fails like an SDK would, with HTTP 429 (``retry-after-ms: 10``) or 500, half each;
- ``timeout_rate``: fails with a timeout;
- ``empty_rate``, ``huge_rate``, ``garbage_rate``: answers with an empty reply, a 10,000-character
  reply, or the wrapped model's reply garbled, instead of the reply itself;
- ``latency``: seconds every call takes (``asyncio.sleep``), standing in for the network
  (``bench/throughput.py``).

Failures are drawn before the wrapped model is called and bad replies after it, from a generator
seeded by the game and role, so a chaos run is reproducible from the experiment seed whatever the
concurrency. Injected failures go through the same retries as real ones (:mod:`icl_aif.models.retries`).
The wrapped model is called through its ``_agenerate``: a call makes one pass through LangChain's
callbacks (the wrapper's), not two.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from icl_aif.models.base import ModelRequest, keeps_state, message_text
from icl_aif.models.registry import find_provider, split_model_string

HUGE_CHARS = 10_000
RATES = ("error_rate", "timeout_rate", "empty_rate", "huge_rate", "garbage_rate")
SETTINGS = (*RATES, "latency")
_GARBLE = "#@%&*~^<>|{}[]\\/=+_"


class InjectedHTTPError(Exception):
    """An HTTP failure made up by ``chaos:``, shaped like an SDK's (``status_code``, ``headers``)."""

    def __init__(self, status_code: int, headers: Mapping[str, str]) -> None:
        super().__init__(f"chaos: injected HTTP {status_code}")
        self.status_code = status_code
        self.headers = dict(headers)


class InjectedTimeout(TimeoutError):
    """A timeout made up by ``chaos:``."""


def parse_chaos(name: str) -> tuple[str, dict[str, float]]:
    """``"scripted:linear?error_rate=0.2"`` -> (``"scripted:linear"``, ``{"error_rate": 0.2}``)."""
    inner, _, query = name.partition("?")
    if not inner:
        raise ValueError("chaos: wraps a model: chaos:PROVIDER:MODEL?error_rate=0.2")
    settings: dict[str, float] = {}
    for key, raw in parse_qsl(query, keep_blank_values=True):
        if key not in SETTINGS:
            raise ValueError(f"chaos: unknown setting {key!r}; allowed: {', '.join(SETTINGS)}")
        try:
            value = float(raw)
        except ValueError:
            raise ValueError(f"chaos: {key} must be a number, got {raw!r}") from None
        if value < 0 or (key in RATES and value > 1):
            raise ValueError(f"chaos: {key} must be {'in [0, 1]' if key in RATES else '>= 0'}")
        settings[key] = value
    for group in (("error_rate", "timeout_rate"), ("empty_rate", "huge_rate", "garbage_rate")):
        if sum(settings.get(k, 0.0) for k in group) > 1:
            raise ValueError(f"chaos: {' + '.join(group)} must not exceed 1")
    return inner, settings


class ChaosModel(BaseChatModel):
    """Wraps ``inner`` and injects failures, bad replies and latency (see the module docstring)."""

    inner: BaseChatModel
    seed: int
    error_rate: float = 0.0
    timeout_rate: float = 0.0
    empty_rate: float = 0.0
    huge_rate: float = 0.0
    garbage_rate: float = 0.0
    latency: float = 0.0

    _rng: random.Random = PrivateAttr()

    def model_post_init(self, context: Any) -> None:
        self._rng = random.Random(self.seed)

    @property
    def _llm_type(self) -> str:
        return "chaos"

    @property
    def keeps_state(self) -> bool:
        """As the wrapped model (:func:`icl_aif.models.base.keeps_state`): a cache hit asks a
        wrapped simulator (at no cost), never a wrapped vendor model; so around a vendor model
        a hit does not advance the chaos draws."""
        return keeps_state(self.inner)

    def _fail(self) -> None:
        """Raise an injected failure, or return to let the call through."""
        roll = self._rng.random()
        if roll < self.error_rate:
            if self._rng.random() < 0.5:
                raise InjectedHTTPError(429, {"retry-after-ms": "10"})
            raise InjectedHTTPError(500, {})
        if roll < self.error_rate + self.timeout_rate:
            raise InjectedTimeout("chaos: injected timeout")

    def _spoil(self, message: BaseMessage) -> ChatResult:
        """The inner reply, or an empty, huge or garbled one instead."""
        text = message_text(message)
        roll = self._rng.random()
        if roll < self.empty_rate:
            text = ""
        elif roll < self.empty_rate + self.huge_rate:
            text = ((text or "blah") + " ") * (HUGE_CHARS // (len(text) + 1) + 1)
            text = text[:HUGE_CHARS]
        elif roll < self.empty_rate + self.huge_rate + self.garbage_rate:
            text = self._garble(text)
        usage = getattr(message, "usage_metadata", None)
        return ChatResult(
            generations=[ChatGeneration(message=AIMessage(text, usage_metadata=usage))]
        )

    def _garble(self, text: str) -> str:
        chars = list(text or "garbled")
        self._rng.shuffle(chars)
        return "".join(c if self._rng.random() > 0.3 else self._rng.choice(_GARBLE) for c in chars)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.latency:
            time.sleep(self.latency)
        self._fail()
        return self._spoil(_first(self.inner._generate(messages, stop=stop, **kwargs)))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.latency:
            await asyncio.sleep(self.latency)
        self._fail()
        return self._spoil(_first(await self.inner._agenerate(messages, stop=stop, **kwargs)))


def _first(result: ChatResult) -> BaseMessage:
    """The message of a wrapped model's first generation."""
    return result.generations[0].message


def build_chaos(request: ModelRequest) -> ChaosModel:
    """``chaos:MODEL?settings``: the wrapped model, built like any role's, with faults around it."""
    inner_spec, settings = parse_chaos(request.name)
    provider, name = split_model_string(inner_spec)
    inner_request = dataclasses.replace(request, spec=inner_spec, provider=provider, name=name)
    wrapped = find_provider(provider)
    assert wrapped is not None  # split_model_string checked it
    inner = wrapped.build(inner_request)
    return ChaosModel(inner=inner, seed=request.seed ^ 0x5EED, **settings)
