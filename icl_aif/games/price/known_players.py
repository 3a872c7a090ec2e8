"""Two simulators of the known-type design (issue 26; docs/known_types.md), not language models.

- ``scripted:known``: the counterpart. It plays the type drawn into ``scenario.counterpart``
  with the fixed policy of :mod:`icl_aif.games.price.known_type`, reading the other side's
  prices as the rules moderator reads them.
- ``scripted:optimal``: the best response to that counterpart. It **reads the counterpart's
  type** from the scenario (no real player can), and plays the dynamic programme's action at
  every line: hold at a price the counterpart refuses until the reply at which it accepts the
  most, then name that price (or accept the counterpart's standing offer when nothing better is
  left). It is a yardstick: the optimality gap of a model is measured against it.

Both answer feedback with the usual acknowledgement and play every round the same way: neither
learns.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from icl_aif.core.transcript import Seat, format_money
from icl_aif.games import simulation
from icl_aif.games.base import SimulatorRequest
from icl_aif.games.price.judge.prices import standing_offer, without_item
from icl_aif.games.price.known_type import Policy, best_action, policy_of
from icl_aif.games.price.lines import REPLIES, price_move
from icl_aif.games.price.scenario import PriceScenario, opening_turns, price_step
from icl_aif.models.base import TextReplyModel

__all__ = ["KnownTypeNegotiator", "OptimalNegotiator", "build_known_player"]

KINDS = ("known", "optimal")
"""The simulators of this module."""


class _TypedPlayer(TextReplyModel):
    """What both players share: the seat, the scenario with the drawn type, the random stream
    of their wording (the policy draws nothing) and the reading of the round so far."""

    side: Seat
    scenario: PriceScenario
    seed: int = 0
    stream_seed: int | None = None

    _rng: random.Random = PrivateAttr()
    _policy: Policy = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """The policy of the scenario's counterpart, and the wording's random stream."""
        self._policy = policy_of(self.scenario)
        stream = self.seed if self.stream_seed is None else self.stream_seed
        self._rng = random.Random(f"scripted:{self._llm_type}:{self.side}:{stream}")

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"side": self.side, "seed": self.seed}

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """The next line given the conversation (the line of :meth:`respond_move`)."""
        return self.respond_move(messages)[0]

    def respond_move(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        """The acknowledgement after a round, else the policy's line and its binding move."""
        if simulation.is_round_over(messages):
            return simulation.ACKNOWLEDGEMENT, None
        first = opening_turns(self.scenario)[0]["text"]
        lines = simulation.read_history(messages, first, prefix=True).lines()
        after = lines[len(self.scenario.openers) :]
        return self.play(lines, after)

    def play(
        self, lines: list[tuple[bool, str]], after: list[tuple[bool, str]]
    ) -> tuple[str, dict[str, Any] | None]:
        """The line for a round whose ``lines`` so far (``(own, text)``, openers included) are
        ``after`` the openers."""
        raise NotImplementedError

    def say(self, intent: str, price: float | None = None) -> str:
        """One of the price game's scripted lines for ``intent`` with ``price``."""
        money = format_money(price) if price is not None else ""
        values = {"item": self.scenario.item, "offer": money, "price": money}
        return self._rng.choice(REPLIES[self.side][intent]).format_map(values)

    def last_price(self, lines: list[tuple[bool, str]], own: bool) -> float | None:
        """The last price one side named (its own lines when ``own``), openers included."""
        for mine, text in reversed(lines):
            if mine == own:
                price = standing_offer(without_item(text, self.scenario.item))
                if price is not None:
                    return price
        return None


class KnownTypeNegotiator(_TypedPlayer):
    """``scripted:known``: the counterpart of the drawn type (module doc)."""

    @property
    def _llm_type(self) -> str:
        return "scripted-known"

    def play(
        self, lines: list[tuple[bool, str]], after: list[tuple[bool, str]]
    ) -> tuple[str, dict[str, Any] | None]:
        """Accept the other side's standing offer when it is as good as this reply's offer;
        else counter with it, or walk away at the last reply."""
        policy = self._policy
        reply = min(sum(1 for own, _ in after if own), policy.deadline - 1)
        standing = self.last_price(lines, own=False)
        if policy.accepts(reply, standing):
            assert standing is not None
            return self.say("accept", standing), price_move("accept")
        if reply == policy.deadline - 1:
            return self.say("walk"), price_move("walk_away")
        offer = policy.offers[reply]
        held = reply > 0 and policy.offers[reply - 1] == offer
        return self.say("hold" if held else "counter", offer), price_move("offer", offer)


class OptimalNegotiator(_TypedPlayer):
    """``scripted:optimal``: the best response to the counterpart's type (module doc)."""

    @property
    def _llm_type(self) -> str:
        return "scripted-optimal"

    def play(
        self, lines: list[tuple[bool, str]], after: list[tuple[bool, str]]
    ) -> tuple[str, dict[str, Any] | None]:
        """The dynamic programme's action at this line."""
        replies = sum(1 for own, _ in after if not own)
        action = best_action(self.scenario, len(after), replies)
        if action.kind == "accept":
            return self.say("accept", action.price), price_move("accept")
        if action.kind == "offer":
            return self.say("counter", action.price), price_move("offer", action.price)
        if action.kind == "walk":
            return self.say("walk"), price_move("walk_away")
        price = self._refused(replies)
        held = self.last_price(lines, own=True) == price
        return self.say("hold" if held else "counter", price), price_move("offer", price)

    def _refused(self, replies: int) -> float:
        """A price the counterpart refuses at its next reply: this seat's opening price, or a
        step beyond its offer when it would take that."""
        policy = self._policy
        s = self.scenario
        threshold = policy.offers[replies]
        step = price_step(s.list_price)
        if self.side == "seller":
            return max(s.list_price, threshold + step)
        return max(min(s.buyer_open, threshold - step), 0.01)


def build_known_player(request: SimulatorRequest) -> TextReplyModel:
    """``scripted:known`` in the counterpart's seat, ``scripted:optimal`` in the other one; a
    ValueError names what to set when the scenario declares no counterpart or another seat."""
    scenario: PriceScenario = request.scenario
    counterpart = scenario.counterpart
    if counterpart is None:
        raise ValueError(
            f"scripted:{request.name} needs a known-type counterpart: set scenario.counterpart "
            "(seat, reservation, beta, deadline; docs/known_types.md)"
        )
    if request.params:
        raise ValueError(
            f"scripted:{request.name} takes no params: its type is scenario.counterpart"
        )
    if request.name == "known" and request.side != counterpart.seat:
        raise ValueError(
            f"scripted:known plays scenario.counterpart.seat ({counterpart.seat}), not the "
            f"{request.side}"
        )
    if request.name == "optimal" and request.side == counterpart.seat:
        raise ValueError(
            f"scripted:optimal answers the counterpart: it plays the seat other than "
            f"scenario.counterpart.seat ({counterpart.seat})"
        )
    player = KnownTypeNegotiator if request.name == "known" else OptimalNegotiator
    return player(
        side=request.side,
        scenario=scenario,
        seed=request.seed,
        stream_seed=request.stream_seed,
    )
