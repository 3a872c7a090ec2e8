"""What a bargaining game is to the engine: the :class:`Game` interface, its judge and its measure.

A game owns everything that is particular to it: its scenario schema (the config's ``scenario:``
under ``game: NAME``), each side's private values, the lines that open every round and each
side's brief (templates under ``prompts/<game>/``), the typed terms of an agreement, the judge
that reads a window of turns after every line, each side's payoff and walk-away value, its
simulators (``scripted:KIND`` players and ``scripted:critic``) and the per-round figure its
tables report. The engine (graphs, nodes, protocol, feedback, runner, records, metrics core)
asks the game through this interface and names no game field.

A new game subclasses :class:`Game`, fills in the class attributes and methods, and registers an
instance with :func:`icl_aif.games.registry.register_game` (see docs/games.md, which walks through
the pie split).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, ValidationError

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import Anchor, CriticConstraint, ModeratorMode, RoleConfig, Scenario
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary, render_strict
from icl_aif.core.transcript import Message, Seat, Seats, Turn, Verdict, with_move_note
from icl_aif.records.schema import SilentLines

__all__ = [
    "Column",
    "Game",
    "Judge",
    "Measure",
    "ModelFor",
    "Round",
    "Setup",
    "SimulatorRequest",
    "acknowledgement_text",
    "anchor_label",
    "anchor_round",
    "collapse_blank_lines",
    "critic_constraints",
    "critic_prompt",
    "last_speaker",
    "next_round_text",
    "no_deal_reason",
    "read_terms",
    "reason_text",
    "round_goal",
    "sample_round_sets",
    "turns_as_messages",
]

TermsT = TypeVar("TermsT", bound=BaseModel)
ScenarioT = TypeVar("ScenarioT", bound=Scenario)
GameTermsT = TypeVar("GameTermsT", bound=BaseModel)

Round = Mapping[str, Any]
"""A finished round as stored in ``games.jsonl`` (``round``, ``turns``, ``outcome``, ``terms``,
``reason``, ``truncated``, ``feedback``, ...; see docs/records.md)."""

ModelFor = Callable[[RoleConfig], BaseChatModel]
"""Builds the chat model of a judge's settings (``roles.moderator``), as any role's is built."""


@dataclass(frozen=True)
class SimulatorRequest:
    """What a game builds one of its simulators (``scripted:KIND``) from, for one role of one game.

    ``name`` is the kind (one of :attr:`Game.simulators`); ``side`` the seat a player plays (for
    the critic, the improved seat); ``scenario`` the game's scenario; ``seed`` derived from the
    experiment seed and the game, and ``stream_seed``, when set, a paired arm's reseed of the
    random choices after the private values are drawn; ``persona`` the rival's persona
    (``rival_persona``, the rival's only); ``suggestions`` the critic's count; ``params`` the
    role's ``params:``.
    """

    name: str
    role: str
    side: Seat
    scenario: Any
    seed: int
    stream_seed: int | None = None
    persona: str | None = None
    suggestions: int = 3
    params: Mapping[str, Any] = field(default_factory=dict)


class Judge(Protocol):
    """Reads a window of turns and says whether the round goes on, ended in an agreement (with
    the game's terms) or ended without one (with a reason).

    A model-backed judge appends each model call it makes to ``calls`` as a ``calls.jsonl``
    record without ``game_id`` and ``round`` (the engine adds them); a rules judge makes none.
    """

    name: str

    async def aclassify(
        self,
        window: list[Turn],
        scenario: dict[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> Verdict:
        """The state after the window's last turn."""
        ...


@dataclass(frozen=True)
class Column:
    """A per-round figure a game adds to the summary (``summary.json``'s per-round rows carry
    ``key``) and to the per-round tables (headed ``header``): ``kind`` says how it is printed
    (``rate``: 0.25 as 25.0%; ``number``: 3 decimals; ``money``: $12.50; ``count``: an integer)."""

    key: str
    header: str
    kind: Literal["rate", "number", "money", "count"] = "number"


@dataclass(frozen=True)
class Setup(Generic[ScenarioT]):
    """What a game's methods read of an experiment, never the whole config
    (:meth:`Game.setup`): the scenario (the game's type), the improved seat and the settings of
    its rounds."""

    scenario: ScenarioT
    improve: Seat
    """The seat the critic improves."""
    anchor: Anchor
    """Which earlier round the next-round goal names (``anchor``)."""
    suggestions: int
    """How many suggestions the critic is asked for (``feedback.suggestions``)."""
    constraints: tuple[CriticConstraint, ...]
    """The critic's rules that are on (``feedback.constraints``)."""
    no_deal_value: float
    """What a round without an agreement scores (``metrics.no_deal_value``, else the game's)."""


@dataclass(frozen=True)
class Measure:
    """The one number per round that a game's tables, scores and arm comparisons report.

    Summary keys are built from ``name``: ``mean_<name>``, ``<name>_ci95``, ``median_<name>``,
    ``deals_without_<name>`` per round, ``<name>_before`` and ``<name>_after`` per arm (the price
    game's ``name`` is ``price``: the keys every earlier summary has). ``of`` reads it from a round
    that ended in an agreement (None when the terms hold none); ``no_deal_value`` is what a round
    without an agreement scores in the unconditional score. ``money`` formats it as dollars.
    ``silent_flag`` names the flag of a generated line that states no terms (the price game's
    ``no_price``: normal conversation, counted in the summary for information) and ``states``
    says whether a line states terms; the engine records the flag on the line as it is said
    (:meth:`silent_lines`). A game without them has no such flag.
    """

    name: str
    label: str
    of: Callable[[Round], float | None]
    no_deal_value: float
    money: bool = False
    silent_flag: str | None = None
    states: Callable[[str], bool] | None = None
    span: tuple[float, float] | None = None
    """The range the figures of a money measure span in the config's scenario (the price game's
    buyer's opening offer to its list price); None: the values' own range."""

    def silent_lines(self, openers: int = 0) -> SilentLines | None:
        """How the lines that state no terms are flagged in a round that opens with ``openers``
        scripted lines; None for a game without a silent flag."""
        if self.silent_flag is None or self.states is None:
            return None
        return SilentLines(flag=self.silent_flag, states=self.states, openers=openers)


class Game(ABC, Generic[ScenarioT, GameTermsT]):
    """One bargaining game: the engine's only way to learn anything about the game it runs.

    Class attributes: ``name`` (the config's ``game:`` value and the prompt folder
    ``prompts/<name>/``), ``title`` and ``source`` (for ``icl-aif games`` and docs),
    ``seats`` (:class:`~icl_aif.core.transcript.Seats`: the two seats' ids and names),
    ``scenario_model`` (a :class:`~icl_aif.config.settings.Scenario` subclass: the game's ``scenario:``
    schema, every field defaulted), ``terms_model`` (the pydantic model of an agreement's terms),
    ``judges`` (the ``roles.moderator.mode`` values it supports) and ``simulators`` (the
    ``scripted:KIND`` names it answers, ``critic`` included).

    A game is typed over its scenario and its terms (``class DondGame(Game[DondScenario,
    DondTerms])``): its methods receive its own scenario type, and :meth:`scenario_of` reads a
    config's scenario as one.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    source: ClassVar[str]
    seats: ClassVar[Seats]
    """The game's two seats (ids and names, first seat first): the config's ``improve``,
    ``person`` and ``roles.<seat>``, the records' speakers and the graph's nodes."""
    scenario_model: type[ScenarioT]
    terms_model: type[GameTermsT]
    judges: ClassVar[tuple[ModeratorMode, ...]] = ("rules",)
    simulators: ClassVar[tuple[str, ...]] = ("critic",)
    typed_simulators: ClassVar[tuple[str, ...]] = ()
    """Those of :attr:`simulators` that play only against a type the scenario declares (the
    price game's ``known`` and ``optimal``, with ``scenario.counterpart``): the conformance
    check, which plays the others against each other, leaves them to the game's own tests."""
    origin: str = ""
    """The module that registered the game (set by the registry)."""

    # --- what each side is told -------------------------------------------------------------

    @abstractmethod
    def opening_turns(self, scenario: ScenarioT) -> list[Turn]:
        """The scripted lines that open every round (``scenario.openers`` rendered)."""

    def opener_values(self, scenario: ScenarioT) -> dict[str, Any]:
        """The values the openers may name (checked before a run: an unknown placeholder
        fails in one line)."""
        return {}

    @abstractmethod
    def brief(self, prompts: PromptLibrary, scenario: ScenarioT, side: Seat) -> str:
        """``side``'s system prompt: the rules, its private values and its goal."""

    @abstractmethod
    def outcome_sentence(self, record: Round, scenario: ScenarioT) -> str:
        """A round's outcome as the critic's transcript states it (``deal at $15``)."""

    @abstractmethod
    def next_round_instruction(
        self,
        prompts: PromptLibrary,
        setup: Setup[ScenarioT],
        rounds: Sequence[Round],
        feedback: str | None,
    ) -> str:
        """The user turn the improved player receives after a round: result, feedback, goal."""

    @abstractmethod
    def scripted_acknowledgement(
        self, prompts: PromptLibrary, setup: Setup[ScenarioT], rounds: Sequence[Round]
    ) -> str:
        """The improved player's scripted reply to that turn (``acknowledgement: scripted``)."""

    @abstractmethod
    def critic_messages(
        self, prompts: PromptLibrary, setup: Setup[ScenarioT], transcript: str
    ) -> list[Message]:
        """What the critic receives, around ``transcript`` (the improved player's record)."""

    def check_templates(
        self, prompts: PromptLibrary, config: ExperimentConfig, *, critic: bool
    ) -> None:
        """Render every template a game of ``config`` may render on made-up rounds that take
        every branch, so that a missing file or placeholder fails before any game (one
        :class:`~icl_aif.core.errors.UsageError` line). The default renders the briefs, and on
        :meth:`sample_rounds` the next-round turn, the scripted acknowledgement and (``critic``:
        a feedback source calls the critic) the critic's prompt."""
        setup = self.setup(config)
        scenario = setup.scenario
        for seat in self.seats:
            self.brief(prompts, scenario, seat)
        if config.rounds == 1 and not config.arms:
            return
        for rounds in self.sample_rounds(scenario):
            self.next_round_instruction(prompts, setup, rounds, "1. A suggestion.")
            self.next_round_instruction(prompts, setup, rounds, None)
            if config.acknowledgement == "scripted":
                self.scripted_acknowledgement(prompts, setup, rounds)
            if critic:
                transcript = "\n".join(
                    f"Round {r['round']}\nOutcome: {self.outcome_sentence(r, scenario)}."
                    for r in rounds
                )
                self.critic_messages(prompts, setup, transcript)

    @abstractmethod
    def sample_rounds(self, scenario: ScenarioT) -> list[list[dict[str, Any]]]:
        """Made-up finished rounds that take every branch of the between-round templates."""

    # --- one game's scenario, and moves ----------------------------------------------------

    def sample_scenario(self, scenario: ScenarioT, seed: int) -> ScenarioT:
        """The scenario one game plays: ``scenario`` (the config's) with the values the game draws
        per game from ``seed`` (Deal or No Deal: item counts and each side's values), or
        ``scenario`` itself (the default: every game plays the config's). The engine plays the
        game with it (briefs, judge, simulators, payoffs) and records it on the game's line as
        ``scenario`` when it differs from the config's."""
        return scenario

    def invalid_move(
        self, scenario: ScenarioT, side: Seat, text: str, turns: Sequence[Turn]
    ) -> str | None:
        """Why ``side``'s line ``text`` (said after ``turns``) is not a valid move of the game
        (a malformed or impossible proposal), as the message the player is shown before it tries
        again; None for a valid line (the default: every line is). After ``move_retries``
        invalid tries in a row the round ends: ``no_deal``, reason ``invalid_moves``."""
        return None

    # --- binding moves (moves: structured; icl_aif.games.moves) -------------------------------

    offer_model: ClassVar[type[BaseModel] | None] = None
    """What a player offers in a binding ``offer`` move (the price game's ``{"price": P}``), as
    the move's ``terms``; None for a game without binding moves (``moves: structured`` is then
    refused before any game)."""

    def check_offer(self, scenario: ScenarioT, side: Seat, offer: BaseModel) -> str | None:
        """Why ``side``'s offer (an :attr:`offer_model` instance) is not a valid offer in
        ``scenario``, as the message the player is shown before it tries again; None for a valid
        one (the default: every offer the model validates is)."""
        return None

    def agreed_terms(
        self, scenario: ScenarioT, offerer: Seat, offer: BaseModel, turns: Sequence[Turn]
    ) -> dict[str, Any]:
        """The terms of the agreement when ``offerer``'s ``offer`` is accepted after ``turns``,
        as :attr:`terms_model` data (the judge's terms of the same agreement). The default: the
        offer's fields."""
        return offer.model_dump(mode="json")

    def opening_moves(self, scenario: ScenarioT) -> list[Any]:
        """The moves of the scripted opening lines, by position (a
        :class:`icl_aif.games.moves.Move`, or None for talk): the price game's list price and the
        buyer's first offer stand as offers. None by default."""
        return []

    def seat_name(self, side: Seat) -> str:
        """How a player is told of a seat (``seller``, the pie split's ``proposer``)."""
        return self.seats.name(side)

    def rival_labels(self, side: Seat) -> tuple[str, ...]:
        """The labels under which ``side``'s reply may write a line for its rival (``Bob:``):
        the screen of bad replies cuts the reply there (flag ``as_rival``). By default the
        rival's seat id and name."""
        rival = self.seats.other(side)
        return tuple(dict.fromkeys((rival, self.seats.name(rival))))

    # --- the judge and the terms --------------------------------------------------------------

    @abstractmethod
    def build_judge(
        self, config: ExperimentConfig, prompts: PromptLibrary, model_for: ModelFor
    ) -> Judge:
        """The judge ``roles.moderator`` asks for (its mode is one of :attr:`judges`)."""

    def scenario_text(self, scenario: Mapping[str, Any]) -> str:
        """A scenario (as plain data, a run's ``config.yaml``) in one line, for reports: by
        default the game's name and every value but the openers."""
        values = ", ".join(f"{k} {v}" for k, v in scenario.items() if k != "openers")
        return f"{self.name}: {values}"

    def judge_info(self, scenario: ScenarioT) -> dict[str, Any] | None:
        """What the judge may know of the scenario (public values only)."""
        return None

    def record_fields(self, terms: Mapping[str, Any] | None) -> dict[str, Any]:
        """Fields a round record keeps beside ``terms`` for compatibility (the price game's
        ``price``); none by default."""
        return {}

    @abstractmethod
    def agreement_examples(
        self, scenario: ScenarioT, seed: int
    ) -> list[tuple[list[Turn], dict[str, Any]]]:
        """Windows in which the game's own simulators agree, each with the terms agreed, as the
        simulators word them: the conformance check asks the rules judge to bind each."""

    # --- payoffs ---------------------------------------------------------------------------

    @abstractmethod
    def payoff(self, scenario: ScenarioT, side: Seat, record: Round) -> float | None:
        """``side``'s payoff of a finished round (its walk-away value without an agreement;
        None for an error or an agreement whose terms could not be bound)."""

    @abstractmethod
    def walk_away(self, scenario: ScenarioT, side: Seat) -> float:
        """``side``'s payoff when the round ends without an agreement."""

    def no_deal_value(self, scenario: Any, side: Seat) -> float:
        """What a round without an agreement scores in :meth:`measure`'s units (the config's
        default ``metrics.no_deal_value``): by default ``side``'s walk-away value."""
        return self.walk_away(scenario, side)

    @abstractmethod
    def payoff_bounds(self, scenario: ScenarioT, side: Seat) -> tuple[float, float]:
        """The least and the most ``side`` can get from an agreement its simulator would make."""

    @abstractmethod
    def measure(self, setup: Setup[ScenarioT]) -> Measure:
        """The per-round figure of the improved side (``setup.improve``) that the tables
        report."""

    columns: ClassVar[tuple[Column, ...]] = ()
    """The per-round figures :meth:`round_metrics` adds, as the tables show them."""

    def columns_for(self, setup: Setup[ScenarioT]) -> tuple[Column, ...]:
        """The per-round figures of an experiment of ``setup``: :attr:`columns` by default; a
        game may add some for some scenarios (the price game's known-type figures)."""
        return self.columns

    def rule_breaks(self, scenario: ScenarioT, side: Seat, record: Round) -> list[str]:
        """What ``side`` did against the rules of bargaining in a finished round, one sentence
        each with its words (``icl-aif screen``'s first step). By default: an agreement that
        pays ``side`` less than walking away. A game adds its own contradictions (the price
        game: accepting less than an offer it refused, asking more than it asked before)."""
        if record.get("outcome") != "deal":
            return []
        payoff = self.payoff(scenario, side, record)
        floor = self.walk_away(scenario, side)
        if payoff is not None and payoff < floor - 1e-9:
            return [f"agreed to a deal worth {payoff:g} to it, less than walking away ({floor:g})"]
        return []

    def check_config(self, config: ExperimentConfig) -> None:
        """Fail in one line (:class:`~icl_aif.core.errors.UsageError`) when ``config`` asks this
        game for something it cannot play, before any game (the price game: a known-type
        counterpart's seat that plays another model). Nothing by default."""

    def round_metrics(
        self, setup: Setup[ScenarioT], games: Sequence[Mapping[str, Any]], number: int
    ) -> dict[str, Any]:
        """The game's own figures of round ``number`` over ``games`` (``games.jsonl`` records,
        each with the ``scenario`` it played when the game draws one: :meth:`game_scenario`),
        keyed as :attr:`columns` says: for example Deal or No Deal's Pareto-optimal rate and each
        side's mean score. Rounds that ended in an error are left out. None by default."""
        return {}

    def game_scenario(self, scenario: ScenarioT, game: Mapping[str, Any]) -> ScenarioT:
        """The scenario a recorded game played: its own ``scenario`` (drawn per game), else
        ``scenario`` (the config's)."""
        drawn = game.get("scenario")
        return scenario if drawn is None else self.scenario_model.model_validate(drawn)

    def setup(self, config: ExperimentConfig) -> Setup[ScenarioT]:
        """What this game's methods read of ``config`` (a config of this game)."""
        return Setup(
            scenario=self.scenario_of(config),
            improve=config.improve,
            anchor=config.anchor,
            suggestions=config.feedback.suggestions,
            constraints=tuple(config.feedback.constraints),
            no_deal_value=config.no_deal_value,
        )

    def scenario_of(self, config: ExperimentConfig) -> ScenarioT:
        """``config.scenario``, as this game's scenario type (a config of this game validated
        its scenario with :attr:`scenario_model`)."""
        scenario = config.scenario
        if not isinstance(scenario, self.scenario_model):
            raise TypeError(f"{type(scenario).__name__} is not a scenario of game {self.name!r}")
        return scenario

    # --- simulators ----------------------------------------------------------------------------

    @abstractmethod
    def simulator(self, request: SimulatorRequest) -> BaseChatModel:
        """The ``scripted:KIND`` model of ``request`` (``request.name`` is one of
        :attr:`simulators`; ``request.scenario`` is this game's scenario)."""


def turns_as_messages(side: Seat, turns: Sequence[Turn]) -> list[Message]:
    """A round from ``side``'s seat: its own lines as assistant, the other side's as user; a
    line's binding move (``moves: structured``) follows its text (:func:`with_move_note`)."""
    return [
        Message(role="assistant" if t["speaker"] == side else "user", content=with_move_note(t))
        for t in turns
    ]


def collapse_blank_lines(text: str) -> str:
    """``text`` without leading, trailing or repeated blank lines (templates with empty parts)."""
    out: list[str] = []
    for line in text.splitlines():
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line)
    return "\n".join(out).strip()


def no_deal_reason(record: Round, max_exchanges: int) -> str:
    """A plain sentence fragment for why a round ended without an agreement."""
    turns = record.get("turns") or []
    last = turns[-1]["speaker"] if turns else "a side"
    texts = {
        "walk_away": f"the {last} walked away",
        "refusal": f"the {last} refused to go on",
        "cap": f"the round reached its limit of {max_exchanges} exchanges",
    }
    return reason_text(record, texts)


def reason_text(record: Round, texts: Mapping[str, str]) -> str:
    """The text of ``texts`` for the round's ``reason`` (``unknown`` when it has none), else the
    reason itself with spaces for underscores."""
    reason = record.get("reason") or "unknown"
    return texts.get(reason, str(reason).replace("_", " "))


def last_speaker(record: Round, names: Mapping[Seat, str], nobody: str) -> str:
    """The name (from ``names``, by seat) of the side that said the round's last line;
    ``nobody`` for a round without lines or an unnamed seat."""
    turns = record.get("turns") or []
    return names.get(turns[-1]["speaker"], nobody) if turns else nobody


def read_terms(record: Round, model: type[TermsT]) -> TermsT | None:
    """The terms of a round that ended in a deal, as ``model``; None without a deal or terms
    that ``model`` reads."""
    if record.get("outcome") != "deal":
        return None
    terms = record.get("terms")
    if not isinstance(terms, Mapping):
        return None
    try:
        return model.model_validate(terms)
    except ValidationError:
        return None


def anchor_round(
    rounds: Sequence[Round],
    anchor: Anchor,
    value: Callable[[Round], float | None],
    *,
    lower_is_better: bool = False,
) -> tuple[float, int] | None:
    """The value the next round should beat and the round it came from: ``previous`` the last
    round's, ``first`` round 1's, ``best`` the best so far (the highest ``value``, or the lowest
    with ``lower_is_better``; the earliest round among equals). None without rounds or when
    ``value`` is None for every candidate (no deal)."""
    if not rounds:
        return None
    if anchor == "previous":
        candidates = [rounds[-1]]
    elif anchor == "first":
        candidates = [rounds[0]]
    else:
        candidates = list(rounds)
    deals = [
        (found, int(record["round"]))
        for record in candidates
        if (found := value(record)) is not None
    ]
    if not deals:
        return None
    sign = -1.0 if lower_is_better else 1.0
    return max(deals, key=lambda d: (sign * d[0], -d[1]))


def round_goal(
    prompts: PromptLibrary,
    game: str,
    next_round: int,
    anchored: Mapping[str, Any] | None,
    **values: Any,
) -> str:
    """``<game>/round/goal_no_anchor.txt`` without a round to beat (``anchored`` None), else
    ``<game>/round/goal_anchor.txt`` with ``anchored`` (the value to beat, its label); both with
    ``next_round`` and ``values``."""
    if anchored is None:
        return prompts.render(f"{game}/round/goal_no_anchor.txt", next_round=next_round, **values)
    return prompts.render(
        f"{game}/round/goal_anchor.txt", next_round=next_round, **values, **anchored
    )


def next_round_text(
    prompts: PromptLibrary,
    game: str,
    number: int,
    result: str,
    feedback: str | None,
    goal: str,
) -> str:
    """The turn between rounds: ``<game>/round/next_round.txt`` with round ``number``'s
    ``result``, the feedback block (``<game>/round/feedback.txt``; empty without feedback) and
    the ``goal``, blank lines collapsed."""
    block = prompts.render(f"{game}/round/feedback.txt", feedback=feedback) if feedback else ""
    text = prompts.render(
        f"{game}/round/next_round.txt",
        round=number,
        result=result,
        feedback=block,
        goal=goal,
    )
    return collapse_blank_lines(text)


def acknowledgement_text(
    prompts: PromptLibrary,
    game: str,
    rounds: Sequence[Round],
    aim: Mapping[str, Any] | None,
) -> str:
    """``<game>/round/acknowledgement.txt`` for the round after ``rounds``, with the aim:
    ``aim_no_anchor.txt`` without a value to beat (``aim`` None), else ``aim_anchor.txt`` with
    ``aim``."""
    if aim is None:
        text = prompts.render(f"{game}/round/aim_no_anchor.txt")
    else:
        text = prompts.render(f"{game}/round/aim_anchor.txt", **aim)
    return prompts.render(
        f"{game}/round/acknowledgement.txt", next_round=rounds[-1]["round"] + 1, aim=text
    )


def critic_prompt(
    prompts: PromptLibrary,
    game: str,
    setup: Setup[Any],
    fields: dict[str, Any],
    transcript: str,
    **system: Any,
) -> list[Message]:
    """The critic's messages: ``<game>/critic/system.txt`` with ``fields``, ``system`` and the
    constraints that are on (``setup.constraints``, worded by ``<game>/critic/constraints.txt``
    and rendered with ``fields``), then ``<game>/critic/request.txt`` with ``fields`` and the
    ``transcript``."""
    constraints = critic_constraints(
        prompts, f"{game}/critic/constraints.txt", setup.constraints, fields
    )
    text = prompts.render(f"{game}/critic/system.txt", **fields, **system, constraints=constraints)
    request = prompts.render(f"{game}/critic/request.txt", **fields, transcript=transcript)
    return [Message(role="system", content=text), Message(role="user", content=request)]


def sample_round_sets(
    turns: list[dict[str, Any]],
    terms: Any,
    *,
    reason: str = "cap",
    unclear: bool = True,
) -> list[list[dict[str, Any]]]:
    """Made-up rounds for :meth:`Game.sample_rounds`: a deal on ``terms`` (a value to beat), a
    no deal (``reason``) after it, a no deal alone (nothing to beat) and, with ``unclear``, a
    deal whose terms could not be read; each round plays ``turns``."""
    deal = {"round": 1, "turns": turns, "outcome": "deal", "terms": terms}
    no_deal = {"round": 1, "turns": turns, "outcome": "no_deal", "reason": reason}
    sets = [[deal], [deal, {**no_deal, "round": 2}], [no_deal]]
    if unclear:
        sets.append([{"round": 1, "turns": turns, "outcome": "deal", "terms": None}])
    return sets


def anchor_label(anchor: Anchor, number: int) -> str:
    """How the next-round goal names the round to beat (``round 2``, ``your best round so far
    (round 2)``)."""
    if anchor == "best":
        return f"your best round so far (round {number})"
    return f"round {number}"


def critic_constraints(
    prompts: PromptLibrary, source: str, names: Sequence[CriticConstraint], values: dict[str, Any]
) -> str:
    """The critic's constraints that are on, one a line, in the order of the template ``source``
    (a game's ``<game>/critic/constraints.txt``: one ``NAME: TEXT`` a line, ``#`` comments and
    blank lines skipped), each rendered strictly with ``values``."""
    texts: dict[str, str] = {}
    for raw in prompts.text(source).splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, text = line.partition(":")
        if not sep or not text.strip():
            raise UsageError(f"{source}: expected NAME: TEXT lines, got {line!r}")
        texts[name.strip()] = text.strip()
    missing = [n for n in names if n not in texts]
    if missing:
        raise UsageError(f"{source}: no text for constraint(s) {', '.join(missing)}")
    wanted = set(names)
    return "\n".join(
        render_strict(text, values, source=f"{source} ({name})")
        for name, text in texts.items()
        if name in wanted
    )
