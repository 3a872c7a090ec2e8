"""The bargaining games: one folder per game, each a :class:`~icl_aif.games.base.Game`
registered by name (``game:`` in an experiment; ``icl-aif games`` lists them).

- ``price``: single-item price bargaining (seed 002), the default;
- ``pie_split``: two players divide a pie that shrinks with every exchange (seed 003).

Another package adds a game through the ``icl_aif.games`` entry point (see docs/games.md).
"""

from icl_aif.games import price  # the default game: registered, and listed, first

# isort: split
from icl_aif.games import pie_split, simulators
from icl_aif.games.base import Game, Judge, Measure
from icl_aif.games.registry import GAMES, find_game, get_game, register_game

__all__ = [
    "GAMES",
    "Game",
    "Judge",
    "Measure",
    "find_game",
    "get_game",
    "pie_split",
    "price",
    "register_game",
    "simulators",
]
