"""The pie split's rule-based critic (a simulator, not a language model).

It reads the transcript the engine renders for the critic (``Round N`` headers, ``proposer: ...`` /
``responder: ...`` lines, an ``Outcome: ...`` line worded by
:meth:`~icl_aif.games.pie_split.game.PieSplitGame.outcome_sentence`), diagnoses the improved
player's most recent round and returns numbered suggestions. The diagnoses, in order:

- no deal: the whole pie was lost, concede faster;
- a first concession of more than 10% of the pie: open high;
- a deal after 3 or more exchanges: settle early, before the discount eats the share;
- a deal that left it less than half of the pie: hold firm;
- the first offer accepted at once for less than half: do not accept the first offer;

then general advice (remind the other side of the shrinking pie, be ready to walk away, propose
an equal split early) in a seeded random order. Each suggestion uses one phrase of the players'
feedback lexicon (:data:`icl_aif.games.pie_split.simulators.LEXICON`), so scripted players react.
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
from icl_aif.games.pie_split.offers import read_split
from icl_aif.games.pie_split.scenario import ROLE_NAMES, SEATS, PieSplitScenario, scenario_values
from icl_aif.models.base import TextReplyModel, last_user_text

__all__ = ["ADVICE", "RoundSummary", "ScriptedCritic", "build_critic", "diagnose", "last_round"]

_LINE = re.compile(r"^(proposer|responder): (.*)$")
_DEAL = re.compile(
    r"^Outcome: deal on offer \d+ after (\d+) exchanges?: "
    r"proposer (\d+(?:\.\d+)?), responder (\d+(?:\.\d+)?)"
)

ADVICE: dict[str, str] = {
    "close": "You lost the whole pie. As the exchanges run out, concede faster so that a split "
    "still closes: any share is worth more than nothing.",
    "anchor": "Your first concession gave away a large slice. Open high and keep your next "
    "offers close to your first one.",
    "late": "Every turned-down offer cost you {shrink} of the pie. Settle early, before the "
    "discount eats into your share.",
    "firm": "You ended with less than half of the pie. Hold firm and give ground a little at a "
    "time.",
    "early": "Do not accept the first offer when it leaves you less than half; counter once "
    "before you agree.",
    "remind": "Remind the {rival} that every offer turned down costs you both, so a quick "
    "agreement on your terms is in its interest too.",
    "walk": "Be ready to walk away from a split far below half, and say so calmly.",
    "equal": "Consider proposing an equal split on your first offer: half of the full pie is "
    "worth more than a bigger share after several exchanges.",
}
"""The critic's suggestions by diagnosis (``{shrink}``, ``{rival}`` filled in)."""

_GENERAL = ("remind", "walk", "equal")


@dataclass(frozen=True)
class RoundSummary:
    """The improved player's most recent round as the critic reads it: its own demands (its
    share in each split it stated), whether there was a deal, after how many exchanges, and
    its share of the pie in the deal."""

    own_demands: list[float]
    deal: bool
    exchanges: int | None = None
    share: float | None = None


def last_round(transcript: str, side: Seat, pie: float) -> RoundSummary | None:
    """The last ``Round N`` block of a critic transcript, from ``side``'s seat."""
    block = simulation.last_round_lines(transcript)
    if block is None:
        return None
    demands: list[float] = []
    deal = False
    exchanges: int | None = None
    share: float | None = None
    for line in block:
        if (match := _LINE.match(line)) and match.group(1) == side:
            split = read_split(match.group(2), pie)
            if split is not None:
                demands.append(split.mine)
        elif found := _DEAL.match(line):
            deal = True
            exchanges = int(found.group(1))
            share = float(found.group(2) if side == "proposer" else found.group(3))
    return RoundSummary(own_demands=demands, deal=deal, exchanges=exchanges, share=share)


def diagnose(summary: RoundSummary | None, pie: float) -> list[str]:
    """The advice keys the round calls for, most important first."""
    if summary is None:
        return []
    keys: list[str] = []
    if not summary.deal:
        keys.append("close")
    demands = summary.own_demands
    if len(demands) >= 2 and demands[0] - demands[1] > 0.1 * pie:
        keys.append("anchor")
    if summary.deal and summary.exchanges is not None and summary.exchanges >= 3:
        keys.append("late")
    half = summary.share is not None and summary.share < pie / 2
    if summary.deal and half:
        keys.append("firm")
        if summary.exchanges == 0 and not demands:
            keys.append("early")
    return keys


class ScriptedCritic(TextReplyModel):
    """Diagnoses the improved player's last round and suggests what to change (a simulator)."""

    side: Seat
    scenario: PieSplitScenario
    suggestions: int = 3
    seed: int = 0
    stream_seed: int | None = None

    _rng: random.Random = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Seed this game's random choices (``stream_seed`` when set: a paired arm's own)."""
        self._rng = simulation.critic_rng(
            "pie_split", SEATS, self.side, self.seed, self.stream_seed
        )

    @property
    def _llm_type(self) -> str:
        return "scripted-pie-split-critic"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """Numbered suggestions for the improved player."""
        pie = self.scenario.pie
        summary = last_round(last_user_text(messages), self.side, pie)
        keys = diagnose(summary, pie)
        chosen = simulation.choose_advice(keys, _GENERAL, self._rng, self.suggestions)
        values = {
            "shrink": scenario_values(self.scenario)["shrink"],
            "rival": ROLE_NAMES["responder" if self.side == "proposer" else "proposer"],
        }
        lines = [ADVICE[k].format_map(values) for k in chosen]
        return simulation.numbered(lines)


def build_critic(request: SimulatorRequest) -> ScriptedCritic:
    """``scripted:critic`` for the critic role of the pie split."""
    return ScriptedCritic(
        side=request.side,
        scenario=request.scenario,
        suggestions=request.suggestions,
        seed=request.seed,
        stream_seed=request.stream_seed,
    )
