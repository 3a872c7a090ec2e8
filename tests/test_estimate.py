"""``icl-aif estimate``: calls, tokens and cost predicted from simulated games, checked against runs.

The actual figures come from a real run's ``calls.jsonl``: calls per role, and tokens as
characters / 4 of every call's messages and reply (simulators report no usage).
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.estimate import (
    PREFLIGHT,
    PREFLIGHT_INPUT_TOKENS,
    PREFLIGHT_OUTPUT_TOKENS,
    Estimate,
    estimate_usage,
    sample_indices,
)
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import config_from_dict
from icl_aif.models import registry
from icl_aif.models.keys import KEY_VARIABLES
from icl_aif.models.limits import tokens_in
from icl_aif.models.pricing import DEFAULT_PRICES, cost_usd
from icl_aif.records.reader import read_jsonl
from icl_aif.run.runner import RunResult
from tests import conftest
from tests.conftest import QUICKSTART, quickstart, run

CLI = Path(sys.executable).parent / "icl-aif"
TOLERANCE = 0.30  # the bar: within 30% of what the run actually sends


def actual_per_role(result: RunResult) -> dict[str, dict[str, int]]:
    """Calls and characters / 4 tokens per role, from a run's calls.jsonl."""
    totals: dict[str, Counter[str]] = {}
    for call in read_jsonl(result.directory / "calls.jsonl"):
        row = totals.setdefault(call["role"], Counter())
        row["calls"] += 1
        row["input_tokens"] += tokens_in(sum(len(m["content"]) for m in call["messages"]))
        row["output_tokens"] += tokens_in(len(call["output"] or ""))
    return {role: dict(row) for role, row in totals.items()}


def predicted_per_role(estimate: Estimate) -> dict[str, dict[str, int]]:
    return {
        line.role: {
            "calls": line.calls,
            "input_tokens": line.input_tokens,
            "output_tokens": line.output_tokens,
        }
        for line in estimate.lines
        if line.role != PREFLIGHT
    }


def test_sample_indices_spread_over_the_runs() -> None:
    assert sample_indices(40, 10) == (2, 6, 10, 14, 18, 22, 26, 30, 34, 38)
    assert sample_indices(3, 10) == (0, 1, 2)  # never more games than runs
    assert sample_indices(1000, 4) == (125, 375, 625, 875)
    with pytest.raises(UsageError, match=r"^--sample 0: simulate at least one game$"):
        sample_indices(5, 0)
    for runs, sample in ((7, 3), (101, 10), (10, 10), (11, 10)):
        indices = sample_indices(runs, sample)
        assert len(set(indices)) == len(indices) == min(runs, sample)
        assert all(0 <= i < runs for i in indices)


def test_estimate_is_within_30_percent_of_a_scripted_run(tmp_path: Path) -> None:
    config = quickstart("runs=40", "rounds=3")
    actual = actual_per_role(run(config, tmp_path / "run"))
    estimate = estimate_usage(config)  # 10 games: 2, 6, ..., 38, not the first ones
    assert estimate.sample[0] > 0 and len(estimate.sample) == 10
    predicted = predicted_per_role(estimate)
    assert set(predicted) == set(actual) == {"seller", "buyer", "critic"}
    for role, figures in actual.items():
        for key, value in figures.items():
            ratio = predicted[role][key] / value
            assert abs(ratio - 1) <= TOLERANCE, (role, key, predicted[role][key], value)
    assert predicted["critic"]["calls"] == actual["critic"]["calls"] == 40 * 2  # exact
    assert all(line.cost_usd == 0.0 for line in estimate.lines)  # simulators are free
    assert not any(line.role == PREFLIGHT for line in estimate.lines)  # nothing to probe
    low, high = estimate.calls_per_game_ci95 or (0.0, 0.0)
    assert low <= estimate.calls_per_game <= high
    assert estimate.notes[0].startswith("From 10 simulated games (game indices 2, 6, 10")


def test_estimate_of_every_game_is_the_run_itself(small_run: RunResult) -> None:
    # simulating all 6 games of the 6-run fixture plays exactly the games the run played
    estimate = estimate_usage(quickstart("runs=6", "rounds=3", "concurrency=3"), sample=50)
    assert estimate.sample == tuple(range(6))
    assert predicted_per_role(estimate) == actual_per_role(small_run)


def vendor_config(buyer: str = "scripted:linear") -> dict[str, Any]:
    data = quickstart("runs=30", "rounds=2").model_dump(mode="json")
    data["roles"]["seller"]["model"] = "openai:gpt-4o-mini"
    data["roles"]["buyer"]["model"] = buyer
    data["roles"]["critic"]["model"] = "anthropic:claude-sonnet-4-5"
    return data


@pytest.fixture
def no_vendor(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No keys, no .env, and building any vendor model fails the test."""
    for variable in KEY_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.chdir(tmp_path)
    original = registry.Provider.build

    def offline_only(self: registry.Provider, request: Any) -> Any:
        assert self.offline, f"the estimate built a {self.name} model"
        return original(self, request)

    monkeypatch.setattr(registry.Provider, "build", offline_only)


@pytest.mark.usefixtures("no_vendor")
def test_vendor_models_are_estimated_without_keys_and_priced() -> None:
    estimate = estimate_usage(config_from_dict(vendor_config()), sample=5)
    by_role = {(line.role, line.model): line for line in estimate.lines}
    seller = by_role["seller", "openai:gpt-4o-mini"]
    critic = by_role["critic", "anthropic:claude-sonnet-4-5"]
    assert (seller.stand_in, critic.stand_in) == ("scripted:linear", "scripted:critic")
    assert by_role["buyer", "scripted:linear"].stand_in is None
    assert critic.calls == 30  # one critique between the 2 rounds of each run

    # the stand-ins play the same games as the scripted config: same calls and tokens
    scripted = estimate_usage(quickstart("runs=30", "rounds=2"), sample=5)
    assert predicted_per_role(estimate) == predicted_per_role(scripted)

    for line in (seller, critic):  # the shipped price table, all input uncached
        price = DEFAULT_PRICES[line.model]
        usage = {"input_tokens": line.input_tokens, "output_tokens": line.output_tokens}
        assert line.cost_usd == pytest.approx(cost_usd(usage, price))
        assert line.cost_usd and line.cost_usd > 0
    probes = [line for line in estimate.lines if line.role == PREFLIGHT]
    assert [p.model for p in probes] == ["openai:gpt-4o-mini", "anthropic:claude-sonnet-4-5"]
    assert all(
        (p.calls, p.input_tokens, p.output_tokens)
        == (1, PREFLIGHT_INPUT_TOKENS, PREFLIGHT_OUTPUT_TOKENS)
        for p in probes
    )
    assert estimate.unpriced_models == ()
    total = sum(line.cost_usd or 0.0 for line in estimate.lines)
    assert estimate.known_cost_usd == pytest.approx(total)
    text = " ".join(estimate.notes)
    assert "seller (openai:gpt-4o-mini) by scripted:linear, mean reply" in text
    assert "No prompt-cache discount" in text


@pytest.mark.usefixtures("no_vendor")
def test_an_unpriced_vendor_model_has_unknown_cost_not_zero() -> None:
    estimate = estimate_usage(config_from_dict(vendor_config(buyer="openai:gpt-unknown")), 3)
    unknown = [line for line in estimate.lines if line.model == "openai:gpt-unknown"]
    assert [line.role for line in unknown] == ["buyer", PREFLIGHT]
    assert all(line.cost_usd is None and line.calls > 0 for line in unknown)
    assert estimate.unpriced_models == ("openai:gpt-unknown",)
    known = [line.cost_usd for line in estimate.lines if line.cost_usd is not None]
    assert estimate.known_cost_usd == pytest.approx(sum(known))
    assert any(note.startswith("No price for openai:gpt-unknown") for note in estimate.notes)


def test_reported_usage_is_used_instead_of_characters() -> None:
    # replay models stand for local models here: they run in process and report usage
    replies = {
        "seller": ["I can't go that low, how about $17?", "My price is $19.", "No deal, bye."],
        "buyer": ["Okay, $17 works for me. Deal!", "Would you take $15?"],
        "critic": ["1. Hold firm.\n2. Anchor high."],
    }
    usage = {"input_tokens": 1000, "output_tokens": 100}
    roles = {
        role: {"model": f"replay:{role}", "params": {"replies": lines, "usage": usage}}
        for role, lines in replies.items()
    }
    config = config_from_dict({"name": "replayed", "runs": 4, "rounds": 2, "roles": roles})
    estimate = estimate_usage(config, sample=2)
    assert predicted_per_role(estimate) == {
        "seller": {"calls": 12, "input_tokens": 12_000, "output_tokens": 1_200},
        "buyer": {"calls": 8, "input_tokens": 8_000, "output_tokens": 800},
        "critic": {"calls": 4, "input_tokens": 4_000, "output_tokens": 400},
    }
    assert all(line.stand_in is None and line.cost_usd == 0.0 for line in estimate.lines)


def test_an_unknown_provider_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown provider 'nosuch'"):
        estimate_usage(quickstart("roles.critic.model=nosuch:critic"))


def icl_aif(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The CLI at 160 columns: a table's row stays on one line."""
    return conftest.icl_aif(*args, columns=160)


def test_cli_prints_the_table_without_keys() -> None:
    result = icl_aif(
        "estimate",
        QUICKSTART,
        "--set",
        "runs=20",
        "--set",
        "roles.seller.model=openai:gpt-4o-mini",
        "--sample",
        "4",
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "estimated usage of 20 runs x 5 rounds" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert rows["seller"][1:3] == ["openai:gpt-4o-mini", "(as"]
    assert rows["preflight"][1:3] == ["openai:gpt-4o-mini", "1"]
    assert rows["total"][-1].startswith("$")
    assert "From 4 simulated games (game indices 2, 7, 12, 17)" in out


def test_cli_bad_set_is_one_line_and_exit_2() -> None:
    result = icl_aif("estimate", QUICKSTART, "--set", "runz=1")
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {QUICKSTART}: unknown field 'runz'; allowed keys")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.parametrize("part", ["feedback.source=human", "person=buyer"])
def test_a_persons_part_is_simulated_not_an_error(part: str) -> None:
    result = estimate_usage(quickstart("runs=6", "rounds=2", part), sample=3)
    assert result.errored_games == 0
    roles = {line.role for line in result.lines}
    assert "seller" in roles and ("buyer" in roles) == (part != "person=buyer")
    assert any("cost" in note and "nothing" in note for note in result.notes)


def test_an_estimate_stores_nothing_in_the_runs_response_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache.jsonl"
    config = config_from_dict(
        {"runs": 4, "rounds": 2, "cache": {"path": str(cache)}}, "estimate.yaml"
    )
    result = estimate_usage(config, sample=2)
    assert result.calls > 0
    assert not cache.exists() or cache.read_text() == ""
