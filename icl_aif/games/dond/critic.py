"""Deal or No Deal's rule-based critic (a simulator, not a language model).

It reads the transcript the engine renders for the critic (``Round N`` headers, ``alice: ...`` /
``bob: ...`` lines, an ``Outcome: ...`` line worded by
:meth:`~icl_aif.games.dond.game.DondGame.outcome_sentence`), diagnoses the improved player's most
recent round and returns numbered suggestions. The diagnoses, in order:

- no deal because the two proposals did not fit together: agree on one split first;
- any other no deal: concede faster;
- a deal in the last third of the round's lines: settle sooner;
- a deal that was not Pareto-optimal: trade the items it values least;
- a deal that left it less than half of its total (lambda <= 0 only): hold firm;

then general advice (open high, ask what they value, be ready to walk away) in a seeded random
order. Each suggestion uses a phrase of the players' feedback lexicon
(:data:`icl_aif.games.dond.simulators.LEXICON`), so scripted players react.
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
from icl_aif.games.dond.scenario import SEATS, TOTAL_VALUE, DondScenario
from icl_aif.models.base import TextReplyModel, last_user_text

__all__ = ["ADVICE", "RoundSummary", "ScriptedCritic", "build_critic", "diagnose", "last_round"]

_LINE = re.compile(r"^(alice|bob): (.*)$")
_DEAL = re.compile(r"^Outcome: deal: Alice gets .*? \(score (\d+)\), Bob gets .*? \(score (\d+)\)")
_NO_DEAL = re.compile(r"^Outcome: no deal: (.*)$")

ADVICE: dict[str, str] = {
    "match": "Your two proposals did not fit together. Agree on one exact split in your "
    "messages first, meet in the middle if you must, and then propose your side of exactly that "
    "split.",
    "close": "The round ended without a deal, which scores 0 for both of you. Concede faster in "
    "your messages so that a split is agreed before the lines run out.",
    "late": "The deal came late in the round. Settle sooner: make a reasonable offer early and "
    "propose as soon as the other side's offer is good enough.",
    "trade": "The deal was not Pareto-optimal: another split gave both of you at least as much. "
    "Trade: give up the items you value least and keep the ones you value most.",
    "firm": "You kept less than half of what the items are worth to you. Hold firm on the items "
    "you value most and concede slowly.",
    "anchor": "Open high: ask for more than you expect to get in your first message, so that you "
    "have room to concede.",
    "ask": "Ask {rival} what they value, and offer the items that matter little to you for "
    "the ones that matter most: a good trade helps both of you.",
    "walk": "Be ready to walk away from a split worth much less than half of your total, and say "
    "so calmly.",
}
"""The critic's suggestions by diagnosis (``{rival}`` filled in)."""

_GENERAL = ("anchor", "ask", "walk")
_ROLE = {"alice": "Alice", "bob": "Bob"}


@dataclass(frozen=True)
class RoundSummary:
    """The improved player's most recent round as the critic reads it."""

    lines: int
    deal: bool
    own_score: int | None = None
    pareto: bool | None = None
    mismatch: bool = False


def last_round(transcript: str, side: Seat) -> RoundSummary | None:
    """The last ``Round N`` block of a critic transcript, from ``side``'s seat."""
    block = simulation.last_round_lines(transcript)
    if block is None:
        return None
    lines = 0
    for line in block:
        if _LINE.match(line):
            lines += 1
        elif found := _DEAL.match(line):
            own = int(found.group(1) if side == "alice" else found.group(2))
            return RoundSummary(
                lines=lines, deal=True, own_score=own, pareto="not Pareto-optimal" not in line
            )
        elif found := _NO_DEAL.match(line):
            return RoundSummary(lines=lines, deal=False, mismatch="did not fit" in found.group(1))
    return RoundSummary(lines=lines, deal=False)


def diagnose(summary: RoundSummary | None, scenario: DondScenario) -> list[str]:
    """The advice keys the round calls for, most important first."""
    if summary is None:
        return []
    if not summary.deal:
        return ["match" if summary.mismatch else "close"]
    keys: list[str] = []
    if summary.lines > (2 * scenario.max_exchanges * 2) // 3:
        keys.append("late")
    if summary.pareto is False:
        keys.append("trade")
    own = summary.own_score
    if scenario.objective_weight <= 0 and own is not None and own < TOTAL_VALUE / 2:
        keys.append("firm")
    return keys


class ScriptedCritic(TextReplyModel):
    """Diagnoses the improved player's last round and suggests what to change (a simulator)."""

    side: Seat
    scenario: DondScenario
    suggestions: int = 3
    seed: int = 0
    stream_seed: int | None = None

    _rng: random.Random = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Seed this game's random choices (``stream_seed`` when set: a paired arm's own)."""
        self._rng = simulation.critic_rng("dond", SEATS, self.side, self.seed, self.stream_seed)

    @property
    def _llm_type(self) -> str:
        return "scripted-dond-critic"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """Numbered suggestions for the improved player."""
        summary = last_round(last_user_text(messages), self.side)
        keys = diagnose(summary, self.scenario)
        chosen = simulation.choose_advice(keys, _GENERAL, self._rng, self.suggestions)
        rival = _ROLE["bob" if self.side == "alice" else "alice"]
        lines = [ADVICE[k].format(rival=rival) for k in chosen]
        return simulation.numbered(lines)


def build_critic(request: SimulatorRequest) -> ScriptedCritic:
    """``scripted:critic`` for the critic role of Deal or No Deal."""
    return ScriptedCritic(
        side=request.side,
        scenario=request.scenario,
        suggestions=request.suggestions,
        seed=request.seed,
        stream_seed=request.stream_seed,
    )
