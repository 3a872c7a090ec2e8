"""The experiment: :class:`ExperimentConfig`, its sweep's cells, and a validation problem told
in one line.

Every model forbids unknown keys, so a typo in a YAML file fails with the file, the field and the
allowed values instead of being silently ignored.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    Field,
    PrivateAttr,
    SerializeAsAny,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from icl_aif.config.checks import ArmName, ConfigChecks, GameTraits, ScenarioInvalid, checks_of
from icl_aif.config.optimize import OptimizeConfig
from icl_aif.config.settings import (
    CRITIC_CONSTRAINTS,
    DEFAULT_GAME,
    NON_SEAT_ROLES,
    PLAYER_DEFAULT,
    Acknowledgement,
    Anchor,
    CacheConfig,
    ContextMode,
    CriticConstraint,
    MetricsConfig,
    MovesMode,
    Price,
    RateLimit,
    RetryConfig,
    RoleConfig,
    Roles,
    Scenario,
    StrictModel,
)
from icl_aif.config.tournament import TournamentConfig
from icl_aif.core.transcript import Seat, Seats

RANDOM_PERSONA = "random"
"""``rival_persona: random``: a persona drawn per game from the game's seed."""


class FeedbackConfig(StrictModel):
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


class ExperimentConfig(StrictModel):
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
    personas: dict[str, str] = Field(
        default_factory=dict,
        description="A persona per seat, by name (prompts/personas/NAME.txt, added to that "
        "seat's brief), for any seat; a tournament's players set theirs here. The rival's may "
        "also be set by rival_persona, not both.",
    )
    optimize: OptimizeConfig | None = Field(
        None,
        description="How icl-aif optimize evolves the improved seat's standing instruction "
        "(docs/optimize.md); icl-aif run ignores it.",
    )
    instructions: dict[str, Path] = Field(
        default_factory=dict,
        description="A standing instruction per seat: a text file (e.g. the best_instruction.txt "
        "icl-aif optimize writes) added to that seat's brief under prompts/clauses/"
        "instruction.txt. A relative path is read from the working directory.",
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
    tournament: TournamentConfig | None = Field(
        None,
        description="Players who meet in both seats: every pairing is a cell of the run "
        "(docs/tournaments.md); icl-aif rank ranks them.",
    )
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
    _instruction_texts: dict[str, str] = PrivateAttr(default_factory=dict)

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
            raise ScenarioInvalid(exc, model) from None

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

    def _check_seat_key(self, key: str, seat: str) -> None:
        """``key.<seat>`` of a per-seat mapping names a seat of the game."""
        if seat not in self.seats:
            raise ValueError(
                f"{key}.{seat}: not a seat of game {self.game!r}; allowed values: "
                f"{self.seats.listed()}"
            )

    @model_validator(mode="after")
    def _check_personas(self) -> ExperimentConfig:
        """``personas`` names the game's seats, and the rival's is set in one place."""
        for seat, name in self.personas.items():
            self._check_seat_key("personas", seat)
            if name == RANDOM_PERSONA:
                raise ValueError(
                    f"personas.{seat}: random is drawn only for the rival: write rival_persona: "
                    "random, or a persona's name here"
                )
        if self.rival_persona is not None and self.rival in self.personas:
            raise ValueError(
                f"personas.{self.rival} and rival_persona both set the rival's persona: keep one"
            )
        return self

    @model_validator(mode="after")
    def _check_instructions(self) -> ExperimentConfig:
        """``instructions`` names the game's seats, each a readable text file with some text."""
        for seat, path in self.instructions.items():
            self._check_seat_key("instructions", seat)
            if not path.is_file():
                raise ValueError(f"instructions.{seat}: {path}: no such file")
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise ValueError(f"instructions.{seat}: {path}: cannot be read ({exc})") from None
            if not text.strip():
                raise ValueError(f"instructions.{seat}: {path} is empty")
            self._instruction_texts[seat] = text.strip()  # read once: the run plays this text
        return self

    def instruction_of(self, seat: str) -> str | None:
        """The standing instruction of ``seat`` (its ``instructions`` file's text, as read when
        the config loaded), or None."""
        return self._instruction_texts.get(seat)

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
        if game is None:  # an unknown game: said here, before its scenario's defaults fail
            problem = checks_of(info).game_problem(str(name))
            if problem:
                raise ValueError(f"game: {problem}")
            return data
        seats = game.seats
        if "scenario" not in data:
            data = {**data, "scenario": game.scenario_model()}
        data = _with_seats(data, seats)
        # lists at sweepable paths: the first value is the base
        axes, base = sweep_axes(data, seats)
        if axes and data.get("tournament") is not None:
            shown = ", ".join(axes)
            raise ValueError(
                f"tournament: not with lists of values ({shown}): a tournament's cells are its "
                "pairings; give one value each"
            )
        if axes:
            data = {**base, "sweep": axes, "sweep_base": base}
        elif data.get("tournament") is not None:
            data = {**data, "sweep_base": {k: v for k, v in base.items() if k != "tournament"}}
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
    def _check_tournament(self) -> ExperimentConfig:
        """Every pairing names a player per seat, and each plays a valid experiment."""
        if self.tournament is None:
            return self
        for players, runs in self._schedule():
            try:
                self.cell_config(self._pairing_settings(players, runs))
            except ValidationError as exc:
                shown = " v ".join(f"{seat} {name}" for seat, name in players.items())
                raise ValueError(f"tournament pairing {shown}: {validation_problem(exc)}") from None
        return self

    def _schedule(self) -> list[tuple[dict[str, str], int]]:
        """A tournament's pairings: the player by seat and the runs of each."""
        assert self.tournament is not None
        return self.tournament.schedule((self.seats.ids[0], self.seats.ids[1]), self.runs)

    def _pairing_settings(self, players: dict[str, str], runs: int) -> dict[str, Any]:
        """The settings of a tournament's pairing cell: each seat's player (its model's settings
        and its persona), and its runs."""
        assert self.tournament is not None
        chosen = {seat: self.tournament.player(name) for seat, name in players.items()}
        settings: dict[str, Any] = {f"roles.{seat}": p.role() for seat, p in chosen.items()}
        personas = {seat: p.persona for seat, p in chosen.items() if p.persona is not None}
        if personas:
            settings["personas"] = personas
        return {**settings, "runs": runs}

    @model_validator(mode="after")
    def _check_cells(self) -> ExperimentConfig:
        """Every cell of a sweep must be a valid experiment: checked once, at load."""
        for settings in sweep_settings(self.sweep)[1:]:
            try:
                self.cell_config(settings)
            except ValidationError as exc:
                shown = ", ".join(f"{k}={v}" for k, v in settings.items())
                raise ValueError(f"sweep cell {shown}: {validation_problem(exc)}") from None
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

    def persona_of(self, seat: str) -> str | None:
        """The persona seat ``seat`` plays (``personas``, or ``rival_persona`` for the rival);
        None for a seat without one and for a role that is not a seat."""
        if seat in self.personas:
            return self.personas[seat]
        return self.rival_persona if seat == self.rival else None

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

    @property
    def has_cells(self) -> bool:
        """Whether the run has cells of its own: a sweep's, or a tournament's pairings."""
        return bool(self.sweep) or self.tournament is not None

    def total_games(self) -> int:
        """The games of every cell (a tournament's pairings may each set their own runs)."""
        return sum(cell.config.runs for cell in self.cells())

    def cells(self) -> list[Cell]:
        """The cells of a sweep (the product of its lists), a tournament's pairings (ids
        ``p01``, ...), or one cell without an id."""
        if self.tournament is not None:
            schedule = self._schedule()
            width = max(2, len(str(len(schedule))))
            cells = []
            for i, (players, runs) in enumerate(schedule, start=1):
                settings = self._pairing_settings(players, runs)
                cells.append(Cell(f"p{i:0{width}d}", settings, self.cell_config(settings), players))
            return cells
        if not self.sweep:
            return [Cell(None, {}, self)]
        combos = sweep_settings(self.sweep)
        width = len(str(len(combos)))
        return [
            Cell(f"c{i:0{width}d}", settings, self.cell_config(settings))
            for i, settings in enumerate(combos, start=1)
        ]

    def cell_config(self, settings: dict[str, Any]) -> ExperimentConfig:
        """This config with one value per sweep axis (a plain config, no sweep); of a plain
        config, the config with ``settings`` (dotted paths) changed, checked again."""
        if self.has_cells:  # as the user wrote it: defaults resolve per cell
            data = deep_copy(self.sweep_base)
        else:
            data = self.model_dump(mode="json", exclude_unset=True)
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
    """One cell of a sweep or a tournament: its id (None for a run without cells), settings and
    config, and a tournament pairing's player by seat (None otherwise)."""

    id: str | None
    settings: dict[str, Any]
    config: ExperimentConfig
    players: dict[str, str] | None = None


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
    base = deep_copy(data)
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
    return deep_copy(player)


def deep_copy(data: dict[str, Any]) -> dict[str, Any]:
    return {k: deep_copy(v) if isinstance(v, dict) else v for k, v in data.items()}


def validation_problem(
    exc: ValidationError, prefix: tuple[Any, ...] = (), root: type[BaseModel] | None = None
) -> str:
    """The first validation error as ``field: problem (allowed: ...)``; a scenario the game's
    schema refused is described inside that schema (``prefix``, ``root``)."""
    error = exc.errors()[0]
    inner = error.get("ctx", {}).get("error")
    if isinstance(inner, ScenarioInvalid):
        return validation_problem(inner.exc, prefix + tuple(error["loc"]), inner.model)
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
