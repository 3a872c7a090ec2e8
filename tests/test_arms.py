"""Paired feedback arms: one shared prefix, every arm from the identical state, seeds per arm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.configs import load_config
from icl_aif.engine.protocol import initial_history, turns_as_messages
from icl_aif.records.reader import read_games, read_jsonl
from tests.conftest import QUICKSTART, ROOT, games_without_times, icl_aif, quickstart, run

ARMS = "arms=[ai, human_pool, constant, none]"
SHARED_KEYS = ("round", "turns", "outcome", "price", "reason", "decided_by", "parse")


def arm_run(tmp_path: Path, *overrides: str, name: str = "arms") -> Path:
    config = quickstart("runs=6", "rounds=3", ARMS, "branch_after=1", *overrides)
    return run(config, tmp_path / name).directory


def by_game(directory: Path) -> dict[str, list[dict[str, Any]]]:
    games: dict[str, list[dict[str, Any]]] = {}
    for game in read_games(directory):
        games.setdefault(game["game_id"], []).append(game)
    return games


def test_one_record_per_game_and_arm_with_a_byte_identical_shared_prefix(tmp_path: Path) -> None:
    directory = arm_run(tmp_path)
    games = by_game(directory)
    assert len(games) == 6
    for records in games.values():
        assert [g["arm"] for g in records] == ["ai", "human_pool", "constant", "none"]
        assert {g["branch_after"] for g in records} == {1}
        assert len({g["arm_seed"] for g in records}) == 4  # each arm its own randomness
        for g in records:
            assert [r["shared"] for r in g["rounds"]] == [True, False, False]
        prefixes = {
            json.dumps({k: g["rounds"][0].get(k) for k in SHARED_KEYS}, sort_keys=True)
            for g in records
        }
        assert len(prefixes) == 1
        feedback = {g["arm"]: g["rounds"][0]["feedback_source"] for g in records}
        assert feedback == {a: a for a in ("ai", "human_pool", "constant", "none")}
    calls = list(read_jsonl(directory / "calls.jsonl"))
    # the prefix's calls are recorded once (arm null), then each arm's
    assert {c["arm"] for c in calls if c["round"] == 1 and c["role"] == "seller"} == {None}
    assert {c["arm"] for c in calls if c["round"] == 2} == {"ai", "human_pool", "constant", "none"}


def test_every_arm_resumes_the_identical_history_against_a_reset_rival(tmp_path: Path) -> None:
    directory = arm_run(tmp_path)
    prompts = PromptLibrary()
    config = quickstart()
    calls = list(read_jsonl(directory / "calls.jsonl"))
    for game_id, records in by_game(directory).items():
        first_round = records[0]["rounds"][0]
        expected = [
            *initial_history(prompts, config, "seller"),
            *turns_as_messages("seller", first_round["turns"]),
        ]
        for record in records:
            arm = record["arm"]
            mine = [c for c in calls if c["game_id"] == game_id and c["arm"] == arm]
            seller = next(c["messages"] for c in mine if c["role"] == "seller" and c["round"] == 2)
            assert seller[: len(expected)] == expected  # the exact shared history
            instruction = seller[len(expected)]
            assert instruction == {"role": "user", "content": record["rounds"][0]["instruction"]}
            feedback = record["rounds"][0]["feedback"]
            assert (feedback in instruction["content"]) if feedback else arm == "none"
            buyer = next(c["messages"] for c in mine if c["role"] == "buyer" and c["round"] == 2)
            assert buyer[0]["role"] == "system"
            assert [m["content"] for m in buyer[1:4]] == [
                t["text"] for t in first_round["turns"][:3]
            ]
            assert len(buyer) == 5  # brief, the three openers, the seller's first line: reset


def test_arms_reproduce_at_concurrency_1_and_8(tmp_path: Path) -> None:
    one = arm_run(tmp_path, "concurrency=1", name="c1")
    eight = arm_run(tmp_path, "concurrency=8", name="c8")
    assert games_without_times(one) == games_without_times(eight)
    timeless = lambda d: [  # noqa: E731
        {k: v for k, v in c.items() if k != "latency_s"} for c in read_jsonl(d / "calls.jsonl")
    ]
    assert timeless(one) == timeless(eight)
    assert (
        json.loads((one / "summary.json").read_text())["arms"]
        == json.loads((eight / "summary.json").read_text())["arms"]
    )


def test_an_arms_games_do_not_depend_on_the_other_arms(tmp_path: Path) -> None:
    """Seeds derive from (game, arm): arm none plays the same games alone or among four arms."""
    alone = run(
        quickstart("runs=5", "rounds=2", "arms=[none]", "concurrency=2"), tmp_path / "alone"
    ).directory
    among = run(quickstart("runs=5", "rounds=2", ARMS, "concurrency=5"), tmp_path / "among")
    pick = [g for g in games_without_times(among.directory) if g["arm"] == "none"]
    assert games_without_times(alone) == pick


def test_the_arms_summary_is_table_1(tmp_path: Path) -> None:
    directory = arm_run(tmp_path, "runs=12", "rounds=2")
    summary = json.loads((directory / "summary.json").read_text())
    assert "per_round" not in summary and summary["branch_after"] == 1
    rows = {row["arm"]: row for row in summary["arms"]}
    assert list(rows) == ["ai", "human_pool", "constant", "none"]
    games = [g for g in read_games(directory) if g["arm"] == "ai"]
    dealt = [
        (g["rounds"][0]["price"], g["rounds"][1]["price"])
        for g in games
        if g["rounds"][0]["outcome"] == "deal" and g["rounds"][1]["outcome"] == "deal"
    ]
    ai = rows["ai"]
    assert ai["paired_games"] == len(dealt)
    assert ai["delta"] == round(sum(a - b for b, a in dealt) / len(dealt), 4)
    low, high = ai["delta_ci95"]
    assert low <= ai["delta"] <= high
    assert rows["none"]["vs_none_p"] is None and rows["ai"]["vs_none_p"] is not None
    assert ai["vs_none_p_holm"] >= ai["vs_none_p"]
    assert len({row["price_before"] for row in rows.values()}) == 1  # the shared round
    assert "paired Δ" in (directory / "summary.md").read_text()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["arms=[ai, human]"], "allowed values: 'ai', 'human_pool', 'constant' or 'none'"),
        (["arms=[ai, ai]"], "names a source twice"),
        (["arms=[ai]", "rounds=2", "branch_after=2"], "leaves no round for the arms"),
        (["arms=[]"], "name at least one feedback source"),
    ],
)
def test_bad_arms_are_one_line_errors(overrides: list[str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        load_config(QUICKSTART, overrides)


def test_table1_config_offline_writes_the_arm_table(tmp_path: Path) -> None:
    out = tmp_path / "t1"
    config = ROOT / "experiments" / "table1_feedback_pools.yaml"
    result = icl_aif("run", config, "--offline", "--set", "runs=20", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "feedback arms, 20 games" in result.stdout and "95% CI" in result.stdout
    for arm in ("ai", "human_pool", "constant", "none"):
        assert any(line.split()[:1] == [arm] for line in result.stdout.splitlines())
    summary = json.loads((out / "summary.json").read_text())
    assert all(row["delta_ci95"] is not None for row in summary["arms"])
    # the terminal legend explains the columns it shows, and says where the others are
    header = next(line.split() for line in result.stdout.splitlines() if "paired" in line)
    assert "score" not in header and header[-2:] == ["p", "Holm"]
    legend = " ".join(result.stdout.split())
    assert "score Δ:" not in legend and "p Holm: two-sided" in legend
    assert "summary.md and summary.json also hold the paired score Δ" in legend
    assert "| score Δ | vs none |" in (out / "summary.md").read_text()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["arms"] == ["ai", "human_pool", "constant", "none"]
    assert manifest["offline"]["replaced"]["roles.seller.model"] == {
        "openai:gpt-4o-mini": "scripted:linear"
    }
    assert manifest["models"]["seller"] == "scripted:linear"
    assert manifest["preflight"] == []
