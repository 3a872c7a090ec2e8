"""What the scenario limits cost: the work each game does over a scenario value, timed at sizes
around each limit, so that the limits (and the figures in docs/games.md) can be checked.

- ``dond``: the splits of the collection (``scenario.counts``, limit
  :data:`~icl_aif.games.dond.scenario.MAX_SPLITS`): one enumeration (``all_splits``), one Pareto
  check of a deal, ``payoff_bounds``, and a whole game of ``experiments/dond.yaml`` (5 rounds of up
  to 16 lines) played by its scripted players, which go through every split on each line;
- ``size_price``: the buyer's value of n units (``scenario.max_quantity``, limit
  :data:`~icl_aif.games.size_price.scenario.MAX_QUANTITY`): one sum ``H(n)``, and a whole game of
  ``experiments/size_price.yaml`` with the efficient quantity ``n*`` at ``max_quantity`` (the unit
  cost lowered to make it so), whose scripted players sum up to ``n*`` terms several times a line;
- ``price``: loading a listings file (``scenario.listings``, limit
  :data:`~icl_aif.games.price.listings.MAX_LISTINGS`) of n copies of a shipped listing.

A game's time is the CPU time one more game costs (``--games`` games against twice as many, one
game at a time); an operation's time the best of ``--reps`` tries. Sizes above a limit are built without the
scenario's check, to show what the limit refuses. Prints one line per size.

    python bench/scenario_bounds.py --games 3 --reps 3
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.engine.configs import load_config
from icl_aif.games.dond.game import DondGame
from icl_aif.games.dond.scenario import (
    MAX_SPLITS,
    DondScenario,
    DondTerms,
    Items,
    all_splits,
    pareto_optimal,
    split_count,
    terms_of,
)
from icl_aif.games.price import listings as listings_file
from icl_aif.games.price.scenario import load_listings
from icl_aif.games.size_price.scenario import MAX_QUANTITY, SizePriceScenario, harmonic

ROOT = Path(__file__).resolve().parents[1]
DOND_COUNTS = ((3, 2, 2), (4, 4, 4), (6, 6, 6), (9, 9, 4), (7, 7, 7), (9, 9, 9), (14, 14, 14))
QUANTITIES = (1_000, 10_000, 30_000, 100_000)
LISTINGS = (1_000, 10_000, 20_000, 100_000)


def best_ms(action: Callable[[], object], reps: int) -> float:
    """The best of ``reps`` runs of ``action``, in milliseconds."""
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return 1000 * min(times)


def game_seconds(config: ExperimentConfig) -> float:
    """The CPU seconds one more game of ``config`` costs: the CPU time of ``2 x runs`` games
    less that of ``runs`` games (what the run costs besides its games cancels out), over
    ``runs``. CPU time, not wall time, so that a machine busy with other work times alike."""

    def cpu(runs: int) -> float:
        with tempfile.TemporaryDirectory() as tmp:
            started = time.process_time()
            run = config.model_copy(update={"runs": runs})
            asyncio.run(run_experiment(run, Path(tmp) / "run", probe_models=False))
            return time.process_time() - started

    return (cpu(2 * config.runs) - cpu(config.runs)) / config.runs


def every_split(counts: Items) -> list[tuple[Items, Items]]:
    """Every split of ``counts``, as the players and the Pareto check go through them."""
    return list(all_splits(counts))


def with_scenario(config: ExperimentConfig, games: int, **values: Any) -> ExperimentConfig:
    """``config`` playing ``games`` games one at a time, its scenario set to ``values`` without
    the scenario's checks (to time sizes the limits refuse)."""
    scenario = config.scenario.model_copy(update=values)
    return config.model_copy(update={"scenario": scenario, "runs": games, "concurrency": 1})


def dond(games: int, reps: int) -> None:
    """The splits of a Deal or No Deal collection."""
    base = load_config(ROOT / "experiments" / "dond.yaml")
    print(f"dond: MAX_SPLITS = {MAX_SPLITS:,}")
    for counts in DOND_COUNTS:
        items = Items.of_tuple(counts)
        scenario = DondScenario(sample=False).model_copy(update={"counts": items})
        deal = DondTerms.model_validate(terms_of(scenario, items, Items.of_tuple((0, 0, 0))))
        enumerate_ms = best_ms(partial(every_split, items), reps)
        pareto_ms = best_ms(partial(pareto_optimal, scenario, deal), reps)
        bounds_ms = best_ms(partial(DondGame().payoff_bounds, scenario, "seller"), reps)
        config = with_scenario(base, games, sample=False, counts=items)
        print(
            f"  counts {counts}: {split_count(items):>6,} splits  enumerate {enumerate_ms:7.1f} ms"
            f"  pareto {pareto_ms:7.1f} ms  payoff_bounds {bounds_ms:7.1f} ms"
            f"  scripted game {game_seconds(config):6.2f} s CPU"
        )


def size_price(games: int, reps: int) -> None:
    """The buyer's value of n units in the size-price game."""
    base = load_config(ROOT / "experiments" / "size_price.yaml")
    print(f"size_price: MAX_QUANTITY = {MAX_QUANTITY:,}")
    for quantity in QUANTITIES:
        sum_ms = best_ms(partial(harmonic, quantity), reps)
        value = SizePriceScenario().unit_value
        cost = value / (quantity + 0.5)  # n* = floor(v / c) = quantity
        config = with_scenario(base, games, max_quantity=quantity, unit_cost=cost)
        print(
            f"  max_quantity {quantity:>9,} (n* too): H(n) {sum_ms:7.2f} ms"
            f"  scripted game {game_seconds(config):6.2f} s CPU"
        )


def listings(reps: int) -> None:
    """Loading a price-game listings file."""
    line = (ROOT / "experiments" / "data" / "craigslist_dev_100.jsonl").read_text().splitlines()[0]
    print(f"price: MAX_LISTINGS = {listings_file.MAX_LISTINGS:,}")
    limit = listings_file.MAX_LISTINGS
    listings_file.MAX_LISTINGS = max(LISTINGS)  # to time the sizes above the limit too
    with tempfile.TemporaryDirectory() as tmp:
        for count in LISTINGS:
            path = Path(tmp) / f"listings_{count}.jsonl"
            path.write_text((line + "\n") * count)

            def load(path: Path = path) -> None:
                path.touch()  # a new version of the file: read again, not from the cache
                load_listings(path)

            print(f"  {count:>6,} listings: load {best_ms(load, reps):7.0f} ms")
    listings_file.MAX_LISTINGS = limit


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per size (mean per game)")
    parser.add_argument("--reps", type=int, default=3, help="tries per operation (best)")
    parser.add_argument(
        "--only", choices=("dond", "size_price", "price"), help="time one game's limit only"
    )
    args = parser.parse_args()
    if args.only in (None, "dond"):
        dond(args.games, args.reps)
    if args.only in (None, "size_price"):
        size_price(args.games, args.reps)
    if args.only in (None, "price"):
        listings(args.reps)


if __name__ == "__main__":
    main()
