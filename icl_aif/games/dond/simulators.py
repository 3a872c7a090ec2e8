"""Deal or No Deal's rule-based players: ``scripted:boulware|linear|conceder|fair``.

A player knows the collection and its own values; it estimates the other side's values from the
items the other side asks for (every type starts equal, and each offer or proposal of the other
side adds weight to the types it claims), scaled so that the collection is worth 10 to it.
Its utility of keeping ``mine`` is its own score plus lambda (``objective_weight``) times the
other side's estimated score of the rest.

- ``boulware``, ``linear``, ``conceder``: an aspiration that falls over the round from an opening
  share (75-95%, drawn) of the best utility to a reservation share (40-60%), with the concession
  exponent beta (0.3, 1 and 3, jittered). Each message offers a split at the aspiration
  (``[message] How about this: I get 2 books, 1 hat and 0 balls and you get ...``): by default the
  one whose utility is closest above it, after ``trade`` feedback the one that leaves the other
  side the most (by the estimate). When the other side's latest offer reaches the aspiration, the
  player proposes its own share of that offer (``[propose] ...``). A proposal of the other side
  is answered with its exact complement (a deal) when it reaches the reservation, else with a
  walk-away (``mismatch: end``) or the player's own split (``continue``). With two lines left in
  the round it proposes (the other's offer if it reaches the reservation, else its own split);
  on the round's last line it walks away.
- ``fair``: always offers the split that maximises the smaller of the two scores (its own, the
  other's estimated), then their sum, and accepts any share worth at least that own score or
  half of its total.

Data. Each strategy's beta, the ranges of the draws, the tuning and the feedback phrases are read
from ``prompts/dond/players/scripted.yaml`` (hashed into each run's manifest, with the lines the
players say); the figures in this docstring are the shipped ones.

Feedback: the players count these phrases in the feedback turns of their history and change:

| group  | phrases                                            | effect                            |
|--------|----------------------------------------------------|-----------------------------------|
| firm   | hold firm, concede slowly, smaller concessions     | beta x 0.7, reservation +0.05     |
| close  | concede faster, settle sooner, meet in the middle  | beta x 1.6, reservation -0.08     |
| anchor | ask for more, open high, ambitious                 | opening +0.05 (at most 1)         |
| walk   | walk away, raise your minimum                      | reservation +0.05                 |
| trade  | value least, trade, what they value                | offers leave the other the most   |
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from icl_aif.core.transcript import Seat, Turn
from icl_aif.games import simulation
from icl_aif.games.dond.moves import Claim, Move, last_pending, read_claim, read_move
from icl_aif.games.dond.scenario import (
    ITEMS,
    SEATS,
    TOTAL_VALUE,
    DondScenario,
    Items,
    all_splits,
    items_text,
    opening_turns,
    score,
)

__all__ = [
    "DondPlayer",
    "round_turns",
    "spoken_agreement",
]


def round_turns(view: simulation.RoundView[Move], side: Seat) -> list[Turn]:
    """The current round's lines as turns, from ``side``'s seat."""
    return [
        Turn(speaker=side if own else SEATS.other(side), text=text)
        for (own, _), text in zip(view.lines, view.texts, strict=True)
    ]


def _rest(counts: Items, mine: Items) -> Items | None:
    rest = [counts.of(i) - mine.of(i) for i in ITEMS]
    return None if min(rest) < 0 else Items.of_tuple(rest)


class DondPlayer(simulation.ConcessionPlayer, game="dond", seats=SEATS, openers=opening_turns):
    """A rule-based Deal or No Deal player (a simulator)."""

    scenario: DondScenario

    # --- what the player believes ---------------------------------------------------------

    def _estimate(self, view: simulation.RoundView[Move]) -> tuple[float, float, float]:
        """The other side's values per item, from the types it has claimed this round."""
        counts = self.scenario.counts
        weights = [1.0, 1.0, 1.0]
        for own, move in view.lines:
            claim = move.claim if move.kind == "propose" else _message_claim(move)
            if own or claim is None or claim.mine is None:
                continue
            for k, item in enumerate(ITEMS):
                if counts.of(item):
                    weights[k] += min(claim.mine.of(item), counts.of(item)) / counts.of(item)
        total = sum(w * c for w, c in zip(weights, counts.as_tuple(), strict=True))
        scale = TOTAL_VALUE / total if total else 0.0
        b, h, a = (w * scale for w in weights)
        return (b, h, a)

    def _other_score(self, rest: Items, estimate: tuple[float, float, float]) -> float:
        return sum(n * v for n, v in zip(rest.as_tuple(), estimate, strict=True))

    def _utility(self, mine: Items, estimate: tuple[float, float, float]) -> float:
        rest = _rest(self.scenario.counts, mine)
        assert rest is not None
        own = score(mine, self.scenario.values(self.side))
        return own + self.scenario.objective_weight * self._other_score(rest, estimate)

    # --- the strategy ---------------------------------------------------------------------

    def play(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        """The next line and the binding move it makes (``moves: structured``): a message is
        talk, a proposal that matches the other side's pending one accepts it, any other
        proposal offers its split, a walk-away walks away."""
        view = simulation.read_round(messages, self._first_opener, read_move)
        lexicon = self.lexicon(view.feedback)
        if self.strategy == "fair":
            lexicon = dict.fromkeys(lexicon, 0)
        estimate = self._estimate(view)
        counts = self.scenario.counts
        splits = [mine for mine, _ in all_splits(counts)]
        utilities = {mine: self._utility(mine, estimate) for mine in splits}
        best = max(utilities.values())
        aims = self._adapted(lexicon)
        pace = self.pace(view)
        values = self.scenario.values(self.side)
        if self.strategy == "fair":
            demand = self._fair_split(splits, estimate)
            worth = {mine: float(score(mine, values)) for mine in splits}
            target = floor = min(worth[demand], TOTAL_VALUE / 2)
        else:
            target = pace.share(aims) * best
            floor = aims.reservation * best
            demand = self._demand(utilities, target, estimate, trade=lexicon["trade"] > 0)
            worth = utilities

        def acceptable(mine: Items) -> bool:
            return worth[mine] >= target - 1e-9

        def last_chance(mine: Items) -> bool:
            return worth[mine] >= floor - 1e-9

        pending = last_pending(round_turns(view, self.side))
        if pending is not None and pending["speaker"] != self.side:
            offered = self._offered(read_move(pending["text"]))
            if offered is not None and last_chance(offered):
                return self._propose(view, lexicon, offered)
            if self.scenario.mismatch == "continue" and pace.rival_after:
                return self._propose(view, lexicon, demand)
            return self._say("walk", lexicon), _move("walk_away")
        if not pace.rival_after:
            return self._say("walk", lexicon), _move("walk_away")
        previous = view.lines[-1][1].kind if view.lines else None
        may_propose = previous not in (None, "propose")
        offered = self._latest_offer(view)
        if may_propose and offered is not None and acceptable(offered):
            return self._propose(view, lexicon, offered)
        if may_propose and pace.left == 2:
            if offered is not None and last_chance(offered):
                return self._propose(view, lexicon, offered)
            return self._propose(view, lexicon, demand)
        mine_before = [
            claim.mine
            for own, move in view.lines
            if own and (claim := _message_claim(move)) is not None and claim.mine is not None
        ]
        intent = "open" if not mine_before else "hold" if mine_before[-1] == demand else "counter"
        return self._say(intent, lexicon, mine=demand), _move("talk")

    def _adapted(self, lexicon: dict[str, int]) -> simulation.Aims:
        """The opening share, the reservation share and beta after the feedback so far."""
        opening = min(1.0, self._opening + self.TUNING["anchor_shift"] * lexicon["anchor"])
        reservation = (
            self._reservation
            + self.TUNING["firm_shift"] * lexicon["firm"]
            + self.TUNING["walk_shift"] * lexicon["walk"]
            - self.TUNING["close_shift"] * lexicon["close"]
        )
        reservation = min(max(reservation, 0.1), opening)
        return self.aims(opening, reservation, lexicon)

    def _demand(
        self,
        utilities: dict[Items, float],
        target: float,
        estimate: tuple[float, float, float],
        *,
        trade: bool,
    ) -> Items:
        """The split this line offers: at or above the aspiration ``target``."""
        candidates = [m for m, u in utilities.items() if u >= target - 1e-9]
        if not candidates:
            top = max(utilities.values())
            candidates = [m for m, u in utilities.items() if u == top]
        if trade:
            rests = {m: _rest(self.scenario.counts, m) for m in candidates}

            def key(m: Items) -> tuple[float, float]:
                rest = rests[m]
                assert rest is not None
                return (self._other_score(rest, estimate), utilities[m])

            top_key = max(key(m) for m in candidates)
            chosen = [m for m in candidates if key(m) == top_key]
        else:
            low = min(utilities[m] for m in candidates)
            chosen = [m for m in candidates if utilities[m] == low]
        return self._rng.choice(chosen)

    def _fair_split(self, splits: list[Items], estimate: tuple[float, float, float]) -> Items:
        """The split with the largest smaller score (own, other's estimated), then sum."""
        values = self.scenario.values(self.side)

        def key(mine: Items) -> tuple[float, float]:
            rest = _rest(self.scenario.counts, mine)
            assert rest is not None
            own, other = score(mine, values), self._other_score(rest, estimate)
            return (round(min(own, other), 6), round(own + other, 6))

        top = max(key(m) for m in splits)
        return self._rng.choice([m for m in splits if key(m) == top])

    def _offered(self, move: Move) -> Items | None:
        """What ``move`` of the other side leaves this player, if it names a readable split."""
        claim = move.claim if move.kind == "propose" else _message_claim(move)
        if claim is None or claim.mine is None:
            return None
        return _rest(self.scenario.counts, claim.mine)

    def _latest_offer(self, view: simulation.RoundView[Move]) -> Items | None:
        for own, move in reversed(view.lines):
            if not own and (offered := self._offered(move)) is not None:
                return offered
        return None

    def _propose(
        self, view: simulation.RoundView[Move], lexicon: dict[str, int], mine: Items
    ) -> tuple[str, dict[str, Any]]:
        """A ``[propose]`` line keeping ``mine`` and its move: it accepts when it answers the
        other side's pending proposal with that proposal's exact complement (the judge's match),
        else it offers the split."""
        text = self._say("propose", lexicon, mine=mine)
        rest = _rest(self.scenario.counts, mine)
        assert rest is not None
        pending = last_pending(round_turns(view, self.side))
        if pending is not None and pending["speaker"] != self.side:
            claim = read_move(pending["text"]).claim
            if claim is not None and claim.mine is not None and claim.mine == rest:
                return text, _move("accept")
        return text, _move("offer", {"mine": mine.model_dump(), "yours": rest.model_dump()})

    def _say(self, intent: str, lexicon: dict[str, int], *, mine: Items | None = None) -> str:
        values = {"mine": "", "yours": ""}
        if mine is not None:
            rest = _rest(self.scenario.counts, mine)
            assert rest is not None
            values = {"mine": items_text(mine), "yours": items_text(rest)}
        return self._rng.choice(self.REPLIES[intent]).format_map(values)


def _move(kind: str, terms: dict[str, Any] | None = None) -> dict[str, Any]:
    """A scripted player's move as the move tool's arguments (beside ``message``)."""
    return {"move": kind, "terms": terms}


def _message_claim(move: Move) -> Claim | None:
    """The split a message offers, if it names both shares (``I get ... and you get ...``)."""
    if move.kind != "message":
        return None
    claim = read_claim(move.body)
    if claim.problem is not None or claim.mine is None or claim.yours is None:
        return None
    return claim


def spoken_agreement(
    scenario: DondScenario, offerer: Seat, mine: Items, rng: random.Random
) -> list[Turn]:
    """``offerer``'s offer of a split (keeping ``mine``), the other side's proposal of its share
    and ``offerer``'s matching proposal, in the simulators' own words."""
    rest = _rest(scenario.counts, mine)
    assert rest is not None
    said = {"mine": items_text(mine), "yours": items_text(rest)}
    mirrored = {"mine": said["yours"], "yours": said["mine"]}
    intent = rng.choice(("open", "counter", "hold"))
    return [
        Turn(speaker=offerer, text=rng.choice(DondPlayer.REPLIES[intent]).format_map(said)),
        Turn(
            speaker=SEATS.other(offerer),
            text=rng.choice(DondPlayer.REPLIES["propose"]).format_map(mirrored),
        ),
        Turn(speaker=offerer, text=rng.choice(DondPlayer.REPLIES["propose"]).format_map(said)),
    ]
