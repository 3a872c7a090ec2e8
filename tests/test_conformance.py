"""The games' conformance check: every registered game passes it, and a broken game fails it
with the game and the property in the message."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from pydantic import field_serializer

import icl_aif  # noqa: F401  (wires the games registry into the config)
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import Scenario
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Seat, Turn, Verdict
from icl_aif.games import GAMES, registered_games
from icl_aif.games.base import Judge, ModelFor, SimulatorRequest
from icl_aif.games.price.game import PriceGame
from icl_aif.games.price.scenario import PriceScenario
from icl_aif.testing import check_game
from icl_aif.testing.conformance import PROPERTIES, check_judge

pytest_plugins = ["pytester"]


@pytest.mark.parametrize("name", sorted(registered_games()))
def test_every_registered_game_conforms(name: str, tmp_path: Path) -> None:
    check_game(name, tmp_path)


# --- broken games: each a price game with one promise broken ------------------------------


class ShiftedJudge:
    """The rules judge, but every deal it binds is ``shift`` dollars dearer."""

    name = "rules"

    def __init__(self, inner: Judge, shift: float) -> None:
        self.inner = inner
        self.shift = shift

    async def aclassify(
        self,
        window: list[Turn],
        scenario: dict[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> Verdict:
        verdict = await self.inner.aclassify(window, scenario, calls)
        if verdict.state != "deal" or verdict.terms is None:
            return verdict
        return Verdict("deal", terms={"price": verdict.terms["price"] + self.shift})


class WrongTerms(PriceGame):
    name = "price_wrong_terms"
    shift = 1.0

    def build_judge(
        self, config: ExperimentConfig, prompts: PromptLibrary, model_for: ModelFor
    ) -> Judge:
        return ShiftedJudge(super().build_judge(config, prompts, model_for), self.shift)


class RoundingNoise(WrongTerms):
    name = "price_rounding_noise"
    shift = 1e-12


class NarrowBounds(PriceGame):
    name = "price_narrow_bounds"

    def payoff_bounds(self, scenario: Scenario, side: Seat) -> tuple[float, float]:
        return (0.0, 1.0)


class RawOpeners(PriceGame):
    """Keeps the name ``price``: checked in place of the registered price game."""

    def opening_turns(self, scenario: Scenario) -> list[Turn]:
        return [Turn(speaker=o.speaker, text=o.text) for o in scenario.openers]


class UpperCaseScenario(PriceScenario):
    @field_serializer("item")
    def _shout(self, item: str) -> str:
        return item.upper()


class LossyScenario(PriceGame):
    name = "price_lossy_scenario"
    scenario_model = UpperCaseScenario


class WalkAwayRich(PriceGame):
    name = "price_walk_away_rich"

    def payoff(self, scenario: Scenario, side: Seat, record: Mapping[str, Any]) -> float | None:
        return 5.0 if record.get("outcome") == "no_deal" else super().payoff(scenario, side, record)


class Unseeded(PriceGame):
    """Simulators seeded from the global random generator, not from the game's seed."""

    name = "price_unseeded"

    def simulator(self, request: SimulatorRequest) -> BaseChatModel:
        return super().simulator(replace(request, seed=random.SystemRandom().getrandbits(62)))


class NoAgreements(PriceGame):
    name = "price_no_agreements"

    def agreement_examples(self, scenario: Scenario, seed: int) -> list[tuple[list[Turn], dict]]:
        return []


BROKEN = [
    (WrongTerms, "judge", r"expected deal with terms \{'price': \d+\.0\}"),
    (NoAgreements, "judge", r"agreement_examples\(scenario, 0\) is empty"),
    (
        RawOpeners,
        "openers",
        r"opening turn 1 keeps a placeholder: 'Hi, how much is the \{item\}\?'",
    ),
    (LossyScenario, "scenario", r"read back from YAML differs: item: 'balloon' != 'BALLOON'"),
    (
        NarrowBounds,
        "payoffs",
        r"payoff \d+(\.\d+)? of a deal .* outside payoff_bounds \(0\.0, 1\.0\)",
    ),
    (WalkAwayRich, "payoffs", r"payoff 5\.0 is not its walk_away value 0\.0"),
    (Unseeded, "determinism", r"line \d+ of games\.jsonl \(g\d+\) differs at concurrency 8"),
]


@pytest.mark.parametrize(
    ("broken", "key", "detail"), BROKEN, ids=[cls.__name__ for cls, _, _ in BROKEN]
)
def test_a_broken_game_fails_the_property_it_breaks(
    broken: type[PriceGame], key: str, detail: str, tmp_path: Path
) -> None:
    registered = dict(GAMES)
    game = broken()
    with pytest.raises(AssertionError) as failure:
        check_game(game, tmp_path, runs=2)
    message = str(failure.value)
    assert message.startswith(f"game {game.name!r} fails {key} ({PROPERTIES[key]}): "), message
    assert re.search(detail, message), message
    assert registered == GAMES  # the check never registers the game it checks


class Unregistered(PriceGame):
    """A sound game that no registry holds: it checks, each time a round opens, that none does."""

    name = "price_unregistered"

    def opening_turns(self, scenario: Scenario) -> list[Turn]:
        assert self.name not in GAMES, "the conformance check registered the game it checks"
        return super().opening_turns(scenario)


def test_an_unregistered_game_conforms_and_the_registry_is_not_touched(tmp_path: Path) -> None:
    registered = dict(GAMES)
    check_game(Unregistered(), tmp_path, runs=2)
    assert registered == GAMES


def test_the_judge_may_bind_terms_within_rounding(tmp_path: Path) -> None:
    game = RoundingNoise()
    check_judge(game, game.scenario_model(), seed=3)


def test_an_error_the_game_raises_names_the_game_and_the_property(tmp_path: Path) -> None:
    class Crashes(PriceGame):
        name = "price_crashes"

        def agreement_examples(
            self, scenario: Scenario, seed: int
        ) -> list[tuple[list[Turn], dict]]:
            raise KeyError("price")

    with pytest.raises(AssertionError, match=r"^game 'price_crashes' fails judge \(.*\): KeyError"):
        check_game(Crashes(), tmp_path)
    assert "price_crashes" not in GAMES


# --- the fixture in a user's suite --------------------------------------------------------

USERS_GAME_TESTS = '''
"""A researcher's own game, checked with icl-aif's fixture only."""

from icl_aif.games.price.game import PriceGame
from icl_aif.games.registry import register_game


@register_game
class Haggle(PriceGame):
    name = "haggle"
    title = "Price bargaining, our variant"


class Leaky(PriceGame):
    name = "leaky"

    def opening_turns(self, scenario):
        return [{"speaker": o.speaker, "text": o.text} for o in scenario.openers]


def test_my_game_conforms(game_conformance):
    game_conformance("haggle", runs=2)


def test_my_broken_game_does_not(game_conformance):
    game_conformance(Leaky())
'''


def test_the_fixture_checks_a_users_game(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_my_game=USERS_GAME_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=300)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: game 'leaky' fails openers (the openers and templates render): "
            "opening turn 1 keeps a placeholder*"
        ]
    )
