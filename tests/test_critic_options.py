"""The critic's model (the improved player's engine unless set), its switchable constraints, and
the human pool's seeded sampling."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.context import GameContext, build_model
from icl_aif.engine.feedback import give_feedback, load_pool
from icl_aif.engine.graphs import build_run_graph
from icl_aif.engine.protocol import PlayedRound
from icl_aif.games.critics import ScriptedCritic
from icl_aif.records.reader import read_games, read_json
from tests.conftest import ROOT, quickstart, run

OPENAI = {"model": "openai:gpt-4o-mini", "temperature": 0.3, "max_tokens": 99}


# --- the critic's model -------------------------------------------------------------------------


@pytest.mark.parametrize("improve", ["seller", "buyer"])
def test_a_scripted_improved_player_gets_the_scripted_critic(improve: str) -> None:
    config = config_from_dict(
        {"improve": improve, "roles": {improve: {"model": "scripted:boulware"}}}
    )
    assert config.roles.critic.model == "scripted:critic"


def test_a_language_model_player_lends_the_critic_its_model_and_settings() -> None:
    config = config_from_dict({"roles": {"seller": OPENAI}})
    critic = config.roles.critic
    assert (critic.model, critic.temperature, critic.max_tokens) == ("openai:gpt-4o-mini", 0.3, 99)
    # the improved side decides, not the seller
    buyer_improved = config_from_dict({"improve": "buyer", "roles": {"seller": OPENAI}})
    assert buyer_improved.roles.critic.model == "scripted:critic"
    buyer_model = config_from_dict(
        {"improve": "buyer", "roles": {"buyer": {"model": "anthropic:claude-haiku-4-5"}}}
    )
    assert buyer_model.roles.critic.model == "anthropic:claude-haiku-4-5"


def test_an_explicit_critic_is_kept_cross_engine() -> None:
    config = config_from_dict(
        {"roles": {"seller": OPENAI, "critic": {"model": "anthropic:claude-haiku-4-5"}}}
    )
    assert config.roles.critic.model == "anthropic:claude-haiku-4-5"
    assert config.roles.critic.temperature is None


def test_build_model_and_the_manifest_use_the_resolved_critic(tmp_path: Path) -> None:
    config = config_from_dict(
        {
            "runs": 1,
            "rounds": 2,
            "roles": {
                "seller": {"model": "replay:seller", "params": {"replies": ["How about $17?"] * 4}},
                "buyer": {"model": "replay:buyer", "params": {"replies": ["Okay, $17. Deal!"] * 4}},
            },
        }
    )
    assert config.roles.critic.model == "replay:seller"  # same model string and settings
    assert config.roles.critic.params == config.roles.seller.params
    built = build_model(config, "critic", seed=0)  # role settings default to the resolved ones
    assert type(built).__name__ == "ReplayModel"
    scripted = quickstart("roles.critic=null")
    assert isinstance(build_model(scripted, "critic", seed=0), ScriptedCritic)
    result = run(config, tmp_path / "run")
    manifest = read_json(result.directory / "manifest.json")
    assert manifest["models"]["critic"] == "replay:seller"
    (game,) = read_games(result.directory)
    assert game["rounds"][0]["feedback"] == "How about $17?"  # the critic's call went to the replay


# --- the critic's constraints ---------------------------------------------------------------------


def critic_system(*constraints: str) -> str:
    config = quickstart("rounds=2", f"feedback.constraints={list(constraints)}")
    ctx = GameContext(config=config)
    asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    (call,) = [c for c in ctx.calls if c["role"] == "critic"]
    content: str = call["messages"][0]["content"]
    return content


SYSTEM_HEAD = (
    "You coach the seller in a bargaining game over a balloon. You read everything the seller has "
    "been through:\neach past round with both sides' lines, how it ended, and the feedback the "
    "seller received after it.\nWrite exactly 3 numbered suggestions that will help the seller sell "
    "at a higher price in the next round."
)


def test_every_constraint_is_on_by_default_in_a_fixed_order() -> None:
    assert quickstart().feedback.constraints == ("no_price", "build_on_last", "generic", "one_item")
    assert critic_system("one_item", "no_price", "build_on_last", "generic") == (
        SYSTEM_HEAD + "\n"
        "Do not name a specific price to ask for or to offer.\n"
        "Build on what happened in the most recent round.\n"
        "Keep each suggestion general enough to use in any round, and make it insightful.\n"
        "The seller trades only the one balloon: suggest no bundles, extra products or services."
    )


def test_constraints_switch_off_one_by_one() -> None:
    assert critic_system("no_price", "one_item") == (
        SYSTEM_HEAD + "\n"
        "Do not name a specific price to ask for or to offer.\n"
        "The seller trades only the one balloon: suggest no bundles, extra products or services."
    )
    assert critic_system() == SYSTEM_HEAD


def test_an_unknown_constraint_is_a_one_line_error() -> None:
    with pytest.raises(UsageError) as error:
        quickstart("feedback.constraints=[no_price, be_nice]")
    text = str(error.value)
    assert "field 'feedback.constraints.1': got 'be_nice'; allowed values: 'no_price'" in text
    assert "\n" not in text


def test_the_manifest_records_the_feedback_settings(small_run: Any) -> None:
    manifest = read_json(small_run.directory / "manifest.json")
    assert manifest["feedback"] == {
        "source": "ai",
        "suggestions": 3,
        "constraints": ["no_price", "build_on_last", "generic", "one_item"],
    }


# --- the human pool -----------------------------------------------------------------------------


def test_the_shipped_pools_hold_ten_suggestions_each() -> None:
    for side in ("seller", "buyer"):
        pool = load_pool(ROOT / "prompts" / "price" / "feedback" / f"{side}_pool.txt")
        assert len(pool) == len(set(pool)) == 10


def pool_feedback(index: int, seed: int = 7) -> list[str]:
    config = quickstart(f"seed={seed}", "feedback.source=human_pool")
    ctx = GameContext(config=config, index=index, prompts=PromptLibrary())
    record = PlayedRound(round=1, turns=[], outcome="no_deal", price=None, reason="cap")
    return asyncio.run(give_feedback(ctx, [record])).suggestions


def test_the_human_pool_samples_suggestions_lines_seeded_by_the_game() -> None:
    assert pool_feedback(0) == [
        "Stay friendly and patient: a calm seller gets better prices than a pushy one.",
        "Be willing to walk away when an offer is far below what the item is worth.",
        "Open with confidence and repeat the full asking price before you discuss any discount.",
    ]
    assert pool_feedback(0) == pool_feedback(0)
    assert pool_feedback(1) != pool_feedback(0)
    assert pool_feedback(0, seed=8) != pool_feedback(0)


def test_the_sampled_lines_are_recorded_per_feedback_step(tmp_path: Path) -> None:
    config = quickstart(
        "runs=3", "rounds=3", "feedback.source=human_pool", "feedback.suggestions=2"
    )
    games = read_games(run(config, tmp_path / "run").directory)
    pool = set(load_pool(ROOT / "prompts" / "price" / "feedback" / "seller_pool.txt"))
    steps = [r for g in games for r in g["rounds"] if "feedback" in r]
    assert len(steps) == 3 * 2
    for record in steps:
        assert record["feedback_source"] == "human_pool"
        assert len(record["suggestions"]) == 2 and set(record["suggestions"]) <= pool
        assert record["feedback"] == "\n".join(
            f"{i}. {line}" for i, line in enumerate(record["suggestions"], start=1)
        )
    assert len({tuple(r["suggestions"]) for r in steps}) > 1
