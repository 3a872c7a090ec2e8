"""Rule-based size-price players: simulators, not language models.

They read the round the way the judge does (:mod:`icl_aif.games.size_price.offers`) and answer in
the briefs' format: every offer tagged (``OFFER: 6 units at $92.00 each.``), every acceptance
restating the offer it accepts (``I accept: 6 units at $92.00 each.``), so the judge binds it from a
window of one line. The simulators read the whole scenario (both unit values): they are
opponents for a language model and for the engine's tests, not players of a hidden-value game.

Both concede a **share of the most the two can earn together** ``S* = S(n*)`` (see
:mod:`icl_aif.games.size_price.scenario`), from an opening share to a reservation share
(time-dependent concession, Faratin et al. 1998): with ``tau`` the share of its lines in the round
already spoken, a player's next offer is worth ``opening + (reservation - opening) * tau **
(1 / beta)`` of ``S*`` to it, with beta per strategy:

- ``boulware``: concedes little until its last lines (beta = 0.3);
- ``linear``: concedes at a constant rate (beta = 1);
- ``conceder``: concedes most of the way early (beta = 3).

Offers. The **seller** starts high in price: ``n*`` units (the quantity whose surplus it takes a
share of is largest there) at ``c + share * S* / n*`` each. The **buyer** starts low: the price
``p = c + (1 - share) * S* / n*`` (which would leave it ``share`` of ``S*`` at ``n*``) and the
quantity it demands at that price, ``floor(v / p)``, where the marginal value ``v/k`` meets the
price (at most ``n*``); its final offer (on its last line) is ``n*`` units, the bundle the seller
is likeliest to take. Prices are in cents and never below the cost; a seller's price never
rises and a buyer's never falls from one of its offers to the next.

Acceptance. A player accepts the other side's standing offer when it pays it at least as much as
its own next offer would, and at least 0. On its last line it accepts an offer that pays it at
least its reservation share of ``S*``; otherwise it makes its final offer when the other side
still has a line after it, and walks away when it has none.

Private values are drawn once per game from the model's seed: the opening share between 0.75 and
0.92 (``params.opening`` fixes it) and the reservation share between 0.25 and 0.4
(``params.reservation``), and beta's jitter. A paired arm's ``stream_seed`` then reseeds the
random choices (wording, a jitter of up to 1% of ``S*`` on each offer) and keeps the private
values.

Data. Each strategy's beta, the ranges of the draws, the tuning and the feedback phrases are read
from ``prompts/size_price/players/scripted.yaml`` (hashed into each run's manifest, with the lines
the players say); the figures in this docstring are the shipped ones.

Feedback lexicon. A player adapts to feedback through these phrases, counted over every feedback
turn in its history (the user message just before a round's opening line):

| group     | phrases (case-insensitive)                                     | effect per mention               |
|-----------|----------------------------------------------------------------|----------------------------------|
| firm      | hold firm, concede slowly, smaller concessions, small steps    | beta x 0.8 (concedes later)      |
| close     | concede faster, settle early, close the deal, meet in the middle | beta x 1.5, reservation - 0.05 |
| anchor    | open high, open low, ambitious first offer, anchor             | opening share + 0.03             |
| walk      | walk away, raise your minimum, reservation                     | reservation share + 0.05         |
| no_early  | accept too early, accept the first                             | no acceptance on its first line  |
| volume    | efficient quantity, total surplus, more units                  | buyer: offers n* units, not its demand |
| remind    | remind, point out                                              | a sentence about its side's case |
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from icl_aif.core.transcript import Seat, Turn
from icl_aif.games import simulation
from icl_aif.games.size_price.offers import LineReading, Offer, read_line
from icl_aif.games.size_price.scenario import (
    SEATS,
    SizePriceScenario,
    demand,
    efficient_quantity,
    max_surplus,
    opening_turns,
    payoffs,
)

__all__ = [
    "SizePricePlayer",
    "own_offers",
    "spoken_agreement",
    "standing_offer",
]


def own_offers(view: simulation.RoundView[LineReading]) -> list[Offer]:
    """The offers the player made this round."""
    return [r.offer for r in view.own() if r.proposes and r.offer is not None]


def standing_offer(view: simulation.RoundView[LineReading]) -> Offer | None:
    """The other side's latest offer this round, if it made one."""
    found = view.rival_latest(lambda r: r.proposes or r.malformed)
    return None if found is None else found.offer


def _cents_up(amount: float) -> float:
    return math.ceil(round(amount * 100, 6)) / 100


class SizePricePlayer(
    simulation.ConcessionPlayer, game="size_price", seats=SEATS, openers=opening_turns
):
    """A rule-based wholesale seller or retail buyer (a simulator)."""

    scenario: SizePriceScenario

    # --- the strategy ---------------------------------------------------------------------

    def play(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        view = simulation.read_round(messages, self._first_opener, read_line)
        lexicon = self.lexicon(view.feedback)
        aims = self._adapted(lexicon)
        pace = self.pace(view)
        previous = own_offers(view)
        offer = self._next_offer(view, aims, lexicon, previous, final=pace.last_line)
        surplus = max_surplus(self.scenario)
        standing = standing_offer(view)
        if standing is not None and standing.problem(self.scenario.max_quantity) is None:
            mine = self._value(standing)
            good = mine >= max(0.0, self._value(offer)) - 1e-9
            too_early = lexicon["no_early"] > 0 and view.own_lines < 1 and not pace.last_line
            if good and not too_early:
                return self._say("accept", lexicon, standing), _move("accept")
            if pace.last_line and mine >= aims.reservation * surplus - 1e-9:
                return self._say("accept", lexicon, standing), _move("accept")
        if pace.last_line and not pace.rival_after:
            return self._say("walk", lexicon), _move("walk_away")
        intent = "open" if not previous else "hold" if offer.same(previous[-1]) else "counter"
        return self._say(intent, lexicon, offer), _move("offer", offer)

    def _value(self, offer: Offer) -> float:
        return payoffs(self.scenario, int(offer.quantity), offer.unit_price)[self.side]

    def _adapted(self, lexicon: dict[str, int]) -> simulation.Aims:
        """The opening share, the reservation share and beta after the feedback so far."""
        opening = min(
            max(self._opening + self.TUNING["anchor_shift"] * lexicon["anchor"], self._reservation),
            self.TUNING["most_demanded"],
        )
        moved = self._reservation + self.TUNING["walk_shift"] * (lexicon["walk"] - lexicon["close"])
        reservation = min(max(moved, 0.0), opening)
        return self.aims(opening, reservation, lexicon)

    def _next_offer(
        self,
        view: simulation.RoundView[LineReading],
        aims: simulation.Aims,
        lexicon: dict[str, int],
        previous: list[Offer],
        *,
        final: bool = False,
    ) -> Offer:
        """The offer this line would make: its share of ``S*`` as the concession curve says."""
        s = self.scenario
        share = self.pace(view).share(aims)
        share += self._rng.uniform(-self.TUNING["jitter"], self.TUNING["jitter"])
        share = min(max(share, aims.reservation), aims.opening)
        n_star = efficient_quantity(s)
        margin = max_surplus(s) / n_star
        floor = _cents_up(s.unit_cost)
        if self.side == "seller":
            price = max(round(s.unit_cost + share * margin, 2), floor)
            if previous:
                price = min(price, previous[-1].unit_price)
            return Offer(quantity=float(n_star), unit_price=price)
        price = max(round(s.unit_cost + (1 - share) * margin, 2), floor)
        if previous:
            price = max(price, previous[-1].unit_price)
        bundle = lexicon["volume"] > 0 or final
        quantity = n_star if bundle else min(demand(s, price), n_star)
        return Offer(quantity=float(quantity), unit_price=price)

    def _say(self, intent: str, lexicon: dict[str, int], offer: Offer | None = None) -> str:
        values = {"offer": offer.text() if offer is not None else ""}
        return self.say(intent, values, remind=f"remind_{self.side}" if lexicon["remind"] else None)


def _move(kind: str, offer: Offer | None = None) -> dict[str, Any]:
    """A scripted player's move as the move tool's arguments (beside ``message``): an offer's
    quantity and unit price as its line states them (in cents)."""
    if offer is None:
        return {"move": kind, "terms": None}
    terms = {"quantity": int(offer.quantity), "unit_price": round(offer.unit_price, 2)}
    return {"move": kind, "terms": terms}


def spoken_agreement(offerer: Seat, offer: Offer, first: bool, rng: random.Random) -> list[Turn]:
    """``offer`` made by ``offerer`` and the other side's acceptance, in the simulators' own
    words (the conformance check's agreement windows)."""
    intent = "open" if first else rng.choice(("counter", "hold"))
    values = {"offer": offer.text()}
    return [
        Turn(speaker=offerer, text=rng.choice(SizePricePlayer.REPLIES[intent]).format_map(values)),
        Turn(
            speaker=SEATS.other(offerer),
            text=rng.choice(SizePricePlayer.REPLIES["accept"]).format_map(values),
        ),
    ]
