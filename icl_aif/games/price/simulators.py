"""Rule-based negotiators: simulators, not language models.

They read the conversation the way a model would (prices through the moderator's price parser) and
answer with templated sentences that state every price with ``$``. They exist so that the whole
ICL-AIF loop runs offline, deterministically from a seed, in seconds.

Strategies (time-dependent concession, Faratin et al. 1998; tit-for-tat, Axelrod 1984):

- ``boulware``: concedes little until the end of the round (concession exponent beta = 0.3);
- ``linear``: concedes at a constant rate (beta = 1);
- ``conceder``: concedes most of the way early (beta = 3);
- ``tit_for_tat``: mirrors the rival's last concession, within its reservation price.

With ``tau`` the share of the round's turns used, the target price is
``start + (reservation - start) * tau ** (1 / beta)``. The seller starts at the list price and never
goes below its floor; the buyer starts at its opening offer and never above its ceiling. A player
accepts the rival's standing offer when it is at least as good as its own next offer, and walks away
on its last turn when the rival's offer is still outside its reservation price.

Private values are drawn once per game from the model's seed: the seller's floor lies between the
cost and the list price (``params.floor`` fixes it), the buyer's ceiling is its budget, or else
between 60% and 95% of the list price (``params.ceiling`` fixes it).

Feedback lexicon. A scripted player adapts to feedback through these phrases, counted over every
feedback turn in its history (a feedback turn is the user message just before a round's opening):

| phrase (case-insensitive)                                        | effect per mention                  |
|------------------------------------------------------------------|-------------------------------------|
| hold firm, small steps, smaller concessions, concede slowly, patient | concession exponent x 0.8 (firmer)  |
| anchor high / anchor low, full asking price, close to your opening | one more turn before conceding      |
| walk away, raise your floor, lower your ceiling                  | reservation 4% of the range tougher |
| accept too early, accept the first                               | no acceptance before the 3rd turn   |
| quality, value, worth / flaw, alternative                        | a sentence about value in replies   |
| close the deal, concede faster, meet in the middle, split the difference | concession exponent x 1.5    |

Personas. A rival given a persona (``rival_persona``) plays it as lexicon mentions on top of its
feedback's (:data:`PERSONAS`): ``stubborn`` firm x2; ``aggressive`` anchor and walk x1;
``desperate`` close x2; ``overly_kind`` close x1; ``rude`` firm and value x1.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from icl_aif.core.transcript import Seat, Turn, format_money
from icl_aif.games import simulation
from icl_aif.games.base import SimulatorRequest
from icl_aif.games.price.critic import PriceCritic
from icl_aif.games.price.judge.prices import standing_offer, without_item
from icl_aif.games.price.known_players import KINDS, build_known_player
from icl_aif.games.price.lines import REPLIES, price_move
from icl_aif.games.price.scenario import ScenarioConfig, opening_turns, price_step
from icl_aif.models.base import TextReplyModel, message_text

Strategy = Literal["boulware", "linear", "conceder", "tit_for_tat"]
STRATEGIES: dict[str, float] = {"boulware": 0.3, "linear": 1.0, "conceder": 3.0, "tit_for_tat": 1.0}

LEXICON: dict[str, tuple[str, ...]] = {
    "firm": ("hold firm", "small steps", "smaller concessions", "concede slowly", "patient"),
    "anchor": ("anchor high", "anchor low", "full asking price", "close to your opening"),
    "walk": ("walk away", "raise your floor", "lower your ceiling"),
    "no_early": ("accept too early", "accept the first"),
    "value": ("quality", "value", "worth", "flaw", "alternative"),
    "close": ("close the deal", "concede faster", "meet in the middle", "split the difference"),
}

PERSONAS: dict[str, dict[str, int]] = {
    "stubborn": {"firm": 2},
    "aggressive": {"anchor": 1, "walk": 1},
    "desperate": {"close": 2},
    "overly_kind": {"close": 1},
    "rude": {"firm": 1, "value": 1},
}
"""How a rival's persona (``rival_persona``) moves a scripted player: lexicon mentions it plays
as if its feedback had made them (a persona of another name changes nothing)."""

# How much one mention of a lexicon group moves a player (see the table above).
FIRM_FACTOR = 0.8  # concession exponent multiplier: firmer
CLOSE_FACTOR = 1.5  # concession exponent multiplier: readier to close
WALK_SHIFT = 0.04  # reservation price moved by this share of the opening gap


@dataclass(frozen=True)
class Reading:
    """What a scripted player takes from the conversation it receives."""

    own_offers: list[float]
    rival_offers: list[float]
    own_turns: int
    feedback: list[str]


def read_conversation(
    messages: Sequence[BaseMessage], first_opener: str, item: str | None = None
) -> Reading:
    """Split the history into the current round and the feedback turns before earlier rounds.
    The ``item``'s name is not read for prices: "1980 Schwinn", "4K TV" and "2007 Ford Focus"
    name no price."""
    history = simulation.read_history(messages, first_opener)
    own: list[float] = []
    rival: list[float] = []
    own_turns = 0
    for mine, text in history.lines():
        offer = standing_offer(without_item(text, item))
        if mine:
            own_turns += 1
            if offer is not None:
                own.append(offer)
        elif offer is not None:
            rival.append(offer)
    return Reading(
        own_offers=own, rival_offers=rival, own_turns=own_turns, feedback=history.feedback
    )


class ScriptedNegotiator(TextReplyModel):
    """A rule-based seller or buyer (a simulator, not a language model)."""

    strategy: Strategy
    side: Seat
    scenario: ScenarioConfig
    seed: int = 0
    stream_seed: int | None = None
    floor: float | None = None
    ceiling: float | None = None
    persona: str | None = None

    _rng: random.Random = PrivateAttr()
    _reservation: float = PrivateAttr()
    _beta: float = PrivateAttr()
    _first_opener: str = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Draw this game's private values from the seed."""
        scenario = self.scenario
        self._rng = random.Random(f"scripted:{self.strategy}:{self.side}:{self.seed}")
        if self.side == "seller":
            drawn = scenario.seller_cost + self._rng.uniform(0.15, 0.45) * (
                scenario.list_price - scenario.seller_cost
            )
            self._reservation = self.floor if self.floor is not None else drawn
        else:
            budget = scenario.buyer_budget
            drawn = (
                budget if budget is not None else self._rng.uniform(0.6, 0.95) * scenario.list_price
            )
            self._reservation = self.ceiling if self.ceiling is not None else drawn
        self._beta = STRATEGIES[self.strategy] * math.exp(self._rng.gauss(0.0, 0.2))
        if self.stream_seed is not None:  # same private values, random choices of its own
            self._rng = random.Random(f"scripted:{self.side}:stream:{self.stream_seed}")
        self._first_opener = opening_turns(scenario)[0]["text"]

    @property
    def _llm_type(self) -> str:
        return f"scripted-{self.strategy}"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"strategy": self.strategy, "side": self.side, "seed": self.seed}

    # --- the strategy ---------------------------------------------------------------------

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """The next line of this player given the conversation it sees."""
        return self.respond_move(messages)[0]

    def respond_move(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        """The next line and the binding move it makes (``moves: structured``): a counter-offer
        or a held price offers it, an acceptance accepts, walking away walks away."""
        if messages and messages[-1].type == "human" and self._is_feedback(messages):
            return "Understood. I will use this feedback in the next round.", None
        reading = read_conversation(messages, self._first_opener, self.scenario.item)
        lexicon = simulation.count_lexicon(reading.feedback, LEXICON)
        for group, mentions in PERSONAS.get(self.persona or "", {}).items():
            lexicon[group] += mentions
        sign = 1.0 if self.side == "seller" else -1.0  # +1: higher is better for me
        start = self.scenario.list_price if self.side == "seller" else self.scenario.buyer_open
        reservation = self._tougher_reservation(lexicon["walk"], sign, start)
        total_turns = self.scenario.max_exchanges
        turn = reading.own_turns  # my turns so far this round; this one is number turn + 1
        last_turn = turn + 1 >= total_turns
        next_offer = self._target(reading, lexicon, turn, total_turns, start, reservation, sign)
        previous = reading.own_offers[-1] if reading.own_offers else None
        if previous is not None and sign * (next_offer - previous) > 0:
            next_offer = previous  # offers only ever move towards the rival
        rival = reading.rival_offers[-1] if reading.rival_offers else None

        if rival is not None:
            acceptable_now = sign * (rival - next_offer) >= 0
            too_early = lexicon["no_early"] > 0 and turn < 2 and not last_turn
            if acceptable_now and not too_early:
                return self._say("accept", price=rival, lexicon=lexicon), price_move("accept")
            if last_turn:
                if sign * (rival - reservation) >= 0:
                    return self._say("accept", price=rival, lexicon=lexicon), price_move("accept")
                return self._say("walk", lexicon=lexicon), price_move("walk_away")
        if next_offer == previous:
            text = self._say("hold", offer=next_offer, lexicon=lexicon)
            return text, price_move("offer", next_offer)
        text = self._say("counter", offer=next_offer, lexicon=lexicon)
        return text, price_move("offer", next_offer)

    def _is_feedback(self, messages: Sequence[BaseMessage]) -> bool:
        """True when the last user message is a feedback turn (``Round N is over.``, from
        ``prompts/price/round/next_round.txt``): the player is asked to acknowledge, not to bargain."""
        return simulation.ROUND_OVER.match(message_text(messages[-1])) is not None

    def _tougher_reservation(self, walk_mentions: int, sign: float, start: float) -> float:
        span = self.scenario.list_price - self.scenario.buyer_open
        moved = self._reservation + sign * WALK_SHIFT * span * walk_mentions
        return min(moved, start) if sign > 0 else max(moved, start)

    def _target(
        self,
        reading: Reading,
        lexicon: dict[str, int],
        turn: int,
        total_turns: int,
        start: float,
        reservation: float,
        sign: float,
    ) -> float:
        step = price_step(self.scenario.list_price)
        if self.strategy == "tit_for_tat":
            offer = self._tit_for_tat(reading, start, reservation, sign, step)
        else:
            beta = self._beta * FIRM_FACTOR ** lexicon["firm"] * CLOSE_FACTOR ** lexicon["close"]
            delay = min(lexicon["anchor"], total_turns - 2)
            tau = max(0, turn - delay) / max(1, total_turns - 1 - delay)
            tau = min(1.0, tau)
            offer = start + (reservation - start) * tau ** (1.0 / max(beta, 0.05))
            offer += self._rng.uniform(-0.5, 0.5) * step
        offer = round(offer / step) * step
        # never beyond the reservation price, never better for me than where I started
        low, high = sorted((reservation, start))
        return float(min(max(offer, low), high))

    def _tit_for_tat(
        self, reading: Reading, start: float, reservation: float, sign: float, step: float
    ) -> float:
        if not reading.own_offers:
            return start
        mine = reading.own_offers[-1]
        if len(reading.rival_offers) >= 2:
            rival_move = abs(reading.rival_offers[-1] - reading.rival_offers[-2])
        else:
            rival_move = 0.05 * abs(start - reservation)
        return mine - sign * max(rival_move, step if rival_move > 0 else 0.0)

    def _say(
        self,
        intent: str,
        *,
        lexicon: dict[str, int],
        offer: float | None = None,
        price: float | None = None,
    ) -> str:
        templates = REPLIES[self.side]
        values = {
            "item": self.scenario.item,
            "offer": format_money(offer) if offer is not None else "",
            "price": format_money(price) if price is not None else "",
        }
        text = self._rng.choice(templates[intent]).format_map(values)
        if lexicon["value"] and intent in ("counter", "hold"):
            text = f"{self._rng.choice(templates['value']).format_map(values)} {text}"
        return text


def build_negotiator(request: SimulatorRequest) -> ScriptedNegotiator:
    """``scripted:<strategy>`` for the seller or buyer role."""
    if request.name not in STRATEGIES:
        raise ValueError(
            f"unknown scripted strategy {request.name!r}; choose one of {', '.join(STRATEGIES)}"
        )
    unknown = sorted(set(request.params) - {"floor", "ceiling"})
    if unknown:
        raise ValueError(
            f"unknown params {', '.join(unknown)}; scripted players take floor, ceiling"
        )
    return ScriptedNegotiator(
        strategy=request.name,
        side=request.side,
        scenario=request.scenario,
        seed=request.seed,
        stream_seed=request.stream_seed,
        persona=request.persona,
        **request.params,
    )


def build_player(request: SimulatorRequest) -> BaseChatModel:
    """``scripted:STRATEGY`` negotiators, and the known-type design's ``scripted:known`` and
    ``scripted:optimal`` (:mod:`icl_aif.games.price.known_players`)."""
    if request.name in KINDS:
        return build_known_player(request)
    return build_negotiator(request)


def build_scripted(request: SimulatorRequest) -> BaseChatModel:
    """``scripted:STRATEGY`` negotiators and ``scripted:critic`` (the ``scripted`` provider)."""
    if request.role == "moderator":
        raise ValueError("scripted: backends are negotiators and a critic; use mode rules instead")
    return simulation.dispatch(request, build_player, PriceCritic.from_request)


def spoken_agreement(
    scenario: ScenarioConfig, offerer: Seat, price: float, rng: random.Random
) -> list[Turn]:
    """A counter-offer of ``price`` by ``offerer`` and the rival's acceptance, in the scripted
    players' own words (the conformance check's agreement windows)."""
    accepter: Seat = "buyer" if offerer == "seller" else "seller"
    values = {"item": scenario.item, "offer": format_money(price), "price": format_money(price)}
    return [
        Turn(speaker=offerer, text=rng.choice(REPLIES[offerer]["counter"]).format_map(values)),
        Turn(speaker=accepter, text=rng.choice(REPLIES[accepter]["accept"]).format_map(values)),
    ]
