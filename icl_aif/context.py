"""What a game's nodes need besides the state: models per role, the moderator, prompts, the seed.

It reaches the nodes through LangGraph's runtime context, never through module globals.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel

from icl_aif.config import ExperimentConfig, config_from_dict
from icl_aif.models.registry import build_model
from icl_aif.templates import PromptLibrary
from icl_aif.transcript import Turn, Verdict

PLAYER_ROLES = ("seller", "buyer", "critic")


class Moderator(Protocol):
    """Reads a window of turns and says whether the round goes on, ended in a deal, or not."""

    name: str

    async def aclassify(
        self, window: list[Turn], scenario: dict[str, Any] | None = None
    ) -> Verdict:
        """The state after the window's last turn."""
        ...


def derive_seed(seed: int, *parts: object) -> int:
    """A stable 63-bit seed from the experiment seed and labels (game index, role, ...)."""
    text = ":".join(str(p) for p in (seed, *parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def game_id_for(index: int) -> str:
    """The id of the ``index``-th run of an experiment."""
    return f"g{index:05d}"


def build_moderator(config: ExperimentConfig) -> Moderator:
    """The moderator the config asks for."""
    from icl_aif.moderator.rules import RulesModerator

    return RulesModerator()


@dataclass
class GameContext:
    """Runtime dependencies of one game (one run of the multi-round experiment).

    Every field has a default so that LangGraph can build the context from plain JSON, as
    ``langgraph dev`` does: ``{}`` plays game 0 of the scripted defaults, ``{"index": 3}`` game 3,
    and ``{"config": {...}}`` any experiment (the same keys as an experiment YAML file).
    Models, the moderator and the per-game random generator are built from the config.
    """

    config: ExperimentConfig = field(default_factory=lambda: ExperimentConfig(name="studio"))
    index: int = 0
    prompts: PromptLibrary = field(default_factory=PromptLibrary)
    moderator: Moderator | None = None
    models: dict[str, BaseChatModel] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)
    game_id: str = field(init=False)
    seed: int = field(init=False)
    model_ids: dict[str, str] = field(init=False)
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        if isinstance(self.config, dict):
            self.config = config_from_dict(self.config, source="context.config")
        config = self.config
        self.game_id = game_id_for(self.index)
        self.seed = derive_seed(config.seed, "game", self.index)
        roles = {
            "seller": config.roles.seller,
            "buyer": config.roles.buyer,
            "critic": config.roles.critic,
        }
        needed = [r for r in PLAYER_ROLES if r != "critic" or config.feedback.source == "ai"]
        for role in needed:
            if role not in self.models:
                seed = derive_seed(self.seed, role)
                self.models[role] = build_model(config, role, roles[role], seed=seed)
        self.model_ids = {role: roles[role].model for role in needed}
        if self.moderator is None:
            self.moderator = build_moderator(config)
        self.rng = random.Random(derive_seed(self.seed, "protocol"))

    @property
    def judge(self) -> Moderator:
        """The moderator (always set after construction)."""
        assert self.moderator is not None
        return self.moderator

    @property
    def scenario_info(self) -> dict[str, Any]:
        """What the moderator may know of the scenario."""
        s = self.config.scenario
        return {"item": s.item, "list_price": s.list_price, "buyer_open": s.buyer_open}


@cache
def studio_context() -> GameContext:
    """The context used when a graph runs without one: game 0 of the scripted defaults."""
    return GameContext()


def context_of(context: GameContext | None) -> GameContext:
    """The runtime context, or the studio default when none was given."""
    return context if isinstance(context, GameContext) else studio_context()
