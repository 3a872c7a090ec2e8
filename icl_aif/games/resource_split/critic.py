"""The resource split's rule-based critic (a simulator, not a language model).

It reads the improved player's most recent round from its record
(:class:`~icl_aif.games.critics.RoundSummary`: its lines and the deal's terms, with each side's
reward) and returns numbered suggestions. The diagnoses, in order:

- no deal: both sides lost ``no_deal_payoff``; any deal beats no deal, accept on the last line;
- no deal with offers on the table: concede faster;
- a first concession of more than 15% of its maximum value: open high;
- a deal worth less than half of its maximum: hold firm;
- a deal worth less to it than to the other side: keep what it values most;
- a first offer accepted at once for less than half: do not accept the first offer;
- a deal worth less than 30% of its maximum: be ready to walk away, raise its minimum;

then general advice (remind the other side how few lines are left, keep what it values most,
accept on the last line rather than end with no deal) in a seeded random order. Each suggestion uses one phrase of the players'
feedback lexicon (``prompts/resource_split/players/scripted.yaml``), so scripted players
react.
"""

from __future__ import annotations

from collections.abc import Mapping

from icl_aif.games.critics import RoundSummary, ScriptedCritic
from icl_aif.games.resource_split.offers import LineReading, read_line
from icl_aif.games.resource_split.scenario import (
    ROLE_NAMES,
    SEATS,
    ResourceSplitScenario,
    ResourceSplitTerms,
    complete,
    max_value,
    utilities,
    value_of,
)

__all__ = ["ResourceSplitCritic"]


Summary = RoundSummary[LineReading, ResourceSplitTerms]


class ResourceSplitCritic(
    ScriptedCritic, game="resource_split", seats=SEATS, terms=ResourceSplitTerms
):
    """Diagnoses the improved player's last round and suggests what to change (a simulator);
    its advice is read from ``prompts/resource_split/critic/scripted.yaml``."""

    scenario: ResourceSplitScenario

    def read(self, text: str) -> LineReading:
        """The split a line states (:func:`read_line`)."""
        return read_line(text)

    def diagnose_round(self, summary: Summary) -> list[str]:
        """The advice keys the round calls for, most important first."""
        side, scenario = self.side, complete(self.scenario)
        own, top = utilities(scenario, side), max_value(scenario, side)
        demands = [value_of(r.split.mine, own) / top for r in summary.own() if r.split is not None]
        offers = sum(r.split is not None for _, r in summary.lines)
        terms = summary.terms
        keys: list[str] = []
        if terms is None:
            keys.append("last_line")
            if offers:
                keys.append("close")
        if len(demands) >= 2 and demands[0] - demands[1] > 0.15:
            keys.append("anchor")
        if terms is not None:
            reward = terms.reward(side)
            if reward < 0.5:
                keys.append("firm")
                if not demands:
                    keys.append("early")
            if reward < 0.3:
                keys.append("walk")
            if reward < terms.reward(SEATS.other(side)):
                keys.append("keep")
        return keys

    def advice_values(self) -> Mapping[str, str]:
        """``rival`` and ``no_deal_payoff``."""
        return {
            "rival": ROLE_NAMES[SEATS.other(self.side)],
            "no_deal_payoff": f"{complete(self.scenario).no_deal_payoff:g}",
        }
