"""Open provider registry: our providers register with a decorator, another package adds its own
through an entry point, any other LangChain provider goes through ``init_chat_model``, and each
provider's own retry rule decides what is tried again.

The plugin is a real package made in a temporary directory (a module and its ``.dist-info`` with
an ``entry_points.txt``) put on ``sys.path``; the LangChain provider is ``deepseek:`` against a
local stub server. Every game goes through the same call path as ours (``calls.jsonl``).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from icl_aif.core.errors import UsageError
from icl_aif.models import registry
from icl_aif.models.providers import PROVIDERS, provider
from icl_aif.models.retries import is_retryable
from icl_aif.records.reader import read_jsonl
from icl_aif.testing import FAKE_KEY as SECRET
from icl_aif.testing import REPLY_LINE as SELLER_LINE
from icl_aif.testing import assert_key_not_recorded, load_played
from icl_aif.testing.stubs import json_response, respond_in_order
from icl_aif.testing.wire import openai_body
from tests.conftest import QUICKSTART, ROOT, cli_env, make_package, quickstart, run


def recorded(directory: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The only game of a run and its seller's calls."""
    played = load_played(directory)
    return played.game, played.calls_of("seller")


OURS = ["openai", "anthropic", "cohere", "ai21", "local", "chaos", "replay", "scripted"]
PLUGIN_LINE = "I can go as low as $17 for this balloon."

PLUGIN_MODULE = '''
"""A provider package of someone else's: a fixed-reply model and two with retry rules."""

from icl_aif.models.base import TextReplyModel
from icl_aif.models.providers import provider


class Hiccup(Exception):
    """A failure no default rule knows: retried only by the flaky provider's own rule."""


class RateLimited(Exception):
    """Shaped like an HTTP 429: the default rule would retry it."""

    status_code = 429


class FixedReply(TextReplyModel):
    reply: str
    fail_first: int = 0  # calls that raise before the replies start
    error: str = "hiccup"
    calls: int = 0

    @property
    def _llm_type(self):
        return "fixed-reply"

    def respond(self, messages):
        self.calls += 1
        if self.calls <= self.fail_first:
            raise Hiccup("hiccup") if self.error == "hiccup" else RateLimited("slow down")
        return self.reply

    def reported_usage(self):
        return {"input_tokens": 7, "output_tokens": 5}


@provider("plugin", description="Always the same line.", examples=("plugin:NAME",))
def build_plugin(request):
    return FixedReply(reply=LINE)


@provider(
    "flaky",
    description="Fails the first call of every game with Hiccup.",
    examples=("flaky:NAME",),
    should_retry=lambda exc: isinstance(exc, Hiccup),
)
def build_flaky(request):
    return FixedReply(reply=LINE, fail_first=1)


@provider(
    "stubborn",
    description="Fails with a 429 that its own rule never retries.",
    examples=("stubborn:NAME",),
    should_retry=lambda exc: False,
)
def build_stubborn(request):
    return FixedReply(reply=LINE, fail_first=1, error="429")
'''


@pytest.fixture
def clean_registry() -> Iterator[None]:
    """Plugins are loaded afresh in the test and unregistered after it."""
    registry.forget_plugins()
    yield
    registry.forget_plugins()
    for name in ("icl_aif_plugin_demo", "icl_aif_plugin_broken"):
        sys.modules.pop(name, None)


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_registry: None) -> Iterator[Path]:
    """The demo plugin package installed on ``sys.path``."""
    root = tmp_path / "site"
    root.mkdir()
    source = f"LINE = {PLUGIN_LINE!r}\n" + textwrap.dedent(PLUGIN_MODULE)
    make_package(root, "icl_aif_plugin_demo", source, {"demo": "icl_aif_plugin_demo"})
    monkeypatch.syspath_prepend(str(root))
    yield root


def play(tmp_path: Path, *overrides: str, probe_models: bool = True) -> Path:
    config = quickstart(
        "runs=2",
        "rounds=2",
        "concurrency=2",
        "roles.critic.model=scripted:critic",
        "retry.initial_wait=0.01",
        "retry.attempts=3",
        *overrides,
    )
    return run(config, tmp_path / "run", probe_models=probe_models).directory


# --- registration --------------------------------------------------------------------------


def test_our_providers_register_through_the_decorator_in_order() -> None:
    assert list(PROVIDERS)[: len(OURS)] == OURS
    assert {PROVIDERS[name].origin for name in OURS[:-1]} == {"icl_aif.models.builtin"}
    assert PROVIDERS["scripted"].origin == "icl_aif.games.simulators"  # each game's simulators
    assert [name for name in OURS if PROVIDERS[name].offline] == ["local", "replay", "scripted"]
    assert PROVIDERS["local"].default_model and not PROVIDERS["openai"].default_model


def test_a_name_taken_by_another_module_is_refused() -> None:
    def build(request: object) -> None:
        raise AssertionError("never built")

    with pytest.raises(ValueError, match="provider 'openai' is registered already by icl_aif"):
        provider("openai", description="mine", examples=("openai:x",))(build)  # type: ignore[arg-type]
    assert PROVIDERS["openai"].origin == "icl_aif.models.builtin"
    with pytest.raises(ValueError, match="without ':'"):
        provider("a:b", description="bad", examples=())


def test_our_vendors_retry_by_their_sdk_exception_types() -> None:
    openai = pytest.importorskip("openai")
    httpx = pytest.importorskip("httpx")
    request = httpx.Request("POST", "http://127.0.0.1/v1/chat/completions")
    rule = PROVIDERS["openai"].should_retry
    assert rule(openai.APITimeoutError(request=request))
    assert rule(openai.APIConnectionError(request=request))
    assert not rule(openai.APIResponseValidationError(httpx.Response(200, request=request), {}))
    assert rule(
        openai.RateLimitError("slow", response=httpx.Response(429, request=request), body={})
    )
    assert not rule(
        openai.BadRequestError("no", response=httpx.Response(400, request=request), body={})
    )
    assert rule(
        openai.APIStatusError("gone", response=httpx.Response(503, request=request), body={})
    )
    assert not PROVIDERS["anthropic"].should_retry(ValueError("a reply that did not parse"))


# --- plugins through entry points ----------------------------------------------------------


def test_a_plugin_provider_plays_a_game_through_the_same_call_path(
    plugin: Path, tmp_path: Path
) -> None:
    assert "plugin" not in PROVIDERS  # loaded on the first lookup of a name that is not ours
    directory = play(tmp_path, "roles.seller.model=plugin:xyz")
    assert PROVIDERS["plugin"].origin == "icl_aif_plugin_demo"

    games = list(read_jsonl(directory / "games.jsonl"))
    assert len(games) == 2 and all(g["status"] == "complete" for g in games)
    assert all(len(g["rounds"]) == 2 for g in games)
    calls = [c for c in read_jsonl(directory / "calls.jsonl") if c["role"] == "seller"]
    assert {c["game_id"] for c in calls} == {g["game_id"] for g in games}
    assert {c["model"] for c in calls} == {"plugin:xyz"}
    assert all(c["output"] == PLUGIN_LINE and c["attempts"] == 1 for c in calls)
    assert all(
        c["usage"] == {"input_tokens": 7, "output_tokens": 5, "cached_input_tokens": 0}
        for c in calls
    )


def test_a_plugin_that_fails_to_import_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_registry: None
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    make_package(
        root,
        "icl_aif_plugin_broken",
        "import nowhere_to_be_found\n",
        {"broken": "icl_aif_plugin_broken"},
    )
    monkeypatch.syspath_prepend(str(root))

    problem = registry.model_string_problem("broken:x")
    assert problem is not None and "\n" not in problem
    assert problem.startswith(
        "model 'broken:x': unknown provider 'broken'; known providers: openai"
    )
    assert problem.endswith(
        "provider plugin 'broken' (icl-aif-plugin-broken 0.1) failed to load: "
        "ModuleNotFoundError: No module named 'nowhere_to_be_found'; fix or uninstall it"
    )
    with pytest.raises(UsageError, match="provider plugin 'broken'"):
        registry.split_model_string("broken:x")
    # our providers and LangChain's still work beside a broken plugin
    assert registry.model_string_problem("scripted:linear") is None
    assert registry.model_string_problem("groq:llama-3.1-8b-instant") is None


# --- each provider's own retry rule --------------------------------------------------------


def test_a_provider_retries_what_its_own_rule_says(plugin: Path, tmp_path: Path) -> None:
    flaky = play(tmp_path / "flaky", "roles.seller.model=flaky:x")
    calls = [c for c in read_jsonl(flaky / "calls.jsonl") if c["role"] == "seller"]
    first = {c["game_id"]: c for c in reversed(calls)}  # each game's first seller call
    assert [c["attempts"] for c in first.values()] == [2, 2]  # Hiccup retried by its rule
    assert all(c["output"] == PLUGIN_LINE for c in calls)
    hiccup = sys.modules["icl_aif_plugin_demo"].Hiccup("hiccup")
    assert not is_retryable(hiccup)  # the default rule would have given up

    with pytest.raises(UsageError, match=r"'stubborn:x' failed its preflight request \(RateLim"):
        play(tmp_path / "refused", "roles.seller.model=stubborn:x")
    stubborn = play(tmp_path / "stubborn", "roles.seller.model=stubborn:x", probe_models=False)
    games = list(read_jsonl(stubborn / "games.jsonl"))
    assert [g["status"] for g in games] == ["error", "error"]
    calls = [c for c in read_jsonl(stubborn / "calls.jsonl") if c["role"] == "seller"]
    assert [c["attempts"] for c in calls] == [1, 1]  # a 429 its rule refuses: no retry
    assert is_retryable(sys.modules["icl_aif_plugin_demo"].RateLimited("slow down"))


# --- LangChain's init_chat_model for every other provider ----------------------------------


@pytest.mark.parametrize(
    "spec",
    [
        "mistralai:mistral-small-latest",
        "groq:llama-3.1-8b-instant",
        "google_genai:gemini-2.0-flash",
        "bedrock:anthropic.claude-3-haiku-20240307-v1:0",
        "deepseek:deepseek-chat",
        "chaos:mistralai:mistral-small-latest?error_rate=0.1",
    ],
)
def test_langchain_providers_pass_the_config_check(spec: str) -> None:
    assert registry.model_string_problem(spec) is None
    config = quickstart(
        f"roles.seller.model={spec}", "rate_limits.mistralai.requests_per_minute=60"
    )
    assert config.roles.seller.model == spec


def test_unknown_providers_list_ours_and_langchains() -> None:
    problem = registry.model_string_problem("nosuch:x")
    assert problem is not None
    ours, _, langchains = problem.partition("; or one of LangChain's: ")
    assert (
        ours == f"model 'nosuch:x': unknown provider 'nosuch'; known providers: {', '.join(OURS)}"
    )
    listed = langchains.split(", ")
    assert {"mistralai", "groq", "google_genai", "bedrock", "deepseek"} <= set(listed)
    assert not set(listed) & set(OURS)  # ours win where both have a name
    assert registry.model_string_problem("mistralai:") == (
        "model 'mistralai:': no model id after 'mistralai:'; write e.g. mistralai:MODEL"
    )


def test_a_missing_integration_names_the_pip_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "langchain_mistralai", None)  # not importable, as if absent
    config = quickstart("roles.seller.model=mistralai:mistral-small-latest")  # the string is fine
    with pytest.raises(UsageError) as caught:
        run(config, tmp_path / "run")
    assert str(caught.value) == (
        "model 'mistralai:mistral-small-latest' needs LangChain's mistralai integration: "
        "pip install langchain-mistralai"
    )
    assert not (tmp_path / "run" / "games.jsonl").exists()


@pytest.mark.skipif(
    importlib.util.find_spec("langchain_mistralai") is not None,
    reason="langchain-mistralai is installed here",
)
def test_a_missing_integration_exits_with_2_at_the_command_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            str(ROOT / ".venv" / "bin" / "icl-aif"),
            "run",
            str(QUICKSTART),
            "--set",
            "roles.seller.model=mistralai:mistral-small-latest",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=cli_env(),
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "error: model 'mistralai:mistral-small-latest' needs LangChain's mistralai "
        "integration: pip install langchain-mistralai"
    ]


def play_deepseek(
    server: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str
) -> Path:
    pytest.importorskip("langchain_deepseek")
    monkeypatch.setenv("DEEPSEEK_API_KEY", SECRET)
    monkeypatch.delenv("DEEPSEEK_API_BASE", raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env
    config = quickstart(
        "runs=1",
        "rounds=1",
        "feedback.source=none",
        "roles.seller.model=deepseek:deepseek-chat",
        f"roles.seller.base_url={server.url_for('/v1')}",
        "roles.seller.timeout=2",
        "retry.initial_wait=0.01",
        "retry.attempts=3",
        *extra,
    )
    return run(config, tmp_path / "run", probe_models=False).directory


def test_deepseek_through_init_chat_model_plays_a_game(
    httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_json(
        openai_body()
    )
    directory = play_deepseek(
        httpserver,
        tmp_path,
        monkeypatch,
        "roles.seller.temperature=0.3",
        "roles.seller.max_tokens=64",
        "roles.seller.params.presence_penalty=0.5",
    )
    game, calls = recorded(directory)
    assert game["status"] == "complete"
    assert calls and all(c["model"] == "deepseek:deepseek-chat" for c in calls)
    assert all(c["output"] == SELLER_LINE and c["attempts"] == 1 for c in calls)
    assert all(
        c["usage"] == {"input_tokens": 42, "output_tokens": 9, "cached_input_tokens": 32}
        for c in calls
    )
    assert len(httpserver.log) == len(calls)
    request, _ = httpserver.log[0]
    sent = request.get_json()
    assert sent["model"] == "deepseek-chat"
    assert sent["messages"] == calls[0]["messages"]
    assert sent["temperature"] == 0.3 and sent["max_tokens"] == 64
    assert sent["presence_penalty"] == 0.5  # params pass through
    assert request.headers["Authorization"] == f"Bearer {SECRET}"
    assert_key_not_recorded(directory, SECRET)


def test_deepseek_is_retried_by_the_default_rule(
    httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limited = {"error": {"type": "rate_limit_error", "message": "slow down"}}
    respond_in_order(
        httpserver,
        "/v1/chat/completions",
        lambda _: json_response(limited, 429, **{"Retry-After": "0.2"}),
        lambda _: json_response(openai_body()),
    )
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_json(
        openai_body()
    )
    game, calls = recorded(play_deepseek(httpserver, tmp_path, monkeypatch))
    assert game["status"] == "complete"
    assert calls[0]["attempts"] == 2 and calls[0]["latency_s"] >= 0.2
    assert sent_max_tokens(httpserver) == {512}  # ours when the role sets none


def sent_max_tokens(server: HTTPServer) -> set[int]:
    return {request.get_json()["max_tokens"] for request, _ in server.log}


def test_a_setting_langchains_model_refuses_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("langchain_deepseek")
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("DEEPSEEK_API_BASE", raising=False)
    monkeypatch.chdir(tmp_path)
    config = quickstart("roles.seller.model=deepseek:deepseek-chat")
    with pytest.raises(UsageError) as caught:
        run(config, tmp_path / "run")
    assert str(caught.value) == (
        "model 'deepseek:deepseek-chat': LangChain's ChatDeepSeek refused its settings: "
        "If using default api base, DEEPSEEK_API_KEY must be set."
    )
