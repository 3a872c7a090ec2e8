"""icl-aif's pytest plugin: fixtures that play small experiments, check games and serve vendor
stubs.

Registered through the ``pytest11`` entry point ``icl_aif``, so any pytest session in an
environment with icl-aif installed has the fixtures (``-p no:icl_aif`` switches them off). The
module imports only pytest and icl-aif's core: without the ``testing`` extra an unrelated test
session runs as before, and a test that asks for a stub fixture fails with one line naming
``pip install 'icl-aif[testing]'``.

Fixtures (``pytest --fixtures`` shows them):

- ``play_experiment``: play a config into a fresh directory under ``tmp_path``; the records.
- ``game_conformance``: run the games' conformance check on a game: ``game_conformance("price")``.
- ``vendor_stub``: start a stub of any vendor: ``vendor_stub("cohere")``.
- ``openai_stub``, ``anthropic_stub``, ``cohere_stub``, ``ai21_stub``: one started stub.

The stub fixtures put :data:`icl_aif.testing.wire.FAKE_KEY` in the vendor's key variable for the
test, so a real key in the environment is never sent, not even to 127.0.0.1.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

import pytest

from icl_aif.testing.wire import FAKE_KEY

if TYPE_CHECKING:
    from icl_aif.config.experiment import ExperimentConfig
    from icl_aif.games.base import Game
    from icl_aif.testing.runs import Played
    from icl_aif.testing.stubs import VendorStub

EXTRA_MODULES = ("pytest_httpserver", "werkzeug")
"""What the stub fixtures need from the ``testing`` extra."""


class PlayExperiment(Protocol):
    """``play_experiment(config, name=None, **options)``: the records of ``config`` played into
    ``tmp_path / name`` (default: run1, run2, ...); ``options`` go to
    :func:`icl_aif.testing.play` (``probe_models``, ``executor``...)."""

    def __call__(
        self, config: ExperimentConfig, name: str | None = None, **options: Any
    ) -> Played: ...


class CheckGame(Protocol):
    """``game_conformance(game, *, seed=0, runs=6)``: :func:`icl_aif.testing.check_game` on
    ``game`` (a registered name or a :class:`~icl_aif.games.base.Game`) under ``tmp_path``."""

    def __call__(self, game: str | Game[Any, Any], *, seed: int = 0, runs: int = 6) -> None: ...


class StartStub(Protocol):
    """``vendor_stub(vendor, key=FAKE_KEY)``: a started stub of ``vendor``; ``key`` goes into the
    vendor's key variable for the test (None: the environment is left alone)."""

    def __call__(self, vendor: str, *, key: str | None = FAKE_KEY) -> VendorStub: ...


@pytest.fixture
def play_experiment(tmp_path: Path) -> PlayExperiment:
    """Play an experiment config into a new directory under ``tmp_path`` and read its records
    back (:class:`icl_aif.testing.Played`). No preflight request is sent unless
    ``probe_models=True``."""
    from icl_aif.testing.runs import play

    played = 0

    def play_in_tmp(config: ExperimentConfig, name: str | None = None, **options: Any) -> Played:
        nonlocal played
        played += 1
        return play(config, tmp_path / (name or f"run{played}"), **options)

    return play_in_tmp


@pytest.fixture
def game_conformance(tmp_path: Path) -> CheckGame:
    """Check that a game keeps the game interface's promises (scenario round trip, openers,
    judge, simulators, payoffs, determinism): ``game_conformance("my_game")`` fails the test with
    the game and the first property it breaks. Its runs are written under ``tmp_path``."""
    from icl_aif.testing.conformance import check_game

    def check_in_tmp(game: str | Game[Any, Any], *, seed: int = 0, runs: int = 6) -> None:
        check_game(game, tmp_path, seed=seed, runs=runs)

    return check_in_tmp


class _Stubs:
    """The stubs one fixture started, stopped at its teardown."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, fixture: str) -> None:
        self.monkeypatch = monkeypatch
        self.fixture = fixture
        self.started: list[VendorStub] = []

    def start(self, vendor: str, *, key: str | None = FAKE_KEY) -> VendorStub:
        stub: VendorStub = _stubs_module(self.fixture).VendorStub.start(vendor)
        self.started.append(stub)
        if key is not None:
            self.monkeypatch.setenv(stub.key_variable, key)
        return stub

    def stop(self) -> None:
        for stub in self.started:
            stub.stop()


def _stubs_module(fixture: str) -> ModuleType:
    """:mod:`icl_aif.testing.stubs`, or the test fails with one line naming the extra."""
    try:
        return import_module("icl_aif.testing.stubs")
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in EXTRA_MODULES:
            raise
        missing = exc.name
    # outside the except block: the one line, without the import error chained to it
    pytest.fail(
        f"fixture {fixture!r} needs {missing}, which is not installed: "
        "pip install 'icl-aif[testing]'",
        pytrace=False,
    )


@pytest.fixture
def vendor_stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[StartStub]:
    """Start stubs of any vendor (``openai``, ``anthropic``, ``cohere``, ``ai21``) on 127.0.0.1:
    ``stub = vendor_stub("cohere")``; each is stopped after the test."""
    stubs = _Stubs(monkeypatch, "vendor_stub")
    yield stubs.start
    stubs.stop()


def _one_stub(monkeypatch: pytest.MonkeyPatch, vendor: str) -> Iterator[VendorStub]:
    stubs = _Stubs(monkeypatch, f"{vendor}_stub")
    yield stubs.start(vendor)
    stubs.stop()


@pytest.fixture
def openai_stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[VendorStub]:
    """A stub of OpenAI's chat completions (``openai:`` with ``base_url``), key variable set."""
    yield from _one_stub(monkeypatch, "openai")


@pytest.fixture
def anthropic_stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[VendorStub]:
    """A stub of Anthropic's Messages API (``anthropic:`` with ``base_url``), key variable set."""
    yield from _one_stub(monkeypatch, "anthropic")


@pytest.fixture
def cohere_stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[VendorStub]:
    """A stub of Cohere's v2 chat API (``cohere:`` with ``base_url``), key variable set."""
    yield from _one_stub(monkeypatch, "cohere")


@pytest.fixture
def ai21_stub(monkeypatch: pytest.MonkeyPatch) -> Iterator[VendorStub]:
    """A stub of AI21's chat completions (``ai21:`` with ``base_url``), key variable set."""
    yield from _one_stub(monkeypatch, "ai21")
