"""Rate limits per provider: shared by the games of a process, applied to every attempt.

``limits.PERIOD_S`` (the length of "a minute") is shrunk so that waits take a fraction of a second.
"""

from __future__ import annotations

import asyncio
import time
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage

from icl_aif.config.settings import RateLimit
from icl_aif.engine.context import GameContext
from icl_aif.engine.protocol import Message
from icl_aif.models import limits
from icl_aif.models.base import TextReplyModel
from icl_aif.models.limits import estimate_tokens, limiter_for
from icl_aif.records.reader import read_jsonl
from tests.conftest import quickstart, run


@pytest.fixture(autouse=True)
def fresh_limiters() -> Iterator[None]:
    limits.reset()
    yield
    limits.reset()


def test_token_estimate_is_characters_over_four_plus_max_tokens() -> None:
    messages: list[Message] = [
        {"role": "system", "content": "x" * 10},
        {"role": "user", "content": "y" * 7},
    ]
    assert estimate_tokens(messages, 512) == 5 + 512  # ceil(17 / 4)
    assert estimate_tokens(messages, None) == 5
    assert estimate_tokens([], 0) == 0


def test_no_limits_no_limiter() -> None:
    async def main() -> None:
        assert limiter_for("openai", None) is None
        assert limiter_for("openai", RateLimit()) is None

    asyncio.run(main())


def test_requests_per_minute_make_the_next_request_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "PERIOD_S", 0.5)
    limit = RateLimit(requests_per_minute=5)

    async def main() -> float:
        shared = limiter_for("openai", limit)
        assert shared is not None and limiter_for("openai", limit) is shared
        loop = asyncio.get_running_loop()
        started = loop.time()
        # 5 go at once (a minute's allowance), the next 5 one every 0.1 s
        waits = await asyncio.gather(*(shared.acquire(0) for _ in range(10)))
        assert sum(w > 0 for w in waits) >= 4
        return loop.time() - started

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reusing a limiter across loops would warn
        first = asyncio.run(main())
        assert 0.45 <= first < 2.0
        # a second event loop in the same process (tests, notebooks) gets fresh buckets
        assert 0.45 <= asyncio.run(main()) < 2.0


def test_tokens_per_minute_count_the_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "PERIOD_S", 0.5)

    async def main() -> tuple[float, float, float]:
        limiter = limiter_for("anthropic", RateLimit(tokens_per_minute=100))
        assert limiter is not None
        first = await limiter.acquire(60)
        second = await limiter.acquire(60)  # waits until 20 tokens leaked out: 0.1 s
        third = await limiter.acquire(500)  # more than a minute's allowance: waits for it all
        return first, second, third

    first, second, third = asyncio.run(main())
    assert first < 0.01 and 0.08 <= second < 1.0 and 0.2 <= third < 2.0


def test_changed_limits_get_new_buckets() -> None:
    async def main() -> None:
        a = limiter_for("openai", RateLimit(requests_per_minute=5))
        b = limiter_for("openai", RateLimit(requests_per_minute=6))
        assert a is not None and b is not None and a is not b
        assert limiter_for("openai", RateLimit(requests_per_minute=6)) is b

    asyncio.run(main())


def test_games_of_a_run_share_one_limiter_and_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "PERIOD_S", 0.25)
    used: list[int] = []
    acquire = limits.ProviderLimiter.acquire

    async def spy(self: limits.ProviderLimiter, tokens: int) -> float:
        used.append(id(self))
        return await acquire(self, tokens)

    monkeypatch.setattr(limits.ProviderLimiter, "acquire", spy)
    config = quickstart(
        "runs=2", "rounds=1", "concurrency=2", "rate_limits.scripted.requests_per_minute=4"
    )
    started = time.perf_counter()
    result = run(config, tmp_path / "run")
    elapsed = time.perf_counter() - started
    calls = list(read_jsonl(result.directory / "calls.jsonl"))
    assert {c["game_id"] for c in calls} == {"g00000", "g00001"}
    assert len(used) == len(calls) and len(set(used)) == 1  # one limiter for both games
    # one bucket for both games: 4 calls at once, then 4 per 0.25 s (two buckets: half the wait)
    assert elapsed >= 0.9 * (len(calls) - 4) / 16
    assert sum(c["limit_wait_s"] for c in calls) > 0


class DropsFirstConnection(TextReplyModel):
    """Fails its first call with a retryable error, then answers."""

    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "flaky"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        self.calls += 1
        if self.calls == 1:
            raise ConnectionResetError("connection dropped")
        return "I can do $18."


def test_every_attempt_waits_for_the_limiter(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    acquire = limits.ProviderLimiter.acquire

    async def spy(self: limits.ProviderLimiter, tokens: int) -> float:
        asked.append(tokens)
        return await acquire(self, tokens)

    monkeypatch.setattr(limits.ProviderLimiter, "acquire", spy)
    config = quickstart(
        "retry.initial_wait=0",
        "rate_limits.scripted.requests_per_minute=100",
        "rate_limits.scripted.tokens_per_minute=100000",
        "roles.seller.max_tokens=50",
    )
    ctx = GameContext(config=config, models={"seller": DropsFirstConnection()})
    messages: list[Message] = [{"role": "user", "content": "z" * 40}]
    assert asyncio.run(ctx.call_model("seller", 1, messages)) == "I can do $18."
    assert asked == [10 + 50, 10 + 50]  # both attempts, each 40 chars / 4 + max_tokens
    assert ctx.calls[-1]["attempts"] == 2
