"""Token usage and cost: prices, per-call cost, the summary's usage object, the max_usd budget.

Replay models with ``params.usage`` stand in for vendors: every reply reports the same usage, so
every cost below is exact arithmetic.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from icl_aif.analysis.report import budget_line, cost_line
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import Price
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import config_from_dict
from icl_aif.models.pricing import DEFAULT_PRICES, FREE, cost_usd, price_of
from icl_aif.models.providers import PROVIDERS
from icl_aif.records.reader import read_jsonl
from icl_aif.run.runner import RunResult
from tests.conftest import ROOT, cli_env, quickstart, run

SELLER_USAGE = {"input_tokens": 1000, "output_tokens": 100, "cached_input_tokens": 400}
BUYER_USAGE = {"input_tokens": 500, "output_tokens": 50}
CRITIC_USAGE = {"input_tokens": 300, "output_tokens": 30}
PRICES = {
    "replay:seller": {"input": 2.0, "output": 8.0, "cached_input": 0.5},
    "replay:buyer": {"input": 1.0, "output": 4.0},  # no cached rate: cached tokens at input
}
# (1000 - 400) x $2 + 400 x $0.50 + 100 x $8 per million: cached tokens once, at the cached rate
SELLER_CALL = 0.0022
BUYER_CALL = 0.0007  # 500 x $1 + 50 x $4 per million
GAME = 3 * SELLER_CALL + 2 * BUYER_CALL  # the seller speaks 3 times, the buyer twice; critic free


def priced(**settings: Any) -> ExperimentConfig:
    """A 2-round game of replay models that report usage: seller x3, buyer x2, critic x1 calls."""
    data: dict[str, Any] = {
        "name": "priced",
        "runs": 1,
        "rounds": 2,
        "concurrency": 1,
        "roles": {
            "seller": {
                "model": "replay:seller",
                "params": {
                    "replies": [
                        "I can't go that low, how about $17?",
                        "My price is $19.",
                        "That is too low, so I'm walking away. No deal.",
                    ],
                    "usage": SELLER_USAGE,
                },
            },
            "buyer": {
                "model": "replay:buyer",
                "params": {
                    "replies": ["Okay, $17 works for me. Deal!", "Would you take $15?"],
                    "usage": BUYER_USAGE,
                },
            },
            "critic": {
                "model": "replay:critic",
                "params": {"replies": ["1. Hold firm.\n2. Anchor high."], "usage": CRITIC_USAGE},
            },
        },
        "prices": PRICES,
    }
    data.update(settings)
    return config_from_dict(data)


def calls_of(result: RunResult) -> list[dict[str, Any]]:
    return list(read_jsonl(result.directory / "calls.jsonl"))


# --- the price table -----------------------------------------------------------------------


def test_price_lookup_exact_suffixed_free_and_overridden() -> None:
    assert price_of("openai:gpt-4o-mini") == DEFAULT_PRICES["openai:gpt-4o-mini"]
    # dated snapshots and aliases take the entry they extend; the longest entry wins
    assert price_of("openai:gpt-4o-mini-2024-07-18") == DEFAULT_PRICES["openai:gpt-4o-mini"]
    assert price_of("openai:gpt-4o-2024-08-06") == DEFAULT_PRICES["openai:gpt-4o"]
    assert (
        price_of("anthropic:claude-3-5-haiku-latest")
        == DEFAULT_PRICES["anthropic:claude-3-5-haiku"]
    )
    assert (
        price_of("anthropic:claude-sonnet-4-5-20250929")
        == DEFAULT_PRICES["anthropic:claude-sonnet-4-5"]
    )
    assert price_of("cohere:command-r7b-12-2024") == DEFAULT_PRICES["cohere:command-r7b"]
    assert price_of("ai21:jamba-mini-1.7") == DEFAULT_PRICES["ai21:jamba-mini"]
    # another model is not priced as the one its name starts with
    assert price_of("openai:gpt-4.1-nano") is None
    assert price_of("cohere:command-r-plus") is None
    # simulators, the replay fake and local models are free; config prices win over everything
    assert price_of("scripted:linear") == price_of("replay:x") == price_of("local:") == FREE
    mine = Price(input=9.0, output=9.0)
    assert price_of("openai:gpt-4o-mini", {"openai:gpt-4o-mini": mine}) == mine
    assert price_of("replay:x", {"replay:x": mine}) == mine


def test_cost_of_one_call_charges_cached_tokens_once_at_the_cached_rate() -> None:
    price = DEFAULT_PRICES["openai:gpt-4o-mini"]  # 0.15 / 0.60 / cached 0.075
    usage = {"input_tokens": 42, "output_tokens": 9, "cached_input_tokens": 32}
    assert cost_usd(usage, price) == pytest.approx((10 * 0.15 + 32 * 0.075 + 9 * 0.60) / 1e6)
    no_cached_rate = Price(input=1.0, output=2.0)
    assert cost_usd(usage, no_cached_rate) == pytest.approx((42 * 1.0 + 9 * 2.0) / 1e6)
    assert cost_usd(None, price) is None  # a priced call that reported no usage
    assert cost_usd(usage, None) is None  # an unpriced model
    assert cost_usd(None, FREE) == 0.0


# --- calls.jsonl and summary.json ----------------------------------------------------------


def test_cost_per_call_per_role_and_total(tmp_path: Path) -> None:
    result = run(priced(runs=2), tmp_path / "run")
    calls = calls_of(result)
    seller = [c for c in calls if c["role"] == "seller"]
    assert len(seller) == 6
    for call in seller:
        assert call["usage"] == SELLER_USAGE
        assert call["cost_usd"] == pytest.approx(SELLER_CALL)
        assert call["limit_wait_s"] == 0
    for call in (c for c in calls if c["role"] == "buyer"):
        assert call["usage"] == {**BUYER_USAGE, "cached_input_tokens": 0}
        assert call["cost_usd"] == pytest.approx(BUYER_CALL)
    assert all(c["cost_usd"] == 0.0 for c in calls if c["role"] == "critic")  # replay is free

    usage = json.loads((result.directory / "summary.json").read_text())["usage"]
    assert list(usage["roles"]) == ["seller", "buyer", "critic"]
    assert usage["roles"]["seller"] == {
        "calls": 6,
        "failed_calls": 0,
        "retries": 0,
        "input_tokens": 6000,
        "output_tokens": 600,
        "cached_input_tokens": 2400,
        "cost_usd": pytest.approx(6 * SELLER_CALL),
    }
    assert usage["roles"]["buyer"]["cost_usd"] == pytest.approx(4 * BUYER_CALL)
    assert usage["roles"]["critic"]["calls"] == 2
    assert usage["total_cost_usd"] == pytest.approx(2 * GAME)
    assert usage["unpriced_models"] == [] and usage["max_usd"] is None
    summary = json.loads((result.directory / "summary.json").read_text())
    assert summary["stopped_by"] is None
    assert cost_line(summary) == (
        "Cost: $0.0160 for 8,600 input tokens (2,400 cached) and 860 output tokens"
    )
    markdown = (result.directory / "summary.md").read_text()
    assert (
        "## Usage" in markdown and "| seller | 6 | 0 | 6,000 | 2,400 | 600 | $0.0132 |" in markdown
    )


def test_unpriced_model_has_null_cost_and_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    replay = dataclasses.replace(PROVIDERS["replay"], offline=False)
    monkeypatch.setitem(PROVIDERS, "replay", replay)  # replay as a vendor
    result = run(priced(), tmp_path / "run")
    critic = [c for c in calls_of(result) if c["role"] == "critic"]
    assert critic and all(c["usage"] and c["cost_usd"] is None for c in critic)
    summary = json.loads((result.directory / "summary.json").read_text())
    usage = summary["usage"]
    assert usage["roles"]["critic"]["cost_usd"] is None
    assert usage["roles"]["critic"]["input_tokens"] == 300
    assert usage["unpriced_models"] == ["replay:critic"]
    assert usage["total_cost_usd"] == pytest.approx(GAME)  # the known costs only
    assert "no price for replay:critic" in (cost_line(summary) or "")


def test_simulators_report_no_usage_and_cost_nothing(small_run: RunResult) -> None:
    calls = calls_of(small_run)
    assert all(c["usage"] is None and c["cost_usd"] == 0.0 for c in calls)
    summary = small_run.summary
    assert summary["usage"]["total_cost_usd"] == 0.0
    assert cost_line(summary) is None and budget_line(summary) is None


# --- the budget ----------------------------------------------------------------------------


def test_max_usd_stops_starting_new_games(tmp_path: Path) -> None:
    # 2 games cost 0.016 < 0.02; the third brings the recorded cost to 0.024 >= 0.02: 3 games
    result = run(priced(runs=5, max_usd=2.5 * GAME), tmp_path / "run")
    d = result.directory
    assert [g["game_id"] for g in read_jsonl(d / "games.jsonl")] == ["g00000", "g00001", "g00002"]
    assert {c["game_id"] for c in read_jsonl(d / "calls.jsonl")} == {"g00000", "g00001", "g00002"}
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["status"] == "budget_reached" and manifest["finished_at"]
    summary = json.loads((d / "summary.json").read_text())
    assert summary["stopped_by"] == "max_usd"
    assert (summary["runs"], summary["finished_runs"]) == (5, 3)
    assert summary["usage"]["total_cost_usd"] == pytest.approx(3 * GAME)
    assert summary["usage"]["max_usd"] == pytest.approx(2.5 * GAME)
    line = budget_line(summary)
    assert line == (
        "Budget max_usd $0.0200 reached (recorded cost $0.0240): no new run started; "
        "3 of 5 runs finished."
    )
    assert line in (d / "summary.md").read_text()


def test_a_budget_not_reached_plays_every_game(tmp_path: Path) -> None:
    result = run(priced(runs=3, max_usd=1.0), tmp_path / "run")
    assert result.summary["finished_runs"] == 3 and result.summary["stopped_by"] is None
    manifest = json.loads((result.directory / "manifest.json").read_text())
    assert manifest["status"] == "finished"


def test_max_usd_with_an_unpriced_vendor_model_fails_before_any_game(tmp_path: Path) -> None:
    config = quickstart("max_usd=5", "roles.buyer.model=openai:gpt-unknown")
    with pytest.raises(UsageError) as caught:
        run(config, tmp_path / "run")
    message = str(caught.value)
    assert message == (
        "max_usd is set but roles.buyer.model 'openai:gpt-unknown' has no price: add it under "
        "prices, e.g. prices: {'openai:gpt-unknown': {input: 1.0, output: 2.0}} "
        "(USD per million tokens)"
    )
    assert not (tmp_path / "run").exists()


# --- config validation -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"rate_limits": {"nosuch": {"requests_per_minute": 5}}},
            "field 'rate_limits': unknown provider 'nosuch'; known providers: openai, anthropic",
        ),
        (
            {"rate_limits": {"openai": {"rpm": 5}}},
            "unknown field 'rate_limits.openai.rpm'; allowed keys here: requests_per_minute, "
            "tokens_per_minute",
        ),
        (
            {"rate_limits": {"openai": {"requests_per_minute": 0}}},
            "field 'rate_limits.openai.requests_per_minute': Input should be greater than 0",
        ),
        (
            {"prices": {"gpt-4o": {"input": 1, "output": 2}}},
            "field 'prices': 'gpt-4o' is not a provider:model string",
        ),
        (
            {"prices": {"nosuch:model": {"input": 1, "output": 2}}},
            "field 'prices': 'nosuch:model': unknown provider 'nosuch'",
        ),
        ({"prices": {"openai:x": {"input": 1}}}, "field 'prices.openai:x.output': Field required"),
        (
            {"prices": {"openai:x": {"input": -1, "output": 2}}},
            "field 'prices.openai:x.input': Input should be greater than or equal to 0",
        ),
        (
            {"prices": {"openai:x": {"input": 1, "output": 2, "cache": 1}}},
            "allowed keys here: cached_input, input, output",
        ),
        ({"max_usd": 0}, "field 'max_usd': Input should be greater than 0"),
    ],
)
def test_bad_limits_and_prices_are_one_line_errors(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(UsageError) as caught:
        config_from_dict(settings, source="exp.yaml")
    text = str(caught.value)
    assert text.startswith("exp.yaml: ") and message in text
    assert "\n" not in text


def test_replay_usage_must_be_token_counts() -> None:
    config = priced()
    data = config.model_dump(mode="json")
    data["roles"]["seller"]["params"]["usage"] = {"input_tokens": "many"}
    from icl_aif.engine.context import GameContext

    with pytest.raises(UsageError, match=r"params\.usage must map"):
        GameContext(config=config_from_dict(data))


# --- the command line ------------------------------------------------------------------------


def test_cli_prints_cost_and_budget_lines(tmp_path: Path) -> None:
    config = tmp_path / "priced.yaml"
    config.write_text(yaml.safe_dump(priced(runs=4, max_usd=1.5 * GAME).model_dump(mode="json")))
    cli = Path(sys.executable).parent / "icl-aif"
    env = cli_env(200)
    out = tmp_path / "run"
    done = subprocess.run(
        [str(cli), "run", str(config), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    cost = "Cost: $0.0160 for 8,600 input tokens (2,400 cached) and 860 output tokens"
    assert cost in lines
    assert (
        "Budget max_usd $0.0120 reached (recorded cost $0.0160): no new run started; "
        "2 of 4 runs finished."
    ) in lines
    report = subprocess.run(
        [str(cli), "report", str(out)], capture_output=True, text=True, timeout=300, env=env
    )
    assert report.returncode == 0 and cost in report.stdout.splitlines()


def test_a_provider_that_runs_in_process_costs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """Free by its provider's ``offline`` flag, a plugin's as ours; a vendor's stays unpriced."""
    from icl_aif.models.providers import provider

    for name, offline in (("homegrown", True), ("hosted", False)):
        monkeypatch.delitem(PROVIDERS, name, raising=False)
        provider(name, description="a test provider", examples=(f"{name}:x",), offline=offline)(
            lambda request: None
        )
    try:
        assert price_of("homegrown:x", {}) == FREE
        assert price_of("hosted:x", {}) is None
        assert price_of("scripted:linear", {}) == FREE
    finally:
        for name in ("homegrown", "hosted"):
            PROVIDERS.pop(name, None)
