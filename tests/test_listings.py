"""Real listings as price-game scenarios: ``icl-aif scenarios import craigslist``, the
``scenario.listings`` field, one listing per game, and prices from $10 to $20,000 end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from icl_aif.analysis.plots import PLOT_FILES
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config
from icl_aif.games.price.game import PriceGame
from icl_aif.games.price.listings import import_craigslist, listing_title
from icl_aif.games.price.scenario import PriceScenario, load_listings
from icl_aif.records.reader import read_games, read_json
from tests.conftest import QUICKSTART, ROOT, icl_aif

DIALOGS = ROOT / "tests" / "data" / "craigslist_small.jsonl"
SPAN = ROOT / "tests" / "data" / "listings_span.jsonl"


def read_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- the import command ---------------------------------------------------------------------


def test_import_writes_scenarios_and_counts_what_it_skipped(tmp_path: Path) -> None:
    out = tmp_path / "listings.jsonl"
    result = icl_aif("scenarios", "import", "craigslist", DIALOGS, "--out", out)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        f"imported 4 listing(s) to {out}; skipped 5: buyer target not below list price 1, "
        "duplicate listing 1, list price not above 0 1, no buyer target 1, no scenario 1"
    )
    rows = read_lines(out)
    assert rows == [
        {
            "item": "AXO Off Road Gloves",
            "list_price": 12,
            "buyer_open": 8,
            "seller_cost": 8.4,
            "source": "craigslistbargain:C_small_gloves",
        },
        {
            "item": "Toyota Sienna XLE Minivan",  # cut at the first " / "
            "list_price": 18000,
            "buyer_open": 12600,
            "seller_cost": 12600,
            "source": "craigslistbargain:C_small_minivan",
        },
        {
            "item": "IKEA standing desk $60 OBO",  # the judge and the players read it as the item
            "list_price": 75,
            "buyer_open": 50,
            "seller_cost": 52.5,
            "source": "craigslistbargain:C_small_obo",
        },
        {
            "item": "Brass desk lamp",  # no decoration
            "list_price": 35.5,
            "buyer_open": 21,
            "seller_cost": 24.85,
            "source": "craigslistbargain:C_small_lamp",
        },
    ]
    for row in rows:  # every line is a valid price scenario
        PriceScenario.model_validate(row)
    assert len(load_listings(out)) == 4


def test_import_limit_and_floor_ratio() -> None:
    result = import_craigslist(DIALOGS, limit=1, floor_ratio=0.5)
    assert [s["seller_cost"] for s in result.scenarios] == [6]
    assert result.records == 1 and not result.skipped


@pytest.mark.parametrize(
    ("make", "args", "message"),
    [
        (None, ("craigslist", "missing.jsonl"), "missing.jsonl: no such file"),
        ("[]", ("craigslist",), "a JSON list, not JSONL"),
        ('{"id": "a"}\n{not json\n', ("craigslist",), "line 2: not valid JSON"),
        ("\n\n", ("craigslist",), "holds no dialog"),
        (
            '{"id": "a"}\n',
            ("craigslist",),
            "none of its 1 record(s) makes a scenario (no scenario 1)",
        ),
        ("", ("cocoa",), "source 'cocoa': allowed values: craigslist"),
    ],
)
def test_import_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, make: str | None, args: tuple[str, ...], message: str
) -> None:
    given = tmp_path / "in.jsonl"
    if make is not None:
        given.write_text(make, encoding="utf-8")
    arguments = [*args] if make is None else [*args, given]
    result = icl_aif(
        "scenarios", "import", *arguments, "--out", tmp_path / "out.jsonl", cwd=tmp_path
    )
    assert result.returncode == 2, result.stdout
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(
    ("title", "item"),
    [
        ("Oak desk", "Oak desk"),
        ("  ***Oak   desk!!!  ", "Oak desk"),
        (
            "Beautiful Unique Beijing Cabinet - removable door, hidden drawer",
            "Beautiful Unique Beijing Cabinet",
        ),
        (
            "BLACK WOOD DOUBLE AUTOMATIC WATCH BOX DIPLAY WINDER w/ STORAGE CASE",
            "BLACK WOOD DOUBLE AUTOMATIC WATCH BOX DIPLAY WINDER",
        ),
    ],
)
def test_listing_titles_are_trimmed(title: str, item: str) -> None:
    assert listing_title(title) == item
    assert len(listing_title(title * 3)) <= 60


# --- scenario.listings ----------------------------------------------------------------------


def test_each_game_plays_one_listing_drawn_from_its_seed() -> None:
    config = load_config(QUICKSTART, [f"scenario.listings={SPAN}"])
    game = PriceGame()
    drawn = [game.sample_scenario(config.scenario, seed) for seed in range(40)]
    assert drawn == [game.sample_scenario(config.scenario, seed) for seed in range(40)]
    listings = {s.source: s for s in load_listings(SPAN)}
    assert {d.source for d in drawn} == set(listings)  # 40 draws reach all 7 listings
    for scenario in drawn:
        assert isinstance(scenario, PriceScenario) and scenario.listings is None
        listing = listings[scenario.source]
        assert (scenario.item, scenario.list_price, scenario.buyer_open, scenario.seller_cost) == (
            listing.item,
            listing.list_price,
            listing.buyer_open,
            listing.seller_cost,
        )
        assert scenario.openers == config.scenario.openers  # the config's own settings stay
    plain = load_config(QUICKSTART)
    assert game.sample_scenario(plain.scenario, 3) is plain.scenario
    assert "listings" not in plain.scenario.model_dump()  # records without listings unchanged


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (None, "no such file"),
        ("\n", "holds no listing"),
        (
            '{"item": "a", "list_price": 10, "buyer_open": 5, "seller_cost": 4}\n{"item": "b"\n',
            "line 2: not valid JSON",
        ),
        (
            '{"item": "a", "list_price": 10, "buyer_open": 5}\n',
            "line 1: missing seller_cost",
        ),
        (
            '{"item": "a", "list_price": 10, "buyer_open": 5, "seller_cost": 4, "colour": 1}\n',
            "line 1: unknown key 'colour'",
        ),
        (
            '\n{"item": "a", "list_price": 10, "buyer_open": 12, "seller_cost": 4}\n',
            "line 2: buyer_open must be below list_price",
        ),
    ],
)
def test_a_bad_listings_file_fails_when_the_config_loads(
    tmp_path: Path, text: str | None, message: str
) -> None:
    path = tmp_path / "listings.jsonl"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        load_config(QUICKSTART, [f"scenario.listings={path}"])
    line = str(caught.value)
    assert "scenario.listings" in line and str(path) in line and message in line
    assert "\n" not in line


# --- $10 to $20,000 end to end --------------------------------------------------------------


def test_listings_from_10_to_20000_dollars_play_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "run"
    settings = [f"scenario.listings={SPAN}", "runs=20", "rounds=2", "concurrency=4"]
    result = icl_aif(
        "run", QUICKSTART, "--offline", "--out", out, *(a for s in settings for a in ("--set", s))
    )
    assert result.returncode == 0, result.stderr
    games = read_games(out)
    assert len(games) == 20
    played = {g["scenario"]["source"] for g in games}
    prices = sorted(g["scenario"]["list_price"] for g in games)
    assert len(played) >= 5 and prices[0] <= 12 and prices[-1] >= 18000
    deals = 0
    for game in games:
        scenario = game["scenario"]
        for record in game["rounds"]:
            if record["outcome"] != "deal":
                continue
            deals += 1
            price = record["terms"]["price"]
            assert scenario["buyer_open"] <= price <= scenario["list_price"], (scenario, record)
    assert deals >= 10
    summary = read_json(out / "summary.json")
    assert [r["round"] for r in summary["per_round"]] == [1, 2]
    assert (out / "summary.md").is_file()
    assert all((out / "plots" / name).is_file() for name in PLOT_FILES)
    assert re.search(r"\$\d{1,3},\d{3}\.\d\d ", result.stdout)  # $4,321.50: thousands separated
    report = icl_aif("report", out, "--plots", "--html")
    assert report.returncode == 0, report.stderr
    assert (out / "report.html").is_file()
