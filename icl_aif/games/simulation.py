"""What the games' rule-based simulators share: the ``scripted:KIND`` dispatch between a player
and the critic, the checks of a player's ``params``, reading the feedback turns out of a
player's history and counting its feedback lexicon, and the scripted critic's reading of its
transcript and its numbered reply.

Each game keeps its own strategies, lexicon, wording and error texts; these helpers only hold
the logic that is the same in every game.
"""

from __future__ import annotations

import functools
import math
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

import yaml
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr, field_validator

from icl_aif.core.templates import default_prompts_dir
from icl_aif.core.transcript import Seat, Seats, Turn
from icl_aif.games.base import SimulatorRequest
from icl_aif.models.base import TextReplyModel, message_text

__all__ = [
    "ACKNOWLEDGEMENT",
    "INSTRUCTION_HEADER",
    "ROUND_OVER",
    "Aims",
    "ConcessionPlayer",
    "History",
    "Pace",
    "RoundView",
    "check_reservation",
    "check_share_params",
    "choose_advice",
    "count_lexicon",
    "critic_rng",
    "dispatch",
    "is_round_over",
    "last_round_lines",
    "numbered",
    "read_history",
    "read_round",
    "scripted_texts",
    "standing_instruction",
]

ReadingT = TypeVar("ReadingT")
PlayerT = TypeVar("PlayerT", bound="ConcessionPlayer")

ROUND_OVER = re.compile(r"Round \d+ is over\.")
"""The start of the between-rounds turn (``<game>/round/next_round.txt``)."""

ACKNOWLEDGEMENT = "Understood. I will use this feedback in the next round."
"""A player's reply to the between-rounds turn."""

_ROUND = re.compile(r"^Round (\d+)$")


def dispatch(
    request: SimulatorRequest,
    build_player: Callable[[SimulatorRequest], BaseChatModel],
    build_critic: Callable[[SimulatorRequest], BaseChatModel],
) -> BaseChatModel:
    """``scripted:critic`` in the critic role, else a ``scripted:STRATEGY`` player; the critic
    in any other role, or a player in the critic role, is a :class:`ValueError`."""
    if request.role == "critic":
        if request.name != "critic":
            raise ValueError("the scripted critic is scripted:critic")
        return build_critic(request)
    if request.name == "critic":
        raise ValueError(f"scripted:critic plays the critic, not the {request.role}")
    return build_player(request)


def check_share_params(
    request: SimulatorRequest,
    strategies: Mapping[str, Any],
    *,
    game: str,
    shares: str,
    share: str = "a share",
) -> None:
    """Check a ``scripted:STRATEGY`` request of a player that takes ``opening`` and
    ``reservation`` (each a share between 0 and 1): a known strategy (``game`` names the game
    in the message: ``unknown pie-split simulator ...``), no other params (``shares`` says what
    they are shares of) and values in range (``share``: ``a share of the pie``)."""
    if request.name not in strategies:
        raise ValueError(
            f"unknown {game} simulator {request.name!r}; choose one of "
            f"{', '.join(strategies)} or critic"
        )
    unknown = sorted(set(request.params) - {"opening", "reservation"})
    if unknown:
        raise ValueError(
            f"unknown params {', '.join(unknown)}; {game} players take opening, reservation "
            f"({shares})"
        )
    for key in ("opening", "reservation"):
        value = request.params.get(key)
        if value is not None and not (
            isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1
        ):
            raise ValueError(f"params.{key}: {value!r} is not {share} between 0 and 1")


def check_reservation(reservation: float, opening: float) -> None:
    """A player never asks for less than it accepts: its reservation is at most its opening."""
    if reservation > opening:
        raise ValueError(
            f"params: reservation {reservation:g} is above opening {opening:g}; "
            "a player never asks for less than it accepts"
        )


def is_round_over(messages: Sequence[BaseMessage]) -> bool:
    """True when the last message is the user's between-rounds turn (``Round N is over.``): the
    player is asked to acknowledge the feedback, not to bargain."""
    last = messages[-1] if messages else None
    return last is not None and last.type == "human" and bool(ROUND_OVER.match(message_text(last)))


INSTRUCTION_HEADER = "Standing instructions"
"""How ``prompts/clauses/instruction.txt`` starts: a scripted player reads what follows it in its
system message (a seat's ``instructions``) as feedback."""


def standing_instruction(messages: Sequence[BaseMessage]) -> str | None:
    """The seat's standing instruction in its system message: the text after the line that
    starts with :data:`INSTRUCTION_HEADER`, or None without one."""
    if not messages or messages[0].type != "system":
        return None
    text = message_text(messages[0])
    at = text.find(INSTRUCTION_HEADER)
    if at < 0:
        return None
    _, _, after = text[at:].partition("\n")
    return after.strip() or None


@dataclass(frozen=True)
class History:
    """A player's history split at its rounds: the messages' texts, where the current round
    starts (the last time its first opener was said, else the first non-system message) and the
    feedback a scripted player reads: the seat's standing instruction (:func:`standing_instruction`),
    then the feedback turns (the user message just before each later round's opener)."""

    messages: Sequence[BaseMessage]
    texts: list[str]
    start: int
    feedback: list[str]

    def lines(self) -> list[tuple[bool, str]]:
        """The current round's lines: ``(own, text)`` for each of its assistant (``own``) and
        user messages."""
        return [
            (message.type == "ai", text)
            for message, text in zip(
                self.messages[self.start :], self.texts[self.start :], strict=True
            )
            if message.type in ("ai", "human")
        ]


def read_history(
    messages: Sequence[BaseMessage], first_opener: str, *, prefix: bool = False
) -> History:
    """Split ``messages`` at the rounds: a round starts where ``first_opener`` is said (the whole
    message, or with ``prefix`` its start: a countdown may follow it in the same message)."""
    texts = [message_text(m) for m in messages]
    starts = [
        i
        for i, text in enumerate(texts)
        if (text.startswith(first_opener) if prefix else text == first_opener)
    ]
    start = (
        starts[-1]
        if starts
        else next((i for i, m in enumerate(messages) if m.type != "system"), len(messages))
    )
    instruction = standing_instruction(messages)
    feedback: list[str] = [] if instruction is None else [instruction]
    for later in starts[1:]:
        for i in range(later - 1, -1, -1):
            if messages[i].type == "human":
                feedback.append(texts[i])
                break
    return History(messages=messages, texts=texts, start=start, feedback=feedback)


@dataclass(frozen=True)
class Aims:
    """A player's aims for a round, after the feedback so far: the share it opens with, the
    least it settles for (its reservation) and its concession exponent ``beta``."""

    opening: float
    reservation: float
    beta: float


@dataclass(frozen=True)
class Pace:
    """Where a player stands in a round of alternating lines (:meth:`RoundView.pace`):
    ``spoken``, its own lines so far; ``left``, the lines left in the round, the one it is about
    to say included."""

    spoken: int
    left: int

    @property
    def own_left(self) -> int:
        """The player's own lines left, this one included (at least one)."""
        return max((self.left + 1) // 2, 1)

    @property
    def last_line(self) -> bool:
        """Whether this is the player's last line of the round."""
        return self.own_left <= 1

    @property
    def rival_after(self) -> bool:
        """Whether the other side still has a line after this one."""
        return self.left >= 2

    def share(self, aims: Aims) -> float:
        """The share the time-dependent concession curve asks for on this line (Faratin et al.
        1998): ``opening + (reservation - opening) * tau ** (1 / beta)``, ``tau`` the part of the
        player's lines already spoken (0 on its first line, 1 on its last)."""
        tau = min(1.0, self.spoken / max(1, self.spoken + self.own_left - 1))
        beta = max(aims.beta, 0.05)
        return aims.opening + (aims.reservation - aims.opening) * float(tau ** (1.0 / beta))


@dataclass(frozen=True)
class RoundView(Generic[ReadingT]):
    """What a player takes from the conversation it receives: the current round's lines, each
    as said (``texts``) and as its game's line reader reads it (``lines``: ``own`` True for its
    own), and the feedback turns before its later rounds."""

    lines: list[tuple[bool, ReadingT]]
    texts: list[str]
    feedback: list[str]

    @property
    def own_lines(self) -> int:
        """How many lines the player has said this round."""
        return sum(own for own, _ in self.lines)

    def own(self) -> list[ReadingT]:
        """The readings of the player's own lines this round, in order."""
        return [reading for own, reading in self.lines if own]

    def pace(self, max_exchanges: int) -> Pace:
        """Where the player stands in a round of ``max_exchanges`` pairs of lines."""
        return Pace(spoken=self.own_lines, left=2 * max_exchanges - len(self.lines))

    def rival_latest(self, found: Callable[[ReadingT], bool]) -> ReadingT | None:
        """The reading of the other side's latest line this round for which ``found`` is true
        (an offer, say), if any."""
        for own, reading in reversed(self.lines):
            if not own and found(reading):
                return reading
        return None


def read_round(
    messages: Sequence[BaseMessage],
    first_opener: str,
    read: Callable[[str], ReadingT],
    *,
    prefix: bool = False,
) -> RoundView[ReadingT]:
    """Split the history into the current round (from the last time its first opener was said;
    with ``prefix`` its start: a countdown may follow it in the same message), each line read
    with ``read``, and the feedback turns before every later round."""
    history = read_history(messages, first_opener, prefix=prefix)
    said = history.lines()
    return RoundView(
        lines=[(own, read(text)) for own, text in said],
        texts=[text for _, text in said],
        feedback=history.feedback,
    )


@functools.cache
def scripted_texts(game: str, name: str) -> dict[str, Any]:
    """The texts of one game's scripted simulators, kept as data:
    ``prompts/<game>/<name>`` (a YAML mapping), read once."""
    path = default_prompts_dir() / game / name
    texts = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(texts, dict):
        raise ValueError(f"{path}: not a mapping of texts")
    return texts


def count_lexicon(feedback: Sequence[str], lexicon: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """How often each group of ``lexicon`` is mentioned over all feedback turns
    (case-insensitive)."""
    text = " ".join(feedback).lower()
    return {group: sum(text.count(p) for p in phrases) for group, phrases in lexicon.items()}


def last_round_lines(transcript: str) -> list[str] | None:
    """The stripped lines of the last ``Round N`` block of a critic transcript; None without
    one."""
    blocks: list[list[str]] = []
    for line in transcript.splitlines():
        if _ROUND.match(line.strip()):
            blocks.append([])
        elif blocks:
            blocks[-1].append(line.strip())
    return blocks[-1] if blocks else None


def critic_rng(
    game: str, seats: Seats, side: Seat, seed: int, stream_seed: int | None
) -> random.Random:
    """The scripted critic's random choices of one game (``stream_seed`` when set: a paired
    arm's own), seeded from ``<game>:critic:<stream>:<seed>`` (the seat's stream label,
    :meth:`~icl_aif.core.transcript.Seats.stream`)."""
    stream = "" if stream_seed is None else f":stream:{stream_seed}"
    return random.Random(f"{game}:critic:{seats.stream(side)}:{seed}{stream}")


def choose_advice(
    keys: Sequence[str], general: Sequence[str], rng: random.Random, suggestions: int
) -> list[str]:
    """The diagnosed ``keys`` first, then the ``general`` advice not among them in a random
    order, ``suggestions`` in all."""
    rest = [k for k in general if k not in keys]
    rng.shuffle(rest)
    return [*keys, *rest][:suggestions]


def numbered(lines: Sequence[str]) -> str:
    """``1. ...``, ``2. ...``: the critic's suggestions, one a line."""
    return "\n".join(f"{i}. {line}" for i, line in enumerate(lines, start=1))


class ConcessionPlayer(TextReplyModel):
    """The private values every time-dependent concession player draws (a simulator, not a
    language model): its opening and reservation shares, from the ranges its game sets, unless
    ``params`` fix them, and its concession exponent (the strategy's times a lognormal draw);
    after them a paired arm's ``stream_seed`` reseeds its random choices. Each game's player
    subclasses it with its ``scenario`` field, names its game and seats in its class statement
    (``class PieSplitPlayer(ConcessionPlayer, game="pie_split", seats=SEATS)``) and implements
    :meth:`first_opener` and its strategy. The rest is data, read from
    ``prompts/<game>/players/scripted.yaml``: :attr:`BETAS` (``strategies``), :attr:`FAIR` (a
    strategy that asks for and settles at half, drawing nothing), :attr:`OPENING`,
    :attr:`RESERVATION`, :attr:`TUNING`, the params' wording (``params``: :attr:`SHARES`,
    :attr:`SHARE`, :attr:`LABEL`), :attr:`LEXICON` and :attr:`REPLIES`."""

    GAME: ClassVar[str]
    """The game's name: the seed strings of the player's draws, and its ``_llm_type``."""
    SEATS: ClassVar[Seats]
    """The game's seats: the seed strings name a seat by its stream label."""
    OPENING: ClassVar[tuple[float, float]]
    RESERVATION: ClassVar[tuple[float, float]]
    BETAS: ClassVar[Mapping[str, float]]
    FAIR: ClassVar[str | None] = None
    LEXICON: ClassVar[Mapping[str, Sequence[str]]]
    """The feedback phrases the player reacts to, by group (:meth:`lexicon`)."""
    REPLIES: ClassVar[Mapping[str, Sequence[str]]]
    """The player's lines by intent; ``{mine}`` and ``{yours}`` are from the speaker's side."""
    OPENERS: ClassVar[Callable[[Any], Sequence[Turn]]]
    """The game's scripted lines that open every round of a scenario (the class statement's
    ``openers``): :meth:`first_opener` is the first one's text."""
    TUNING: ClassVar[Mapping[str, float]]
    """How feedback moves the player (``firm_factor``, ``close_factor``, ``anchor_shift``, ...:
    each game's strategy reads its own)."""
    SHARES: ClassVar[str]
    """What its ``opening`` and ``reservation`` params are shares of, for the params' errors
    (``shares of the pie between 0 and 1``)."""
    LABEL: ClassVar[str | None] = None
    """How the params' errors name the game; None: :attr:`GAME` with hyphens (``pie-split``)."""
    SHARE: ClassVar[str] = "a share"
    """How one such share is named in an out-of-range error (``a share of the pie``)."""

    strategy: str
    """One of :attr:`BETAS` (the ``KIND`` of ``scripted:KIND``)."""
    side: Seat
    seed: int = 0
    stream_seed: int | None = None
    opening: float | None = None
    reservation: float | None = None
    scenario: Any

    _rng: random.Random = PrivateAttr()
    _opening: float = PrivateAttr()
    _reservation: float = PrivateAttr()
    _beta: float = PrivateAttr()
    _first_opener: str = PrivateAttr()

    def __init_subclass__(
        cls,
        *,
        game: str | None = None,
        seats: Seats | None = None,
        openers: Callable[[Any], Sequence[Turn]] | None = None,
        **kwargs: Any,
    ) -> None:
        """A game's player: ``game`` sets :attr:`GAME` and reads the player's data
        (``prompts/<game>/players/scripted.yaml``); ``seats`` sets :attr:`SEATS` and ``openers``
        :attr:`OPENERS`."""
        super().__init_subclass__(**kwargs)
        if seats is not None:
            cls.SEATS = seats
        if openers is not None:
            cls.OPENERS = openers
        if game is None:
            return
        data = scripted_texts(game, "players/scripted.yaml")
        low, high = data["opening"]
        cls.OPENING = (float(low), float(high))
        low, high = data["reservation"]
        cls.RESERVATION = (float(low), float(high))
        cls.GAME = game
        cls.BETAS = {name: float(beta) for name, beta in data["strategies"].items()}
        cls.FAIR = data.get("fair")
        cls.TUNING = {name: float(value) for name, value in data["tuning"].items()}
        params = data["params"]
        cls.SHARES = params["shares"]
        cls.SHARE = params.get("share", "a share")
        cls.LABEL = params.get("label")
        cls.LEXICON = {group: tuple(phrases) for group, phrases in data["lexicon"].items()}
        cls.REPLIES = {intent: tuple(lines) for intent, lines in data["replies"].items()}

    @field_validator("strategy")
    @classmethod
    def _known_strategy(cls, value: str) -> str:
        if value not in cls.BETAS:
            raise ValueError(f"unknown strategy {value!r}; one of {', '.join(cls.BETAS)}")
        return value

    def model_post_init(self, context: Any, /) -> None:
        """Draw this game's private values from the seed."""
        self._rng = random.Random(
            f"{self.GAME}:{self.strategy}:{self.SEATS.stream(self.side)}:{self.seed}"
        )
        if self.strategy == self.FAIR:
            self._opening = self._reservation = 0.5
        else:
            drawn_opening = self._rng.uniform(*self.OPENING)
            drawn_reservation = self._rng.uniform(*self.RESERVATION)
            self._opening = self.opening if self.opening is not None else drawn_opening
            self._reservation = (
                self.reservation if self.reservation is not None else drawn_reservation
            )
        self._beta = self.BETAS[self.strategy] * math.exp(self._rng.gauss(0.0, 0.2))
        check_reservation(self._reservation, self._opening)
        if self.stream_seed is not None:  # same private values, random choices of its own
            self._rng = random.Random(
                f"{self.GAME}:{self.SEATS.stream(self.side)}:stream:{self.stream_seed}"
            )
        self._first_opener = self.first_opener()

    @classmethod
    def from_request(cls: type[PlayerT], request: SimulatorRequest) -> PlayerT:
        """``scripted:<strategy>`` for the seat ``request.side``, its ``params`` checked
        (:func:`check_share_params`)."""
        check_share_params(
            request,
            cls.BETAS,
            game=cls.LABEL or cls.GAME.replace("_", "-"),
            shares=cls.SHARES,
            share=cls.SHARE,
        )
        return cls(
            strategy=request.name,
            side=request.side,
            scenario=request.scenario,
            seed=request.seed,
            stream_seed=request.stream_seed,
            **request.params,
        )

    def first_opener(self) -> str:
        """The text of the round's first opening line (where a round starts in the history): the
        first of :attr:`OPENERS` of the scenario."""
        return type(self).OPENERS(self.scenario)[0]["text"]

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """The next line of this player given the conversation it sees (the line of
        :meth:`respond_move`)."""
        return self.respond_move(messages)[0]

    def respond_move(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        """The next line and the binding move it makes (``moves: structured``): the
        acknowledgement of feedback (:data:`ACKNOWLEDGEMENT`, no move) after a round, else the
        strategy's line (:meth:`play`)."""
        if is_round_over(messages):
            return ACKNOWLEDGEMENT, None
        return self.play(messages)

    def play(self, messages: Sequence[BaseMessage]) -> tuple[str, dict[str, Any] | None]:
        """The strategy's next line of the round and the binding move it makes (``moves:
        structured``): an opening, held or countered offer offers it, an acceptance accepts,
        walking away walks away."""
        raise NotImplementedError

    def say(
        self,
        intent: str,
        values: Mapping[str, object],
        remind: str | None = None,
        **remind_values: object,
    ) -> str:
        """One of the player's lines for ``intent`` (:attr:`REPLIES`), filled in with ``values``;
        before a counter-offer or a held offer, with ``remind`` (a key of :attr:`REPLIES`) one
        of those lines first, filled in with ``remind_values``."""
        text = self._rng.choice(self.REPLIES[intent]).format_map(values)
        if remind is not None and intent in ("counter", "hold"):
            text = f"{self._rng.choice(self.REPLIES[remind]).format_map(remind_values)} {text}"
        return text

    def pace(self, view: RoundView[Any]) -> Pace:
        """Where the player stands in the round of ``view`` (of its scenario's
        ``max_exchanges`` pairs of lines)."""
        return view.pace(self.scenario.max_exchanges)

    def aims(self, opening: float, reservation: float, lexicon: Mapping[str, int]) -> Aims:
        """The round's aims: ``opening`` and ``reservation`` as the game's feedback moved them,
        and the concession exponent after the feedback (:meth:`adapted_beta`)."""
        return Aims(opening, reservation, self.adapted_beta(lexicon))

    def adapted_beta(self, lexicon: Mapping[str, int]) -> float:
        """The concession exponent after the feedback so far: times ``firm_factor`` for each
        mention of the ``firm`` group, times ``close_factor`` for each of ``close``."""
        firm, close = self.TUNING["firm_factor"], self.TUNING["close_factor"]
        return float(self._beta * firm ** lexicon["firm"] * close ** lexicon["close"])

    def lexicon(self, feedback: Sequence[str]) -> dict[str, int]:
        """How often each group of :attr:`LEXICON` is mentioned over all ``feedback`` turns."""
        return count_lexicon(feedback, self.LEXICON)

    @property
    def _llm_type(self) -> str:
        return f"scripted-{self.GAME.replace('_', '-')}-{self.strategy}"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"strategy": self.strategy, "side": self.side, "seed": self.seed}
