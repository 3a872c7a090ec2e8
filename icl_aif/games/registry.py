"""How a game registers: the :func:`register_game` decorator and the lookup of games by name.

Every game, ours included, comes in through the ``icl_aif.games`` entry point group: ours are
named in icl-aif's own ``pyproject.toml`` (one line each, ``price =
"icl_aif.games.price.game:PriceGame"``), and another package names its module or class in its
own. The group is loaded on the first lookup of a name that is not registered (or by
:func:`registered_games`); nothing is registered at import time::

    from icl_aif.games.base import Game, Measure
    from icl_aif.games.registry import register_game

    @register_game
    class Auction(Game):
        name = "auction"
        ...

``game: auction`` in an experiment then selects it, and ``icl-aif games`` lists it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.plugins import Registry
from icl_aif.games.base import Game, Measure
from icl_aif.records.schema import SilentLines

__all__ = [
    "ENTRY_POINT_GROUP",
    "GAMES",
    "find_game",
    "forget_plugins",
    "game_of",
    "game_problem",
    "get_game",
    "load_plugins",
    "measure_of",
    "register_game",
    "registered_games",
    "silent_lines",
]

ENTRY_POINT_GROUP = "icl_aif.games"
"""The entry point group through which another package adds games."""


def _registered(target: Any) -> None:
    """Register a :class:`Game` subclass an entry point names, unless its module's import did
    (a module an entry point names registers its games itself)."""
    if isinstance(target, type) and issubclass(target, Game) and target.name not in GAMES:
        register_game(target)


GAMES: Registry[Game[Any, Any]] = Registry("game", ENTRY_POINT_GROUP, _registered)
"""The registered games by name, as they are loaded (:func:`registered_games` loads them all)."""

GameT = TypeVar("GameT", bound=type[Game[Any, Any]])


def register_game(cls: GameT) -> GameT:
    """Register an instance of the decorated :class:`Game` subclass under its ``name``.

    A name taken by another module is an error; the same module registering again (a reload)
    replaces its entry.
    """
    name = getattr(cls, "name", "")
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"game {cls.__name__}: set name to a word such as price or pie_split")
    game = cls()
    game.origin = cls.__module__
    GAMES.add(name, game)
    return cls


def load_plugins() -> list[str]:
    """Import every ``icl_aif.games`` entry point once; one line per plugin that failed."""
    return GAMES.load_plugins()


def forget_plugins() -> None:
    """Unregister the games loading the plugins registered (for tests)."""
    GAMES.forget_plugins()


def find_game(name: str) -> Game[Any, Any] | None:
    """The game called ``name``: registered already, else a plugin's; None if unknown."""
    return GAMES.find(name)


def registered_games() -> dict[str, Game[Any, Any]]:
    """Every game: ours and the installed plugins', by entry point name (a plugin that failed
    to load is left out: :func:`load_plugins` says why)."""
    return GAMES.everything()


def game_problem(name: str) -> str | None:
    """Why ``name`` is not a registered game, in one line listing the games; None if it is."""
    return None if find_game(name) is not None else GAMES.problem(name)


def get_game(name: str) -> Game[Any, Any]:
    """The game called ``name`` (a loaded config names one)."""
    found = find_game(name)
    if found is None:
        raise ValueError(game_problem(name))
    return found


def silent_lines(config: ExperimentConfig) -> SilentLines | None:
    """How ``config``'s game flags a generated line that states no terms, past the scenario's
    openers (:meth:`~icl_aif.games.base.Measure.silent_lines`), for a reader of older records."""
    return measure_of(config).silent_lines(len(config.scenario.openers))


def measure_of(config: ExperimentConfig) -> Measure:
    """The measure of ``config``'s game for its improved side (:meth:`Game.measure`)."""
    game = game_of(config)
    return game.measure(game.setup(config))


def game_of(config: ExperimentConfig) -> Game[Any, Any]:
    """The game ``config`` plays, as its checks resolved it once, when it was validated (a game
    the registry does not hold too: the conformance check's)."""
    game = config.game_traits
    if not isinstance(game, Game):
        raise TypeError(f"the game of the config, {config.game!r}, is a {type(game).__name__}")
    return game
