"""The resource split's rule-based critic (a simulator, not a language model).

It reads the transcript the engine renders for the critic (``Round N`` headers, ``player1: ...`` /
``player2: ...`` lines, an ``Outcome: ...`` line worded by
:meth:`~icl_aif.games.resource_split.game.ResourceSplitGame.outcome_sentence`), diagnoses the
improved player's most recent round and returns numbered suggestions. The diagnoses, in order:

- no deal: both sides lost ``no_deal_payoff``; any deal beats no deal, accept on the last line;
- no deal with offers on the table: concede faster;
- a first concession of more than 15% of its maximum value: open high;
- a deal worth less than half of its maximum: hold firm;
- a deal worth less to it than to the other side: keep what it values most;
- a first offer accepted at once for less than half: do not accept the first offer;
- a deal worth less than 30% of its maximum: be ready to walk away, raise its minimum;

then general advice (remind the other side how few lines are left, keep what it values most,
accept on the last line rather than end with no deal) in a seeded random order. Each suggestion uses one phrase of the players'
feedback lexicon (:data:`icl_aif.games.resource_split.simulators.LEXICON`), so scripted players
react.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from icl_aif.core.transcript import Seat
from icl_aif.games import simulation
from icl_aif.games.base import SimulatorRequest
from icl_aif.games.resource_split.offers import read_split
from icl_aif.games.resource_split.scenario import (
    ROLE_NAMES,
    SEATS,
    ResourceSplitScenario,
    complete,
    max_value,
    utilities,
    value_of,
)
from icl_aif.models.base import TextReplyModel, last_user_text

__all__ = ["ADVICE", "RoundSummary", "ScriptedCritic", "build_critic", "diagnose", "last_round"]

_LINE = re.compile(r"^(player1|player2): (.*)$")
_DEAL = re.compile(
    r"^Outcome: deal: player 1 takes .*? \(reward (\d+(?:\.\d+)?)\), "
    r"player 2 takes .*? \(reward (\d+(?:\.\d+)?)\)"
)

ADVICE: dict[str, str] = {
    "last_line": "A round without an agreement costs you both {no_deal_payoff}, and any deal "
    "beats no deal: when you reach your final line, accept {rival}'s standing offer.",
    "close": "Your offers never met those of {rival}. Concede faster so that the two of you "
    "meet before the lines run out.",
    "anchor": "Your first concession gave away a large part of your value. Open high and keep "
    "your next offers close to your first one.",
    "firm": "You ended with less than half of what everything is worth to you. Hold firm and "
    "give ground a little at a time.",
    "keep": "The deal gave {rival} more than it gave you. Keep the resources you value most "
    "and give up the ones you value least first.",
    "early": "Do not accept the first offer when it leaves you less than half of your value; "
    "counter once before you agree.",
    "remind": "Remind {rival} how few lines are left and that no deal costs you both "
    "{no_deal_payoff}, so a quick agreement on your terms suits {rival} too.",
    "walk": "If {rival} offers you almost nothing early on, say calmly that you would walk "
    "away, and raise your minimum for the lines before the last.",
}
"""The critic's suggestions by diagnosis (``{rival}``, ``{no_deal_payoff}`` filled in)."""

_GENERAL = ("remind", "keep", "last_line")


@dataclass(frozen=True)
class RoundSummary:
    """The improved player's most recent round as the critic reads it: the worth of each share
    it demanded (as a part of its maximum value), whether there was a deal, whether any offer
    was made, and each side's reward of the deal."""

    own_demands: list[float]
    offers: int
    deal: bool
    reward: float | None = None
    rival_reward: float | None = None


def last_round(transcript: str, side: Seat, scenario: ResourceSplitScenario) -> RoundSummary | None:
    """The last ``Round N`` block of a critic transcript, from ``side``'s seat."""
    block = simulation.last_round_lines(transcript)
    if block is None:
        return None
    own, top = utilities(scenario, side), max_value(scenario, side)
    demands: list[float] = []
    offers = 0
    deal = False
    rewards: dict[str, float] = {}
    for line in block:
        if match := _LINE.match(line):
            split = read_split(match.group(2))
            if split is not None:
                offers += 1
                if match.group(1) == side:
                    demands.append(value_of(split.mine, own) / top)
        elif found := _DEAL.match(line):
            deal = True
            rewards = {"player1": float(found.group(1)), "player2": float(found.group(2))}
    return RoundSummary(
        own_demands=demands,
        offers=offers,
        deal=deal,
        reward=rewards.get(side),
        rival_reward=rewards.get(SEATS.other(side)),
    )


def diagnose(summary: RoundSummary | None) -> list[str]:
    """The advice keys the round calls for, most important first."""
    if summary is None:
        return []
    keys: list[str] = []
    if not summary.deal:
        keys.append("last_line")
        if summary.offers:
            keys.append("close")
    demands = summary.own_demands
    if len(demands) >= 2 and demands[0] - demands[1] > 0.15:
        keys.append("anchor")
    if summary.deal and summary.reward is not None:
        if summary.reward < 0.5:
            keys.append("firm")
            if not demands:
                keys.append("early")
        if summary.reward < 0.3:
            keys.append("walk")
        if summary.rival_reward is not None and summary.reward < summary.rival_reward:
            keys.append("keep")
    return keys


class ScriptedCritic(TextReplyModel):
    """Diagnoses the improved player's last round and suggests what to change (a simulator)."""

    side: Seat
    scenario: ResourceSplitScenario
    suggestions: int = 3
    seed: int = 0
    stream_seed: int | None = None

    _rng: random.Random = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Seed this game's random choices (``stream_seed`` when set: a paired arm's own)."""
        self._rng = simulation.critic_rng(
            "resource_split", SEATS, self.side, self.seed, self.stream_seed
        )

    @property
    def _llm_type(self) -> str:
        return "scripted-resource-split-critic"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """Numbered suggestions for the improved player."""
        played = complete(self.scenario)
        summary = last_round(last_user_text(messages), self.side, played)
        keys = diagnose(summary)
        chosen = simulation.choose_advice(keys, _GENERAL, self._rng, self.suggestions)
        values = {
            "rival": ROLE_NAMES[SEATS.other(self.side)],
            "no_deal_payoff": f"{played.no_deal_payoff:g}",
        }
        lines = [ADVICE[k].format_map(values) for k in chosen]
        return simulation.numbered(lines)


def build_critic(request: SimulatorRequest) -> ScriptedCritic:
    """``scripted:critic`` for the critic role of the resource split."""
    return ScriptedCritic(
        side=request.side,
        scenario=request.scenario,
        suggestions=request.suggestions,
        seed=request.seed,
        stream_seed=request.stream_seed,
    )
