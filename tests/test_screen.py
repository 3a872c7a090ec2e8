"""icl-aif screen (issue 26): four bots made to fail at each step of the ladder land in their
tiers; the price game's rule checks; a screen against a local vendor stub, end to end."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import BaseMessage

from icl_aif.analysis.screening import ScreenSettings, screen_record, screen_seat
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.games import simulation
from icl_aif.games.price.judge.prices import standing_offer
from icl_aif.games.price.rule_checks import price_rule_breaks
from icl_aif.games.price.scenario import PriceScenario
from icl_aif.models.base import ModelRequest, TextReplyModel, message_text
from icl_aif.models.providers import PROVIDERS, provider
from icl_aif.records.reader import read_games
from icl_aif.testing.stubs import VendorStub
from icl_aif.testing.wire import FAKE_KEY
from tests.conftest import icl_aif, run

FIRST_OPENER = "Hi, how much is the balloon?"
OPENERS = 3

# What each bot asks as the seller (the buyer offers the mirror price, 28 - ask) after
# ``feedback`` feedback turns: the breaker sells below its cost; the deaf one never moves; one
# moves after its first feedback only; the last keeps moving.
ASKS = {
    "breaker": lambda feedback: 6,
    "deaf": lambda feedback: 12,
    "once": lambda feedback: 12 if feedback == 0 else 15,
    "keeps": lambda feedback: min(12 + 2 * feedback, 18),
}


class ScreenBot(TextReplyModel):
    """A bot of the screen's test: ``kind`` one of :data:`ASKS` (names one price every line),
    or ``pushover`` (the rival: takes the first price the other side names after the openers)."""

    kind: str
    role: str

    @property
    def _llm_type(self) -> str:
        return f"screenbot-{self.kind}"

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        if self.role == "critic":
            return "1. Ask for more than last time."
        if simulation.is_round_over(messages):
            return simulation.ACKNOWLEDGEMENT
        if self.kind == "pushover":
            lines = simulation.read_history(messages, FIRST_OPENER).lines()[OPENERS:]
            named = [standing_offer(text) for own, text in lines if not own]
            if named and named[-1] is not None:
                return f"Deal, ${named[-1]:g} works for me."
            return "How about $19?" if self.role == "seller" else "How about $11?"
        feedback = sum(
            1
            for m in messages
            if m.type == "human" and simulation.ROUND_OVER.match(message_text(m))
        )
        ask = ASKS[self.kind](feedback)
        return f"I can do ${ask if self.role == 'seller' else 28 - ask}."


def screenbot(request: ModelRequest) -> ScreenBot:
    return ScreenBot(kind=request.name, role=request.role)


@pytest.fixture
def bots() -> Iterator[None]:
    """The ``screenbot`` provider, registered for one test (other tests list the providers)."""
    provider("screenbot", description="The screen test's bots.", examples=("screenbot:deaf",))(
        screenbot
    )
    try:
        yield
    finally:
        PROVIDERS.pop("screenbot", None)


def play_in_process(step: str, config: ExperimentConfig, where: Path) -> list[dict[str, Any]]:
    run(config, where, probe_models=False)
    return read_games(where)


@pytest.mark.parametrize(("kind", "tier"), [("breaker", 0), ("deaf", 1), ("once", 2), ("keeps", 3)])
def test_four_bots_land_in_their_tiers_in_both_seats(
    bots: None, tmp_path: Path, kind: str, tier: int
) -> None:
    settings = ScreenSettings(
        model=f"screenbot:{kind}", rival="screenbot:pushover", runs=6, rounds=3
    )
    screened = [
        screen_seat(settings, seat, tmp_path, play_in_process) for seat in ("seller", "buyer")
    ]
    assert [s.tier for s in screened] == [tier, tier]
    record = screen_record(settings, screened)
    assert record["tiers"] == {"seller": tier, "buyer": tier}
    seller = record["seats"][0]
    assert len(seller["steps"]) == min(tier + 1, 3)  # a seat stops at the step it fails
    stopped = seller["steps"][-1]
    if kind == "breaker":
        assert stopped["failures"] == [
            "6 of 6 rounds break a rule of bargaining (100%; at most 10% allowed)"
        ]
        assert "sold for $6, below its cost $8" in stopped["examples"][0]
        buyer = record["seats"][1]["steps"][0]
        assert "bought for $22, above its ceiling $20" in buyer["examples"][0]
    if kind in ("deaf", "once"):
        assert "no improvement beyond noise" in stopped["failures"][0]
        assert stopped["figures"]["mean_difference"] == 0.0
    if kind == "keeps":
        assert stopped["passed"] and stopped["figures"]["mean_difference"] == 2.0
    assert (tmp_path / "seller" / "rules" / "games.jsonl").is_file()


def test_the_price_rule_checks_read_a_contradiction_and_a_retraction() -> None:
    s = PriceScenario()

    def said(*lines: tuple[str, str]) -> list[dict[str, str]]:
        openers = [
            ("buyer", FIRST_OPENER),
            ("seller", "Hi, this is a good balloon and its price is $20."),
            ("buyer", "Would you consider selling it for $10?"),
        ]
        return [{"speaker": a, "text": b} for a, b in [*openers, *lines]]

    turns = said(
        ("seller", "No, $18."),
        ("buyer", "How about $12?"),
        ("seller", "I want $19 now."),
        ("buyer", "$11 then"),
        ("seller", "OK, $11, deal."),
    )
    record = {"turns": turns, "outcome": "deal", "terms": {"price": 11.0}}
    assert price_rule_breaks(s, "seller", record) == [
        'asked for $19 after offering $18: "I want $19 now."',
        'agreed to $11 after letting $12 pass: "How about $12?"',
    ]
    fair = said(
        ("seller", "I can do $16."), ("buyer", "$13?"), ("seller", "$15"), ("buyer", "Deal at $15")
    )
    record = {"turns": fair, "outcome": "deal", "terms": {"price": 15.0}}
    assert price_rule_breaks(s, "seller", record) == price_rule_breaks(s, "buyer", record) == []
    quoted = said(
        ("seller", "I can do $16."), ("buyer", "Your $16 is steep; $13?"), ("seller", "$15")
    )
    record = {"turns": quoted, "outcome": "no_deal", "terms": None}
    assert price_rule_breaks(s, "seller", record) == []


def test_a_screen_runs_end_to_end_against_a_local_vendor_stub(tmp_path: Path) -> None:
    stub = VendorStub.start("openai")
    try:
        stub.reply("I can do $15 for it.", times=None)
        out = tmp_path / "screen"
        done = icl_aif(
            "screen",
            stub.model,
            "--base-url",
            stub.base_url,
            "--runs",
            "3",
            "--rounds",
            "3",
            "--out",
            out,
            cwd=tmp_path,
            env={stub.key_variable: FAKE_KEY},
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("Every step, both seats: ")
        record = json.loads((out / "screen.json").read_text())
        assert set(record["tiers"]) == {"seller", "buyer"}
        assert "base_url" not in record["settings"]
        assert len(stub.requests) > 6  # the preflight, then the players' lines
        calls = (out / "seller" / "rules" / "calls.jsonl").read_text()
        assert "I can do $15 for it." in calls
        assert "screen of openai:gpt-4o-mini (price)" in done.stdout
    finally:
        stub.stop()


def test_a_screen_of_an_unknown_game_is_one_line(tmp_path: Path) -> None:
    done = icl_aif("screen", "scripted:linear", "--game", "chess", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: icl-aif screen: game: got 'chess'; allowed values: 'dond', 'pie_split', "
        "'price', 'resource_split' or 'size_price'"
    ]
