"""The pytest plugin ``icl_aif.testing`` as a user's own suite meets it.

A user's test file is written into a fresh directory and run by pytest in a subprocess: our
conftest is not in play there, so its fixtures come only from the ``pytest11`` entry point of the
installed package. The stub fixtures serve on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from typing import Any

import pytest

from icl_aif.testing import FAKE_KEY, REPLY_LINE, experiment
from icl_aif.testing.stubs import UNQUEUED_STATUS, VendorStub

pytest_plugins = ["pytester"]

USERS_TESTS = '''
"""A researcher's tests of a provider of their own, with icl-aif's fixtures only."""

from icl_aif.models.base import TextReplyModel
from icl_aif.models.providers import provider
from icl_aif.testing import FAKE_KEY, REPLY_LINE, experiment


class Firm(TextReplyModel):
    """Always the same offer."""

    @property
    def _llm_type(self):
        return "firm"

    def respond(self, messages):
        return "I can do $17, not a cent lower."


@provider("firm", description="Always $17.", examples=("firm:any",), offline=True)
def build_firm(request):
    return Firm()


def test_replayed_players_strike_a_deal(play_experiment):
    config = experiment(seller=["How about $17?"], buyer=["Okay, $17. Deal!"])
    played = play_experiment(config)
    (round_,) = played.game["rounds"]
    assert (round_["outcome"], round_["price"]) == ("deal", 17.0)
    assert [c["output"] for c in played.calls_of("buyer")] == ["Okay, $17. Deal!"]


def test_my_provider_plays_a_game(play_experiment):
    played = play_experiment(experiment(seller="firm:any", buyer=["Okay, $17. Deal!"]))
    assert played.game["status"] == "complete"
    assert [c["model"] for c in played.calls_of("seller")] == ["firm:any"]
    assert played.game["rounds"][0]["price"] == 17.0


def test_openai_stub_serves_a_game(openai_stub, play_experiment):
    openai_stub.reply(times=None)
    played = play_experiment(experiment(seller=openai_stub.role(), buyer="scripted:linear"))
    calls = played.calls_of("seller")
    assert played.game["status"] == "complete"
    assert calls and all(c["output"] == REPLY_LINE for c in calls)
    assert all(c["usage"] == openai_stub.usage for c in calls)
    assert len(openai_stub.bodies) == len(calls)
    assert openai_stub.bodies[0]["messages"] == calls[0]["messages"]
    assert openai_stub.requests[0].headers["Authorization"] == f"Bearer {FAKE_KEY}"
    openai_stub.check()


def test_a_429_is_waited_out_and_retried(openai_stub, play_experiment):
    openai_stub.rate_limit(retry_after=0.2)
    openai_stub.reply(times=None)
    played = play_experiment(experiment(seller=openai_stub.role()))
    first, *rest = played.calls_of("seller")
    assert played.game["status"] == "complete"
    assert first["attempts"] == 2 and first["latency_s"] >= 0.2
    assert rest and all(c["attempts"] == 1 for c in rest)
'''

NO_EXTRA = '''
"""Hides the testing extra's packages, as on a machine where only icl-aif's core is installed."""

import importlib.abc
import sys


class NoTestingExtra(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"pytest_httpserver", "werkzeug"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NoTestingExtra())
'''

WITHOUT_THE_EXTRA = """
import sys

from icl_aif.testing import experiment


def test_unrelated():
    assert "pytest_httpserver" not in sys.modules


def test_replay_needs_no_extra(play_experiment):
    played = play_experiment(experiment(seller=["How about $17?"], buyer=["Okay, $17. Deal!"]))
    assert played.game["rounds"][0]["outcome"] == "deal"


def test_wants_a_stub(openai_stub):
    raise AssertionError("never reached: the fixture fails first")
"""


def test_a_users_suite_gets_the_fixtures_from_the_entry_point(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_users_provider=USERS_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", timeout=300)
    result.assert_outcomes(passed=4)


def test_without_the_testing_extra_only_the_stub_fixtures_fail(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(no_testing_extra=NO_EXTRA, test_core_only=WITHOUT_THE_EXTRA)
    result = pytester.runpytest_subprocess(
        # the blocker first; pytest-httpserver's own plugin is absent, as when not installed
        "-p",
        "no_testing_extra",
        "-p",
        "no:pytest_httpserver",
        "-p",
        "no:cacheprovider",
        timeout=300,
    )
    result.assert_outcomes(passed=2, errors=1)
    message = (
        "fixture 'openai_stub' needs pytest_httpserver, which is not installed: "
        "pip install 'icl-aif[testing]'"
    )
    result.stdout.re_match_lines([re.escape(message)])
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*During handling*")


def post(stub: VendorStub, body: dict[str, Any]) -> int:
    """POST ``body`` to the stub's chat path; the status of the answer."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{stub.server.port}{stub.wire.path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def test_a_stub_answers_in_the_order_queued_then_refuses(vendor_stub: Any) -> None:
    stub = vendor_stub("cohere")
    assert os.environ["COHERE_API_KEY"] == FAKE_KEY
    assert stub.base_url.startswith("http://127.0.0.1:")
    stub.reply("first", times=2)
    stub.rate_limit(retry_after=0.5)
    stub.deny()
    statuses = [post(stub, {"n": n}) for n in range(5)]
    assert statuses == [200, 200, 429, 401, UNQUEUED_STATUS]
    assert [body["n"] for body in stub.bodies] == [0, 1, 2, 3, 4]
    replied = stub.server.log[0][1].get_json()
    assert replied["message"]["content"][0]["text"] == "first"
    assert stub.server.log[2][1].headers["Retry-After"] == "0.5"
    with pytest.raises(AssertionError, match="cohere stub: No handler found"):
        stub.check()


def test_an_answer_for_every_request_comes_after_the_queue(vendor_stub: Any) -> None:
    stub = vendor_stub("ai21", key=None)
    stub.reply(times=None)  # queued first, answers last
    stub.fail(503)
    assert [post(stub, {}) for _ in range(3)] == [503, 200, 200]
    assert stub.server.log[1][1].get_json()["choices"][0]["message"]["content"] == REPLY_LINE
    stub.check()


def test_a_slow_stub_times_out_and_the_retry_is_recorded(
    anthropic_stub: VendorStub, play_experiment: Any
) -> None:
    anthropic_stub.slow(1.0, times=None)
    seller = anthropic_stub.role(timeout=0.3)
    played = play_experiment(experiment(seller=seller, retry={"attempts": 2, "initial_wait": 0}))
    (call,) = played.calls_of("seller")
    assert played.game["status"] == "error" and "Timeout" in played.game["error"]
    assert call["attempts"] == 2 and call["output"] is None
    anthropic_stub.wait_for(2)
    assert len(anthropic_stub.requests) == 2  # the server saw both tries
