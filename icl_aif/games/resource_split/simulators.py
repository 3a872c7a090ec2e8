"""Rule-based resource-split players: simulators, not language models.

They read the round the way the judge does (:mod:`icl_aif.games.resource_split.offers`) and
answer in the format the briefs teach: every offer names all three resources for both sides
(``Offer: I take A=10 B=3 C=0, you take A=0 B=7 C=10.``), every acceptance restates the offer it
accepts (``I accept: you take A=0 B=7 C=10, I take A=10 B=3 C=0.``), so the judge binds it from a
window of one line.

A player knows its own utilities (the game's scenario) and not the other side's. It demands a
share of its own **maximum value** (the worth to it of everything) and builds the offer that
reaches it by taking the resources it values most first: whole resources in order of its utility
per unit, then the units of the next one that close the gap; what it values at 0 it gives away.
Strategies (time-dependent concession of the demanded share, Faratin et al. 1998):

- ``boulware``: concedes little until its last lines (concession exponent beta = 0.3);
- ``linear``: concedes at a constant rate (beta = 1);
- ``conceder``: concedes most of the way early (beta = 3);
- ``fair``: offers half of every resource and accepts any split worth at least half its maximum.

With ``tau`` the share of its lines in the round already spoken, a player demands
``opening + (reservation - opening) * tau ** (1 / beta)`` of its maximum value (never more than
its previous demand). It accepts the other side's standing split when that split is worth at
least its demand now. On its last line it accepts a split worth at least its reservation (its
last-line minimum, lowered by the ``last_line`` feedback);
otherwise it makes a final offer when the other side still has a line after it, and walks away
when it has none (``fair``: from a split worth less than half).

Private values are drawn once per game from the model's seed: the opening demand between 75% and
92% of the maximum (``params.opening`` fixes it) and the reservation between 30% and 45%
(``params.reservation``). A paired arm's ``stream_seed`` then reseeds the random choices (the
wording, a jitter of 2% of the maximum on each demand) and keeps the private values.

Data. Each strategy's beta, the ranges of the draws, the tuning and the feedback phrases are read
from ``prompts/resource_split/players/scripted.yaml`` (hashed into each run's manifest, with the
lines the players say); the figures in this docstring are the shipped ones.

Feedback lexicon. A player adapts to feedback through these phrases, counted over every feedback
turn in its history (the user message just before a round's opening line); ``fair`` only reacts
to ``remind``:

| group     | phrases (case-insensitive)                                   | effect per mention                |
|-----------|--------------------------------------------------------------|-----------------------------------|
| firm      | hold firm, concede slowly, smaller concessions, small steps  | beta x 0.8 (concedes later)       |
| close     | concede faster, settle early, close the deal                 | beta x 1.5 (concedes sooner)      |
| anchor    | open high, ask for more, ambitious first offer               | opening demand + 5% of the max    |
| last_line | any deal beats no deal, accept on your last line             | last-line minimum x 0.5           |
| walk      | walk away, raise your minimum                                | reservation + 5% of the max       |
| trade     | value most, value least                                      | concedes first what the other side claims most |
| no_early  | accept too early, accept the first                           | no acceptance on its first line   |
| remind    | remind, running out                                          | a sentence about the lines left   |
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from icl_aif.core.transcript import Seat, Turn
from icl_aif.games import simulation
from icl_aif.games.resource_split.offers import LineReading, Split, read_line
from icl_aif.games.resource_split.scenario import (
    RESOURCES,
    SEATS,
    Bundle,
    ResourceSplitScenario,
    amounts_of,
    complete,
    max_value,
    opening_turns,
    utilities,
    value_of,
)

__all__ = [
    "ResourceSplitPlayer",
    "demand_bundle",
    "even_bundle",
    "own_splits",
    "spoken_agreement",
    "standing_offer",
]


def own_splits(view: simulation.RoundView[LineReading]) -> list[Split]:
    """The splits the player stated this round (from its side)."""
    return [r.split for r in view.own() if r.split is not None]


def standing_offer(view: simulation.RoundView[LineReading]) -> Split | None:
    """The other side's latest split this round (from its side), if any."""
    found = view.rival_latest(lambda r: r.split is not None)
    return None if found is None else found.split


def demand_bundle(
    amounts: Bundle, own: Bundle, target: int, claims: dict[str, float] | None = None
) -> Bundle:
    """The units worth at least ``target`` under the utilities ``own`` (everything worth
    something when ``target`` is out of reach), taking resources in order of utility per unit;
    with ``claims`` (the share of each resource the other side asked for), a resource it claims
    is taken later among those worth alike."""

    def key(r: str) -> tuple[float, str]:
        weight = own.get(r) * (1.5 - claims.get(r, 0.5)) if claims else float(own.get(r))
        return (-weight, r)

    taken = dict.fromkeys(RESOURCES, 0)
    have = 0
    for r in sorted(RESOURCES, key=key):
        utility = own.get(r)
        if utility == 0 or have >= target:
            continue
        units = min(amounts.get(r), math.ceil((target - have) / utility))
        taken[r] = units
        have += units * utility
    return Bundle(**taken)


def even_bundle(amounts: Bundle) -> Bundle:
    """Half of every resource; of an odd amount the extra unit goes alternately to each side,
    starting with the speaker."""
    taken: dict[str, int] = {}
    odd = 0
    for r in RESOURCES:
        half, extra = divmod(amounts.get(r), 2)
        taken[r] = half + (extra if odd % 2 == 0 else 0)
        odd += extra
    return Bundle(**taken)


def rest_of(amounts: Bundle, units: Bundle) -> Bundle:
    """What is left of ``amounts`` after ``units``."""
    return Bundle(**{r: amounts.get(r) - units.get(r) for r in RESOURCES})


class ResourceSplitPlayer(
    simulation.ConcessionPlayer, game="resource_split", seats=SEATS, openers=opening_turns
):
    """A rule-based player 1 or player 2 of the resource split (a simulator)."""

    scenario: ResourceSplitScenario

    _played: ResourceSplitScenario = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """The scenario completed (values a run left unset drawn as seed 0's), then the draws."""
        self._played = complete(self.scenario)
        super().model_post_init(context)

    def first_opener(self) -> str:
        """The text of the round's first opening line (of the completed scenario)."""
        return opening_turns(self._played)[0]["text"]

    # --- the strategy ---------------------------------------------------------------------

    def play(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        played = self._played
        amounts, own = amounts_of(played), utilities(played, self.side)
        top = max_value(played, self.side)
        view = simulation.read_round(messages, self._first_opener, read_line, prefix=True)
        lexicon = self.lexicon(view.feedback)
        if self.strategy == "fair":
            lexicon = {g: n if g == "remind" else 0 for g, n in lexicon.items()}
        aims, last_floor = self._adapted(lexicon)
        pace = self.pace(view)
        demand = self._demand(view, aims)
        offered = standing_offer(view)
        if offered is not None and offered.adds_up(amounts):
            worth = value_of(offered.yours, own) / top  # the other side's split, my part
            too_early = lexicon["no_early"] > 0 and view.own_lines < 1 and not pace.last_line
            if worth >= demand - 1e-9 and not too_early:
                return self._accept(offered, lexicon, pace.left), _move("accept")
            if pace.last_line and worth >= last_floor - 1e-9:
                return self._accept(offered, lexicon, pace.left), _move("accept")
        if pace.last_line and not pace.rival_after:
            return self._say("walk", lexicon, pace.left), _move("walk_away")
        if self.strategy == "fair":
            mine = even_bundle(amounts)
        else:
            claims = _claims(view, amounts) if lexicon["trade"] else None
            mine = demand_bundle(amounts, own, math.ceil(demand * top - 1e-9), claims)
        previous = own_splits(view)
        intent = "open" if not previous else "hold" if mine == previous[-1].mine else "counter"
        yours = rest_of(amounts, mine)
        text = self._say(intent, lexicon, pace.left, mine=mine, yours=yours)
        return text, _move("offer", {"mine": mine.as_dict(), "yours": yours.as_dict()})

    def _adapted(self, lexicon: dict[str, int]) -> tuple[simulation.Aims, float]:
        """The opening demand, the reservation, the least it accepts on its last line and beta
        after the feedback so far."""
        opening = min(
            self._opening + self.TUNING["anchor_shift"] * lexicon["anchor"],
            self.TUNING["most_demanded"],
        )
        reservation = min(self._reservation + self.TUNING["walk_shift"] * lexicon["walk"], opening)
        last_floor = reservation * self.TUNING["last_line_factor"] ** lexicon["last_line"]
        return self.aims(opening, reservation, lexicon), last_floor

    def _demand(
        self,
        view: simulation.RoundView[LineReading],
        aims: simulation.Aims,
    ) -> float:
        """The share of its maximum value this line asks for."""
        if self.strategy == "fair":
            return 0.5
        share = self.pace(view).share(aims)
        share = min(
            max(
                share + self._rng.uniform(-self.TUNING["jitter"], self.TUNING["jitter"]),
                aims.reservation,
            ),
            aims.opening,
        )
        own, top = utilities(self._played, self.side), max_value(self._played, self.side)
        asked = [value_of(s.mine, own) / top for s in own_splits(view)]
        if asked and share > asked[-1]:
            share = asked[-1]  # demands only ever move towards the other side
        return share

    def _accept(self, offered: Split, lexicon: dict[str, int], left: int) -> str:
        return self._say("accept", lexicon, left, mine=offered.yours, yours=offered.mine)

    def _say(
        self,
        intent: str,
        lexicon: dict[str, int],
        left: int,
        *,
        mine: Bundle | None = None,
        yours: Bundle | None = None,
    ) -> str:
        values = {
            "mine": mine.text() if mine is not None else "",
            "yours": yours.text() if yours is not None else "",
        }
        remind = "remind" if lexicon["remind"] else None
        return self.say(intent, values, remind=remind, left=left - 1)


def _move(kind: str, terms: dict[str, Any] | None = None) -> dict[str, Any]:
    """A scripted player's move as the move tool's arguments (beside ``message``)."""
    return {"move": kind, "terms": terms}


def _claims(view: simulation.RoundView[LineReading], amounts: Bundle) -> dict[str, float]:
    """The share of each resource the other side's latest split asked for (0.5 before any)."""
    offered = standing_offer(view)
    if offered is None:
        return dict.fromkeys(RESOURCES, 0.5)
    return {r: offered.mine.get(r) / amounts.get(r) if amounts.get(r) else 0.5 for r in RESOURCES}


def spoken_agreement(offerer: Seat, mine: Bundle, yours: Bundle, rng: random.Random) -> list[Turn]:
    """An offer by ``offerer`` (``mine`` for itself, ``yours`` for the other side) and the other
    side's acceptance, in the simulators' own words (the conformance check's agreement windows)."""
    offer = {"mine": mine.text(), "yours": yours.text()}
    accept = {"mine": yours.text(), "yours": mine.text()}
    intent = rng.choice(("open", "counter", "hold"))
    return [
        Turn(
            speaker=offerer, text=rng.choice(ResourceSplitPlayer.REPLIES[intent]).format_map(offer)
        ),
        Turn(
            speaker=SEATS.other(offerer),
            text=rng.choice(ResourceSplitPlayer.REPLIES["accept"]).format_map(accept),
        ),
    ]
