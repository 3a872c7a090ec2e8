"""Preflight: each vendor model answers one short request before any game, or nothing is played.

Also ``icl-aif check-model``, which sends the same request for one model. Everything goes through
the real SDKs to the stub servers of ``test_vendor_stubs.py`` on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from icl_aif.config.settings import RoleConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.records.reader import read_json, read_jsonl
from icl_aif.run.preflight import PROBE, PROBE_MAX_TOKENS, check_model_hint, preflight
from tests.conftest import icl_aif, quickstart
from tests.test_vendor_stubs import SECRET, VENDORS, play


def denied() -> dict[str, object]:
    return {"error": {"type": "authentication_error", "message": f"bad key {SECRET}"}}


def sent_max_tokens(body: dict[str, object]) -> object:
    return body.get("max_completion_tokens", body.get("max_tokens"))


@pytest.mark.parametrize("vendor", VENDORS)
def test_each_vendor_model_is_probed_once_before_the_games(
    vendor: str, httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = VENDORS[vendor]
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(spec["body"]())
    directory = play(vendor, httpserver, tmp_path, monkeypatch, probe_models=True)

    probe, _ = httpserver.log[0]
    body = probe.get_json()
    assert sent_max_tokens(body) == PROBE_MAX_TOKENS
    assert PROBE[-1]["content"] in str(body["messages"])
    games = [c for c in read_jsonl(directory / "calls.jsonl") if c["role"] == "seller"]
    assert len(httpserver.log) == 1 + len(games)  # the probe is not a game's call
    (record,) = read_json(directory / "manifest.json")["preflight"]
    assert record["role"] == "seller" and record["model"] == spec["model"]
    assert record["usage"] == spec["usage"] and record["error"] is None


@pytest.mark.parametrize("vendor", VENDORS)
def test_a_rejected_key_stops_the_run_before_any_game(
    vendor: str, httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = VENDORS[vendor]
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(denied(), status=401)
    with pytest.raises(UsageError) as error:
        play(vendor, httpserver, tmp_path, monkeypatch, probe_models=True)
    message = str(error.value)
    assert message.startswith(f"roles.seller.model '{spec['model']}' failed its preflight request")
    assert spec["auth_error"] in message and "no game was played" in message
    assert SECRET not in message and SECRET[:12] not in message
    assert len(httpserver.log) == 1  # not retried, and no game started
    assert not (tmp_path / "run" / "games.jsonl").exists()


def test_one_probe_per_distinct_model(
    httpserver: HTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = VENDORS["openai"]
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(spec["body"]())
    base = spec["base"](httpserver)
    directory = play(
        "openai",
        httpserver,
        tmp_path,
        monkeypatch,
        f"roles.buyer.model={spec['model']}",
        f"roles.buyer.base_url={base}",
        "scenario.max_exchanges=3",
        probe_models=True,
    )
    assert [r["role"] for r in read_json(directory / "manifest.json")["preflight"]] == ["seller"]


def check_model(server: HTTPServer, tmp_path: Path, *args: str) -> tuple[int, str, str]:
    spec = VENDORS["openai"]
    done = icl_aif(
        "check-model",
        spec["model"],
        "--base-url",
        spec["base"](server),
        *args,
        cwd=tmp_path,
        env={"OPENAI_API_KEY": SECRET},
    )
    return done.returncode, done.stdout, done.stderr


def test_check_model_shows_reply_latency_and_usage(httpserver: HTTPServer, tmp_path: Path) -> None:
    spec = VENDORS["openai"]
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(spec["body"]("OK"))
    code, out, err = check_model(httpserver, tmp_path, "--prompt", "Say OK.", "--max-tokens", "5")
    assert code == 0, err
    lines = [" ".join(line.split()) for line in out.splitlines()]
    assert "reply OK" in lines
    assert "usage 42 input (32 cached), 9 output tokens" in lines
    assert any(line.startswith("latency ") and line.endswith(" s") for line in lines)
    (request, _), *rest = httpserver.log
    body = request.get_json()
    assert not rest and sent_max_tokens(body) == 5
    assert body["messages"][-1] == {"role": "user", "content": "Say OK."}


def test_check_model_failure_is_one_line_without_the_key(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    spec = VENDORS["openai"]
    httpserver.expect_request(spec["path"], method="POST").respond_with_json(denied(), status=401)
    code, out, err = check_model(httpserver, tmp_path)
    assert code == 2
    assert err.startswith(f"error: {spec['model']}: the request failed: ")
    assert spec["auth_error"] in err and "401" in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in out + err
    assert SECRET not in out + err and SECRET[:12] not in out + err
    assert len(httpserver.log) == 1  # one request, never retried


def test_the_check_model_hint_names_the_roles_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as closed:  # a port nobody listens on once the socket is closed
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    base = f"http://127.0.0.1:{port}/v1"
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.chdir(tmp_path)  # no stray .env
    config = quickstart(
        "roles.seller.model=openai:gpt-4o-mini",
        f"roles.seller.base_url={base}",
        "roles.seller.timeout=2",
        "roles.seller.params.extra_body={}",
        "retry.attempts=1",
    )
    with pytest.raises(UsageError) as error:
        asyncio.run(preflight(config, PromptLibrary()))
    message = str(error.value)
    assert message.startswith("roles.seller.model 'openai:gpt-4o-mini' failed its preflight")
    hint = f"icl-aif check-model openai:gpt-4o-mini --base-url {base} --timeout 2"
    assert f"({hint} with --param KEY=VALUE for roles.seller.params (extra_body) tells more;" in (
        message
    )
    assert SECRET not in message


def test_the_check_model_hint_of_a_vendor_endpoint_has_no_base_url() -> None:
    role = RoleConfig(model="openai:gpt-4o-mini")
    assert check_model_hint("critic", role) == "icl-aif check-model openai:gpt-4o-mini --timeout 60"
    spaced = RoleConfig(model="openai:m", base_url="http://h/v1?a=1 b", timeout=2.5)
    assert check_model_hint("buyer", spaced).endswith(
        "--base-url 'http://h/v1?a=1 b' --timeout 2.5"
    )
