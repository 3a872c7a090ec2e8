"""Deal or No Deal's rule-based critic (a simulator, not a language model).

It reads the improved player's most recent round from its record
(:class:`~icl_aif.games.critics.RoundSummary`: its lines, the reason of a no deal and the deal's
terms) and returns numbered suggestions. The diagnoses, in order:

- no deal because the two proposals did not fit together: agree on one split first;
- any other no deal: concede faster;
- a deal in the last third of the round's lines: settle sooner;
- a deal that was not Pareto-optimal: trade the items it values least;
- a deal that left it less than half of its total (lambda <= 0 only): hold firm;

then general advice (open high, ask what they value, be ready to walk away) in a seeded random
order. Each suggestion uses a phrase of the players' feedback lexicon
(``prompts/dond/players/scripted.yaml``), so scripted players react.
"""

from __future__ import annotations

from collections.abc import Mapping

from icl_aif.games.critics import RoundSummary, ScriptedCritic
from icl_aif.games.dond.scenario import (
    SEATS,
    TOTAL_VALUE,
    DondScenario,
    DondTerms,
    pareto_optimal,
)

__all__ = ["DondCritic"]

_ROLE = {"alice": "Alice", "bob": "Bob"}

Summary = RoundSummary[None, DondTerms]


class DondCritic(ScriptedCritic, game="dond", seats=SEATS, terms=DondTerms):
    """Diagnoses the improved player's last round and suggests what to change (a simulator);
    its advice is read from ``prompts/dond/critic/scripted.yaml``."""

    scenario: DondScenario

    def diagnose_round(self, summary: Summary) -> list[str]:
        """The advice keys the round calls for, most important first (the critic reads no
        line's content: it counts the lines)."""
        scenario, terms = self.scenario, summary.terms
        if terms is None:
            return ["match" if summary.reason == "mismatch" else "close"]
        keys: list[str] = []
        if len(summary.lines) > (2 * scenario.max_exchanges * 2) // 3:
            keys.append("late")
        if not pareto_optimal(scenario, terms):
            keys.append("trade")
        if scenario.objective_weight <= 0 and terms.score(self.side) < TOTAL_VALUE / 2:
            keys.append("firm")
        return keys

    def advice_values(self) -> Mapping[str, str]:
        """``rival``."""
        return {"rival": _ROLE[SEATS.other(self.side)]}
