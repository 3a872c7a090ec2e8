"""A known-type counterpart's policy and the exact best response to it (issue 26).

The counterpart (``scripted:known``) plays the type declared in ``scenario.counterpart``, drawn
per game (:meth:`~icl_aif.games.price.scenario.CounterpartType.draw`): its seat, its reservation
price ``r``, its concession exponent ``beta`` and its deadline ``D``. Its policy is fixed:

- it opens where its seat's opener does (a seller at the list price, a buyer at its opening
  offer: ``start``);
- at its reply ``k`` (0, 1, ..., counted after the openers) its offer is
  ``o_k = start + (r - start) * ((k + 1) / D) ** (1 / beta)``, rounded to the price step, so
  that its last offer ``o_(D-1)`` is ``r`` (a time-dependent tactic, Faratin et al. 1998);
- it accepts the other side's standing offer (the last price that side named, its opener
  included) when that price is at least as good for it as ``o_k``; otherwise it counters with
  ``o_k``, and at its last reply it walks away. It never reads anything else of the talk.

Its next move depends only on how many replies it made and on the other side's standing offer,
so the best response is a dynamic programme over the round's lines (:func:`best_response`):
at each of its lines the other side may accept the counterpart's standing offer, name the
price the counterpart accepts at its next reply, name a price it refuses (and go on), or walk
away; the round ends without a deal at the cap (``2 * max_exchanges`` lines, openers
included). The value is exact for this policy: no sampling, no approximation.

The other side's payoff is the game's (:meth:`PriceGame.payoff`): a seller's price over its
cost, a buyer's ceiling (its budget, else the list price) over the price. The zone of possible
agreement runs from that zero point to the counterpart's reservation; its width divides the
optimality gap and the surplus (:func:`known_type_figures`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from icl_aif.core.transcript import Seat
from icl_aif.games.price.offers import opening_moves
from icl_aif.games.price.scenario import PriceScenario, price_step

__all__ = [
    "Action",
    "Figures",
    "LinePlan",
    "Policy",
    "best_action",
    "best_response",
    "known_type_figures",
    "payoff_of",
    "policy_of",
    "round_of",
]

EPSILON = 1e-9


@dataclass(frozen=True)
class Policy:
    """A drawn counterpart's policy in one scenario (module doc): its seat, its opening and
    reservation prices, its offers by reply and how many replies it makes."""

    seat: Seat
    start: float
    reservation: float
    offers: tuple[float, ...]
    """``o_k`` for each reply ``k``; the last is the reservation."""

    @property
    def deadline(self) -> int:
        """Its replies before it walks away."""
        return len(self.offers)

    def better_for_it(self, price: float, than: float) -> bool:
        """Whether ``price`` is at least as good for the counterpart as ``than``."""
        if self.seat == "seller":
            return price >= than - EPSILON
        return price <= than + EPSILON

    def accepts(self, reply: int, standing: float | None) -> bool:
        """Whether its reply ``reply`` accepts the other side's ``standing`` offer."""
        return standing is not None and self.better_for_it(standing, self.offers[reply])


@dataclass(frozen=True)
class LinePlan:
    """Who speaks when after a scenario's openers, and what the openers offered."""

    speakers: tuple[Seat, ...]
    """The speaker of each line after the openers, up to the cap."""
    opened: dict[Seat, float | None]
    """Each seat's last price named in the openers (None: none)."""


def round_of(scenario: PriceScenario) -> LinePlan:
    """The lines after ``scenario``'s openers, to the cap, and the openers' offers."""
    openers = scenario.openers
    opened: dict[Seat, float | None] = {"seller": None, "buyer": None}
    for opener, move in zip(openers, opening_moves(scenario), strict=True):
        if move is not None and move.terms is not None:
            opened[opener.speaker] = float(move.terms["price"])
    speaker: Seat = "buyer" if openers[-1].speaker == "seller" else "seller"
    speakers: list[Seat] = []
    for _ in range(2 * scenario.max_exchanges - len(openers)):
        speakers.append(speaker)
        speaker = "buyer" if speaker == "seller" else "seller"
    return LinePlan(tuple(speakers), opened)


def policy_of(scenario: PriceScenario) -> Policy:
    """The policy of ``scenario``'s counterpart, whose type must be drawn (a ValueError
    otherwise)."""
    counterpart = scenario.counterpart
    if counterpart is None or not counterpart.drawn:
        raise ValueError("scenario.counterpart: a drawn type is needed (no ranges left)")
    seat: Seat = counterpart.seat
    start = scenario.list_price if seat == "seller" else scenario.buyer_open
    reservation, beta, deadline = counterpart.reservation, counterpart.beta, counterpart.deadline
    assert not isinstance(reservation, tuple) and not isinstance(beta, tuple)  # drawn: numbers
    assert not isinstance(deadline, tuple)
    if deadline is None:  # every reply it gets before the cap
        deadline = max(1, round_of(scenario).speakers.count(seat))
    step = price_step(scenario.list_price)
    offers = []
    for k in range(deadline):
        share = ((k + 1) / deadline) ** (1.0 / beta)
        offers.append(float(round((start + (reservation - start) * share) / step) * step))
    offers[-1] = float(reservation)
    return Policy(seat=seat, start=start, reservation=float(reservation), offers=tuple(offers))


Kind = Literal["accept", "offer", "hold", "walk"]


@dataclass(frozen=True)
class Action:
    """A line of the best response: accept the counterpart's standing offer, offer the price it
    accepts next (``price``), hold (name a price it refuses and go on) or walk away; ``value``
    is the payoff the rest of the round then brings."""

    kind: Kind
    value: float
    price: float | None = None


def payoff_of(scenario: PriceScenario, side: Seat, price: float) -> float:
    """``side``'s payoff of a deal at ``price`` (the game's payoffs)."""
    return price - scenario.seller_cost if side == "seller" else scenario.buyer_ceiling - price


def best_action(scenario: PriceScenario, line: int, replies: int) -> Action:
    """The best response's line number ``line`` (counted after the openers), when the
    counterpart has made ``replies`` replies: the action with the highest value, the earliest
    deal among equals."""
    return _solver(scenario)(line, replies)


def best_response(scenario: PriceScenario) -> float:
    """The payoff of the best response to ``scenario``'s counterpart, for the other seat, from
    the first line after the openers (exact; module doc)."""
    return _solver(scenario).first()


class _Solver:
    """The dynamic programme of one scenario, memoised by (line, replies)."""

    def __init__(self, scenario: PriceScenario) -> None:
        self.scenario = scenario
        self.policy = policy_of(scenario)
        self.own: Seat = "buyer" if self.policy.seat == "seller" else "seller"
        plan = round_of(scenario)
        self.lines = len(plan.speakers)
        self.counterpart_first = bool(plan.speakers) and plan.speakers[0] == self.policy.seat
        self.opened = plan.opened[self.policy.seat]
        self.own_opened = plan.opened[self.own]
        self.memo: dict[tuple[int, int], Action] = {}

    def first(self) -> float:
        """The value of the round from its first line after the openers: the other side's
        first line, or, when the counterpart answers the openers first, its reply to the other
        side's opener offer and then the other side's line."""
        if not self.counterpart_first:
            return self(0, 0).value
        policy = self.policy
        if policy.accepts(0, self.own_opened):
            assert self.own_opened is not None
            return payoff_of(self.scenario, self.own, self.own_opened)
        if policy.deadline == 1:  # it walks at its only reply
            return 0.0
        return self(1, 1).value

    def standing(self, replies: int) -> float | None:
        """The counterpart's standing offer after ``replies`` replies."""
        return self.opened if replies == 0 else self.policy.offers[replies - 1]

    def __call__(self, line: int, replies: int) -> Action:
        key = (line, replies)
        if key not in self.memo:
            self.memo[key] = self._solve(line, replies)
        return self.memo[key]

    def _solve(self, line: int, replies: int) -> Action:
        scenario, policy = self.scenario, self.policy
        best = Action("walk", 0.0)
        if line >= self.lines:  # the cap: no deal
            return best
        standing = self.standing(replies)
        if standing is not None:
            value = payoff_of(scenario, self.own, standing)
            if value > best.value + EPSILON:
                best = Action("accept", value, standing)
        if line + 1 < self.lines and replies < policy.deadline:
            price = policy.offers[replies]
            value = payoff_of(scenario, self.own, price)
            if value > best.value + EPSILON:
                best = Action("offer", value, price)
            if replies < policy.deadline - 1:  # it counters a refused price: go on
                later = self(line + 2, replies + 1).value
                if later > best.value + EPSILON:
                    best = Action("hold", later)
        return best


@lru_cache(maxsize=256)
def _solver(scenario: PriceScenario) -> _Solver:
    """The programme of ``scenario`` (a frozen, hashable model): solved once per drawn type."""
    return _Solver(scenario)


@dataclass(frozen=True)
class Figures:
    """One round's known-type figures for the improved side: the best response's payoff, what
    it got, and the zone of possible agreement's width (zero or less: no zone)."""

    optimal: float
    achieved: float
    width: float

    @property
    def gap(self) -> float | None:
        """``(optimal - achieved) / width``; None without a zone."""
        return (self.optimal - self.achieved) / self.width if self.width > EPSILON else None

    @property
    def efficiency(self) -> float | None:
        """``achieved / width``; None without a zone."""
        return self.achieved / self.width if self.width > EPSILON else None


def known_type_figures(scenario: PriceScenario, improve: Seat, achieved: float) -> Figures:
    """The figures of a round in which ``improve`` (the counterpart's other seat) got
    ``achieved``."""
    policy = policy_of(scenario)
    if improve == policy.seat:
        raise ValueError(f"the improved seat {improve} is the counterpart's own")
    width = payoff_of(scenario, improve, policy.reservation)
    return Figures(optimal=best_response(scenario), achieved=achieved, width=width)
