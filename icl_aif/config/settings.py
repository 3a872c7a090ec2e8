"""Settings: the parts of an experiment config (scenario, models per role, judge, metrics,
cache, retries, rate limits, prices) as strict pydantic models, and the values they allow."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from icl_aif.core.errors import UsageError
from icl_aif.core.transcript import Seat

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


class StrictModel(BaseModel):
    # allow_inf_nan=False: .inf or .nan in a YAML file is an error, never a number to play with
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class Opener(StrictModel):
    """One scripted line that opens every round; the game names the placeholders that expand
    (the price game's: ``{item}``, ``{list_price}``, ``{buyer_open}``)."""

    speaker: Seat
    text: str


class Scenario(StrictModel):
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


class ModelSettings(StrictModel):
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


class Roles(StrictModel):
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


class MetricsConfig(StrictModel):
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


class CacheConfig(StrictModel):
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


class RetryConfig(StrictModel):
    """Retries of retryable model failures (429, 5xx, timeouts, dropped connections)."""

    attempts: int = Field(6, ge=1, le=50, description="Tries per call, the first one included.")
    initial_wait: float = Field(1.0, ge=0, description="Seconds before the first retry.")
    max_wait: float = Field(60.0, ge=0, description="Longest wait between tries.")


class RateLimit(StrictModel):
    """One provider's limits, shared by every game of the process (see :mod:`icl_aif.models.limits`)."""

    requests_per_minute: int | None = Field(None, gt=0)
    tokens_per_minute: int | None = Field(
        None, gt=0, description="Estimated tokens: prompt characters / 4 plus max_tokens."
    )


class Price(StrictModel):
    """List price of a model in USD per million tokens (see :mod:`icl_aif.models.pricing`)."""

    input: float = Field(ge=0, description="Uncached input tokens.")
    output: float = Field(ge=0, description="Output tokens.")
    cached_input: float | None = Field(
        None, ge=0, description="Cached input tokens (cache reads); none: the input price."
    )
