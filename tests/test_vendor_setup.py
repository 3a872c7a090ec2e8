"""Vendor set-up errors: a missing extra names the install command; keys come from .env too."""

from __future__ import annotations

from pathlib import Path

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config
from icl_aif.engine.context import build_model
from icl_aif.models import keys
from icl_aif.models.keys import api_key, redact
from icl_aif.models.vendors import require
from tests.conftest import QUICKSTART


def test_missing_extra_names_the_command() -> None:
    with pytest.raises(UsageError) as error:
        require("icl_aif_no_such_integration", "cohere", "cohere:command-r")
    assert str(error.value) == (
        "model 'cohere:command-r' needs the cohere extra: pip install 'icl-aif[cohere]'"
    )


def test_key_from_a_dotenv_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-from-dotenv-123456\n")
    keys.load_env_file.cache_clear()
    try:
        assert api_key("OPENAI_API_KEY", "openai:x") == "sk-from-dotenv-123456"
    finally:
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        keys.load_env_file.cache_clear()


def test_redact_removes_configured_and_key_shaped_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plainsecretvalue42")
    text = "bad key plainsecretvalue42, or sk-proj-abc***wxyz, at 127.0.0.1"
    assert redact(text) == "bad key [redacted], or [redacted], at 127.0.0.1"


@pytest.mark.parametrize(
    ("spec", "variable"),
    [("cohere:command-a-03-2025", "COHERE_API_KEY"), ("ai21:jamba-mini", "AI21_API_KEY")],
)
def test_missing_key_names_the_variable(
    spec: str, variable: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in keys.KEY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env
    keys.load_env_file.cache_clear()
    config = load_config(QUICKSTART, [f"roles.seller.model={spec}"])
    with pytest.raises(UsageError) as error:
        build_model(config, "seller", config.roles.seller, seed=0)
    assert str(error.value) == (
        f"model {spec!r} needs an API key: set {variable} in the environment or in .env"
    )


def test_anthropic_prompt_cache_must_be_a_boolean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-123456")
    config = load_config(
        QUICKSTART,
        [
            "roles.seller.model=anthropic:claude-haiku-4-5",
            "roles.seller.params.prompt_cache=yes please",
        ],
    )
    with pytest.raises(UsageError, match=r"params\.prompt_cache must be true or false"):
        build_model(config, "seller", config.roles.seller, seed=0)
