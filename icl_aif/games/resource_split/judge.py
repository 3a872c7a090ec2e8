"""The resource split's rules judge: reads the window after every line and binds acceptances.

After the window's last line (its speaker: the acceptor), in this order:

1. An acceptance (:func:`~icl_aif.games.resource_split.offers.read_line`) binds to the
   **standing offer**: the latest split the *other* side stated in the window. A split the
   acceptance restates must be that offer; a standing offer that does not add up to the amounts
   makes no deal. When the other side stated no split in the window, a full window (the round
   may go back further) binds to the split the acceptance restates; a window that holds the
   whole round (shorter than ``roles.moderator.window``) has nothing to accept. Anything that
   cannot be bound leaves the round ``ongoing``, never a deal.
2. A line that states a split is a new offer: ``ongoing`` (reason ``offer``, or ``invalid
   split`` when some resource's two shares do not add up to its amount).
3. A walk-away or a refusal ends the round: ``no_deal`` with reason ``walk_away`` or ``refusal``.
4. Anything else (a malformed offer included) is talk: ``ongoing``.

The terms name the units each seat gets and each seat's reward under the game's utilities,
which reach the judge with the scenario's values (:func:`judge_values`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icl_aif.core.transcript import Seat, Turn, Verdict
from icl_aif.games.judges import GameJudge
from icl_aif.games.resource_split.offers import LineReading, Split, read_line
from icl_aif.games.resource_split.scenario import (
    RESOURCES,
    SEATS,
    Bundle,
    ResourceSplitScenario,
    ResourceSplitTerms,
    amounts_of,
    reward,
)

__all__ = ["ResourceSplitJudge", "judge_values", "scenario_of", "terms_of"]


def judge_values(scenario: ResourceSplitScenario) -> dict[str, Any]:
    """What the judge reads of a completed scenario: the amounts (public) and, to state each
    seat's reward in the terms, both seats' utilities (the rules judge is no player and tells
    nobody)."""
    assert scenario.player1_utilities is not None and scenario.player2_utilities is not None
    return {
        "amounts": amounts_of(scenario).as_dict(),
        "player1_utilities": scenario.player1_utilities.as_dict(),
        "player2_utilities": scenario.player2_utilities.as_dict(),
    }


def scenario_of(values: Mapping[str, Any], base: ResourceSplitScenario) -> ResourceSplitScenario:
    """``base`` with the values :func:`judge_values` gave."""
    data = base.model_dump()
    data.update({key: dict(values[key]) for key in judge_values(base) if key in values})
    return ResourceSplitScenario.model_validate(data)


def terms_of(offer: Split, offerer: Seat, scenario: ResourceSplitScenario) -> dict[str, Any]:
    """The terms of ``offer`` (stated by ``offerer``) once accepted, as plain data."""
    shares: dict[Seat, Bundle] = {offerer: offer.mine, SEATS.other(offerer): offer.yours}
    terms = ResourceSplitTerms(
        player1=shares["player1"],
        player2=shares["player2"],
        player1_reward=reward(scenario, "player1", shares["player1"]),
        player2_reward=reward(scenario, "player2", shares["player2"]),
    )
    return terms.model_dump()


def _off_by(split: Split, amounts: Bundle) -> str:
    totals = split.totals()
    wrong = [
        f"{r} adds up to {totals.get(r)}, not {amounts.get(r)}"
        for r in RESOURCES
        if totals.get(r) != amounts.get(r)
    ]
    return "; ".join(wrong)


class ResourceSplitJudge(GameJudge):
    """Rules that label the state after the last line of a window (no model)."""

    def __init__(self, scenario: ResourceSplitScenario, window: int = 4) -> None:
        self.scenario = scenario
        self.window = window

    def read(self, window: Sequence[Turn], scenario: Mapping[str, Any] | None) -> Verdict:
        """``ongoing``, ``deal`` (with its terms) or ``no_deal`` (with its reason)."""
        played = scenario_of(scenario, self.scenario) if scenario else self.scenario
        amounts = amounts_of(played)
        readings = [read_line(t["text"]) for t in window]
        last, speaker = readings[-1], window[-1]["speaker"]
        if last.accepts:
            return self._bind(window, readings, speaker, played)
        if last.split is not None:
            if not last.split.adds_up(amounts):
                return Verdict("ongoing", reason=f"invalid split: {_off_by(last.split, amounts)}")
            return Verdict("ongoing", reason="offer")
        if last.ending is not None:
            return Verdict("no_deal", reason=last.ending)
        return Verdict("ongoing", reason="malformed offer" if last.malformed else "talk")

    def _bind(
        self,
        window: Sequence[Turn],
        readings: list[LineReading],
        acceptor: Seat,
        scenario: ResourceSplitScenario,
    ) -> Verdict:
        """The deal an acceptance by ``acceptor`` (the window's last line) makes, or why none."""
        offerer = SEATS.other(acceptor)
        restated = readings[-1].split  # from the acceptor's side
        standing = standing_offer(window[:-1], readings[:-1], offerer)
        if standing is not None:
            if restated is not None and restated.swapped() != standing:
                return Verdict("ongoing", reason="acceptance restates another split")
        elif len(window) < self.window:
            return Verdict("ongoing", reason=f"acceptance, but the {offerer} made no offer")
        elif restated is not None:
            standing = restated.swapped()
        else:
            return Verdict("ongoing", reason="acceptance with no offer in the window")
        if not standing.adds_up(amounts_of(scenario)):
            return Verdict("ongoing", reason="acceptance of an invalid split")
        return Verdict("deal", terms=terms_of(standing, offerer, scenario), reason="accepted")


def standing_offer(
    turns: Sequence[Turn], readings: Sequence[LineReading], offerer: Seat
) -> Split | None:
    """The latest split ``offerer`` stated in ``turns`` (from its side), if any."""
    for turn, reading in zip(reversed(turns), reversed(readings), strict=True):
        if turn["speaker"] == offerer and reading.split is not None:
            return reading.split
    return None
