"""The skeleton the games with typed terms share: what :class:`~icl_aif.games.base.Game` asks
that every such game answers the same way, with the game's own parts as hooks.

A round that ended in a deal with terms the game reads is told and scored from those terms; a deal
whose terms cannot be read, an error and a round without an agreement are told the same way in
every game (the game names the terms, the sides and the reasons). The between-round turn, the
scripted acknowledgement, the critic's prompt, the sample rounds of the template check, the
payoff and the simulators follow one shape; a game fills in its values:

- :meth:`GameSkeleton.deal_payoff`, :meth:`~GameSkeleton.payoff_text`: a side's payoff of a deal
  and how a payoff to beat is written;
- :meth:`~GameSkeleton.deal_sentence`: a deal in the critic's transcript;
- :meth:`~GameSkeleton.deal_result` (and :meth:`~GameSkeleton.no_deal_result`,
  :meth:`~GameSkeleton.goal_values`): the values of ``<game>/round/result_*.txt`` and the goal;
- :meth:`~GameSkeleton.critic_values`: the values of the critic's templates;
- :meth:`~GameSkeleton.sample_terms`: the terms of a made-up deal;
- :meth:`~GameSkeleton.simulator_types`: the game's player and critic simulators.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any, ClassVar, TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel

from icl_aif.config.settings import Scenario
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Message, Seat, Turn
from icl_aif.games import simulation
from icl_aif.games.base import (
    Game,
    Measure,
    Round,
    Setup,
    SimulatorRequest,
    acknowledgement_text,
    anchor_label,
    anchor_round,
    critic_prompt,
    last_speaker,
    next_round_text,
    read_terms,
    reason_text,
    round_goal,
    sample_round_sets,
)
from icl_aif.games.critics import ScriptedCritic
from icl_aif.games.scenarios import render_openers

__all__ = ["REASONS", "GameSkeleton"]

ScenarioT = TypeVar("ScenarioT", bound=Scenario)
TermsT = TypeVar("TermsT", bound=BaseModel)

REASONS: dict[str, str] = {
    "walk_away": "the {last} walked away",
    "refusal": "the {last} refused to go on",
    "cap": "the round reached its limit of {lines} lines",
}
"""Why a round ended without an agreement, by reason (``{last}``: the role that said the last
line; ``{lines}``: the round's cap in lines)."""


class GameSkeleton(Game[ScenarioT, TermsT]):
    """A game whose agreements bind typed terms (:attr:`terms_model`), told and scored from
    them. Class attributes: ``unread`` (what a deal whose terms cannot be read was on: ``a split``), ``nobody`` (who
    ended a round without lines), ``reasons`` (:data:`REASONS` by default), ``anchor_key`` (the
    name of the value to beat in the goal and aim templates) and ``sample_reason`` (the reason
    of the made-up no deal)."""

    unread: ClassVar[str] = "terms"
    nobody: ClassVar[str] = "a side"
    reasons: ClassVar[Mapping[str, str]] = REASONS
    anchor_key: ClassVar[str] = "anchor"
    sample_reason: ClassVar[str] = "cap"
    measure_name: ClassVar[str] = "payoff"
    measure_label: ClassVar[str]
    silent_flag: ClassVar[str | None] = None

    # --- the game's own parts ------------------------------------------------------------

    @abstractmethod
    def deal_payoff(self, scenario: ScenarioT, side: Seat, terms: TermsT) -> float:
        """``side``'s payoff of an agreement on ``terms``."""

    @abstractmethod
    def payoff_text(self, value: float) -> str:
        """A payoff as the next-round goal and the acknowledgement write it."""

    @abstractmethod
    def deal_sentence(self, scenario: ScenarioT, terms: TermsT) -> str:
        """A deal on ``terms`` as the critic's transcript states it."""

    @abstractmethod
    def deal_result(self, setup: Setup[ScenarioT], terms: TermsT) -> dict[str, Any]:
        """The values of ``<game>/round/result_deal.txt`` for the improved side."""

    def no_deal_result(self, setup: Setup[ScenarioT]) -> dict[str, Any]:
        """The values of ``<game>/round/result_no_deal.txt`` besides ``reason`` (none by
        default)."""
        return {}

    def goal_values(self, setup: Setup[ScenarioT]) -> dict[str, Any]:
        """The values of the goal templates besides the round and the value to beat (none by
        default)."""
        return {}

    @abstractmethod
    def critic_values(self, prompts: PromptLibrary, setup: Setup[ScenarioT]) -> dict[str, Any]:
        """The values of the critic's templates (``critic/system.txt``, ``request.txt``,
        ``constraints.txt``)."""

    def critic_system(self, prompts: PromptLibrary, setup: Setup[ScenarioT]) -> dict[str, Any]:
        """The values of ``critic/system.txt`` only (none by default)."""
        return {}

    @abstractmethod
    def sample_terms(self, scenario: ScenarioT) -> dict[str, Any]:
        """The terms of the made-up deal of :meth:`sample_rounds` (as :attr:`terms_model`
        data)."""

    @abstractmethod
    def simulator_types(self) -> tuple[type[simulation.ConcessionPlayer], type[ScriptedCritic]]:
        """The game's ``scripted:STRATEGY`` player and its ``scripted:critic``."""

    # --- what the skeleton answers from them ---------------------------------------------

    def terms_of(self, record: Round) -> TermsT | None:
        """The terms of a round that ended in a deal; None without a deal or readable terms."""
        return read_terms(record, self.terms_model)

    def no_deal_reason(self, record: Round, scenario: ScenarioT) -> str:
        """Why a round ended without an agreement, naming the role that ended it."""
        last = last_speaker(record, self.seats.names, self.nobody)
        lines = 2 * scenario.max_exchanges
        texts = {k: text.format(last=last, lines=lines) for k, text in self.reasons.items()}
        return reason_text(record, texts)

    def anchor(self, rounds: Sequence[Round], setup: Setup[ScenarioT]) -> tuple[float, int] | None:
        """The improved side's payoff the next round should beat and the round it came from
        (``previous``: the last round's, ``first``: round 1's, ``best``: the best so far, the
        earliest among equals); None when that round had no deal."""

        def value(record: Round) -> float | None:
            terms = self.terms_of(record)
            return None if terms is None else self.deal_payoff(setup.scenario, setup.improve, terms)

        return anchor_round(rounds, setup.anchor, value)

    def measure_value(self, scenario: ScenarioT, side: Seat, terms: TermsT) -> float | None:
        """The per-round figure of ``side`` for a deal on ``terms`` (:meth:`measure`): by
        default its payoff."""
        return self.deal_payoff(scenario, side, terms)

    def states(self, scenario: ScenarioT, text: str) -> bool:
        """Whether a line states terms (an offer), for the silent-line flag
        :attr:`silent_flag`."""
        raise NotImplementedError

    def measure(self, setup: Setup[ScenarioT]) -> Measure:
        """The improved side's :meth:`measure_value` of a deal with readable terms (named
        :attr:`measure_name`, :attr:`measure_label`); a round without a deal scores
        ``setup.no_deal_value``. With :attr:`silent_flag`, the lines that state no terms
        (:meth:`states`) are flagged."""
        scenario, side = setup.scenario, setup.improve

        def of(record: Round) -> float | None:
            terms = self.terms_of(record)
            return None if terms is None else self.measure_value(scenario, side, terms)

        flag = self.silent_flag
        return Measure(
            name=self.measure_name,
            label=self.measure_label,
            of=of,
            no_deal_value=setup.no_deal_value,
            money=False,
            silent_flag=flag,
            states=None if flag is None else partial(self.states, scenario),
        )

    def opening_turns(self, scenario: ScenarioT) -> list[Turn]:
        """The openers rendered with :meth:`opener_values`."""
        return render_openers(scenario, self.opener_values(scenario))

    @abstractmethod
    def opener_values(self, scenario: ScenarioT) -> dict[str, Any]:
        """The values the openers (and the briefs) may name."""

    def outcome_sentence(self, record: Round, scenario: ScenarioT) -> str:
        """A deal (:meth:`deal_sentence`), ``deal on <unread> that could not be read``,
        ``stopped by an error (<reason>)`` or ``no deal: <why>``."""
        outcome = record.get("outcome")
        if outcome == "deal":
            terms = self.terms_of(record)
            if terms is None:
                return f"deal on {self.unread} that could not be read"
            return self.deal_sentence(scenario, terms)
        if outcome == "error":
            return f"stopped by an error ({record.get('reason')})"
        return f"no deal: {self.no_deal_reason(record, scenario)}"

    def next_round_instruction(
        self,
        prompts: PromptLibrary,
        setup: Setup[ScenarioT],
        rounds: Sequence[Round],
        feedback: str | None,
    ) -> str:
        """The result (``round/result_*.txt``), the feedback and the payoff to beat."""
        last = rounds[-1]
        terms = self.terms_of(last)
        if terms is not None:
            values = self.deal_result(setup, terms)
            result = prompts.render(f"{self.name}/round/result_deal.txt", **values)
        elif last.get("outcome") == "deal":
            result = prompts.render(f"{self.name}/round/result_unclear.txt")
        else:
            reason = self.no_deal_reason(last, setup.scenario)
            result = prompts.render(
                f"{self.name}/round/result_no_deal.txt", reason=reason, **self.no_deal_result(setup)
            )
        anchor = self.anchor(rounds, setup)
        anchored = None
        if anchor is not None:
            anchored = {
                self.anchor_key: self.payoff_text(anchor[0]),
                "anchor_label": anchor_label(setup.anchor, anchor[1]),
            }
        goal = round_goal(
            prompts, self.name, last["round"] + 1, anchored, **self.goal_values(setup)
        )
        return next_round_text(prompts, self.name, last["round"], result, feedback, goal)

    def scripted_acknowledgement(
        self, prompts: PromptLibrary, setup: Setup[ScenarioT], rounds: Sequence[Round]
    ) -> str:
        """``round/acknowledgement.txt`` with the aim (the payoff to beat, if any)."""
        anchor = self.anchor(rounds, setup)
        aim = None if anchor is None else {self.anchor_key: self.payoff_text(anchor[0])}
        return acknowledgement_text(prompts, self.name, rounds, aim)

    def critic_messages(
        self, prompts: PromptLibrary, setup: Setup[ScenarioT], transcript: str
    ) -> list[Message]:
        """``critic/system.txt`` with the constraints that are on, then ``critic/request.txt``
        (:meth:`critic_values`); both ask for ``feedback.suggestions`` suggestions."""
        values = self.critic_values(prompts, setup)
        system = self.critic_system(prompts, setup)
        return critic_prompt(prompts, self.name, setup, values, transcript, **system)

    def sample_rounds(self, scenario: ScenarioT) -> list[list[dict[str, Any]]]:
        """A deal (a payoff to beat), a no deal after it, a no deal alone (nothing to beat) and
        a deal whose terms could not be read."""
        turns = [{"speaker": o.speaker, "text": o.text} for o in scenario.openers]
        return sample_round_sets(turns, self.sample_terms(scenario), reason=self.sample_reason)

    def payoff(self, scenario: ScenarioT, side: Seat, record: Round) -> float | None:
        """``side``'s payoff of a deal (:meth:`deal_payoff`); its walk-away value without one;
        None for an error or a deal whose terms cannot be read."""
        outcome = record.get("outcome")
        if outcome == "error":
            return None
        if outcome != "deal":
            return self.walk_away(scenario, side)
        terms = self.terms_of(record)
        return None if terms is None else self.deal_payoff(scenario, side, terms)

    def simulator(self, request: SimulatorRequest) -> BaseChatModel:
        """The game's ``scripted:STRATEGY`` players and ``scripted:critic``
        (:meth:`simulator_types`)."""
        player, critic = self.simulator_types()
        return simulation.dispatch(request, player.from_request, critic.from_request)
