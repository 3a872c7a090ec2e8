"""Experiment configs validated with everything the package knows: its games (and the games of
installed plugins), its model providers and its feedback sources.

:mod:`icl_aif.config.experiment` sits below all of them (they read its settings), so validating a config
asks them through a :class:`~icl_aif.config.checks.ConfigChecks` handed in where the config is validated;
:data:`CHECKS` is the package's, and the functions here pass it. A game that is not registered
(the conformance check's) is validated with ``CHECKS.with_game(game)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from icl_aif.config import files, offline
from icl_aif.config.checks import ConfigChecks
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.files import apply_overrides
from icl_aif.engine.feedback import sources as feedback
from icl_aif.games.registry import find_game, game_problem
from icl_aif.models.registry import model_string_problem, provider_problem
from icl_aif.records.layout import CONFIG
from icl_aif.records.reader import read_run_config_data

__all__ = [
    "CHECKS",
    "config_from_dict",
    "load_config",
    "load_offline_config",
    "load_run_config",
]

CHECKS = ConfigChecks(
    find_game=find_game,
    game_problem=game_problem,
    model_string=model_string_problem,
    provider=provider_problem,
    find_source=feedback.find_source,
    source_problem=feedback.source_problem,
)
"""The package's checks: the games registry, the model layer's checks of ``provider:model``
strings and provider names, and the registry of feedback sources (ours register in
:mod:`icl_aif.engine.feedback.sources`)."""


def config_from_dict(
    data: dict[str, Any], source: str = "config", *, checks: ConfigChecks = CHECKS
) -> ExperimentConfig:
    """Validate ``data``; a problem becomes one line naming ``source``, the field and what is
    allowed."""
    return files.config_from_dict(data, source, checks=checks)


def load_config(
    path: str | Path, overrides: list[str] | None = None, *, checks: ConfigChecks = CHECKS
) -> ExperimentConfig:
    """Read an experiment YAML file and apply ``--set`` overrides."""
    return files.load_config(path, overrides, checks=checks)


def load_offline_config(
    path: str | Path, overrides: list[str] | None = None, *, checks: ConfigChecks = CHECKS
) -> tuple[ExperimentConfig, dict[str, Any]]:
    """:func:`load_config` with every model-backed role on a simulator; also returns what
    replaced what (:func:`icl_aif.config.offline.offline_data`)."""
    return offline.load_offline_config(path, overrides, checks=checks)


def load_run_config(
    directory: Path, overrides: list[str] | None = None, *, checks: ConfigChecks = CHECKS
) -> ExperimentConfig:
    """The resolved config a run wrote (``config.yaml``), in the game's seats whatever the
    run's record format (:func:`icl_aif.records.reader.read_run_config_data`), with ``overrides``."""
    data = apply_overrides(read_run_config_data(directory), overrides or [])
    return files.config_from_dict(data, str(directory / CONFIG), checks=checks)
