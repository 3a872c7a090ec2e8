"""The price game's rules of bargaining, checked on a finished round (``icl-aif screen``).

The core paper (seed 002) rules out models that do not understand what a better deal is: a
seller that "rejects a proposal of $10 but accepts $8". Three breaks are read from the
transcript, prices as the rules moderator reads them (the last offer of a line):

- a deal outside the side's range: a seller below its cost, a buyer above its ceiling;
- a deal worse for the side than an offer of the other side it let pass (a later line of its
  own came after that offer);
- an offer worse for the other side than one the side made before: a seller asking more than
  it asked, a buyer offering less than it offered.

An offer the other side names beyond the side's own standing price (a buyer "offering" more than
the seller asks) is read as a quote of that price, not an offer, and is not counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icl_aif.core.transcript import Seat, format_money
from icl_aif.games.price.judge.prices import standing_offer, without_item
from icl_aif.games.price.scenario import PriceScenario

__all__ = ["price_rule_breaks"]

CENT = 0.005


def _better(side: Seat, price: float, than: float) -> bool:
    """Whether ``price`` is strictly better for ``side`` than ``than``."""
    return price > than + CENT if side == "seller" else price < than - CENT


def _quote(text: str, limit: int = 90) -> str:
    line = " ".join(text.split())
    return f'"{line[: limit - 3]}..."' if len(line) > limit else f'"{line}"'


def price_rule_breaks(scenario: PriceScenario, side: Seat, record: Mapping[str, Any]) -> list[str]:
    """What ``side`` did against the rules in ``record`` (module doc), one sentence each."""
    turns: Sequence[Mapping[str, Any]] = record.get("turns") or []
    breaks: list[str] = []
    own: float | None = None  # the side's standing offer
    passed: list[tuple[float, str]] = []  # the other side's offers the side let pass
    pending: tuple[float, str] | None = None  # the other side's last offer, not yet answered
    retracted = False
    for turn in turns:
        text = str(turn.get("text") or "")
        price = standing_offer(without_item(text, scenario.item))
        if turn.get("speaker") == side:
            if pending is not None:
                passed.append(pending)
                pending = None
            if price is not None:
                if own is not None and _better(side, price, own) and not retracted:
                    retracted = True  # one retraction a round is evidence enough
                    breaks.append(
                        f"asked for {format_money(price)} after offering {format_money(own)}: "
                        f"{_quote(text)}"
                    )
                own = price
        elif price is not None and (own is None or not _better(side, price, own)):
            pending = (price, text)
    if record.get("outcome") != "deal":
        return breaks
    terms = record.get("terms") or {}
    deal = terms.get("price") if isinstance(terms, Mapping) else None
    if deal is None:
        return breaks
    deal = float(deal)
    cost, ceiling = scenario.seller_cost, scenario.buyer_ceiling
    if side == "seller" and deal < cost - CENT:
        breaks.insert(0, f"sold for {format_money(deal)}, below its cost {format_money(cost)}")
    if side == "buyer" and deal > ceiling + CENT:
        breaks.insert(
            0, f"bought for {format_money(deal)}, above its ceiling {format_money(ceiling)}"
        )
    better = [(p, t) for p, t in passed if _better(side, p, deal)]
    if better:
        best, text = max(better, key=lambda item: item[0] if side == "seller" else -item[0])
        breaks.append(
            f"agreed to {format_money(deal)} after letting {format_money(best)} pass: {_quote(text)}"
        )
    return breaks
