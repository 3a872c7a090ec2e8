"""Experiment configuration: pydantic models, YAML loading and ``--set`` overrides.

Every model forbids unknown keys, so a typo in a YAML file fails with the file, the field and the
allowed values instead of being silently ignored.
"""

from __future__ import annotations

import math
import typing
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializeAsAny,
    SerializerFunctionWrapHandler,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_serializer,
    model_validator,
)

from icl_aif.core.errors import UsageError
from icl_aif.core.redaction import public_settings
from icl_aif.core.transcript import Seat, Seats

DEFAULT_GAME = "price"
"""The game of a config that names none: single-item price bargaining (seed 002)."""
PLAYER_DEFAULT = "scripted:linear"
"""The model of a seat the config's ``roles`` does not name."""
NON_SEAT_ROLES = ("critic", "moderator")
"""The roles besides the game's two seats."""
Anchor = Literal["previous", "first", "best"]
Acknowledgement = Literal["scripted", "generated"]
ModeratorMode = Literal["rules", "llm", "hybrid"]
ContextMode = Literal["all", "last_rounds", "feedback_only"]
MovesMode = Literal["text", "structured"]
CacheMode = Literal["read_write", "read_only"]
CriticConstraint = Literal["no_price", "build_on_last", "generic", "one_item"]
CRITIC_CONSTRAINTS: tuple[CriticConstraint, ...] = typing.get_args(CriticConstraint)


class _Strict(BaseModel):
    # allow_inf_nan=False: .inf or .nan in a YAML file is an error, never a number to play with
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Opener(_Strict):
    """One scripted line that opens every round; the game names the placeholders that expand
    (the price game's: ``{item}``, ``{list_price}``, ``{buyer_open}``)."""

    speaker: Seat
    text: str


class Scenario(_Strict):
    """What every game's scenario holds: the exchange cap, the reply limit and the openers.

    A game's scenario schema (``scenario:`` under ``game: NAME``) subclasses it with the game's
    own values, every one with a default (see :mod:`icl_aif.games`).
    """

    max_exchanges: int = Field(
        10,
        ge=2,
        le=100,
        description="Pairs of lines (one from each seat) per round, openers included; then the round is truncated.",
    )
    max_reply_chars: int | None = Field(
        2000,
        ge=1,
        description="Characters of a player's reply that reach the table; the rest is cut "
        "(the full reply stays in calls.jsonl). null: no limit.",
    )
    openers: tuple[Opener, ...] = ()

    @model_validator(mode="after")
    def _check_room(self) -> Scenario:
        if not self.openers:
            raise ValueError("openers must hold at least one line")
        if 2 * self.max_exchanges <= len(self.openers):
            raise ValueError("max_exchanges leaves no room after the openers")
        return self


class ModelSettings(_Strict):
    """The settings of one model, shared by every role's config: ``provider:model`` and its
    parameters. Unset decoding parameters take the provider's defaults."""

    model: str | None = Field(None, description="provider:model")
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, gt=0)
    top_p: float | None = Field(None, gt=0, le=1)
    seed: int | None = Field(None, description="Sampling seed sent to backends that accept one.")
    timeout: float = Field(60.0, gt=0, description="Seconds before one request is abandoned.")
    base_url: str | None = Field(
        None, description="Another endpoint, e.g. an OpenAI-compatible server."
    )
    params: dict[str, Any] = Field(default_factory=dict, description="Provider-specific arguments.")


class RoleConfig(ModelSettings):
    """The model behind one role, as ``provider:model``, and its parameters.

    Unset decoding parameters take the provider's defaults (temperature: the paper's per-vendor
    values; max_tokens: 512, as in the paper's code).
    """

    model: str


class ModeratorConfig(ModelSettings):
    """How rounds are judged after every line, from the last ``window`` turns.

    ``rules``: keyword-and-price rules, no model. ``llm``: a few-shot model (``model``, any
    provider) reads every window. ``hybrid``: the rules decide when they are confident and the model
    is asked only about ambiguous windows (see ``docs/moderator.md``). Decoding settings work as
    for the other roles; the temperature defaults to 0.
    """

    model: str | None = Field(None, description="provider:model; required by llm and hybrid.")
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int = Field(200, gt=0, description="Reply budget of one moderator call.")
    mode: ModeratorMode = "rules"
    window: int = Field(4, ge=1, le=20)
    examples: Path | None = Field(
        None,
        description="Few-shot examples, JSONL (default: prompts/price/moderator/examples.jsonl).",
    )

    @model_validator(mode="after")
    def _check_model(self) -> ModeratorConfig:
        if self.mode != "rules" and not self.model:
            raise ValueError(f"mode {self.mode} needs a model (provider:model), e.g. local:")
        return self

    @property
    def uses_model(self) -> bool:
        """True when this moderator may call a model (modes llm and hybrid)."""
        return self.mode != "rules"

    def role_config(self) -> RoleConfig:
        """The model settings as a :class:`RoleConfig`, to build the model like any role's."""
        if not self.model:
            raise UsageError("roles.moderator.model is not set")
        return RoleConfig.model_validate(self.model_dump(include=set(RoleConfig.model_fields)))


class Roles(_Strict):
    """Models per role: one for each of the game's seats (``roles.<seat>``: the price game's
    ``seller`` and ``buyer``, Deal or No Deal's ``alice`` and ``bob``), the critic's and the
    moderator's.

    :class:`ExperimentConfig` checks the seat keys against its game's seats and gives a seat it
    does not name ``scripted:linear``. When ``critic`` is not given it fills it in from the
    improved player (the paper's critic is the improved player's engine): a scripted player gets
    ``scripted:critic``, any other model the same model string and settings.
    """

    model_config = ConfigDict(extra="allow")
    __pydantic_extra__: dict[str, RoleConfig] = Field(init=False)

    critic: RoleConfig = RoleConfig(model="scripted:critic")
    moderator: ModeratorConfig = ModeratorConfig()

    @property
    def players(self) -> dict[Seat, RoleConfig]:
        """The seats' settings, by seat id, in the order the game lists its seats."""
        return dict(self.__pydantic_extra__ or {})

    def seat(self, seat: Seat) -> RoleConfig:
        """``roles.<seat>``."""
        return self.players[seat]

    def of(self, role: str) -> RoleConfig | ModeratorConfig:
        """The settings of ``role``: a seat, ``critic`` or ``moderator``."""
        if role == "critic":
            return self.critic
        if role == "moderator":
            return self.moderator
        return self.seat(role)

    @model_serializer(mode="wrap")
    def _seats_first(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        seats = [k for k in (self.__pydantic_extra__ or {}) if k in data]
        return {**{k: data[k] for k in seats}, **{k: v for k, v in data.items() if k not in seats}}


class FeedbackConfig(_Strict):
    """Where the improved player's feedback comes from between rounds."""

    source: str = Field(
        "ai",
        description="ai (the critic model), human (a person types it at the terminal), "
        "human_pool, constant, none, or a source another package registers.",
    )
    suggestions: int = Field(3, ge=1, le=10, description="Suggestions per feedback.")
    constraints: tuple[CriticConstraint, ...] = Field(
        CRITIC_CONSTRAINTS,
        description="The critic's constraints that are on (texts in prompts/price/critic/constraints.txt).",
    )
    pool: Path | None = Field(
        None, description="Human pool file (one suggestion a line); default: the shipped pool."
    )
    constant: str = "Play again and try to do better than last time."

    @field_validator("source")
    @classmethod
    def _check_source(cls, value: str, info: ValidationInfo) -> str:
        problem = checks_of(info).source_problem(value, arm=False)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("constant")
    @classmethod
    def _check_constant(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("write the line that source constant gives, or choose source none")
        return value


class MetricsConfig(_Strict):
    """How outcomes become statistics (see docs/experiments.md)."""

    no_deal_value: float | None = Field(
        None,
        description="What a round without an agreement scores in the unconditional score, in "
        "the units of the game's per-round figure; none: the game's value for the improved seat "
        "(the price game's: what the item is worth to the seat without a sale).",
    )
    bootstrap_seed: int | None = Field(
        None, description="Seed of every bootstrap and permutation test; none: the experiment seed."
    )


class CacheConfig(_Strict):
    """The response cache (``cache:``; off without it): every model call of a game is keyed on
    the model, the exact messages, the role's decoding settings and the game's replicate identity
    (:mod:`icl_aif.models.cache`), so a resumed or repeated run reuses the calls it already paid for."""

    path: Path = Field(
        description="The cache file (JSON lines, made on the first stored call); a relative "
        "path is from the working directory, recorded absolute."
    )
    mode: CacheMode = Field(
        "read_write",
        description="read_write: use hits, store every new reply at once; read_only: use hits, "
        "store nothing.",
    )

    @field_validator("path")
    @classmethod
    def _check_path(cls, value: Path) -> Path:
        if not str(value).strip():
            raise ValueError("name the cache file")
        value = value.expanduser()
        if value.is_dir():
            raise ValueError(f"{value} is a directory: name a file, e.g. {value / 'cache.jsonl'}")
        return value.absolute()  # workers and resumes find it from any working directory


class RetryConfig(_Strict):
    """Retries of retryable model failures (429, 5xx, timeouts, dropped connections)."""

    attempts: int = Field(6, ge=1, le=50, description="Tries per call, the first one included.")
    initial_wait: float = Field(1.0, ge=0, description="Seconds before the first retry.")
    max_wait: float = Field(60.0, ge=0, description="Longest wait between tries.")


class RateLimit(_Strict):
    """One provider's limits, shared by every game of the process (see :mod:`icl_aif.models.limits`)."""

    requests_per_minute: int | None = Field(None, gt=0)
    tokens_per_minute: int | None = Field(
        None, gt=0, description="Estimated tokens: prompt characters / 4 plus max_tokens."
    )


class Price(_Strict):
    """List price of a model in USD per million tokens (see :mod:`icl_aif.models.pricing`)."""

    input: float = Field(ge=0, description="Uncached input tokens.")
    output: float = Field(ge=0, description="Output tokens.")
    cached_input: float | None = Field(
        None, ge=0, description="Cached input tokens (cache reads); none: the input price."
    )


ModelCheck = Callable[[str], str | None]
"""Why a ``provider:model`` string (or a provider name) is not usable, or None."""


class GameTraits(Protocol):
    """What the config needs to know about a game (see :class:`icl_aif.games.base.Game`)."""

    @property
    def name(self) -> str: ...

    @property
    def scenario_model(self) -> type[Scenario]: ...

    @property
    def judges(self) -> tuple[ModeratorMode, ...]: ...

    @property
    def seats(self) -> Seats: ...

    def no_deal_value(self, scenario: Any, side: Seat) -> float: ...


class _ScenarioInvalid(ValueError):
    """A scenario the game's schema refused; :func:`_describe` reports its first problem."""

    def __init__(self, exc: ValidationError, model: type[BaseModel]) -> None:
        super().__init__(str(exc))
        self.exc = exc
        self.model = model


class SourceTraits(Protocol):
    """What the config needs to know about a feedback source (see
    :class:`icl_aif.engine.feedback.registry.FeedbackSource`)."""

    @property
    def needs_person(self) -> bool: ...

    @property
    def may_be_arm(self) -> bool: ...

    @property
    def calls_critic(self) -> bool: ...


class SourceProblem(Protocol):
    def __call__(self, name: str, *, arm: bool) -> str | None: ...


@dataclass(frozen=True)
class ConfigChecks:
    """What validating a config asks of the layers above this module, passed where configs are
    validated (pydantic's validation context, ``{"checks": ...}``; :mod:`icl_aif.engine.configs` holds
    the package's): the games (``find_game`` a game by name, ``game_problem`` why a name is not
    one), the model layer's checks of ``provider:model`` strings and provider names, and the
    feedback sources (``find_source``, ``source_problem``). A validated config keeps its checks
    (:attr:`ExperimentConfig.checks`) for its game's traits and its sweep's cells."""

    find_game: Callable[[str], GameTraits | None]
    game_problem: Callable[[str], str | None]
    model_string: ModelCheck
    provider: ModelCheck
    find_source: Callable[[str], SourceTraits | None]
    source_problem: SourceProblem

    def game(self, name: str) -> GameTraits:
        """The game called ``name``; a ValueError saying why for an unknown one."""
        found = self.find_game(name)
        if found is None:
            raise ValueError(self.game_problem(name) or f"unknown game {name!r}")
        return found

    def source(self, name: str) -> SourceTraits:
        """The feedback source called ``name``; a ValueError saying why for an unknown one."""
        found = self.find_source(name)
        if found is None:
            raise ValueError(self.source_problem(name, arm=False) or f"unknown source {name!r}")
        return found

    def with_game(self, game: GameTraits) -> ConfigChecks:
        """These checks, with ``game`` found by its name (a game not in the registry: the
        conformance check's)."""
        find, problem = self.find_game, self.game_problem

        def find_game(name: str) -> GameTraits | None:
            return game if name == game.name else find(name)

        def game_problem(name: str) -> str | None:
            return None if name == game.name else problem(name)

        return replace(self, find_game=find_game, game_problem=game_problem)


def checks_of(info: ValidationInfo) -> ConfigChecks:
    """The checks a validation was given (``context={"checks": ...}``)."""
    context = info.context if isinstance(info.context, dict) else {}
    checks = context.get("checks")
    if not isinstance(checks, ConfigChecks):
        raise ValueError(
            "a config is validated with its checks: load it with icl_aif.engine.configs (load_config, "
            "config_from_dict), or pass context={'checks': ...}"
        )
    return checks


def _check_arm_name(name: str, info: ValidationInfo) -> str:
    problem = checks_of(info).source_problem(name, arm=True)
    if problem:
        raise ValueError(problem)
    return name


ArmName = Annotated[str, AfterValidator(_check_arm_name)]
"""A feedback arm: any registered feedback source but one that needs a person at the terminal."""


class ExperimentConfig(_Strict):
    """One experiment: a scenario, models per role, and the ICL-AIF protocol settings."""

    name: str = Field("experiment", pattern=r"^[A-Za-z0-9_.-]+$")
    seed: int = 0
    runs: int = Field(200, ge=1)
    rounds: int = Field(5, ge=1, le=50)
    concurrency: int = Field(16, ge=1, le=10_000)
    improve: Seat = Field(
        "",
        description="The improved seat, one of the game's seats (default: its first seat); a "
        "list of both sweeps the improved seat.",
    )
    improved_model: str | None = Field(
        None,
        description="The improved seat's model (provider:model), set over roles.<improve>.model: "
        "with a list of models and a list of both seats for improve, a sweep varies the improved "
        "model on both seats.",
    )
    anchor: Anchor = "previous"
    acknowledgement: Acknowledgement = "scripted"
    context: ContextMode = Field(
        "all",
        description="What the improved player carries from past rounds: all of them, the "
        "last_rounds most recent ones, or only the feedback turns.",
    )
    last_rounds: int = Field(1, ge=1, le=50, description="Rounds kept with context: last_rounds.")
    person: Seat | None = Field(
        None, description="The seat a person plays at the terminal (icl-aif play --as)."
    )
    move_retries: int = Field(
        2,
        ge=0,
        le=10,
        description="Times a player whose line the game refuses as an invalid move is asked "
        "again (with the game's message); one more invalid line ends the round (no_deal, reason "
        "invalid_moves). Games without move rules accept every line.",
    )
    moves: MovesMode = Field(
        "text",
        description="text: the moderator reads the talk and decides the round (the paper's "
        "protocol); structured: every turn also makes a binding move (talk, offer, accept, "
        "reject, walk_away) through the model's tool calling or JSON output, the moves decide "
        "the round and the moderator's reading is a cross-check (docs/protocol.md).",
    )
    rival_persona: str | None = Field(
        None,
        description="A persona the rival plays (prompts/personas/NAME.txt, added to its brief): "
        "a name, random (one drawn per game from the game's seed), or none.",
    )
    countdown: bool = Field(
        False,
        description="Tell every player how many exchanges are left before each of its lines "
        "(seed 003).",
    )
    last_turn_accept: bool = Field(
        False,
        description="Tell every player to accept the standing offer on its last line rather than "
        "end without a deal (seed 003).",
    )
    game: str = Field(
        DEFAULT_GAME,
        description="The bargaining game (icl-aif games lists them); it picks the schema of "
        "scenario.",
    )
    scenario: SerializeAsAny[Scenario] = Field(
        default_factory=Scenario,  # the game's default scenario: filled in before validation
        description="The game's scenario: its values, the exchange cap and the openers.",
    )
    roles: Roles = Roles()
    feedback: FeedbackConfig = FeedbackConfig()
    retry: RetryConfig = RetryConfig()
    rate_limits: dict[str, RateLimit] = Field(
        default_factory=dict, description="Limits per provider name, e.g. openai."
    )
    prices: dict[str, Price] = Field(
        default_factory=dict,
        description="USD per million tokens per provider:model string; extends the shipped table.",
    )
    cache: CacheConfig | None = Field(
        None, description="Response cache (path, mode); none: every call goes to its model."
    )
    max_usd: float | None = Field(
        None, gt=0, description="Start no new run once the recorded cost reaches this many USD."
    )
    metrics: MetricsConfig = MetricsConfig()
    arms: tuple[ArmName, ...] | None = Field(
        None,
        description="Paired feedback arms: every run plays rounds 1..branch_after once, then "
        "goes on to `rounds` once per arm, from the identical state, with that feedback source.",
    )
    branch_after: int = Field(1, ge=1, le=49, description="Rounds shared by every arm.")
    sweep: dict[str, tuple[Any, ...]] = Field(
        default_factory=dict,
        exclude=True,
        description="Sweep axes, path -> values, taken from lists in the config (not a YAML key).",
    )
    sweep_base: dict[str, Any] = Field(
        default_factory=dict,
        exclude=True,
        description="The settings as given, each list replaced by its first value (not a YAML key).",
    )

    _checks: ConfigChecks = PrivateAttr()
    _game: GameTraits = PrivateAttr()

    @field_validator("game")
    @classmethod
    def _check_game(cls, value: str, info: ValidationInfo) -> str:
        problem = checks_of(info).game_problem(value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("scenario", mode="before")
    @classmethod
    def _game_scenario(cls, value: Any, info: ValidationInfo) -> Any:
        """``scenario:`` read with the schema of the game that ``game:`` names."""
        name = info.data.get("game")
        if name is None:  # game: failed its own check, which reports it
            return value
        model = checks_of(info).game(name).scenario_model
        if isinstance(value, model):
            return value
        if isinstance(value, Scenario):
            raise ValueError(f"a {type(value).__name__} is not a scenario of game {name!r}")
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            raise _ScenarioInvalid(exc, model) from None

    @model_validator(mode="after")
    def _keep_checks(self, info: ValidationInfo) -> ExperimentConfig:
        """The checks stay with the config, and the game they found: its seats and traits, its
        sweep's cells."""
        self._checks = checks_of(info)
        self._game = self._checks.game(self.game)
        return self

    @model_validator(mode="after")
    def _check_opener_seats(self) -> ExperimentConfig:
        """Every opener is said by one of the game's seats."""
        seats = self.seats
        for number, opener in enumerate(self.scenario.openers, start=1):
            if opener.speaker not in seats:
                raise ValueError(
                    f"scenario.openers[{number}].speaker: {opener.speaker!r} is not a seat of "
                    f"game {self.game!r}; allowed values: {seats.listed()}"
                )
        return self

    @model_validator(mode="after")
    def _check_judge(self) -> ExperimentConfig:
        judges = self.game_traits.judges
        if self.roles.moderator.mode not in judges:
            raise ValueError(
                f"roles.moderator.mode: game {self.game!r} has no {self.roles.moderator.mode} "
                f"judge; allowed values: {', '.join(judges)}"
            )
        return self

    @model_validator(mode="before")
    @classmethod
    def _default_critic(cls, data: Any, info: ValidationInfo) -> Any:
        """The game's seats and default scenario; without ``roles.critic``, the critic takes the
        improved player's model (see Roles)."""
        if not isinstance(data, dict):
            return data
        if "sweep" in data or "sweep_base" in data:
            raise ValueError("sweep is not a config key: write a list of values in place")
        name = data.get("game", DEFAULT_GAME)
        game = checks_of(info).find_game(name) if isinstance(name, str) else None
        if game is None:  # game: fails its own check, which reports it
            return data
        seats = game.seats
        if "scenario" not in data:
            data = {**data, "scenario": game.scenario_model()}
        data = _with_seats(data, seats)
        # lists at sweepable paths: the first value is the base
        axes, base = sweep_axes(data, seats)
        if axes:
            data = {**base, "sweep": axes, "sweep_base": base}
        data = _with_improved_model(data)
        improve = data.get("improve")
        roles = data.get("roles")
        if improve not in seats or not isinstance(roles, dict | Roles | None):
            return data
        if isinstance(roles, Roles):
            if "critic" in roles.model_fields_set:
                return data
            player: Any = roles.seat(improve)
        else:
            if roles is not None and roles.get("critic") is not None:  # critic: null is unset
                return data
            player = (roles or {}).get(improve)
        critic = critic_for(player)
        if critic is None:
            return data
        if isinstance(roles, Roles):
            roles = roles.model_copy(update={"critic": RoleConfig.model_validate(critic)})
        else:
            roles = {**(roles or {}), "critic": critic}
        return {**data, "roles": roles}

    @model_validator(mode="after")
    def _check_model_strings(self) -> ExperimentConfig:
        """Every role's ``provider:model`` names a known provider and a model id (at load time,
        not after a preflight request)."""
        roles = self.roles
        check = self._checks.model_string
        for role, spec in (
            *((seat, settings.model) for seat, settings in roles.players.items()),
            ("critic", roles.critic.model),
            ("moderator", roles.moderator.model),
        ):
            problem = check(spec) if spec is not None else None
            if problem:
                raise ValueError(f"roles.{role}.model: {problem}")
        return self

    @model_validator(mode="after")
    def _check_person(self) -> ExperimentConfig:
        if (
            self.person is not None
            and self.person == self.improve
            and self.acknowledgement == "generated"
        ):
            raise ValueError(
                "acknowledgement: generated needs a model for the improved side, and a person "
                "plays it; use acknowledgement: scripted"
            )
        return self

    @model_validator(mode="after")
    def _check_arms(self) -> ExperimentConfig:
        if self.arms is None:
            return self
        if not self.arms:
            raise ValueError("arms: name at least one feedback source, e.g. [ai, none]")
        if len(set(self.arms)) != len(self.arms):
            raise ValueError(f"arms: {list(self.arms)} names a source twice")
        if self.branch_after >= self.rounds:
            raise ValueError(
                f"branch_after {self.branch_after} leaves no round for the arms: "
                f"set rounds above {self.branch_after}"
            )
        if self.needs_person:
            raise ValueError(
                "arms: not with a person at the terminal (person, feedback.source human)"
            )
        return self

    @model_validator(mode="after")
    def _check_cells(self) -> ExperimentConfig:
        """Every cell of a sweep must be a valid experiment: checked once, at load."""
        for settings in sweep_settings(self.sweep)[1:]:
            try:
                self.cell_config(settings)
            except ValidationError as exc:
                shown = ", ".join(f"{k}={v}" for k, v in settings.items())
                raise ValueError(f"sweep cell {shown}: {_describe(exc)}") from None
        return self

    @field_validator("rate_limits")
    @classmethod
    def _check_rate_limit_providers(
        cls, value: dict[str, RateLimit], info: ValidationInfo
    ) -> dict[str, RateLimit]:
        for name in value:
            problem = checks_of(info).provider(name)
            if problem:
                raise ValueError(problem)
        return value

    @field_validator("prices")
    @classmethod
    def _check_price_models(cls, value: dict[str, Price], info: ValidationInfo) -> dict[str, Price]:
        for spec in value:
            provider, sep, name = spec.partition(":")
            if not sep or not provider or not name:
                raise ValueError(f"{spec!r} is not a provider:model string")
            problem = checks_of(info).provider(provider)
            if problem:
                raise ValueError(f"{spec!r}: {problem}")
        return value

    @property
    def checks(self) -> ConfigChecks:
        """The checks the config was validated with."""
        return self._checks

    @property
    def game_traits(self) -> GameTraits:
        """The config's game, as its checks found it when it was validated (the game object:
        :func:`icl_aif.games.registry.game_of`); a copy given another ``game``
        (``model_copy(update=...)``) finds that one with the same checks."""
        if self._game.name != self.game:
            self._game = self._checks.game(self.game)
        return self._game

    @property
    def seats(self) -> Seats:
        """The seats of the config's game."""
        return self.game_traits.seats

    @property
    def rival(self) -> Seat:
        """The player that is not improved."""
        return self.seats.other(self.improve)

    @property
    def needs_person(self) -> bool:
        """True when a game pauses for a person: a source that needs one (human feedback), or a
        side a person plays."""
        return self.feedback_needs_person or self.person is not None

    @property
    def feedback_needs_person(self) -> bool:
        """True when ``feedback.source`` pauses the game for a person (``human``)."""
        return self._checks.source(self.feedback.source).needs_person

    def sources(self) -> tuple[str, ...]:
        """The feedback sources a game of this experiment may use: ``feedback.source`` (the
        shared rounds' with arms), then the arms."""
        return tuple(dict.fromkeys((self.feedback.source, *(self.arms or ()))))

    def calls_critic(self, *, arms: bool = False) -> bool:
        """True when ``feedback.source`` (with ``arms``: or an arm) calls the critic model."""
        names = self.sources() if arms else (self.feedback.source,)
        return any(self._checks.source(name).calls_critic for name in names)

    @property
    def no_deal_value(self) -> float:
        """What a round without an agreement scores: ``metrics.no_deal_value``, else the game's
        value for the improved side (the price game: the seller keeps an item worth its cost; the
        buyer's budget, else the list price, is the most a buyer would pay)."""
        if self.metrics.no_deal_value is not None:
            return self.metrics.no_deal_value
        return self.game_traits.no_deal_value(self.scenario, self.improve)

    @property
    def bootstrap_seed(self) -> int:
        """The seed of every bootstrap and permutation test: ``metrics.bootstrap_seed`` or ``seed``."""
        return self.metrics.bootstrap_seed if self.metrics.bootstrap_seed is not None else self.seed

    def cells(self) -> list[Cell]:
        """The cells of a sweep (the product of its lists), or one cell without an id."""
        if not self.sweep:
            return [Cell(None, {}, self)]
        combos = sweep_settings(self.sweep)
        width = len(str(len(combos)))
        return [
            Cell(f"c{i:0{width}d}", settings, self.cell_config(settings))
            for i, settings in enumerate(combos, start=1)
        ]

    def cell_config(self, settings: dict[str, Any]) -> ExperimentConfig:
        """This config with one value per sweep axis (a plain config, no sweep)."""
        data = _deep_copy(self.sweep_base)  # as the user wrote it: defaults resolve per cell
        for path, value in settings.items():
            node = data
            parts = path.split(".")
            for part in parts[:-1]:
                node = node.setdefault(part, {})
            node[parts[-1]] = value
        return ExperimentConfig.model_validate(data, context={"checks": self._checks})

    def model_roles(self) -> dict[str, RoleConfig]:
        """The roles whose model this experiment calls: the players a person does not play,
        and the critic for a feedback source that calls it (``ai``)."""
        roles = {
            seat: settings for seat, settings in self.roles.players.items() if seat != self.person
        }
        if self.calls_critic():
            roles["critic"] = self.roles.critic
        return roles


SWEEP_EXCLUDED_SCENARIO = ("openers",)


class Cell(typing.NamedTuple):
    """One cell of a sweep: its id (None for a run without a sweep), settings and config."""

    id: str | None
    settings: dict[str, Any]
    config: ExperimentConfig


def _with_improved_model(data: dict[str, Any]) -> dict[str, Any]:
    """``improved_model`` written into ``roles.<improve>.model`` (settings given there stay)."""
    model, improve = data.get("improved_model"), data.get("improve")
    roles = data.get("roles")
    if not isinstance(model, str) or not isinstance(improve, str):
        return data
    if roles is not None and not isinstance(roles, dict):
        return data
    roles = dict(roles or {})
    side = roles.get(improve)
    roles[improve] = {**(side if isinstance(side, dict) else {}), "model": model}
    return {**data, "roles": roles}


def sweep_axes(
    data: dict[str, Any], seats: Seats
) -> tuple[dict[str, tuple[Any, ...]], dict[str, Any]]:
    """The lists at sweepable paths (``roles.<seat or critic>.model``, ``improve``,
    ``improved_model``, ``rival_persona``, ``scenario.<field>`` but openers) and ``data`` with
    each replaced by its first value."""
    axes: dict[str, tuple[Any, ...]] = {}
    base = _deep_copy(data)
    for key in ("improve", "improved_model", "rival_persona"):
        if isinstance(base.get(key), list):
            axes[key] = tuple(base[key])
    roles = base.get("roles")
    if isinstance(roles, dict):
        for role in (*seats, "critic"):
            settings = roles.get(role)
            if isinstance(settings, dict) and isinstance(settings.get("model"), list):
                axes[f"roles.{role}.model"] = tuple(settings["model"])
    scenario = base.get("scenario")
    if isinstance(scenario, dict):
        for key, value in scenario.items():
            if key not in SWEEP_EXCLUDED_SCENARIO and isinstance(value, list):
                axes[f"scenario.{key}"] = tuple(value)
    for path, values in axes.items():
        if not values:
            raise ValueError(f"{path}: an empty list; give at least one value")
        if len(set(map(repr, values))) != len(values):
            raise ValueError(f"{path}: {list(values)} names a value twice")
        node = base
        parts = path.split(".")
        for part in parts[:-1]:
            node = node[part]
        node[parts[-1]] = values[0]
    return axes, base


def sweep_settings(axes: dict[str, tuple[Any, ...]]) -> list[dict[str, Any]]:
    """Every combination of the sweep's values, the first axis varying slowest."""
    combos: list[dict[str, Any]] = [{}]
    for path, values in axes.items():
        combos = [{**c, path: v} for c in combos for v in values]
    return combos


def _with_seats(data: dict[str, Any], seats: Seats) -> dict[str, Any]:
    """``data`` with ``improve`` (default: the first seat), ``person`` and the keys of ``roles``
    checked against the game's ``seats``, and ``roles.<seat>`` for a seat it does not name."""
    game = data.get("game", DEFAULT_GAME)
    improve = data.get("improve", seats.ids[0])
    for value in improve if isinstance(improve, list) else [improve]:
        if value not in seats:
            raise ValueError(
                f"improve: {value!r} is not a seat of game {game!r}; allowed values: "
                f"{seats.listed()}"
            )
    person = data.get("person")
    if person is not None and person not in seats:
        raise ValueError(
            f"person: {person!r} is not a seat of game {game!r}; allowed values: {seats.listed()}"
        )
    roles = data.get("roles")
    if isinstance(roles, Roles):
        return {**data, "improve": improve}
    if roles is not None and not isinstance(roles, dict):
        return {**data, "improve": improve}  # validation says what roles should be
    roles = dict(roles or {})
    for key in roles:
        if key not in seats and key not in NON_SEAT_ROLES:
            raise ValueError(
                f"roles.{key}: game {game!r} has no seat {key!r}; its seats are "
                f"{' and '.join(seats)} (roles takes {', '.join((*seats, *NON_SEAT_ROLES))})"
            )
    players = {seat: roles.get(seat, {"model": PLAYER_DEFAULT}) for seat in seats}
    rest = {k: v for k, v in roles.items() if k in NON_SEAT_ROLES}
    return {**data, "improve": improve, "roles": {**players, **rest}}


def critic_for(player: Any) -> dict[str, Any] | None:
    """The default critic for an improved player's role settings (a mapping or a RoleConfig).

    A scripted player gets ``scripted:critic``; any other model the same model string and
    settings. None when the player's settings are not readable (validation reports them).
    """
    if isinstance(player, RoleConfig):
        player = player.model_dump(exclude_unset=True)
    if not isinstance(player, dict) or not isinstance(player.get("model"), str):
        return None
    if player["model"].startswith("scripted:"):
        return {"model": "scripted:critic"}
    return _deep_copy(player)


def parse_override(item: str) -> tuple[list[str], Any]:
    """``"roles.seller.model=openai:gpt-4o"`` -> (``["roles", "seller", "model"]``, value).

    The value is read as YAML, so numbers, booleans, ``null``, lists and ``{k: v}`` mappings come
    out typed; text that YAML would read as a mapping without braces (``local:``) stays text.
    """
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"--set {item!r}: expected KEY.PATH=VALUE, e.g. --set runs=10")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    if isinstance(value, dict) and not raw.lstrip().startswith("{"):
        value = raw  # "local:" or "a: b" is text; a mapping must be written {key: value}
    return key.strip().split("."), value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Return a copy of ``data`` with every ``--set`` override applied."""
    result: dict[str, Any] = _deep_copy(data)
    for item in overrides:
        path, value = parse_override(item)
        node = result
        for part in path[:-1]:
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            if not isinstance(child, dict):
                raise UsageError(f"--set {item!r}: {part!r} is not a section")
            node = child
        node[path[-1]] = value
    return result


def _deep_copy(data: dict[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, dict) else v for k, v in data.items()}


def config_from_dict(
    data: dict[str, Any], source: str = "config", *, checks: ConfigChecks
) -> ExperimentConfig:
    """Validate ``data`` with ``checks``; a problem becomes one line naming ``source``, the field
    and what is allowed. (:func:`icl_aif.engine.configs.config_from_dict` passes the package's checks.)"""
    try:
        return ExperimentConfig.model_validate(data, context={"checks": checks})
    except ValidationError as exc:
        raise UsageError(f"{source}: {_describe(exc)}") from None


def load_config(
    path: str | Path, overrides: list[str] | None = None, *, checks: ConfigChecks
) -> ExperimentConfig:
    """Read an experiment YAML file, apply ``--set`` overrides and validate it with ``checks``."""
    data = apply_overrides(read_config_data(path), overrides or [])
    return config_from_dict(data, str(path), checks=checks)


def load_offline_config(
    path: str | Path, overrides: list[str] | None = None, *, checks: ConfigChecks
) -> tuple[ExperimentConfig, dict[str, Any]]:
    """:func:`load_config` with every model-backed role on a simulator (:func:`offline_data`);
    also returns what replaced what."""
    data, replaced = offline_data(apply_overrides(read_config_data(path), overrides or []))
    return config_from_dict(data, source=str(path), checks=checks), replaced


def offline_line(
    original: dict[str, Any], replaced: dict[str, Any], config: ExperimentConfig
) -> str:
    """What ``--offline`` did, in one line: each path's models and the simulator that replaced
    them, and the sweep's cells kept (values that became one simulator are played once).
    ``original`` is the config's data before :func:`offline_data`, ``replaced`` its map."""
    if not replaced:
        return "--offline: every role already runs offline; nothing replaced"
    parts = []
    for path, mapping in replaced.items():
        by_new: dict[str, list[str]] = {}
        for old, new in mapping.items():
            by_new.setdefault(str(new), []).append(str(old))
        parts += [f"{path} {', '.join(olds)} -> {new}" for new, olds in by_new.items()]
    try:
        axes, _ = sweep_axes(original, config.seats)
    except ValueError:  # a bad sweep is reported by the config's own checks
        axes = {}
    before = math.prod(len(values) for values in axes.values())
    after = len(config.cells())
    if before > 1:
        kept = f"{after} of {before} cells kept"
        if after < before:
            merged = [path for path in axes if path in replaced]
            kept += f" (the values of {', '.join(merged)} that became one simulator play once)"
        parts.append(kept)
    return f"--offline: {'; '.join(parts)}"


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a key written twice in one mapping is an error (plain
    YAML keeps the last one silently)."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)  # merge keys (<<) resolve as usual
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        line = key_node.start_mark.line + 1
        try:
            if key in seen:
                raise _DuplicateKeyError(key, seen[key], line)
            seen[key] = line
        except TypeError:  # an unhashable key: construct_mapping reports it
            continue
    return loader.construct_mapping(node)


class _DuplicateKeyError(yaml.YAMLError):
    def __init__(self, key: Any, first: int, again: int) -> None:
        super().__init__(f"key {key!r} is written twice (lines {first} and {again})")
        self.line = again


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _unique_mapping,
)


def read_config_data(path: str | Path) -> dict[str, Any]:
    """The raw mapping of an experiment YAML file, or a one-line error (also for an empty file
    and for a key written twice)."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"{path}: no such config file")
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except _DuplicateKeyError as exc:
        raise UsageError(f"{path}: line {exc.line}: {exc}; keep one") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise UsageError(f"{path}:{where} is not valid YAML") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a UTF-8 text file") from None
    if data is None:
        raise UsageError(
            f"{path}: the file is empty; write the experiment's settings (e.g. name: and runs:), "
            "or start from experiments/quickstart.yaml"
        )
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping of settings at the top level")
    return data


def config_to_yaml(config: ExperimentConfig) -> str:
    """The resolved config as YAML (paths as strings), as written into every run directory.

    A sweep's lists are written back at their paths, so the file loads as the same sweep.
    Credentials are written as ``[redacted]`` (:func:`icl_aif.core.redaction.public_settings`: a
    URL's userinfo, a ``params`` entry named like a key or a header); a resume asks for them.
    """
    data = public_settings(config.model_dump(mode="json"))
    roles_given = config.sweep_base.get("roles") or {}
    if config.sweep and isinstance(roles_given, dict) and roles_given.get("critic") is None:
        data["roles"].pop("critic")  # each cell's critic follows its improved player
    for path, values in config.sweep.items():
        node = data
        parts = path.split(".")
        for part in parts[:-1]:
            node = node[part]
        node[parts[-1]] = list(values)
    if config.arms is None:  # a run without arms writes the file it always wrote
        data.pop("arms")
        data.pop("branch_after")
    if data.get("improved_model") is None:
        data.pop("improved_model")
    if data.get("cache") is None:  # a run without a cache writes the file it always wrote
        data.pop("cache")
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


KEPT_OFFLINE = ("scripted", "replay")
"""The providers an offline run keeps: they call no model."""
STAND_INS: dict[str, str] = {"critic": "scripted:critic", "moderator": "rules"}
"""What stands in offline (``--offline``, ``icl-aif estimate``) for a role whose model would be
called: the scripted critic for the critic, the rules for a model-backed moderator (its calls
are not counted), :data:`PLAYER_DEFAULT` for a seat (:func:`stand_in`)."""


def stand_in(role: str) -> str:
    """The simulator (or, for the moderator, the mode) that stands in offline for ``role``."""
    return STAND_INS.get(role, PLAYER_DEFAULT)


def offline_data(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``data`` with every role that would call a model (vendor or ``local:``) on a simulator.

    Players become ``scripted:linear``, the critic ``scripted:critic`` and a model-backed
    moderator the rules (``scripted:`` and ``replay:`` stay). Sweep lists are mapped value by
    value. Returns the new data and what replaced what: ``{path: {old: new}}``.
    """
    result = _deep_copy(data)
    replaced: dict[str, Any] = {}
    improved = result.get("improved_model")
    if improved is not None:
        values = improved if isinstance(improved, list) else [improved]
        mapping = {
            str(m): PLAYER_DEFAULT for m in values if str(m).partition(":")[0] not in KEPT_OFFLINE
        }
        if mapping:
            replaced["improved_model"] = mapping
            new = list(dict.fromkeys(mapping.get(str(m), m) for m in values))
            result["improved_model"] = (
                new if isinstance(improved, list) and len(new) > 1 else new[0]
            )
    roles = result.get("roles")
    if not isinstance(roles, dict):
        return result, replaced
    for role in [*(r for r in roles if r not in NON_SEAT_ROLES), "critic"]:
        settings = roles.get(role)
        if not isinstance(settings, dict):
            continue
        models = settings.get("model")
        values = models if isinstance(models, list) else [models]
        mapping = {
            str(m): stand_in(role)
            for m in values
            if isinstance(m, str) and m.partition(":")[0] not in KEPT_OFFLINE
        }
        if not mapping:
            continue
        replaced[f"roles.{role}.model"] = mapping
        new = [mapping.get(str(m), m) for m in values]
        if isinstance(models, list):
            deduped = list(dict.fromkeys(new))
            roles[role] = {"model": deduped if len(deduped) > 1 else deduped[0]}
        else:
            roles[role] = {"model": new[0]}
    moderator = roles.get("moderator")
    rules = stand_in("moderator")
    if isinstance(moderator, dict) and moderator.get("mode", rules) != rules:
        replaced["roles.moderator.mode"] = {str(moderator["mode"]): rules}
        roles["moderator"] = {"mode": rules, "window": moderator.get("window", 4)}
    if replaced:
        result["rate_limits"] = {}
    return result, replaced


def _describe(
    exc: ValidationError, prefix: tuple[Any, ...] = (), root: type[BaseModel] | None = None
) -> str:
    """The first validation error as ``field: problem (allowed: ...)``; a scenario the game's
    schema refused is described inside that schema (``prefix``, ``root``)."""
    error = exc.errors()[0]
    inner = error.get("ctx", {}).get("error")
    if isinstance(inner, _ScenarioInvalid):
        return _describe(inner.exc, prefix + tuple(error["loc"]), inner.model)
    loc = prefix + tuple(error["loc"])
    field = ".".join(str(p) for p in loc) or "(top level)"
    kind = error["type"]
    if kind == "extra_forbidden":
        allowed = _allowed_keys(tuple(error["loc"][:-1]), root or ExperimentConfig)
        hint = f"; allowed keys here: {', '.join(allowed)}" if allowed else ""
        return f"unknown field {field!r}{hint}"
    message = error["msg"]
    if kind == "value_error":
        message = str(error.get("ctx", {}).get("error", message))  # without "Value error, "
        if not loc:  # a check across fields: its message alone
            return message
    if kind == "literal_error":
        expected = error.get("ctx", {}).get("expected", "")
        message = f"got {error.get('input')!r}; allowed values: {expected}"
    extra = f" (and {exc.error_count() - 1} more problem(s))" if exc.error_count() > 1 else ""
    return f"field {field!r}: {message}{extra}"


def _allowed_keys(loc: tuple[Any, ...], root: type[BaseModel]) -> list[str]:
    model: Any = root
    for part in loc:
        if typing.get_origin(model) is dict:  # rate_limits.<provider>, prices.<model>
            model = typing.get_args(model)[1]
            continue
        field = getattr(model, "model_fields", {}).get(part)
        if field is None and model is Roles:  # roles.<seat>
            model = RoleConfig
            continue
        if field is None:
            return []
        model = field.annotation
    fields = getattr(model, "model_fields", None)
    return sorted(fields) if fields else []
