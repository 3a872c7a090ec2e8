"""The ``local:`` backend: real SmolLM2-135M turns through llama.cpp, offline, recorded like any run."""

from __future__ import annotations

from pathlib import Path

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.models import local
from icl_aif.records.reader import read_json, read_jsonl
from tests.conftest import games_without_times, quickstart, run

MAX_TOKENS = 40


def play_local(directory: Path, concurrency: int) -> Path:
    config = quickstart(
        "runs=2",
        "rounds=1",
        f"concurrency={concurrency}",
        "feedback.source=none",
        "scenario.max_exchanges=3",  # the openers, then at most two seller lines
        "roles.seller.model=local:",
        f"roles.seller.max_tokens={MAX_TOKENS}",
    )
    return run(config, directory).directory


def test_smollm2_plays_the_seller_and_its_calls_are_recorded(tmp_path: Path) -> None:
    together = play_local(tmp_path / "together", concurrency=2)  # two games share one model
    calls = [c for c in read_jsonl(together / "calls.jsonl") if c["role"] == "seller"]
    assert calls, "the seller was never called"
    for call in calls:
        assert call["model"] == "local:" and call["error"] is None
        assert call["output"], "an empty reply"
        usage = call["usage"]
        assert usage["input_tokens"] > 50  # the brief and the openers were really tokenised
        assert 0 < usage["output_tokens"] <= MAX_TOKENS
        assert call["messages"][0]["role"] == "system"
    games = list(read_jsonl(together / "games.jsonl"))
    assert all(g["status"] == "complete" for g in games)
    seller_lines = [t["text"] for g in games for t in g["rounds"][0]["turns"][3:]]
    assert {c["output"] for c in calls} <= set(seller_lines) | {""}
    assert read_json(together / "manifest.json")["models"]["seller"] == "local:"

    # One seed per game: the same records whatever the concurrency, so the lock serialises
    # calls without mixing their sampling state.
    alone = play_local(tmp_path / "alone", concurrency=1)
    assert games_without_times(alone) == games_without_times(together)


def test_bad_local_models_say_what_to_fix(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no GGUF file at"):
        run(quickstart("roles.seller.model=local:/nowhere/model.gguf"), tmp_path / "a")
    with pytest.raises(UsageError, match="unknown params gpu; local takes n_ctx, n_threads"):
        run(quickstart("roles.seller.model=local:", "roles.seller.params={gpu: 1}"), tmp_path / "b")


def test_threads_stay_within_the_free_cores() -> None:
    from icl_aif.engine.context import GameContext

    config = quickstart("roles.seller.model=local:", "roles.seller.params={n_threads: 64}")
    seller = GameContext(config=config).models["seller"]
    assert isinstance(seller, local.LocalLlama)
    assert seller.n_threads == local.free_cores() < 64
    assert local.bundled_model().stat().st_size > 50_000_000  # the real weights, not a pointer
