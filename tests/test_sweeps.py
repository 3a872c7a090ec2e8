"""Sweeps (lists in a config play as cells of one run), --offline, scores and paired tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from icl_aif.analysis.estimate import estimate_cells, estimate_usage
from icl_aif.analysis.metrics import holm, round_score, sign_flip_p
from icl_aif.config.files import config_to_yaml
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config, load_offline_config
from icl_aif.models.registry import split_model_string
from icl_aif.records.reader import read_games, read_jsonl
from tests.conftest import PRICE_MEASURE, QUICKSTART, ROOT, icl_aif, quickstart, run

SWEEP = ("roles.seller.model=[scripted:linear, scripted:boulware]", "improve=[seller, buyer]")


def test_lists_become_cells_with_their_own_critic() -> None:
    config = quickstart(*SWEEP, "scenario.item=[balloon, bike]")
    cells = config.cells()
    assert [c.id for c in cells] == ["c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]
    assert cells[0].settings == {
        "improve": "seller",
        "roles.seller.model": "scripted:linear",
        "scenario.item": "balloon",
    }
    last = cells[-1].config
    assert (last.improve, last.roles.seller.model, last.scenario.item) == (
        "buyer",
        "scripted:boulware",
        "bike",
    )
    assert all(not c.config.sweep for c in cells)
    # the written config.yaml loads as the same sweep
    again = yaml.safe_load(config_to_yaml(config))
    assert again["improve"] == ["seller", "buyer"] and again["scenario"]["item"] == [
        "balloon",
        "bike",
    ]


def test_improved_model_follows_the_improved_side() -> None:
    config = load_config(
        QUICKSTART, ["improve=[seller, buyer]", "improved_model=[scripted:boulware]"]
    )
    seller_cell, buyer_cell = (c.config for c in config.cells())
    assert (seller_cell.roles.seller.model, seller_cell.roles.buyer.model) == (
        "scripted:boulware",
        "scripted:linear",
    )
    assert (buyer_cell.roles.seller.model, buyer_cell.roles.buyer.model) == (
        "scripted:linear",
        "scripted:boulware",
    )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["improve=[seller, critic]"], "improve: 'critic' is not a seat of game 'price'"),
        (
            ["scenario.list_price=[20, 5]"],
            "sweep cell scenario.list_price=5: .*buyer_open must be below",
        ),
        (["scenario.item=[]"], "scenario.item: an empty list"),
        (["improve=[seller, seller]"], "names a value twice"),
        (["sweep={improve: [seller]}"], "sweep is not a config key"),
        (["roles.seller.model=[scripted:linear, nope:x]"], "unknown provider 'nope'"),
    ],
)
def test_bad_sweeps_are_one_line_errors(overrides: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        config = load_config(QUICKSTART, overrides)
        for cell in config.cells():  # a model string is checked when its models are built
            for role_config in cell.config.model_roles().values():
                split_model_string(role_config.model)
    assert "\n" not in str(caught.value)


def test_a_sweep_plays_every_cell_into_one_directory(tmp_path: Path) -> None:
    directory = run(quickstart("runs=4", "rounds=2", *SWEEP), tmp_path / "sweep").directory
    games = read_games(directory)
    assert len(games) == 16
    assert [g["cell"] for g in games] == [c for c in ("c1", "c2", "c3", "c4") for _ in range(4)]
    assert all(c["cell"] for c in read_jsonl(directory / "calls.jsonl"))
    summary = json.loads((directory / "summary.json").read_text())
    assert "per_round" not in summary
    assert [c["cell"] for c in summary["cells"]] == ["c1", "c2", "c3", "c4"]
    assert summary["cells"][3]["settings"] == {
        "improve": "buyer",
        "roles.seller.model": "scripted:boulware",
    }
    assert summary["cells"][3]["improve"] == "buyer"
    assert summary["cells"][0]["no_deal_value"] == 8.0  # the seller's cost
    assert summary["cells"][2]["no_deal_value"] == 20.0  # no budget: the list price
    for cell in summary["cells"]:
        assert [r["games"] for r in cell["per_round"]] == [4, 4]
    manifest = json.loads((directory / "manifest.json").read_text())
    assert [c["cell"] for c in manifest["cells"]] == ["c1", "c2", "c3", "c4"]
    assert manifest["cells"][1]["models"]["seller"] == "scripted:boulware"
    markdown = (directory / "summary.md").read_text()
    rows = [ln for ln in markdown.splitlines() if re.match(r"\| c\d ", ln)]
    assert len(rows) == 8  # the combined table: one row per cell and round


def test_a_sweep_reproduces_at_any_concurrency(tmp_path: Path) -> None:
    one = run(quickstart("runs=3", "rounds=2", "concurrency=1", *SWEEP), tmp_path / "a")
    many = run(quickstart("runs=3", "rounds=2", "concurrency=12", *SWEEP), tmp_path / "b")
    strip = lambda d: [  # noqa: E731
        {k: v for k, v in g.items() if not k.endswith("_at")} for g in read_games(d.directory)
    ]
    assert strip(one) == strip(many)
    assert one.summary["cells"] == many.summary["cells"]


def test_a_run_without_lists_has_no_cell_keys(small_run: object, tmp_path: Path) -> None:
    directory = run(quickstart("runs=2", "rounds=2"), tmp_path / "plain").directory
    assert all("cell" not in g and "arm" not in g for g in read_games(directory))
    summary = json.loads((directory / "summary.json").read_text())
    assert "cells" not in summary and "arms" not in summary
    assert summary["bootstrap"]["seed"] == 7
    config_text = (directory / "config.yaml").read_text()
    assert "arms" not in config_text and "improved_model" not in config_text
    assert "cells" not in json.loads((directory / "manifest.json").read_text())


def test_sweep_and_fig_configs_run_offline(tmp_path: Path) -> None:
    for name in ("fig4_one_round", "fig6_multi_round"):
        out = tmp_path / name
        result = icl_aif(
            "run", ROOT / "experiments" / f"{name}.yaml", "--offline", "--set", "runs=3",
            "--set", "rounds=2", "--out", out,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        assert "2 cells" in result.stdout
        summary = json.loads((out / "summary.json").read_text())
        assert [c["settings"]["improve"] for c in summary["cells"]] == ["seller", "buyer"]
        manifest = json.loads((out / "manifest.json").read_text())
        assert set(manifest["offline"]["replaced"]["improved_model"].values()) == {
            "scripted:linear"
        }


def test_offline_replaces_every_model_backed_role() -> None:
    config, replaced = load_offline_config(
        QUICKSTART,
        [
            "roles.seller.model=openai:gpt-4o-mini",
            "roles.buyer.model=local:",
            "roles.critic.model=anthropic:claude-haiku-4-5",
            "roles.moderator={mode: llm, model: openai:gpt-4o-mini}",
        ],
    )
    assert (config.roles.seller.model, config.roles.buyer.model) == ("scripted:linear",) * 2
    assert config.roles.critic.model == "scripted:critic"
    assert config.roles.moderator.mode == "rules"
    assert replaced == {
        "roles.seller.model": {"openai:gpt-4o-mini": "scripted:linear"},
        "roles.buyer.model": {"local:": "scripted:linear"},
        "roles.critic.model": {"anthropic:claude-haiku-4-5": "scripted:critic"},
        "roles.moderator.mode": {"llm": "rules"},
    }


def test_estimate_covers_every_cell_and_every_arm() -> None:
    cells = estimate_cells(quickstart("runs=10", "rounds=2", *SWEEP), sample=2)
    assert len(cells) == 4
    plain = estimate_usage(quickstart("runs=10", "rounds=2"), sample=4)
    arms = estimate_usage(quickstart("runs=10", "rounds=2", "arms=[ai, none]"), sample=4)
    # round 1 once, then round 2 twice: more calls than one plain game, fewer than two
    assert plain.calls < arms.calls < 2 * plain.calls


def test_scores_holm_and_the_sign_flip_test() -> None:
    assert round_score({"outcome": "deal", "price": 15.0}, 8.0, PRICE_MEASURE) == 15.0
    assert round_score({"outcome": "no_deal", "price": None}, 8.0, PRICE_MEASURE) == 8.0
    assert round_score({"outcome": "error", "price": None}, 8.0, PRICE_MEASURE) is None
    assert holm([0.01, 0.04, None, 0.03]) == [0.03, 0.06, None, 0.06]
    assert sign_flip_p([1.0, 1.0, 1.0, 1.0, 1.0], seed=0) == 2 / 32  # exact: all + or all -
    assert sign_flip_p([0.0, 0.0], seed=0) == 1.0
    big = [1.0] * 30
    assert sign_flip_p(big, seed=1) == sign_flip_p(big, seed=1) < 0.001
    assert quickstart("improve=buyer", "scenario.buyer_budget=17").no_deal_value == 17.0
    assert quickstart("metrics.no_deal_value=0").no_deal_value == 0.0


def test_quickstart_summary_has_scores(small_run: object) -> None:
    from icl_aif.run.runner import RunResult

    assert isinstance(small_run, RunResult)
    first = small_run.summary["per_round"][0]
    games = read_games(small_run.directory)
    scores = [
        g["rounds"][0]["price"] if g["rounds"][0]["outcome"] == "deal" else 8.0 for g in games
    ]
    assert first["mean_score"] == round(sum(scores) / len(scores), 4)
    assert first["scored"] == 6
    assert small_run.summary["no_deal_value"] == 8.0
