"""The games' scripted critic (``scripted:critic``): one skeleton every game subclasses.

A scripted critic is a simulator, not a language model. While the engine calls the critic it puts
the improved player's rounds, as records, in view (:func:`rounds_in_view`) beside the prompt every
critic gets; a scripted critic reads the last round's structured data (its lines, read by the
game's line reader, its outcome, reason and terms), never the outcome sentence of the transcript.
The rounds reach it through any wrapper of the model (``chaos:``), since they travel with the call
(a context variable), not in the model's messages. Its reply is the
game's diagnoses of that round, most important first, then the game's general advice in a seeded
random order, numbered (``1. ...``).

A game's critic names its game and seats in its class statement
(``class PieSplitCritic(ScriptedCritic, game="pie_split", seats=SEATS)``): its advice, the
:attr:`~ScriptedCritic.ADVICE` and :attr:`~ScriptedCritic.GENERAL` texts, is data, read from
``prompts/<game>/critic/scripted.yaml``, and the model of a deal's terms (``terms=``). It
implements :meth:`~ScriptedCritic.diagnose_round`, where it reads the lines' content
:meth:`~ScriptedCritic.read`, and where its advice names values
:meth:`~ScriptedCritic.advice_values`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, PrivateAttr

from icl_aif.core.transcript import Seat, Seats
from icl_aif.games import simulation
from icl_aif.games.base import Round, SimulatorRequest, read_terms
from icl_aif.models.base import TextReplyModel

__all__ = ["RoundSummary", "ScriptedCritic", "last_round", "rounds_in_view"]

ReadingT = TypeVar("ReadingT")
TermsT = TypeVar("TermsT", bound=BaseModel)
CriticT = TypeVar("CriticT", bound="ScriptedCritic")

_IN_VIEW: ContextVar[tuple[Round, ...]] = ContextVar("icl_aif_critic_rounds", default=())
"""The improved player's rounds during a call of the critic (:func:`rounds_in_view`)."""


@contextmanager
def rounds_in_view(rounds: Sequence[Round]) -> Iterator[None]:
    """Put ``rounds`` (``games.jsonl`` round records) in view of a scripted critic for the calls
    made inside the block (the engine's, around each call of the critic)."""
    token = _IN_VIEW.set(tuple(rounds))
    try:
        yield
    finally:
        _IN_VIEW.reset(token)


@dataclass(frozen=True)
class RoundSummary(Generic[ReadingT, TermsT]):
    """The improved player's most recent round as a scripted critic reads it, from the round's
    record: each line, read by the game's line reader (``own`` True for the improved player's),
    the outcome (``deal``, ``no_deal``, ``error``), its reason and the terms of a deal (None
    without a deal or with terms the game cannot read)."""

    lines: list[tuple[bool, ReadingT]]
    outcome: str | None
    reason: str | None
    terms: TermsT | None

    @property
    def deal(self) -> bool:
        """Whether the round ended in an agreement (with or without readable terms)."""
        return self.outcome == "deal"

    def own(self) -> list[ReadingT]:
        """The readings of the improved player's own lines, in order."""
        return [reading for own, reading in self.lines if own]


def last_round(
    rounds: Sequence[Round],
    side: Seat,
    read: Callable[[str], ReadingT],
    terms_model: type[TermsT],
) -> RoundSummary[ReadingT, TermsT] | None:
    """The last of ``rounds`` from ``side``'s seat, each line read with ``read`` and a deal's
    terms as ``terms_model``; None without rounds."""
    if not rounds:
        return None
    record = rounds[-1]
    turns = record.get("turns") or []
    reason = record.get("reason")
    return RoundSummary(
        lines=[(turn["speaker"] == side, read(turn["text"])) for turn in turns],
        outcome=record.get("outcome"),
        reason=None if reason is None else str(reason),
        terms=read_terms(record, terms_model),
    )


class ScriptedCritic(TextReplyModel):
    """Diagnoses the improved player's last round and suggests what to change (a simulator).

    Subclasses name their game, seats and terms in the class statement and implement
    :meth:`diagnose_round` (or set the class attributes and override :meth:`diagnose`); the
    fields come from the
    critic's :class:`~icl_aif.games.base.SimulatorRequest` (:meth:`from_request`)."""

    GAME: ClassVar[str]
    """The label of the critic's random stream (``<GAME>:critic:...``) and of its ``_llm_type``."""
    SEATS: ClassVar[Seats]
    """The game's seats: the random stream names the improved seat by its stream label."""
    ADVICE: ClassVar[Mapping[str, str]]
    """The suggestions by diagnosis, with ``{NAME}`` placeholders (:meth:`advice_values`)."""
    GENERAL: ClassVar[tuple[str, ...]]
    """The advice given after the diagnoses, in a seeded random order."""
    TERMS: ClassVar[type[BaseModel]]
    """How a deal's terms are read (:func:`last_round`)."""
    LLM_TYPE: ClassVar[str | None] = None
    """The ``_llm_type``; None: ``scripted-<GAME>-critic``."""

    side: Seat
    scenario: Any
    suggestions: int = 3
    seed: int = 0
    stream_seed: int | None = None

    _rng: random.Random = PrivateAttr()

    def __init_subclass__(
        cls,
        *,
        game: str | None = None,
        seats: Seats | None = None,
        terms: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> None:
        """A game's critic: ``game`` sets :attr:`GAME` and reads the advice
        (``prompts/<game>/critic/scripted.yaml``: ``advice``, ``general``); ``seats`` sets
        :attr:`SEATS` and ``terms`` :attr:`TERMS`."""
        super().__init_subclass__(**kwargs)
        if game is not None:
            texts = simulation.scripted_texts(game, "critic/scripted.yaml")
            cls.GAME = game
            cls.ADVICE = dict(texts["advice"])
            cls.GENERAL = tuple(texts["general"])
        if seats is not None:
            cls.SEATS = seats
        if terms is not None:
            cls.TERMS = terms

    @classmethod
    def from_request(cls: type[CriticT], request: SimulatorRequest) -> CriticT:
        """``scripted:critic`` for the critic role of the game (``request.side``: the improved
        seat)."""
        return cls(
            side=request.side,
            scenario=request.scenario,
            suggestions=request.suggestions,
            seed=request.seed,
            stream_seed=request.stream_seed,
        )

    def model_post_init(self, context: Any, /) -> None:
        """Seed this game's random choices (``stream_seed`` when set: a paired arm's own)."""
        self._rng = simulation.critic_rng(
            self.GAME, self.SEATS, self.side, self.seed, self.stream_seed
        )

    @property
    def _llm_type(self) -> str:
        return self.LLM_TYPE or f"scripted-{self.GAME.replace('_', '-')}-critic"

    @property
    def rounds(self) -> tuple[Round, ...]:
        """The improved player's rounds in view of this call (:func:`rounds_in_view`; none
        outside one): :meth:`respond` diagnoses the last of them."""
        return _IN_VIEW.get()

    def read(self, text: str) -> Any:
        """One line of the round as the critic reads it (by default not at all: None; the
        critic counts the lines)."""
        return None

    def diagnose(self) -> list[str]:
        """The advice keys the last round calls for, most important first (none without
        rounds): :meth:`diagnose_round` of the last round, each line read with :meth:`read` and
        a deal's terms as :attr:`TERMS`."""
        summary = last_round(self.rounds, self.side, self.read, self.TERMS)
        return [] if summary is None else self.diagnose_round(summary)

    def diagnose_round(self, summary: RoundSummary[Any, Any]) -> list[str]:
        """The advice keys ``summary`` (the improved player's last round) calls for, most
        important first."""
        raise NotImplementedError

    def choose(self, keys: Sequence[str]) -> list[str]:
        """The advice given: ``keys`` first, then :attr:`GENERAL` advice not among them in a
        random order, :attr:`suggestions` in all."""
        return simulation.choose_advice(keys, self.GENERAL, self._rng, self.suggestions)

    def advice_values(self) -> Mapping[str, str]:
        """The values the advice's placeholders name (none by default)."""
        return {}

    def advice(self, key: str) -> str:
        """The suggestion of ``key``, its placeholders filled in."""
        return self.ADVICE[key].format_map(self.advice_values())

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """Numbered suggestions for the improved player (the prompt's text is not read)."""
        chosen = self.choose(self.diagnose())
        return simulation.numbered([self.advice(key) for key in chosen])
