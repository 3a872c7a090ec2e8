"""The pie split's rule-based critic (a simulator, not a language model).

It reads the improved player's most recent round from its record
(:class:`~icl_aif.games.critics.RoundSummary`: its lines and the deal's terms) and returns
numbered suggestions. The diagnoses, in order:

- no deal: the whole pie was lost, concede faster;
- a first concession of more than 10% of the pie: open high;
- a deal after 3 or more exchanges: settle early, before the discount eats the share;
- a deal that left it less than half of the pie: hold firm;
- the first offer accepted at once for less than half: do not accept the first offer;

then general advice (remind the other side of the shrinking pie, be ready to walk away, propose
an equal split early) in a seeded random order. Each suggestion uses one phrase of the players'
feedback lexicon (``prompts/pie_split/players/scripted.yaml``), so scripted players react.
"""

from __future__ import annotations

from collections.abc import Mapping

from icl_aif.games.critics import RoundSummary, ScriptedCritic
from icl_aif.games.pie_split.offers import LineReading, read_line
from icl_aif.games.pie_split.scenario import (
    ROLE_NAMES,
    SEATS,
    PieSplitScenario,
    PieSplitTerms,
    scenario_values,
)

__all__ = ["PieSplitCritic"]


Summary = RoundSummary[LineReading, PieSplitTerms]


class PieSplitCritic(ScriptedCritic, game="pie_split", seats=SEATS, terms=PieSplitTerms):
    """Diagnoses the improved player's last round and suggests what to change (a simulator);
    its advice is read from ``prompts/pie_split/critic/scripted.yaml``."""

    scenario: PieSplitScenario

    def read(self, text: str) -> LineReading:
        """The split a line states, in the pie's units (:func:`read_line`)."""
        return read_line(text, pie=self.scenario.pie)

    def diagnose_round(self, summary: Summary) -> list[str]:
        """The advice keys the round calls for, most important first."""
        pie, terms = self.scenario.pie, summary.terms
        keys: list[str] = []
        if terms is None:
            keys.append("close")
        demands = [r.split.mine for r in summary.own() if r.split is not None]
        if len(demands) >= 2 and demands[0] - demands[1] > 0.1 * pie:
            keys.append("anchor")
        if terms is not None and terms.exchanges >= 3:
            keys.append("late")
        if terms is not None and terms.share(self.side) * pie < pie / 2:
            keys.append("firm")
            if terms.exchanges == 0 and not demands:
                keys.append("early")
        return keys

    def advice_values(self) -> Mapping[str, str]:
        """``shrink`` and ``rival``."""
        return {
            "shrink": scenario_values(self.scenario)["shrink"],
            "rival": ROLE_NAMES[SEATS.other(self.side)],
        }
