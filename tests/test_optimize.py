"""icl-aif optimize (issue 27): standing instructions, the scripted reflector, the search, the
held-out comparison, the budget, and a kill -9 resumed without paying a call twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from langchain_core.messages import HumanMessage

from icl_aif.analysis.optimizer import optimize
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.protocol import player_brief
from icl_aif.games.reflector import ScriptedReflector, sentences
from icl_aif.records.reader import read_games, read_json
from tests.conftest import CLI, ROOT, cli_env, icl_aif, run

SHIPPED = ROOT / "experiments" / "optimize.yaml"


def design(**optimize: Any) -> dict[str, Any]:
    """A small offline optimisation: a scripted seller against a known-type buyer."""
    return {
        "name": "tiny_optimize",
        "seed": 27,
        "runs": 10,
        "rounds": 1,
        "concurrency": 8,
        "improve": "seller",
        "scenario": {
            "counterpart": {
                "seat": "buyer",
                "reservation": [14, 19],
                "beta": [0.5, 1.0],
                "deadline": 8,
            }
        },
        "roles": {"buyer": {"model": "scripted:known"}},
        "optimize": {
            "train": 6,
            "validation": 6,
            "heldout": 30,
            "games": 2,
            "iterations": 8,
            "minibatch": 3,
            "merge_every": 4,
            "compare_rounds": 1,
            **optimize,
        },
    }


def reflect(instruction: str, feedback: str, seed: int = 0, limit: int = 600) -> str:
    prompt = PromptLibrary().render(
        "optimize/reflect.txt",
        seat="seller",
        game="price",
        instruction=instruction,
        games=2,
        score="1.0",
        source="ai",
        feedback=feedback,
        max_chars=limit,
    )
    return ScriptedReflector(seed=seed).respond([HumanMessage(prompt)])


def test_the_scripted_reflector_adds_the_most_said_new_advice_within_the_limit() -> None:
    feedback = "1. Hold firm.\n2. Anchor high.\n\n1. Anchor high.\n2. Stay calm."
    assert reflect("", feedback) == "<instruction>\nAnchor high.\n</instruction>"
    grown = reflect("Anchor high.", feedback, seed=3)
    assert sentences(grown.split("\n")[1]) in (
        ["Anchor high.", "Hold firm."],
        ["Anchor high.", "Stay calm."],
        [],
    )
    cut = reflect("A long first sentence that is kept only while it fits.", feedback, limit=40)
    assert len(cut.split("\n")[1]) <= 40


def test_a_standing_instruction_joins_the_seats_brief_and_moves_a_scripted_player(
    tmp_path: Path,
) -> None:
    firm = tmp_path / "firm.txt"
    firm.write_text("Hold firm and concede slowly. Anchor high.\n")
    base = {"runs": 12, "rounds": 1, "feedback": {"source": "none"}}
    plain = config_from_dict(base, "q.yaml")
    told = config_from_dict({**base, "instructions": {"seller": str(firm)}}, "q.yaml")
    brief = player_brief(PromptLibrary(), told, "seller")
    assert brief.startswith(player_brief(PromptLibrary(), plain, "seller"))
    assert brief.endswith(
        "Standing instructions for your play, distilled from earlier games:\n"
        "Hold firm and concede slowly. Anchor high."
    )
    assert "Hold firm" not in player_brief(PromptLibrary(), told, "buyer")
    prices = []
    for config, name in ((plain, "plain"), (told, "told")):
        games = read_games(run(config, tmp_path / name).directory)
        prices.append([r["rounds"][0].get("price") for r in games])
    assert prices[0] != prices[1]
    manifest = read_json(tmp_path / "told" / "manifest.json")
    assert manifest["players"]["instructions"] == {
        "seller": "Hold firm and concede slowly. Anchor high."
    }


@pytest.mark.parametrize(
    ("instructions", "message"),
    [
        ({"captain": "x.txt"}, "instructions.captain: not a seat"),
        ({"seller": "no/such/file.txt"}, "instructions.seller: no/such/file.txt: no such file"),
    ],
)
def test_a_bad_instruction_is_one_line(instructions: dict[str, str], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        config_from_dict({"instructions": instructions}, "q.yaml")


def test_the_optimised_scripted_seller_beats_no_feedback_on_held_out_games(
    tmp_path: Path,
) -> None:
    out = tmp_path / "opt"
    result = optimize(config_from_dict(design(), "o.yaml"), out)
    best = result.comparison["best"]
    assert (
        best["instruction"]
        and (out / "best_instruction.txt").read_text().strip() == best["instruction"]
    )
    (optimized,) = result.comparison["arms"]["optimized"]["per_round"]
    low = optimized["vs_none_ci95"][0]
    assert optimized["vs_none"] > 0 and low > 0  # paired over the 30 held-out games
    proposals = [json.loads(line) for line in (out / "candidates.jsonl").read_text().splitlines()]
    assert proposals[0]["id"] == "c00" and len(proposals) == 9  # the seed and 8 proposals
    kept = [p for p in proposals[1:] if p["kept"]]
    assert kept and all(p["score"] > max(p["parent_scores"]) for p in kept)
    assert all((out / "instructions" / f"{p['id']}.txt").is_file() for p in kept)
    assert any(p["origin"] == "merge" for p in proposals) or len(kept) < 2
    for p in proposals[1:]:
        assert p["reflection"]["role"] == "reflection" and p["reflection"]["messages"]
    lineage = (out / "lineage.md").read_text()
    assert "| c00 | seed 0 |" in lineage and best["instruction"] in lineage
    page = (out / "report.html").read_text()
    assert "Held-out comparison" in page and "optimized" in page and "icl_aif" in page
    for arm in ("optimized", "icl_aif", "none"):
        assert (out / "compare" / arm / "summary.json").is_file()


def test_the_budget_stops_the_search_within_it(tmp_path: Path) -> None:
    out = tmp_path / "opt"
    result = optimize(
        config_from_dict(design(max_calls=400, iterations=20, heldout=4), "o.yaml"), out
    )
    search = result.comparison["search"]
    assert search["calls"] <= 400
    assert search["stopped"].startswith("the budget stopped the search before proposal")


def test_a_kill_9_then_resume_pays_no_call_twice(tmp_path: Path) -> None:
    config = tmp_path / "opt.yaml"
    config.write_text(yaml.safe_dump(design(heldout=6)))
    out = tmp_path / "out"
    cache = out / "cache.jsonl"
    process = subprocess.Popen(
        [str(CLI), "optimize", str(config), "--out", str(out)],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=cli_env(),
    )
    deadline = time.monotonic() + 120
    while not (cache.is_file() and cache.read_text().count("\n") > 400):
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline
        time.sleep(0.02)
    os.kill(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    paid = sum(1 for line in cache.read_text().splitlines() if line.endswith("}"))
    resumed = icl_aif("optimize", "--resume", out, cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    lines = [json.loads(line) for line in cache.read_text().splitlines() if line.endswith("}")]
    assert len({line["key"] for line in lines}) == len(lines)  # no key stored twice
    calls = [json.loads(line) for line in (out / "search" / "calls.jsonl").read_text().splitlines()]
    for arm in ("optimized", "icl_aif", "none"):
        text = (out / "compare" / arm / "calls.jsonl").read_text()
        calls += [json.loads(line) for line in text.splitlines()]
    proposals = [json.loads(line) for line in (out / "candidates.jsonl").read_text().splitlines()]
    calls += [p["reflection"] for p in proposals if p["reflection"]]
    misses = sum(call.get("cache") == "miss" for call in calls)
    assert misses == len(lines) - paid  # every call paid before the kill came from the cache
    assert misses < len(calls)


def test_the_shipped_design_runs_offline_within_its_budget(tmp_path: Path) -> None:
    done = icl_aif(
        "optimize",
        SHIPPED,
        "--offline",
        "--out",
        tmp_path / "opt",
        "--set",
        "optimize.iterations=3",
        "--set",
        "optimize.heldout=8",
        cwd=tmp_path,
        columns=140,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Search: at most" in out and "budget: 6,000 calls, $2.0000" in out
    assert "held-out comparison" in out and "optimized" in out and "icl_aif" in out
    comparison = read_json(tmp_path / "opt" / "comparison.json")
    assert comparison["search"]["calls"] <= 6000
    tokens = [r["tokens"] for r in comparison["arms"]["icl_aif"]["per_round"]]
    assert tokens[1] > tokens[0]  # in-context learning's prompt grows
