"""What model calls cost: a price table in USD per million tokens and the cost of one call.

The shipped table holds the vendors' published list prices as of mid-2025 (standard tier, no batch
discount, prompts below any long-context surcharge), not re-checked since. Prices change: check each
vendor's pricing page before trusting a total, and override or extend the table with the config key ``prices``::

    prices:
      "openai:gpt-4o-mini": {input: 0.15, output: 0.60, cached_input: 0.075}

Keys are ``provider:model`` strings as written in ``roles``. A model string also matches a table
entry it extends with a date or version suffix (``anthropic:claude-3-5-haiku-20241022`` is priced
as ``anthropic:claude-3-5-haiku``; ``openai:gpt-4o-2024-08-06`` as ``openai:gpt-4o``); give a
snapshot priced differently its own entry. Simulators, the replay fake and local models
(providers ``scripted``, ``replay``, ``local``) cost 0 unless ``prices`` names them.

Counting: backends report ``input_tokens`` with cached tokens included (OpenAI's
``prompt_tokens`` holds ``cached_tokens``; langchain-anthropic adds cache reads and cache writes
into ``input_tokens``). Cached tokens are charged once, at the cached rate, and the rest of the
input at the input rate. Anthropic's cache writes (1.25x the input price) are charged at the input
price, and a failed call, whose usage is unknown, costs nothing here: totals are a lower bound.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import Price
from icl_aif.core.errors import UsageError
from icl_aif.models.registry import find_provider, unwrap

logger = logging.getLogger(__name__)

FREE = Price(input=0.0, output=0.0, cached_input=0.0)


def _p(input: float, output: float, cached_input: float | None = None) -> Price:
    return Price(input=input, output=output, cached_input=cached_input)


# USD per million tokens: vendor list prices as of mid-2025. Check the vendors' pricing pages.
DEFAULT_PRICES: dict[str, Price] = {
    # OpenAI (cached input: automatic prompt caching)
    "openai:gpt-4o-mini": _p(0.15, 0.60, 0.075),
    "openai:gpt-4o": _p(2.50, 10.00, 1.25),
    "openai:gpt-4.1": _p(2.00, 8.00, 0.50),
    "openai:gpt-4.1-mini": _p(0.40, 1.60, 0.10),
    # Anthropic (cached input: cache reads)
    "anthropic:claude-3-5-haiku": _p(0.80, 4.00, 0.08),
    "anthropic:claude-haiku-4-5": _p(1.00, 5.00, 0.10),
    "anthropic:claude-sonnet-4-5": _p(3.00, 15.00, 0.30),
    # Cohere (no cached rate)
    "cohere:command-r7b": _p(0.0375, 0.15),
    "cohere:command-r": _p(0.15, 0.60),
    "cohere:command-a": _p(2.50, 10.00),
    # AI21 (no cached rate)
    "ai21:jamba-mini": _p(0.20, 0.40),
    "ai21:jamba-large": _p(2.00, 8.00),
}

# What may follow a table entry in a model string: a date or version, or an alias such as -latest.
_SUFFIX = re.compile(r"-(latest|v?\d[\d.-]*)")


def _by_suffix(model: str, table: Mapping[str, Price]) -> Price | None:
    """The longest entry of ``table`` that ``model`` extends with a date or version suffix."""
    matches = [
        key
        for key in table
        if model.startswith(key) and _SUFFIX.fullmatch(model[len(key) :]) is not None
    ]
    return table[max(matches, key=len)] if matches else None


def price_of(model: str, prices: Mapping[str, Price] | None = None) -> Price | None:
    """The price of a ``provider:model`` string, or None when it is unknown.

    Looked up in ``prices`` (the config's), then free providers, then :data:`DEFAULT_PRICES`;
    in each table an exact key first, then an entry the model string extends with a suffix.
    A ``chaos:`` wrapper costs what the model it wraps costs.
    """
    prices = prices or {}
    model = unwrap(model) if model not in prices else model
    if model in prices:
        return prices[model]
    found = _by_suffix(model, prices)
    if found is not None:
        return found
    if _runs_here(model.partition(":")[0]):
        return FREE
    return DEFAULT_PRICES.get(model) or _by_suffix(model, DEFAULT_PRICES)


def _runs_here(provider: str) -> bool:
    """True for a provider whose models run in this process (simulators, fakes, local models,
    a plugin's marked ``offline``): they cost nothing."""
    found = find_provider(provider)
    return found is not None and found.offline


def cost_usd(usage: Mapping[str, Any] | None, price: Price | None) -> float | None:
    """The cost of one call in USD; None when the price is unknown or a priced call has no usage.

    ``usage`` is a ``calls.jsonl`` usage object: ``input_tokens`` (cached ones included),
    ``output_tokens`` and ``cached_input_tokens``. A model priced at zero costs 0 with or without usage.
    """
    if price is None:
        return None
    if price.input == price.output == (price.cached_input or 0.0) == 0.0:
        return 0.0
    if usage is None:
        return None
    input_tokens = int(usage.get("input_tokens") or 0)
    cached = min(int(usage.get("cached_input_tokens") or 0), input_tokens)
    cached_rate = price.input if price.cached_input is None else price.cached_input
    total = (
        (input_tokens - cached) * price.input
        + cached * cached_rate
        + int(usage.get("output_tokens") or 0) * price.output
    )
    return round(total / 1_000_000, 10)


def call_cost(
    model: str, usage: Mapping[str, Any] | None, prices: Mapping[str, Price]
) -> float | None:
    """The cost of one call of ``model`` (a ``provider:model`` string) with the config's prices."""
    return cost_usd(usage, price_of(model, prices))


def total_cost(calls: Iterable[Mapping[str, Any]]) -> float:
    """The sum of the known ``cost_usd`` of recorded calls."""
    return sum(float(c.get("cost_usd") or 0.0) for c in calls)


def priced_roles(config: ExperimentConfig) -> dict[str, str]:
    """Model string per role that makes model calls in ``config`` (the critic only for source ai;
    not a side a person plays)."""
    roles = {role: role_config.model for role, role_config in config.model_roles().items()}
    if config.roles.moderator.model and config.roles.moderator.uses_model:  # llm, hybrid
        roles["moderator"] = config.roles.moderator.model
    return roles


def check_budget_prices(config: ExperimentConfig) -> None:
    """With ``max_usd`` set, every model must have a price: else a one-line UsageError."""
    if config.max_usd is None:
        return
    for role, model in priced_roles(config).items():
        if price_of(model, config.prices) is None:
            raise UsageError(
                f"max_usd is set but roles.{role}.model {model!r} has no price: add it under "
                f"prices, e.g. prices: {{{model!r}: {{input: 1.0, output: 2.0}}}} (USD per million tokens)"
            )
