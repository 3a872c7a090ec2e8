"""The llm and hybrid moderators: the fallback chain, path memory, hybrid routing, recorded calls."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda
from pydantic import Field

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.transcript import Turn
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.context import judge_for
from icl_aif.games.price.judge.evaluation import aevaluate, load_labelled
from icl_aif.games.price.judge.hybrid import HybridJudge, rules_reading
from icl_aif.games.price.judge.llm import Answer, LLMJudge, read_fenced, read_regex
from icl_aif.models.calls import ModelCallError
from icl_aif.records.reader import read_json, read_jsonl
from tests.conftest import quickstart, run

DEAL_JSON = '{"state": "deal", "price": 15, "reason": "accepts the standing offer"}'
WINDOW: list[Turn] = [
    {"speaker": "seller", "text": "I can do $15, not less."},
    {"speaker": "buyer", "text": "Deal."},
]
SCENARIO = {"item": "balloon", "list_price": 20, "buyer_open": 10}


class ApiError(Exception):
    """An SDK-style error carrying an HTTP status."""

    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(message)
        self.status_code = status_code


class FakeVendor(BaseChatModel):
    """A stand-in chat model whose structured-output support is configurable.

    ``on_schema`` and ``on_json_mode``: ``ok`` (a valid answer), ``unsupported`` (with_structured_output
    raises NotImplementedError), ``http400`` (the call fails like an API that rejects the
    response_format), ``http429`` (a rate limit that outlasts the retries) or ``garbage`` (an
    unparseable reply). ``plain`` is the text of plain replies.
    """

    on_schema: str = "ok"
    on_json_mode: str = "ok"
    plain: str = f"```json\n{DEAL_JSON}\n```"
    sent: Counter[str] = Field(default_factory=Counter)  # calls that reached the model, by method
    built: Counter[str] = Field(default_factory=Counter)  # with_structured_output attempts

    @property
    def _llm_type(self) -> str:
        return "fake-vendor"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.sent["plain"] += 1
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.plain))])

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, method: str = "json_schema", **_: Any
    ) -> Any:
        name = "schema" if method == "json_schema" else "json_mode"
        behaviour = self.on_schema if name == "schema" else self.on_json_mode
        self.built[name] += 1
        if behaviour == "unsupported":
            raise NotImplementedError(f"{method} is not supported")
        assert include_raw and schema is Answer

        async def answer(_: Sequence[BaseMessage]) -> dict[str, Any]:
            self.sent[name] += 1
            if behaviour == "http400":
                raise ApiError(400, "response_format json_schema is not supported by this model")
            if behaviour == "http429":
                raise ApiError(429, "rate limited")
            if behaviour == "garbage":
                return {"raw": AIMessage(content="sure!"), "parsed": None, "parsing_error": None}
            parsed = Answer.model_validate_json(DEAL_JSON)
            return {"raw": AIMessage(content=DEAL_JSON), "parsed": parsed, "parsing_error": None}

        return RunnableLambda(answer)


def config(mode: str = "llm") -> ExperimentConfig:
    return config_from_dict(
        {
            "retry": {"attempts": 2, "initial_wait": 0, "max_wait": 0},
            "roles": {"moderator": {"mode": mode, "model": "replay:fake"}},
        }
    )


def moderator(model: FakeVendor) -> LLMJudge:
    return LLMJudge(model, "replay:fake", config())


def judge(mod: Any, window: list[Turn] = WINDOW) -> tuple[Any, list[dict[str, Any]]]:
    calls: list[dict[str, Any]] = []
    verdict = asyncio.run(mod.aclassify(window, SCENARIO, calls))
    return verdict, calls


# --- the fallback chain -----------------------------------------------------------------------


def test_schema_path_when_the_model_supports_it() -> None:
    fake = FakeVendor()
    mod = moderator(fake)
    verdict, calls = judge(mod)
    assert (verdict.state, verdict.price, verdict.decided_by, verdict.parse) == (
        "deal",
        15,
        "llm",
        "schema",
    )
    assert [(c["role"], c["method"], c["parse"]) for c in calls] == [
        ("moderator", "schema", "schema")
    ]
    assert calls[0]["output"] == DEAL_JSON and calls[0]["error"] is None
    assert calls[0]["messages"][0]["role"] == "system"
    last = calls[0]["messages"][-1]["content"]
    assert "seller: I can do $15, not less.\nbuyer: Deal." in last  # labelled by speaker
    judge(mod)
    assert fake.sent == Counter(schema=2) and fake.built == Counter(schema=1)


def test_json_mode_when_schemas_are_not_implemented_and_the_path_is_remembered() -> None:
    fake = FakeVendor(on_schema="unsupported")
    mod = moderator(fake)
    verdict, calls = judge(mod)
    assert verdict.parse == "json_mode" and verdict.price == 15
    assert [c["method"] for c in calls] == ["json_mode"]  # a failed build sends nothing
    judge(mod)
    assert fake.built == Counter(schema=1, json_mode=1)  # schema never tried again
    assert fake.sent == Counter(json_mode=2)


def test_fenced_json_after_an_api_400_and_no_json_mode() -> None:
    fake = FakeVendor(on_schema="http400", on_json_mode="unsupported")
    mod = moderator(fake)
    verdict, calls = judge(mod)
    assert (verdict.state, verdict.price, verdict.parse) == ("deal", 15, "fenced")
    failed, answered = calls
    assert failed["method"] == "schema" and failed["parse"] is None
    assert failed["output"] is None and failed["cost_usd"] is not None  # replay: priced at 0
    assert "not supported" in failed["error"] and failed["attempts"] == 1  # 400: no retry
    assert answered["method"] == "plain" and answered["parse"] == "fenced"
    assert "```json" in answered["messages"][0]["content"]  # the plain prompt asks for a fence
    _, again = judge(mod)
    assert [c["method"] for c in again] == ["plain"]  # the failing path is not retried
    assert fake.sent == Counter(schema=1, plain=2)


def test_regex_over_free_text_as_the_last_resort() -> None:
    fake = FakeVendor(
        on_schema="unsupported",
        on_json_mode="garbage",
        plain="I would say this is a deal, at $15 as the seller offered.",
    )
    mod = moderator(fake)
    verdict, calls = judge(mod)
    assert (verdict.state, verdict.price, verdict.parse) == ("deal", 15, "regex")
    assert [(c["method"], c["parse"]) for c in calls] == [("json_mode", None), ("plain", "regex")]
    _, again = judge(mod)
    assert [c["method"] for c in again] == ["plain"]  # remembered: plain works, json_mode not


def test_an_unreadable_reply_keeps_the_round_going() -> None:
    fake = FakeVendor(
        on_schema="unsupported", on_json_mode="unsupported", plain="Hmm, hard to say."
    )
    verdict, calls = judge(moderator(fake))
    assert (verdict.state, verdict.decided_by, verdict.parse) == ("ongoing", "llm", None)
    assert [(c["method"], c["parse"]) for c in calls] == [("plain", None)]


def test_a_rate_limit_that_outlasts_the_retries_is_an_error_not_a_fallback() -> None:
    fake = FakeVendor(on_schema="http429")
    with pytest.raises(ModelCallError, match="rate limited"):
        judge(moderator(fake))
    assert fake.sent == Counter(schema=2)  # retried, then given up; plain never tried


def test_a_default_langchain_model_falls_back_to_fenced_json() -> None:
    """replay: uses LangChain's default with_structured_output (no tools): straight to plain."""
    cfg = config_from_dict(
        {
            "roles": {
                "moderator": {
                    "mode": "llm",
                    "model": "replay:mod",
                    "params": {"replies": [f"```json\n{DEAL_JSON}\n```", "no deal, I'd say"]},
                }
            }
        }
    )
    mod = judge_for(cfg)
    assert isinstance(mod, LLMJudge)
    verdict, calls = judge(mod)
    assert (verdict.state, verdict.price, verdict.parse) == ("deal", 15, "fenced")
    assert [c["method"] for c in calls] == ["plain"]
    assert mod.dropped == {"schema", "json_mode"}
    verdict, _ = judge(mod, [*WINDOW[:1], {"speaker": "buyer", "text": "Too much, bye."}])
    assert (verdict.state, verdict.reason, verdict.parse) == ("no_deal", "walk_away", "regex")


def test_reading_replies() -> None:
    assert read_fenced('Here:\n```json\n{"state": "no_deal", "price": null}\n```') == (
        "no_deal",
        None,
        "",
    )
    assert read_fenced('{"state": "deal", "price": "$1,200", "reason": "ok"}') == (
        "deal",
        1200.0,
        "ok",
    )
    assert read_fenced('{"state": "maybe"}') is None
    assert read_regex('"state": "no deal"')[:2] == ("no_deal", None)  # type: ignore[index]
    assert read_regex("state: ongoing, though a deal is close")[:2] == ("ongoing", None)  # type: ignore[index]
    assert read_regex("DEAL at $12.50")[:2] == ("deal", 12.5)  # type: ignore[index]
    assert read_regex("I cannot tell.") is None


# --- hybrid -------------------------------------------------------------------------------


CONFIDENT: list[list[Turn]] = [
    [
        {"speaker": "seller", "text": "It's $20."},
        {"speaker": "buyer", "text": "Would you take $12?"},
    ],
    [{"speaker": "buyer", "text": "$14 is my offer."}, {"speaker": "seller", "text": "Deal."}],
    [
        {"speaker": "seller", "text": "$18 is my floor."},
        {"speaker": "buyer", "text": "That's too much for me, I'll pass."},
    ],
    [{"speaker": "buyer", "text": "$12?"}, {"speaker": "seller", "text": "$12 is too low. $17."}],
]
AMBIGUOUS: list[list[Turn]] = [
    [
        {"speaker": "seller", "text": "$18 is my floor."},
        {"speaker": "buyer", "text": "I'm ending the negotiation here."},  # no cue the rules know
    ],
    [
        {"speaker": "buyer", "text": "How about $15?"},
        {"speaker": "seller", "text": "Okay, but only if you pay cash. Deal?"},  # accept + question
    ],
    [
        {"speaker": "seller", "text": "It is $16, or $15, whichever you like."},
        {"speaker": "buyer", "text": "Deal."},  # which price?
    ],
]


def test_hybrid_calls_the_model_only_on_ambiguous_windows() -> None:
    for window in CONFIDENT:
        assert rules_reading(window)[1] is None, window
    for window in AMBIGUOUS:
        assert rules_reading(window)[1] is not None, window
    fake = FakeVendor()
    hybrid = HybridJudge(moderator(fake))
    for window in CONFIDENT:
        verdict, calls = judge(hybrid, window)
        assert calls == [] and verdict.decided_by == "rules" and verdict.parse is None
    assert sum(fake.sent.values()) == 0
    for window in AMBIGUOUS:
        verdict, calls = judge(hybrid, window)
        assert len(calls) == 1 and (verdict.decided_by, verdict.parse) == ("llm", "schema")
    assert fake.sent == Counter(schema=len(AMBIGUOUS))


def test_hybrid_keeps_the_rules_verdict_when_the_reply_is_unreadable() -> None:
    fake = FakeVendor(on_schema="unsupported", on_json_mode="unsupported", plain="Let me think.")
    hybrid = HybridJudge(moderator(fake))
    verdict, calls = judge(hybrid, AMBIGUOUS[0])
    assert (verdict.state, verdict.decided_by) == ("ongoing", "rules")
    assert len(calls) == 1 and calls[0]["parse"] is None


def test_evaluation_counts_the_windows_sent_to_the_model(tmp_path: Path) -> None:
    labelled = tmp_path / "w.jsonl"
    rows = [{"turns": w, "label": "ongoing", "price": None} for w in CONFIDENT[:1] + AMBIGUOUS[:2]]
    labelled.write_text("".join(json.dumps(r) + "\n" for r in rows))
    fake = FakeVendor(
        on_schema="unsupported", on_json_mode="unsupported"
    )  # always says deal at $15
    report = asyncio.run(aevaluate(HybridJudge(moderator(fake)), load_labelled(labelled)))
    assert (report.n, report.calls, report.llm_windows) == (3, 2, 2)
    assert report.decided_by == {"rules": 1, "llm": 2} and report.parse == {"fenced": 2}
    assert report.moderator == "hybrid" and report.accuracy == pytest.approx(1 / 3)
    assert [f["predicted"]["decided_by"] for f in report.failures] == ["llm", "llm"]


# --- a game with an llm moderator -----------------------------------------------------------


def test_a_game_with_an_llm_moderator_records_its_calls(tmp_path: Path) -> None:
    ongoing = '```json\n{"state": "ongoing", "price": null, "reason": "offers"}\n```'
    deal = '```json\n{"state": "deal", "price": 15, "reason": "accepts"}\n```'
    cfg = quickstart(
        "runs=1",
        "rounds=1",
        "feedback.source=none",
        "scenario.max_exchanges=3",
        "roles.moderator.mode=llm",
        "roles.moderator.model=replay:judge",
        f"roles.moderator.params={json.dumps({'replies': [ongoing, ongoing, deal]})}",
    )
    directory = run(cfg, tmp_path / "run").directory
    (game,) = read_jsonl(directory / "games.jsonl")
    (record,) = game["rounds"]
    assert (record["outcome"], record["price"], record["decided_by"], record["parse"]) == (
        "deal",
        15,
        "llm",
        "fenced",
    )
    calls = [c for c in read_jsonl(directory / "calls.jsonl") if c["role"] == "moderator"]
    assert len(calls) == 3
    for call in calls:
        assert (call["game_id"], call["round"], call["model"]) == ("g00000", 1, "replay:judge")
        assert (call["method"], call["parse"]) == ("plain", "fenced")
        assert call["messages"][-1]["content"].count("\n") >= 3  # the labelled window
    manifest = read_json(directory / "manifest.json")
    assert manifest["models"]["moderator"] == "llm"
    assert manifest["models"]["moderator_model"] == "replay:judge"
    assert read_json(directory / "summary.json")["usage"]["roles"]["moderator"]["calls"] == 3


def test_rules_games_record_who_decided(tmp_path: Path) -> None:
    directory = run(quickstart("runs=2", "rounds=2"), tmp_path / "run").directory
    rounds = [r for g in read_jsonl(directory / "games.jsonl") for r in g["rounds"]]
    assert {(r["decided_by"], r["parse"]) for r in rounds} == {("rules", None)}
    assert not [c for c in read_jsonl(directory / "calls.jsonl") if c["role"] == "moderator"]


def test_moderator_config_needs_a_model_for_llm_and_hybrid() -> None:
    from icl_aif.core.errors import UsageError

    with pytest.raises(UsageError, match="mode hybrid needs a model"):
        config_from_dict({"roles": {"moderator": {"mode": "hybrid"}}})
    with pytest.raises(UsageError, match="use mode rules instead"):
        judge_for(
            config_from_dict({"roles": {"moderator": {"mode": "llm", "model": "scripted:linear"}}})
        )
