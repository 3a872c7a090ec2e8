"""The size-price game's rule-based critic (a simulator, not a language model).

It reads the improved player's most recent round from its record
(:class:`~icl_aif.games.critics.RoundSummary`: its lines and the deal's terms), diagnoses it from
the scenario's economics and returns numbered suggestions. The diagnoses, in order:

- no deal: the surplus was lost, concede faster;
- a first concession of more than 15% of the largest joint surplus ``S*``: open high (seller) or
  low (buyer);
- a deal that left it less than half of the surplus (bargaining power below 0.5): hold firm;
- the other side's first offer accepted at once for less than half: do not accept the first offer;
- a deal it accepted on one of the round's last two lines: raise its minimum, be ready to walk
  away;
- for the buyer, offers below the efficient quantity ``n*`` (less than 95% of ``S*``) that the
  seller turned down: propose the efficient quantity;

then general advice (point out its side's case, be ready to walk away (not after a no deal), make
an ambitious first offer) in a seeded random order. Each suggestion uses one phrase of the players' feedback
lexicon (``prompts/size_price/players/scripted.yaml``), so scripted players react.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from icl_aif.games.critics import RoundSummary, ScriptedCritic
from icl_aif.games.size_price.offers import LineReading, read_line
from icl_aif.games.size_price.scenario import (
    ROLE_NAMES,
    SEATS,
    SizePriceScenario,
    SizePriceTerms,
    bargaining_power,
    joint_surplus,
    max_surplus,
    payoffs,
)

__all__ = ["SizePriceCritic"]


Summary = RoundSummary[LineReading, SizePriceTerms]


def _acceptances(summary: Summary, max_lines: int) -> tuple[bool, bool]:
    """Whether the player accepted before making an offer of its own, and whether its last
    acceptance came on one of the round's last two lines (``max_lines``: the round's cap)."""
    at_once = late = False
    proposed = False
    for said, (own, reading) in enumerate(summary.lines, start=1):
        if not own:
            continue
        if reading.proposes and reading.offer is not None:
            proposed = True
        elif reading.accepts:
            at_once = at_once or not proposed
            late = said >= max_lines - 1
    return at_once, late


class SizePriceCritic(ScriptedCritic, game="size_price", seats=SEATS, terms=SizePriceTerms):
    """Diagnoses the improved player's last round and suggests what to change (a simulator);
    its advice is read from ``prompts/size_price/critic/scripted.yaml``."""

    scenario: SizePriceScenario

    def read(self, text: str) -> LineReading:
        """The offer, acceptance or rejection a line states (:func:`read_line`)."""
        return read_line(text)

    def diagnose_round(self, summary: Summary) -> list[str]:
        """The advice keys the round calls for, most important first."""
        side, scenario = self.side, self.scenario
        keys: list[str] = []
        best = max_surplus(scenario)
        terms = summary.terms
        if terms is None:
            keys.append("close")
        offers = [r.offer for r in summary.own() if r.proposes and r.offer is not None]
        if len(offers) >= 2:
            values = [payoffs(scenario, int(o.quantity), o.unit_price)[side] for o in offers[:2]]
            if values[0] - values[1] > 0.15 * best:
                keys.append(f"anchor_{side}")
        if terms is not None:
            at_once, late = _acceptances(summary, 2 * scenario.max_exchanges)
            alpha = bargaining_power(scenario, side, terms)
            if alpha is not None and alpha < 0.5:
                keys.append("firm")
                if at_once:
                    keys.append("early")
            if late:
                keys.append("late")
        small = [o for o in offers if joint_surplus(scenario, int(o.quantity)) < 0.95 * best]
        if side == "buyer" and small and (terms is None or terms.quantity != small[-1].quantity):
            keys.append("volume")
        return keys

    def choose(self, keys: Sequence[str]) -> list[str]:
        """The diagnoses, then the general advice in a random order (no walk-away advice after
        a round without a deal)."""
        general = [
            k for k in self.GENERAL if k not in keys and not ("close" in keys and k == "walk")
        ]
        self._rng.shuffle(general)
        return [*keys, *general][: self.suggestions]

    def advice_values(self) -> Mapping[str, str]:
        """``rival``."""
        return {"rival": ROLE_NAMES[SEATS.other(self.side)]}
