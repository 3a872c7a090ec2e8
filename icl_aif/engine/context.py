"""What a game's nodes need besides the state: models per role, the moderator, prompts, the seed.

It reaches the nodes through LangGraph's runtime context, never through module globals.
"""

from __future__ import annotations

import contextlib
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from langchain_core.language_models import BaseChatModel

from icl_aif.config.checks import ConfigChecks
from icl_aif.config.experiment import RANDOM_PERSONA, ExperimentConfig
from icl_aif.config.files import config_from_dict
from icl_aif.config.settings import RoleConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.redaction import remember, secrets_of
from icl_aif.core.seeds import derive_seed, game_id_for
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Message, Seat
from icl_aif.engine.move_asker import MoveAsker, MoveReply
from icl_aif.engine.protocol import persona_names
from icl_aif.games.base import Game, Judge, Setup
from icl_aif.games.moves import TOOL_NAME, move_schema
from icl_aif.games.registry import game_of
from icl_aif.games.simulators import simulator_builder
from icl_aif.models import cache as response_cache
from icl_aif.models.base import ModelRequest
from icl_aif.models.calls import ModelCallError
from icl_aif.models.calls import call_model as call_and_record
from icl_aif.models.registry import build_request, split_model_string
from icl_aif.records.schema import SilentLines

logger = logging.getLogger(__name__)


def build_model(
    config: ExperimentConfig,
    role: str,
    role_config: RoleConfig | None = None,
    *,
    seed: int,
    stream_seed: int | None = None,
) -> BaseChatModel:
    """The chat model for ``role`` in one game of ``config`` (the game and its scenario reach the
    game's simulators through the request).

    ``role_config`` defaults to the config's settings for the role; for the critic these are
    already resolved (without ``roles.critic`` the config gives it the improved player's model,
    or ``scripted:critic`` for a scripted player).
    """
    if role_config is None:
        settings = config.roles.of(role)
        assert isinstance(settings, RoleConfig), f"{role} has no model settings"
        role_config = settings
    remember(secrets_of({"base_url": role_config.base_url, "params": role_config.params}))
    name, model = split_model_string(role_config.model)
    side: Seat = role if role in config.seats else config.improve
    simulator = simulator_builder(
        game_of(config),
        role,
        side=side,
        scenario=config.scenario,
        seed=seed,
        stream_seed=stream_seed,
        persona=config.persona_of(role),
        suggestions=config.feedback.suggestions,
        params=role_config.params,
    )
    request = ModelRequest(
        spec=role_config.model,
        provider=name,
        name=model,
        role=role,
        seed=seed,
        stream_seed=stream_seed,
        simulator=simulator,
        temperature=role_config.temperature,
        max_tokens=role_config.max_tokens,
        top_p=role_config.top_p,
        sampling_seed=role_config.seed,
        timeout=role_config.timeout,
        base_url=role_config.base_url,
        params=dict(role_config.params),
    )
    return build_request(request, f"roles.{role}.model")


def judge_for(config: ExperimentConfig, prompts: PromptLibrary | None = None) -> Judge:
    """The judge the config asks for (``roles.moderator.mode``), built by the config's game.

    A judge's model (modes ``llm`` and ``hybrid``) is built once, like any role's, and shared by
    every game that gets this judge, so the parse path it learns is too.
    """

    def model_for(role_config: RoleConfig) -> BaseChatModel:
        return build_model(
            config, "moderator", role_config, seed=derive_seed(config.seed, "moderator")
        )

    return game_of(config).build_judge(config, prompts or PromptLibrary(), model_for)


@dataclass
class GameContext:
    """Runtime dependencies of one game (one run of the multi-round experiment).

    Every field has a default so that LangGraph can build the context from plain JSON, as
    ``langgraph dev`` does (:class:`icl_aif.engine.graphs.StudioContext`, with the package's checks):
    ``{}`` plays game 0 of the scripted defaults, ``{"index": 3}`` game 3, and
    ``{"config": {...}}`` any experiment (the same keys as an experiment YAML file), read with
    ``checks``. Models, the moderator and the per-game random generator are built from the
    config.

    ``arm`` names a paired feedback arm (``icl_aif.engine.arms``): the models keep the game's private
    values (built from the game's seeds) while every random choice, the models' and the
    protocol's, comes from ``arm_seed``, derived from the game's seed and the arm.

    ``cell`` is the sweep cell the game belongs to (None without a sweep): with it and ``arm``,
    the game's id and seed, it names the game's replicate for the response cache
    (:meth:`cache_scope`).
    """

    config: ExperimentConfig = None  # type: ignore[assignment]  # None or a dict: read with checks
    index: int = 0
    arm: str | None = None
    prompts: PromptLibrary = field(default_factory=PromptLibrary)
    judge: Judge = None  # type: ignore[assignment]  # None: built from the config
    models: dict[str, BaseChatModel] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)
    cell: str | None = None
    checks: ConfigChecks | None = None
    game_id: str = field(init=False)
    seed: int = field(init=False)
    arm_seed: int | None = field(init=False)
    model_ids: dict[str, str] = field(init=False)
    rng: random.Random = field(init=False)
    drawn: dict[str, Any] = field(init=False)
    _askers: dict[str, MoveAsker] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        given: object = self.config
        if not isinstance(given, ExperimentConfig):  # as langgraph dev gives it: plain data
            data = {"name": "studio"} if given is None else given
            if self.checks is None or not isinstance(data, dict):
                raise UsageError(
                    "GameContext: config is an ExperimentConfig, or the data of one with checks "
                    "to read it (icl_aif.engine.configs.CHECKS)"
                )
            self.config = config_from_dict(data, source="context.config", checks=self.checks)
        self.game_id = game_id_for(self.index)
        self.seed = derive_seed(self.config.seed, "game", self.index)
        self.arm_seed = None if self.arm is None else derive_seed(self.seed, "arm", self.arm)
        self.config, self.drawn = game_config(self.config, self.seed, self.prompts)
        config = self.config
        roles = config.model_roles()  # a side a person plays has no model; the critic only for ai
        seats = config.seats
        for role, role_config in roles.items():
            if role not in self.models:
                label = seats.stream(role) if role in seats else role  # seeds as before seats
                seed = derive_seed(self.seed, label)
                stream = None if self.arm_seed is None else derive_seed(self.arm_seed, label)
                self.models[role] = build_model(
                    config, role, role_config, seed=seed, stream_seed=stream
                )
        self.model_ids = {role: role_config.model for role, role_config in roles.items()}
        if self.judge is None or (
            "scenario" in self.drawn and config.roles.moderator.mode == "rules"
        ):
            self.judge = judge_for(config, self.prompts)  # a drawn scenario's own judge
        self.rng = random.Random(
            derive_seed(self.seed if self.arm_seed is None else self.arm_seed, "protocol")
        )

    def cache_scope(self) -> contextlib.AbstractContextManager[object]:
        """The config's response cache (``cache``), bound to this game's calls while it is
        entered: keyed on this game's replicate (the game and its scenario, id, seed, cell, arm)
        and each role's decoding settings (:mod:`icl_aif.models.cache`); nothing without ``cache``."""
        config = self.config
        if config.cache is None:
            return contextlib.nullcontext()
        settings = {role: response_cache.decoding(rc) for role, rc in config.model_roles().items()}
        settings["moderator"] = response_cache.decoding(config.roles.moderator)
        labels = {
            "game": config.game,
            "scenario": response_cache.digest(config.scenario.model_dump(mode="json")),
            "game_id": self.game_id,
            "seed": self.seed,
            "cell": self.cell,
            "arm": self.arm,
        }
        return response_cache.bind(config.cache, labels, settings)

    async def call_model(self, role: str, round_number: int, messages: Sequence[Message]) -> str:
        """Send ``messages`` to ``role``'s model (:func:`icl_aif.models.calls.call_model`) and record the
        call in :attr:`calls` with this game's id and ``round_number``.

        A failure (not retryable, or the last try) raises :class:`icl_aif.models.calls.ModelCallError`
        after the call is recorded.
        """
        model = self.models[role]
        try:
            return await call_and_record(
                model,
                self.model_ids[role],
                messages,
                self.config,
                role=role,
                calls=self.calls,
                labels={"game_id": self.game_id, "round": round_number, "role": role},
                max_tokens=self._max_tokens(role, model),
            )
        except ModelCallError as exc:
            logger.warning(
                "game %s round %s: %s call failed: %s", self.game_id, round_number, role, exc.error
            )
            raise

    async def call_move(
        self, role: str, round_number: int, messages: Sequence[Message]
    ) -> MoveReply:
        """Ask ``role``'s model for its line and binding move (``moves: structured``,
        :mod:`icl_aif.engine.move_asker`), recording every call in :attr:`calls`; a failure raises
        :class:`icl_aif.models.calls.ModelCallError` after the call is recorded."""
        asker = self._askers.get(role)
        if asker is None:
            asker = self._askers[role] = MoveAsker(
                model=self.models[role],
                model_id=self.model_ids[role],
                schema=move_schema(self.game),
                fenced=self.prompts.render("clauses/moves_fenced.txt", tool=TOOL_NAME),
            )
        try:
            return await asker.ask(
                messages,
                self.config,
                role=role,
                calls=self.calls,
                labels={"game_id": self.game_id, "round": round_number, "role": role},
                max_tokens=self._max_tokens(role, self.models[role]),
            )
        except ModelCallError as exc:
            logger.warning(
                "game %s round %s: %s call failed: %s", self.game_id, round_number, role, exc.error
            )
            raise

    @cached_property
    def opening_moves(self) -> list[Any]:
        """The moves of the scripted opening lines (:meth:`icl_aif.games.base.Game.opening_moves`)."""
        return self.game.opening_moves(self.config.scenario)

    @cached_property
    def setup(self) -> Setup[Any]:
        """What the game's methods read of the config (:meth:`~icl_aif.games.base.Game.setup`)."""
        return self.game.setup(self.config)

    @cached_property
    def silent_lines(self) -> SilentLines | None:
        """How a generated line that states no terms is flagged as it is said (the game's
        measure's :meth:`~icl_aif.games.base.Measure.silent_lines`), or None."""
        return self.game.measure(self.setup).silent_lines()

    def _max_tokens(self, role: str, model: Any) -> int | None:
        """The reply budget of a call: the role's ``max_tokens``, else the built model's, else
        None."""
        role_config = getattr(self.config.roles, role, None)
        configured = getattr(role_config, "max_tokens", None)
        if isinstance(configured, int):
            return configured
        built = getattr(model, "max_tokens", None)
        return built if isinstance(built, int) else None

    @property
    def game(self) -> Game[Any, Any]:
        """The game this context plays (``config.game``)."""
        return game_of(self.config)

    @property
    def scenario_info(self) -> dict[str, Any] | None:
        """What the judge may know of the scenario (the game's public values)."""
        return self.game.judge_info(self.config.scenario)


def game_config(
    config: ExperimentConfig, seed: int, prompts: PromptLibrary
) -> tuple[ExperimentConfig, dict[str, Any]]:
    """``config`` as one game plays it, and what was drawn for the game (the ``games.jsonl``
    keys ``scenario`` and ``persona``; empty when nothing was): the scenario the game draws from
    ``seed`` (:meth:`icl_aif.games.base.Game.sample_scenario`) and the rival's persona when
    ``rival_persona`` is ``random``. A paired arm plays the game's own draws (the same seed)."""
    drawn: dict[str, Any] = {}
    update: dict[str, Any] = {}
    scenario = game_of(config).sample_scenario(config.scenario, derive_seed(seed, "scenario"))
    if scenario != config.scenario:
        update["scenario"] = scenario
        drawn["scenario"] = scenario.model_dump(mode="json")
    if config.rival_persona == RANDOM_PERSONA:
        names = persona_names(prompts)
        update["rival_persona"] = random.Random(derive_seed(seed, "persona")).choice(names)
    if config.rival_persona is not None:
        drawn["persona"] = update.get("rival_persona", config.rival_persona)
    return (config.model_copy(update=update) if update else config), drawn
