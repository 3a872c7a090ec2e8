"""What validating a config asks of the layers above it (games, model providers, feedback
sources), handed in as :class:`ConfigChecks` where a config is validated."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Annotated, Any, Protocol

from pydantic import (
    AfterValidator,
    BaseModel,
    ValidationError,
    ValidationInfo,
)

from icl_aif.config.settings import ModeratorMode, Scenario
from icl_aif.core.transcript import Seat, Seats

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


class ScenarioInvalid(ValueError):
    """A scenario the game's schema refused; :func:`validation_problem` reports its first problem."""

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
