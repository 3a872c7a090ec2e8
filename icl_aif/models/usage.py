"""Token usage and cost of a run, from its ``calls.jsonl``: the ``usage`` object of ``summary.json``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from icl_aif.config.settings import Price
from icl_aif.models.pricing import price_of

TOKEN_KEYS = ("input_tokens", "output_tokens", "cached_input_tokens")


def role_order(seats: Iterable[str]) -> tuple[str, ...]:
    """The order tables list roles in: the game's seats, the critic, the moderator."""
    return (*seats, "critic", "moderator")


def in_role_order(roles: Iterable[str], order: Sequence[str]) -> list[str]:
    """``roles`` in ``order`` (:func:`role_order`), any other role after them, by name."""
    return sorted(roles, key=lambda r: (order.index(r) if r in order else len(order), r))


def summarize_usage(
    calls: Iterable[Mapping[str, Any]],
    prices: Mapping[str, Price] | None = None,
    max_usd: float | None = None,
    order: Sequence[str] = (),
) -> dict[str, Any]:
    """Calls, failed calls, retried attempts, tokens and cost per role (in ``order``:
    :func:`role_order`); failed calls by error type; the total cost and the unpriced models.

    A role's ``cost_usd`` sums the known costs of its calls and is null when none is known;
    ``total_cost_usd`` sums the known costs, so it is a lower bound while ``unpriced_models``
    (models of the run that have no price) is not empty.
    """
    roles: dict[str, dict[str, Any]] = {}
    errors: dict[str, int] = {}
    models: set[str] = set()
    for call in calls:
        row = roles.setdefault(
            call["role"],
            {
                "calls": 0,
                "failed_calls": 0,
                "retries": 0,
                **dict.fromkeys(TOKEN_KEYS, 0),
                "cost_usd": None,
            },
        )
        row["calls"] += 1
        row["retries"] += max(0, int(call.get("attempts") or 1) - 1)
        if call.get("error") is not None:
            row["failed_calls"] += 1
            kind = str(call["error"]).partition(":")[0]
            errors[kind] = errors.get(kind, 0) + 1
        for key in TOKEN_KEYS:
            row[key] += int((call.get("usage") or {}).get(key) or 0)
        cost = call.get("cost_usd")
        if cost is not None:
            row["cost_usd"] = round((row["cost_usd"] or 0.0) + cost, 10)
        models.add(call["model"])
    total = sum(r["cost_usd"] for r in roles.values() if r["cost_usd"] is not None)
    return {
        "roles": {r: roles[r] for r in in_role_order(roles, order)},
        "errors": dict(sorted(errors.items())),
        "total_cost_usd": round(total, 10),
        "unpriced_models": sorted(m for m in models if price_of(m, prices) is None),
        "max_usd": max_usd,
    }


def has_tokens(usage: Mapping[str, Any] | None) -> bool:
    """True when any role of a ``usage`` summary reported tokens."""
    if not usage:
        return False
    return any(r["input_tokens"] or r["output_tokens"] for r in usage["roles"].values())
