"""Rule-based pie-split players: simulators, not language models.

They read the round the way the judge does (:mod:`icl_aif.games.pie_split.offers`) and answer
in the format the briefs ask for: every offer numbered (``Offer 3: 60 for me and 40 for you.``),
every acceptance restating the offer it accepts (``I accept offer 3: 40 for you and 60 for
me.``), so the judge binds it from a window of one line.

Strategies (time-dependent concession of the demanded share, Faratin et al. 1998):

- ``boulware``: concedes little until its last lines (concession exponent beta = 0.3);
- ``linear``: concedes at a constant rate (beta = 1);
- ``conceder``: concedes most of the way early (beta = 3);
- ``fair``: always asks for half the pie and accepts any split that gives it at least half.

With ``tau`` the share of its lines in the round already spoken, a player demands
``opening + (reservation - opening) * tau ** (1 / beta)`` of the pie (rounded to the pie's step,
never more than its previous demand). It accepts the other side's standing split when that is
at least as good as its next demand would be, accepted one exchange later
(``offered >= discount * next_demand``). On its last line it accepts a split that gives it at
least its reservation share; otherwise it makes its final offer when the other side still has a
line after it, and walks away when it has none. ``fair`` walks away on its last line from a
split that gives it less than half.

Private values are drawn once per game from the model's seed: the opening demand between 62%
and 80% of the pie (``params.opening`` fixes it) and the reservation share between 30% and 45%
(``params.reservation``). A paired arm's ``stream_seed`` then reseeds the random choices
(wording, the jitter of half a step on each demand) and keeps the private values.

Data. Each strategy's beta, the ranges of the draws, the tuning and the feedback phrases are read
from ``prompts/pie_split/players/scripted.yaml`` (hashed into each run's manifest, with the lines
the players say); the figures in this docstring are the shipped ones.

Feedback lexicon. A player adapts to feedback through these phrases, counted over every feedback
turn in its history (the user message just before a round's opening line); ``fair`` only
reacts to ``remind``:

| group     | phrases (case-insensitive)                                     | effect per mention              |
|-----------|----------------------------------------------------------------|---------------------------------|
| firm      | hold firm, small steps, concede slowly, smaller concessions    | beta x 0.8 (concedes later)     |
| close     | settle early, concede faster, close early, meet in the middle  | beta x 1.5 (concedes sooner)    |
| anchor    | open high, ask for more, ambitious first offer                 | opening demand + 4% of the pie  |
| walk      | walk away, raise your minimum, minimum share                   | reservation + 4% of the pie     |
| no_early  | accept too early, accept the first                             | no acceptance on its first line |
| equal     | equal split, even split, fifty-fifty                           | opening demand 30% nearer half  |
| remind    | shrinking pie, pie shrinks, remind                             | a sentence about the discount   |
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import partial
from typing import Any

from langchain_core.messages import BaseMessage

from icl_aif.core.transcript import Seat, Turn
from icl_aif.games import simulation
from icl_aif.games.pie_split.offers import LineReading, Split, read_line
from icl_aif.games.pie_split.scenario import (
    SEATS,
    PieSplitScenario,
    format_amount,
    opening_turns,
    share_step,
)

__all__ = [
    "PieSplitPlayer",
    "next_number",
    "own_demands",
    "spoken_agreement",
    "standing_offer",
]


def own_demands(view: simulation.RoundView[LineReading]) -> list[float]:
    """The player's own share in each split it stated this round."""
    return [r.split.mine for r in view.own() if r.split is not None]


def standing_offer(view: simulation.RoundView[LineReading]) -> Split | None:
    """The other side's latest split this round (from its side), if any."""
    found = view.rival_latest(lambda r: r.split is not None)
    return None if found is None else found.split


def next_number(view: simulation.RoundView[LineReading]) -> int:
    """The number the next offer takes: one more than the offers so far, or than the highest
    number stated."""
    splits = [r.split for _, r in view.lines if r.split is not None]
    stated = [s.number for s in splits if s.number is not None]
    return max(len(splits), *stated, 0) + 1


class PieSplitPlayer(
    simulation.ConcessionPlayer, game="pie_split", seats=SEATS, openers=opening_turns
):
    """A rule-based proposer or responder of the pie split (a simulator)."""

    scenario: PieSplitScenario

    # --- the strategy ---------------------------------------------------------------------

    def play(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        pie = self.scenario.pie
        view = simulation.read_round(messages, self._first_opener, partial(read_line, pie=pie))
        lexicon = self.lexicon(view.feedback)
        if self.strategy == "fair":
            lexicon = {g: n if g == "remind" else 0 for g, n in lexicon.items()}
        aims = self._adapted(lexicon)
        pace = self.pace(view)
        demand = self._demand(view, aims)
        number = next_number(view)
        tolerance = 1e-6 * pie
        offered = standing_offer(view)
        if offered is not None and offered.adds_up(pie):
            mine = offered.yours  # the other side's split, as it gives to me
            if self.strategy == "fair":
                good = mine >= pie / 2 - tolerance
            else:
                good = mine >= self.scenario.discount * demand - tolerance
            too_early = lexicon["no_early"] > 0 and view.own_lines < 1 and not pace.last_line
            if good and not too_early:
                return self._accept(offered, lexicon), _move("accept")
            if pace.last_line and mine >= aims.reservation * pie - tolerance:
                return self._accept(offered, lexicon), _move("accept")
        if pace.last_line and not pace.rival_after:
            return self._say("walk", lexicon), _move("walk_away")
        previous = own_demands(view)
        intent = "open" if not previous else "hold" if demand == previous[-1] else "counter"
        yours = round(pie - demand, 6)
        text = self._say(intent, lexicon, Split(demand, yours, number))
        return text, _move("offer", mine=demand, yours=yours)

    def _adapted(self, lexicon: dict[str, int]) -> simulation.Aims:
        """The opening demand, the reservation share and beta after the feedback so far."""
        opening = self._opening + self.TUNING["anchor_shift"] * lexicon["anchor"]
        opening = 0.5 + (opening - 0.5) * self.TUNING["equal_pull"] ** lexicon["equal"]
        opening = min(max(opening, self._reservation), self.TUNING["most_demanded"])
        reservation = min(self._reservation + self.TUNING["walk_shift"] * lexicon["walk"], opening)
        return self.aims(opening, reservation, lexicon)

    def _demand(
        self,
        view: simulation.RoundView[LineReading],
        aims: simulation.Aims,
    ) -> float:
        """The share of the pie (in the pie's units) this line asks for."""
        pie = self.scenario.pie
        step = share_step(pie)
        if self.strategy == "fair":
            return float(round(pie / 2 / step) * step)
        share = self.pace(view).share(aims)
        amount = share * pie + self._rng.uniform(-0.5, 0.5) * step
        amount = min(max(amount, aims.reservation * pie), aims.opening * pie)
        amount = round(round(amount / step) * step, 6)
        previous = own_demands(view)
        if previous and amount > previous[-1]:
            amount = previous[-1]  # demands only ever move towards the other side
        return amount

    def _accept(self, offered: Split, lexicon: dict[str, int]) -> str:
        mine, yours = offered.yours, offered.mine  # the offer, as the accepting side sees it
        return self._say("accept", lexicon, Split(mine, yours, offered.number))

    def _say(self, intent: str, lexicon: dict[str, int], split: Split | None = None) -> str:
        """A line for ``intent`` stating ``split`` (from this side)."""
        values: dict[str, object] = {"number": "", "mine": "", "yours": ""}
        if split is not None:
            values = {
                "number": split.number if split.number is not None else "",
                "mine": format_amount(split.mine),
                "yours": format_amount(split.yours),
            }
        return self.say(intent, values, remind="remind" if lexicon["remind"] else None)


def _move(kind: str, *, mine: float | None = None, yours: float | None = None) -> dict[str, Any]:
    """A scripted player's move as the move tool's arguments (beside ``message``): an offer's
    shares as its line states them (:func:`format_amount`), so the moves bind what the judge
    reads."""
    if mine is None or yours is None:
        return {"move": kind, "terms": None}
    terms = {"mine": float(format_amount(mine)), "yours": float(format_amount(yours))}
    return {"move": kind, "terms": terms}


def spoken_agreement(
    scenario: PieSplitScenario,
    offerer: Seat,
    mine: float,
    number: int,
    rng: random.Random,
) -> list[Turn]:
    """Offer ``number`` by ``offerer`` (``mine`` of the pie for itself) and the other side's
    acceptance, in the simulators' own words (the conformance check's agreement windows)."""
    yours = round(scenario.pie - mine, 6)
    offer = {"number": number, "mine": format_amount(mine), "yours": format_amount(yours)}
    accept = {**offer, "mine": offer["yours"], "yours": offer["mine"]}
    intent = "open" if number == 1 else rng.choice(("counter", "hold"))
    return [
        Turn(speaker=offerer, text=rng.choice(PieSplitPlayer.REPLIES[intent]).format_map(offer)),
        Turn(
            speaker=SEATS.other(offerer),
            text=rng.choice(PieSplitPlayer.REPLIES["accept"]).format_map(accept),
        ),
    ]
