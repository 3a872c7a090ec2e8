"""Deal or No Deal's scenario, the terms of its agreements, and the contexts it draws (seeds 000, 001).

A **context** is the shared collection (how many books, hats and balls) and each side's private
value per item type. :func:`draw_context` draws one from a seed under the constraints of Lewis et
al. (2017) that both seeds restate:

- 1 to 4 items of each type, 5 to 7 items in all;
- each side's values are non-negative integers and the whole collection is worth exactly
  :data:`TOTAL_VALUE` (10) points to each side (the seeds cap either side's score at 10);
- every item type is worth something to at least one side;
- at least one item type is worth something to both sides, which is the seeds' rule that the two
  sides cannot both reach the maximum score (both can score 10 at once exactly when no type is
  valued by both).

Seats: the ``alice`` seat is **Alice**, the ``bob`` seat **Bob** (:data:`ROLE_NAMES`); the
papers' player 1 and player 2 objectives are symmetric, so the mapping only names them.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from icl_aif.config.settings import Opener, Scenario
from icl_aif.core.transcript import Seat, Seats, Turn
from icl_aif.games.scenarios import exchanges_field, render_openers, round_values

__all__ = [
    "COUNT_RANGE",
    "DEFAULT_OPENERS",
    "ITEMS",
    "MAX_SPLITS",
    "ROLE_NAMES",
    "SEATS",
    "TOTAL_RANGE",
    "TOTAL_VALUE",
    "DondScenario",
    "DondTerms",
    "Items",
    "all_splits",
    "context_problem",
    "draw_context",
    "items_text",
    "opening_turns",
    "pareto_optimal",
    "scenario_values",
    "score",
    "split_count",
    "terms_of",
    "values_text",
]

ITEMS: tuple[str, str, str] = ("books", "hats", "balls")
"""The item types, in the order proposals list them."""

SINGULAR = {"books": "book", "hats": "hat", "balls": "ball"}

SEATS = Seats(("alice", "Alice"), ("bob", "Bob"))
"""The game's seats: ids and names (:class:`~icl_aif.core.transcript.Seats`)."""
ROLE_NAMES = SEATS.names
"""What the prompts call each seat."""

COUNT_RANGE = (1, 4)
"""Items of one type in a drawn context (Lewis et al. 2017)."""
TOTAL_RANGE = (5, 7)
"""Items in all in a drawn context (seeds 000, 001: "with 5-7 total objects")."""
TOTAL_VALUE = 10
"""What the whole collection is worth to each side in a drawn context."""

MAX_SPLITS = 500
"""The most ways to divide the collection a scenario may have (:func:`split_count`; 9 books,
9 hats and 4 balls make 500). The scripted players go through every split on each of their
lines, the Pareto check on each deal: at this limit one enumeration takes a few milliseconds
and a scripted game of the shipped config's length stays under a second of CPU, about a third
of it the engine's own (``bench/scenario_bounds.py``)."""

Mismatch = Literal["end", "continue"]

DEFAULT_OPENERS = (
    Opener(
        speaker="bob",
        text="[message] Hi Alice! We have {items} to split between us. Which of them matter "
        "most to you?",
    ),
)


class Items(BaseModel):
    """A count (or a value) per item type."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    books: int = Field(ge=0)
    hats: int = Field(ge=0)
    balls: int = Field(ge=0)

    def of(self, item: str) -> int:
        """The number of ``item`` (``books``, ``hats`` or ``balls``)."""
        return int(getattr(self, item))

    def as_tuple(self) -> tuple[int, int, int]:
        """``(books, hats, balls)``."""
        return (self.books, self.hats, self.balls)

    @classmethod
    def of_tuple(cls, values: tuple[int, ...] | list[int]) -> Items:
        """From ``(books, hats, balls)``."""
        books, hats, balls = values
        return cls(books=books, hats=hats, balls=balls)


class DondScenario(Scenario):
    """One Deal or No Deal context and the rules of a round.

    ``sample: true`` (the default) draws a context per game from the game's seed
    (:func:`draw_context`); ``sample: false`` plays ``counts``, ``alice_values`` and
    ``bob_values`` as given. ``objective_weight`` is the papers' lambda: each side's payoff is
    its own score plus lambda times the other's (1 cooperative, 0 semi-competitive, -1 strictly
    competitive). ``mismatch`` says what two proposals that do not fit together do: ``end`` the
    round without a deal (the papers' rule) or let the discussion ``continue``.
    """

    sample: bool = Field(
        True,
        description="Draw the counts and both sides' values per game from its seed (Lewis et "
        "al. 2017's constraints); false: play counts, alice_values and bob_values as given.",
    )
    counts: Items = Field(
        Items(books=3, hats=1, balls=2),
        description="How many books, hats and balls there are (at most MAX_SPLITS, 500, "
        "possible splits: (books + 1) x (hats + 1) x (balls + 1)).",
    )
    alice_values: Items = Field(
        Items(books=2, hats=4, balls=0), description="Alice's (the alice seat's) points per item."
    )
    bob_values: Items = Field(
        Items(books=1, hats=1, balls=3), description="Bob's (the bob seat's) points per item."
    )
    objective_weight: float = Field(
        0.0,
        ge=-1,
        le=1,
        description="lambda: payoff = own score + lambda x the other's score (1 cooperative, "
        "0 semi-competitive, -1 strictly competitive).",
    )
    mismatch: Mismatch = Field(
        "end",
        description="Two proposals that do not give out exactly all the items: end the round "
        "without a deal (the papers' rule), or continue the discussion.",
    )
    max_exchanges: int = exchanges_field(
        8,
        "Alice-bob pairs of lines per round, openers included; then the round is truncated.",
    )
    openers: tuple[Opener, ...] = DEFAULT_OPENERS

    @field_validator("counts")
    @classmethod
    def _check_splits(cls, counts: Items) -> Items:
        splits = split_count(counts)
        if splits > MAX_SPLITS:
            raise ValueError(
                f"{items_text(counts)} make {splits:,} possible splits; at most {MAX_SPLITS:,} "
                "(fewer items: the players and the Pareto check go through every split)"
            )
        return counts

    @model_validator(mode="after")
    def _check_context(self) -> DondScenario:
        if sum(self.counts.as_tuple()) == 0:
            raise ValueError("counts: there must be at least one item to divide")
        return self

    def values(self, side: Seat) -> Items:
        """``side``'s points per item."""
        return self.alice_values if side == "alice" else self.bob_values


class DondTerms(BaseModel):
    """The terms of an agreement: the items each seat receives (they add up to the counts) and
    each seat's own score of them, as the judge (the game's environment, which knows the context)
    scores them, so that a record's payoffs need no other copy of the context."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    alice: Items
    bob: Items
    alice_score: int = Field(ge=0)
    bob_score: int = Field(ge=0)

    def of(self, side: Seat) -> Items:
        """The items ``side`` receives."""
        return self.alice if side == "alice" else self.bob

    def score(self, side: Seat) -> int:
        """``side``'s own score of its items."""
        return self.alice_score if side == "alice" else self.bob_score


def score(items: Items, values: Items) -> int:
    """The points ``items`` are worth by ``values``: sum of count x value."""
    return sum(a * b for a, b in zip(items.as_tuple(), values.as_tuple(), strict=True))


def split_count(counts: Items) -> int:
    """How many ways there are to divide ``counts``: the product of (count + 1) over the types,
    what :func:`all_splits` goes through."""
    return math.prod(n + 1 for n in counts.as_tuple())


def all_splits(counts: Items) -> Iterator[tuple[Items, Items]]:
    """Every way to divide ``counts``: (the alice's items, the bob's items)."""
    for mine in itertools.product(*(range(c + 1) for c in counts.as_tuple())):
        rest = tuple(c - m for c, m in zip(counts.as_tuple(), mine, strict=True))
        yield Items.of_tuple(mine), Items.of_tuple(rest)


def terms_of(scenario: DondScenario, alice: Items, bob: Items) -> dict[str, Any]:
    """The terms of a deal on ``scenario``'s context as plain data (the items, each scored)."""
    return DondTerms(
        alice=alice,
        bob=bob,
        alice_score=score(alice, scenario.alice_values),
        bob_score=score(bob, scenario.bob_values),
    ).model_dump()


def pareto_optimal(scenario: DondScenario, terms: DondTerms) -> bool:
    """No other split gives one side a higher own score without giving the other a lower one
    (each side's own score, on ``scenario``'s context)."""
    a = score(terms.alice, scenario.alice_values)
    b = score(terms.bob, scenario.bob_values)
    for alice, bob in all_splits(scenario.counts):
        x = score(alice, scenario.alice_values)
        y = score(bob, scenario.bob_values)
        if x >= a and y >= b and (x > a or y > b):
            return False
    return True


def context_problem(counts: Items, alice: Items, bob: Items) -> str | None:
    """Why a context breaks the drawn contexts' constraints (module docstring); None if none."""
    c = counts.as_tuple()
    if not all(COUNT_RANGE[0] <= n <= COUNT_RANGE[1] for n in c):
        return f"counts {c}: each type must number {COUNT_RANGE[0]} to {COUNT_RANGE[1]}"
    if not TOTAL_RANGE[0] <= sum(c) <= TOTAL_RANGE[1]:
        return f"counts {c}: {sum(c)} items, not {TOTAL_RANGE[0]} to {TOTAL_RANGE[1]}"
    for name, values in (("alice", alice), ("bob", bob)):
        if score(counts, values) != TOTAL_VALUE:
            return f"{name} values {values.as_tuple()} total {score(counts, values)}, not 10"
    pairs = list(zip(alice.as_tuple(), bob.as_tuple(), strict=True))
    if any(s == 0 and b == 0 for s, b in pairs):
        return "an item type is worth nothing to both sides"
    if not any(s > 0 and b > 0 for s, b in pairs):
        return "no item type is worth something to both sides"
    return None


@cache
def _value_functions(counts: tuple[int, int, int]) -> tuple[tuple[int, int, int], ...]:
    """Every non-negative integer value vector that makes ``counts`` worth exactly 10."""
    ranges = [range(TOTAL_VALUE // c + 1) for c in counts]
    return tuple(
        (v[0], v[1], v[2])
        for v in itertools.product(*ranges)
        if sum(a * b for a, b in zip(counts, v, strict=True)) == TOTAL_VALUE
    )


def draw_context(seed: int) -> tuple[Items, Items, Items]:
    """A context drawn from ``seed``: (counts, the alice's values, the bob's values), uniform
    over the counts allowed, then over the pairs of value functions that meet the constraints."""
    rng = random.Random(f"dond:context:{seed}")
    low, high = COUNT_RANGE
    while True:
        counts = (rng.randint(low, high), rng.randint(low, high), rng.randint(low, high))
        if TOTAL_RANGE[0] <= sum(counts) <= TOTAL_RANGE[1]:
            break
    functions = _value_functions(counts)
    while True:
        alice = Items.of_tuple(rng.choice(functions))
        bob = Items.of_tuple(rng.choice(functions))
        if context_problem(Items.of_tuple(counts), alice, bob) is None:
            return Items.of_tuple(counts), alice, bob


def items_text(items: Items) -> str:
    """``3 books, 1 hat and 2 balls`` (every type named, zeros included)."""
    parts = [
        f"{n} {SINGULAR[item] if n == 1 else item}"
        for item, n in zip(ITEMS, items.as_tuple(), strict=True)
    ]
    return f"{parts[0]}, {parts[1]} and {parts[2]}"


def values_text(values: Items) -> str:
    """``a book is worth 2 points, a hat 4 points and a ball 0 points``."""
    books, hats, balls = (f"{v} point{'' if v == 1 else 's'}" for v in values.as_tuple())
    return f"a book is worth {books}, a hat {hats} and a ball {balls}"


def scenario_values(scenario: DondScenario) -> dict[str, Any]:
    """Template values every side may see (the openers'): the collection and the cap."""
    return {
        "items": items_text(scenario.counts),
        "books": scenario.counts.books,
        "hats": scenario.counts.hats,
        "balls": scenario.counts.balls,
        **round_values(scenario),
    }


def opening_turns(scenario: DondScenario) -> list[Turn]:
    """The scripted lines that open every round."""
    return render_openers(scenario, scenario_values(scenario))
