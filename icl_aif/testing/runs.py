"""Small experiments for tests: a config with the roles a test names, played into a directory,
its records read back.

A role is a ``provider:model`` string, a mapping of role settings (as under ``roles.<role>`` in
an experiment file), or a list of replies, which makes it a ``replay:`` model that says them in
order (``icl_aif/models/replay.py``). The rest defaults to one game of one round with no feedback,
short retry waits and the price game's default scenario: fast, and offline unless a role names a
vendor model.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.files import apply_overrides
from icl_aif.config.settings import DEFAULT_GAME
from icl_aif.engine.configs import CHECKS, config_from_dict
from icl_aif.records.reader import read_calls, read_games, read_manifest, read_summary
from icl_aif.testing.wire import FAKE_KEY, Usage

RoleSpec = str | Mapping[str, Any] | Sequence[str]
"""A role: a model string, role settings, or the replies of a replay model."""

DEFAULTS: dict[str, Any] = {
    "name": "test",
    "runs": 1,
    "rounds": 1,
    "concurrency": 1,
    "feedback": {"source": "none"},
    "retry": {"attempts": 3, "initial_wait": 0.01, "max_wait": 1.0},
}
"""What :func:`experiment` sets unless told otherwise (the rest: ExperimentConfig's defaults)."""


def replay(*replies: str, name: str = "replay", usage: Usage | None = None) -> dict[str, Any]:
    """Role settings of a ``replay:`` model that answers with ``replies`` in order (running out
    is an error in that game) and reports ``usage`` with every reply, if given."""
    params: dict[str, Any] = {"replies": list(replies)}
    if usage is not None:
        params["usage"] = dict(usage)
    return {"model": f"replay:{name}", "params": params}


def role_settings(role: str, spec: RoleSpec) -> dict[str, Any]:
    """The settings of ``role`` from a model string, a mapping or a list of replies."""
    if isinstance(spec, str):
        return {"model": spec}
    if isinstance(spec, Mapping):
        return dict(spec)
    return replay(*spec, name=role)


def experiment(
    *,
    critic: RoleSpec | None = None,
    overrides: Sequence[str] = (),
    **fields: Any,
) -> ExperimentConfig:
    """An experiment config for a test: :data:`DEFAULTS`, then ``fields`` (top-level config keys,
    e.g. ``rounds=2`` or ``feedback={"source": "ai"}``), then the roles given, then ``overrides``
    in ``--set`` syntax (``"roles.seller.temperature=0.3"``). A player is given by its seat, as
    a keyword named after it (the price game's ``seller=`` and ``buyer=``, Deal or No Deal's
    ``alice=`` and ``bob=``); a role not given keeps the config's default (``scripted:linear``
    players; the critic follows the improved player).

    >>> experiment(seller=["How about $17?"], buyer="scripted:boulware").roles.seller.model
    'replay:seller'
    """
    seats = CHECKS.game(str(fields.get("game", DEFAULT_GAME))).seats
    players = {seat: fields.pop(seat) for seat in seats if seat in fields}
    data: dict[str, Any] = {**DEFAULTS, **fields}
    roles = dict(data.get("roles") or {})
    for role, spec in (*players.items(), ("critic", critic)):
        if spec is not None:
            roles[role] = role_settings(role, spec)
    if roles:
        data["roles"] = roles
    return config_from_dict(apply_overrides(data, list(overrides)), source="test experiment")


@dataclass(frozen=True)
class Played:
    """A run directory's records, read back as plain data (the schemas are in
    ``icl_aif/records/schema.py``; ``docs/records.md`` describes them)."""

    directory: Path
    manifest: dict[str, Any]
    summary: dict[str, Any]
    games: list[dict[str, Any]]
    """``games.jsonl``: one record per game (and arm), in game order."""
    calls: list[dict[str, Any]]
    """``calls.jsonl``: every model call, in game order."""

    @property
    def game(self) -> dict[str, Any]:
        """The only game of a run of one game."""
        if len(self.games) != 1:
            raise ValueError(f"{self.directory} holds {len(self.games)} games; read .games")
        return self.games[0]

    def calls_of(self, role: str) -> list[dict[str, Any]]:
        """The calls of one role (a seat, ``critic``, ``moderator``...), in order."""
        return [call for call in self.calls if call["role"] == role]


def load_played(directory: Path) -> Played:
    """The records of a finished run directory."""
    return Played(
        directory=directory,
        manifest=read_manifest(directory),
        summary=read_summary(directory),
        games=read_games(directory),
        calls=list(read_calls(directory)),
    )


async def play_async(
    config: ExperimentConfig, directory: Path, *, probe_models: bool = False, **options: Any
) -> Played:
    """Play ``config`` into ``directory`` and read its records back. ``probe_models`` is off: no
    preflight request reaches a model (a stub would otherwise answer it from its queue);
    ``options`` go to :func:`icl_aif.run.runner.run_experiment`."""
    result = await run_experiment(config, Path(directory), probe_models=probe_models, **options)
    return load_played(result.directory)


def play(
    config: ExperimentConfig, directory: Path, *, probe_models: bool = False, **options: Any
) -> Played:
    """:func:`play_async` from synchronous code (not from inside a running event loop)."""
    return asyncio.run(play_async(config, directory, probe_models=probe_models, **options))


def assert_key_not_recorded(directory: Path, key: str = FAKE_KEY) -> None:
    """Raise AssertionError if any file under ``directory`` holds ``key`` or its first 12
    characters (icl-aif redacts keys from everything it writes)."""
    for path in sorted(directory.rglob("*")):
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace")
            assert key not in text and key[:12] not in text, f"{path} holds the key"
