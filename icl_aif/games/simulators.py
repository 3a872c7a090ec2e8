"""The ``scripted`` provider: each game's rule-based simulators, reached as ``scripted:KIND``.

``scripted:linear`` is a price-game negotiator in ``game: price`` and a pie-split proposer in
``game: pie_split``: the engine hands each role's request the builder of its game's simulators
(:func:`simulator_builder`), and the provider calls it; the model layer knows no game.
Simulators are not language models; they make the whole ICL-AIF loop run offline,
deterministically from a seed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel

from icl_aif.core.transcript import Seat
from icl_aif.games.base import Game, SimulatorRequest
from icl_aif.games.reflector import ScriptedReflector
from icl_aif.models.base import ModelRequest
from icl_aif.models.providers import provider

__all__ = ["REFLECTION", "scripted", "simulator_builder"]

REFLECTION = "reflection"
"""The role of ``icl-aif optimize``'s reflection model (``optimize.reflection``)."""


@provider(
    "scripted",
    description="Rule-based simulators of the game (not language models): players and a critic.",
    examples=(
        "scripted:boulware",
        "scripted:linear",
        "scripted:conceder",
        "scripted:tit_for_tat",
        "scripted:known",
        "scripted:optimal",
        "scripted:critic",
        "scripted:reflector",
    ),
    offline=True,
)
def scripted(request: ModelRequest) -> BaseChatModel:
    """``scripted:KIND``: the simulator ``KIND`` of the game the request's role plays."""
    if request.simulator is None:
        raise ValueError("scripted: simulators play a game's roles; this request has no game")
    return request.simulator(request.name)


def simulator_builder(
    game: Game[Any, Any],
    role: str,
    *,
    side: Seat,
    scenario: Any,
    seed: int,
    stream_seed: int | None = None,
    persona: str | None = None,
    suggestions: int = 3,
    params: Mapping[str, Any] | None = None,
) -> Callable[[str], BaseChatModel]:
    """What builds ``game``'s simulator of a kind for ``role`` (:attr:`ModelRequest.simulator`):
    a ValueError for the moderator or a kind the game has not."""

    def build(kind: str) -> BaseChatModel:
        if role == REFLECTION:  # icl-aif optimize's reflection model: the same in every game
            if kind != "reflector":
                raise ValueError("the scripted reflection model is scripted:reflector")
            return ScriptedReflector(seed=seed)
        if kind == "reflector":
            raise ValueError(
                f"scripted:reflector rewrites instructions (optimize.reflection), not the {role}"
            )
        if role == "moderator":
            raise ValueError("scripted: backends are players and a critic; use mode rules instead")
        if kind not in game.simulators:
            raise ValueError(
                f"game {game.name!r} has no simulator {kind!r}; choose one of "
                f"{', '.join(game.simulators)}"
            )
        request = SimulatorRequest(
            name=kind,
            role=role,
            side=side,
            scenario=scenario,
            seed=seed,
            stream_seed=stream_seed,
            persona=persona,
            suggestions=suggestions,
            params=dict(params or {}),
        )
        return game.simulator(request)

    return build
