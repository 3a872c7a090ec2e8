"""The ``scripted`` provider: each game's rule-based simulators, reached as ``scripted:KIND``.

``scripted:linear`` is a price-game negotiator in ``game: price`` and a pie-split proposer in
``game: pie_split``: the provider asks the game of the request for its simulator. Simulators are
not language models; they make the whole ICL-AIF loop run offline, deterministically from a seed.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from icl_aif.games.registry import get_game
from icl_aif.models.base import ModelRequest
from icl_aif.models.providers import provider

__all__ = ["scripted"]


@provider(
    "scripted",
    description="Rule-based simulators of the game (not language models): players and a critic.",
    examples=(
        "scripted:boulware",
        "scripted:linear",
        "scripted:conceder",
        "scripted:tit_for_tat",
        "scripted:critic",
    ),
    offline=True,
)
def scripted(request: ModelRequest) -> BaseChatModel:
    """``scripted:KIND``: the simulator ``KIND`` of the request's game."""
    game = get_game(request.game)
    if request.role == "moderator":
        raise ValueError("scripted: backends are players and a critic; use mode rules instead")
    if request.name not in game.simulators:
        raise ValueError(
            f"game {game.name!r} has no simulator {request.name!r}; choose one of "
            f"{', '.join(game.simulators)}"
        )
    return game.simulator(request)
