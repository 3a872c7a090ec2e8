"""``icl-aif games``: every registered game, a plugin's included, with what an experiment needs."""

from __future__ import annotations

from pathlib import Path

import icl_aif  # noqa: F401  (registers our games)
from icl_aif.games import registered_games
from tests.conftest import icl_aif as run_cli
from tests.conftest import make_package

PLUGIN_GAME = '''
"""A game of another package: the price game with a deadline in its terms."""

from pydantic import BaseModel, Field

from icl_aif.games.price.game import PriceGame
from icl_aif.games.price.scenario import PriceScenario
from icl_aif.games.registry import register_game


class DeadlineScenario(PriceScenario):
    days: int = Field(7, description="Days until delivery at the latest.")


class DeadlineTerms(BaseModel):
    price: float
    days: int | None = None


@register_game
class DeadlineGame(PriceGame):
    name = "deadline_demo"
    title = "Price and delivery date"
    source = "a test plugin"
    scenario_model = DeadlineScenario
    terms_model = DeadlineTerms
    judges = ("rules",)
    simulators = ("linear", "critic")
'''


def plugin_site(tmp_path: Path, source: str, module: str = "icl_aif_games_demo") -> Path:
    """A directory holding a package whose ``icl_aif.games`` entry point imports ``source``."""
    root = tmp_path / "site"
    root.mkdir()
    make_package(root, module, source, {"demo": module}, group="icl_aif.games")
    return root


def test_games_lists_every_registered_game_with_its_traits() -> None:
    result = run_cli("games")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for name, game in registered_games().items():
        assert f"{name}: {game.title}" in out
        assert f"game: {name}" in out
    for text in (
        "rules, llm, hybrid",
        "scripted:boulware, scripted:linear",
        "price: float | None",  # the terms
        "item: balloon",
        "list_price: 20.0",
        "buyer_budget: null",
        "max_exchanges: 10",
        "buyer: Hi, how much is the {item}?",  # the openers, placeholders as written
        "icl_aif.games.price.game",
    ):
        assert text in out, text
    assert out.index("item: balloon") < out.index("max_exchanges: 10")  # the game's fields first


def test_games_lists_a_plugins_game(tmp_path: Path) -> None:
    site = plugin_site(tmp_path, PLUGIN_GAME)
    result = run_cli("games", env={"PYTHONPATH": str(site)})
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.index("price: Single-item price bargaining") < out.index(
        "deadline_demo: Price and delivery date"
    )
    for text in (
        "game: deadline_demo",
        "a test plugin",
        "icl_aif_games_demo",  # where it comes from
        "scripted:linear, scripted:critic",
        "days: int | None",  # a term
        "days: 7",  # a scenario field
    ):
        assert text in out, text


def test_a_plugin_that_fails_to_load_is_one_line_after_the_games(tmp_path: Path) -> None:
    site = plugin_site(tmp_path, "import nowhere_to_be_found\n", module="icl_aif_games_broken")
    result = run_cli("games", env={"PYTHONPATH": str(site), "COLUMNS": "300"})
    assert result.returncode == 0, result.stderr
    assert "price: Single-item price bargaining" in result.stdout
    assert (
        "game plugin 'demo' (icl-aif-games-broken 0.1) failed to load: ModuleNotFoundError: "
        "No module named 'nowhere_to_be_found'; fix or uninstall it"
    ) in result.stdout
