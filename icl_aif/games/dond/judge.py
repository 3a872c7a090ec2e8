"""Deal or No Deal's rules judge: reads the window after every line and binds matching proposals.

After the window's last line, in this order:

1. A walk-away (``[walk away]``, or a message that says ``I walk away``) ends the round:
   ``no_deal``, reason ``walk_away``.
2. A proposal right after a proposal of the other side answers it. When both can be read and
   the two claims give out exactly all the items (each type's counts add up to the collection's),
   the round ends in a ``deal`` whose terms are each seat's items and own score. Otherwise the proposals do not
   match: ``no_deal`` with reason ``mismatch`` (``scenario.mismatch: end``, the papers' rule:
   incompatible proposals end the game and both score 0) or ``ongoing`` (``continue``).
3. Any other proposal opens a pair: ``ongoing`` (reason ``proposal``, or ``invalid proposal: ...``
   when it cannot be read).
4. Anything else is talk: ``ongoing``.

The move rules (:func:`~icl_aif.games.dond.moves.move_problem`, which the engine enforces through
:meth:`~icl_aif.games.base.Game.invalid_move`) make a proposal right after the other side's
proposal always its answer, so the judge needs a window of 2 lines.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icl_aif.core.transcript import State, Turn, Verdict
from icl_aif.games.dond.moves import read_move
from icl_aif.games.dond.scenario import ITEMS, DondScenario, Items, terms_of
from icl_aif.games.judges import GameJudge

__all__ = ["DondJudge"]


class DondJudge(GameJudge):
    """Rules that label the state after the last line of a window (no model)."""

    def __init__(self, scenario: DondScenario) -> None:
        self.scenario = scenario

    def read(self, window: Sequence[Turn], scenario: Mapping[str, Any] | None) -> Verdict:
        """``ongoing``, ``deal`` (with the items of each seat) or ``no_deal`` (with a reason)."""
        context = self.scenario
        if scenario:  # judge_info: the context of the game being judged
            context = context.model_copy(
                update={
                    "counts": Items.model_validate(scenario["counts"]),
                    "alice_values": Items.model_validate(scenario["alice_values"]),
                    "bob_values": Items.model_validate(scenario["bob_values"]),
                    "mismatch": scenario["mismatch"],
                }
            )
        counts = context.counts
        last = read_move(window[-1]["text"])
        if last.kind == "walk":
            return Verdict("no_deal", reason="walk_away")
        if last.kind != "propose":
            return Verdict("ongoing", reason="talk")
        previous = window[-2] if len(window) >= 2 else None
        answered = read_move(previous["text"]) if previous is not None else None
        if (
            previous is None
            or answered is None
            or answered.kind != "propose"
            or (previous["speaker"] == window[-1]["speaker"])
        ):
            problem = last.claim.problem if last.claim is not None else None
            return Verdict(
                "ongoing", reason=f"invalid proposal: {problem}" if problem else "proposal"
            )
        claims = {previous["speaker"]: answered.claim, window[-1]["speaker"]: last.claim}
        alice, bob = claims.get("alice"), claims.get("bob")
        if (
            alice is not None
            and bob is not None
            and alice.mine is not None
            and bob.mine is not None
            and all(alice.mine.of(item) + bob.mine.of(item) == counts.of(item) for item in ITEMS)
        ):
            return Verdict(
                "deal", terms=terms_of(context, alice.mine, bob.mine), reason="proposals match"
            )
        state: State = "no_deal" if context.mismatch == "end" else "ongoing"
        return Verdict(state, reason="mismatch")
