"""Scenario values that would make a game enumerate or sum without end are refused when the config
loads: one line naming the field and the limit, exit code 2, no run directory. What sampling draws
stays within the limits, and the draws and sums near them end."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import icl_aif  # noqa: F401  (registers the games)
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config
from icl_aif.games.dond.game import DondGame
from icl_aif.games.dond.scenario import (
    COUNT_RANGE,
    MAX_SPLITS,
    TOTAL_RANGE,
    DondScenario,
    Items,
    all_splits,
    split_count,
)
from icl_aif.games.price.listings import MAX_LISTINGS
from icl_aif.games.size_price.scenario import (
    MAX_QUANTITY,
    SizePriceScenario,
    demand,
    efficient_quantity,
)
from tests.conftest import ROOT
from tests.conftest import icl_aif as run_cli

EXPERIMENTS = ROOT / "experiments"
LISTING = (EXPERIMENTS / "data" / "craigslist_dev_100.jsonl").read_text().splitlines()[0]


def listings_file(directory: Path, count: int) -> Path:
    """A listings file of ``count`` copies of a shipped listing."""
    path = directory / f"listings_{count}.jsonl"
    path.write_text((LISTING + "\n") * count, encoding="utf-8")
    return path


def load(name: str, *overrides: str) -> ExperimentConfig:
    return load_config(EXPERIMENTS / f"{name}.yaml", list(overrides))


# --- through the CLI: one line, exit 2, nothing written ---------------------------------------

REFUSED: dict[str, tuple[str, list[str], list[str]]] = {
    "dond_counts": (
        "dond",
        ["scenario.sample=false", "scenario.counts={books: 1000, hats: 1000, balls: 1000}"],
        [
            "field 'scenario.counts'",
            "1,003,003,001 possible splits",
            f"at most {MAX_SPLITS:,}",
        ],
    ),
    "size_price_quantity": (
        "size_price",
        ["scenario.max_quantity=1000000000000", "scenario.unit_cost=0.000001"],
        [
            "field 'scenario.max_quantity'",
            "1,000,000,000,000 units",
            f"at most {MAX_QUANTITY:,}",
        ],
    ),
    "resource_split_zero_utilities": (
        "resource_split",
        ["scenario.amounts=null", "scenario.player1_utilities={A: 0, B: 0, C: 0}"],
        ["field 'scenario'", "player1_utilities A=0 B=0 C=0 value nothing"],
    ),
    "price_listings": (
        "craigslist_listings",
        ["scenario.listings=LISTINGS"],
        ["field 'scenario.listings'", f"more than {MAX_LISTINGS:,} listings"],
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_cli_refuses_a_scenario_beyond_a_limit_in_one_line(case: str, tmp_path: Path) -> None:
    name, overrides, expected = REFUSED[case]
    listings = listings_file(tmp_path, MAX_LISTINGS + 1)
    out = tmp_path / "run"
    sets = [arg for o in overrides for arg in ("--set", o.replace("LISTINGS", str(listings)))]
    config = EXPERIMENTS / f"{name}.yaml"
    result = run_cli("run", config, "--set", "runs=2", *sets, "--out", out)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {config}: "), lines[0]
    for text in expected:
        assert text in lines[0]
    assert not out.exists()


# --- at the limits ----------------------------------------------------------------------------


def test_dond_takes_counts_up_to_the_limit_and_refuses_one_more_split() -> None:
    at_limit = load(
        "dond", "scenario.sample=false", "scenario.counts={books: 9, hats: 9, balls: 4}"
    )
    assert split_count(at_limit.scenario.counts) == MAX_SPLITS == 500
    with pytest.raises(UsageError, match="9 books, 9 hats and 5 balls make 600 possible splits"):
        load("dond", "scenario.sample=false", "scenario.counts={books: 9, hats: 9, balls: 5}")


def test_the_dond_limit_counts_what_the_game_enumerates() -> None:
    for counts in ((3, 1, 2), (0, 4, 1), (9, 9, 4)):
        items = Items.of_tuple(counts)
        assert split_count(items) == len(list(all_splits(items)))


def test_the_dond_limit_holds_with_sampling_on() -> None:
    with pytest.raises(UsageError, match=r"field 'scenario\.counts'"):
        load("dond", "scenario.counts={books: 99, hats: 9, balls: 9}")  # sample: true


def test_size_price_takes_max_quantity_up_to_the_limit() -> None:
    assert load("size_price", f"scenario.max_quantity={MAX_QUANTITY}").scenario.max_quantity == (
        MAX_QUANTITY
    )
    with pytest.raises(UsageError, match=f"{MAX_QUANTITY + 1:,} units; at most"):
        load("size_price", f"scenario.max_quantity={MAX_QUANTITY + 1}")


def test_a_listings_file_of_the_limit_loads(tmp_path: Path) -> None:
    path = listings_file(tmp_path, MAX_LISTINGS)
    config = load("craigslist_listings", f"scenario.listings={path}")
    assert config.scenario.listings == path
    with pytest.raises(UsageError, match=f"more than {MAX_LISTINGS:,} listings"):
        load(
            "craigslist_listings", f"scenario.listings={listings_file(tmp_path, MAX_LISTINGS + 1)}"
        )


# --- what sampling draws ----------------------------------------------------------------------


def test_every_dond_collection_sampling_can_draw_is_within_the_limit() -> None:
    low, high = COUNT_RANGE
    drawable = [
        counts
        for counts in itertools.product(range(low, high + 1), repeat=3)
        if TOTAL_RANGE[0] <= sum(counts) <= TOTAL_RANGE[1]
    ]
    assert drawable
    for counts in drawable:
        scenario = DondScenario(sample=False, counts=Items.of_tuple(counts))  # the check passes
        assert split_count(scenario.counts) <= MAX_SPLITS


def test_dond_sampled_scenarios_pass_the_scenario_checks() -> None:
    game = DondGame()
    for seed in range(50):
        drawn = game.sample_scenario(DondScenario(), seed)
        assert DondScenario.model_validate(drawn.model_dump()) == drawn


# --- draws and sums near the limits end -------------------------------------------------------

DRAW_EQUAL_UTILITIES = """
from icl_aif.games.resource_split.scenario import ResourceSplitScenario, draw_scenario
same = {"A": 1, "B": 2, "C": 3}
scenario = ResourceSplitScenario(amounts=None, player1_utilities=same, player2_utilities=same)
drawn = draw_scenario(scenario, 7)
assert drawn.player1_utilities == drawn.player2_utilities == scenario.player1_utilities
assert all(1 <= drawn.amounts.get(r) <= 10 for r in "ABC"), drawn.amounts
print("drawn")
"""


def test_resource_split_draws_amounts_for_utilities_set_alike() -> None:
    """Two sides given the same utilities keep them while the amounts are drawn (the draw once
    redrew forever, waiting for them to differ); run apart, so that a hang is a failure."""
    result = subprocess.run(
        [sys.executable, "-c", DRAW_EQUAL_UTILITIES],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "drawn"


@pytest.mark.parametrize("cost", [1e-320, 1e-6])
def test_size_price_quantities_stay_within_max_quantity_for_a_tiny_cost(cost: float) -> None:
    scenario = SizePriceScenario(unit_cost=cost, max_quantity=MAX_QUANTITY)
    assert efficient_quantity(scenario) == MAX_QUANTITY
    assert demand(scenario, cost) == MAX_QUANTITY


@pytest.mark.parametrize(
    ("values", "quantity"), [({}, 6), ({"unit_cost": 249.0}, 1), ({"max_quantity": 4}, 4)]
)
def test_size_price_efficient_quantity_is_unchanged(values: dict[str, Any], quantity: int) -> None:
    assert efficient_quantity(SizePriceScenario(**values)) == quantity
