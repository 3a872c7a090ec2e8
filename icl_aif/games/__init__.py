"""The bargaining games: one folder per game, each a :class:`~icl_aif.games.base.Game`
registered by name (``game:`` in an experiment; ``icl-aif games`` lists them).

- ``price``: single-item price bargaining (seed 002), the default;
- ``dond``: Deal or No Deal, dividing books, hats and balls valued privately (seeds 000, 001);
- ``pie_split``: two players divide a pie that shrinks with every exchange (seed 003);
- ``resource_split``: two players divide three resources they value differently (seed 003);
- ``size_price``: a seller and a buyer agree on a quantity and a unit price (seed 004).

Every game, ours too, comes in through the ``icl_aif.games`` entry point group
(:mod:`icl_aif.games.registry`; another package adds its own the same way, see docs/games.md):
importing this package registers none.
"""

from icl_aif.games.base import Game, Judge, Measure
from icl_aif.games.registry import GAMES, find_game, get_game, register_game, registered_games

__all__ = [
    "GAMES",
    "Game",
    "Judge",
    "Measure",
    "find_game",
    "get_game",
    "register_game",
    "registered_games",
]
