"""Config: the experiment a YAML file describes, validated with pydantic.

- :mod:`~icl_aif.config.settings`: the parts (scenario, models per role, judge, metrics, cache,
  retries, rate limits, prices) and the values they allow;
- :mod:`~icl_aif.config.checks`: what validation asks of the layers above (:class:`ConfigChecks`);
- :mod:`~icl_aif.config.experiment`: :class:`ExperimentConfig` and its sweep's cells;
- :mod:`~icl_aif.config.files`: YAML in, ``--set`` overrides, the resolved config written back;
- :mod:`~icl_aif.config.offline`: every model-backed role on a simulator (``--offline``).

A config is validated with the checks its caller hands in; the package's own (games, model
providers, feedback sources) are :data:`icl_aif.engine.configs.CHECKS`, and
:func:`icl_aif.load_config` reads a file with them."""

from icl_aif.config.checks import ConfigChecks
from icl_aif.config.experiment import ExperimentConfig, FeedbackConfig
from icl_aif.config.files import apply_overrides, config_from_dict, config_to_yaml, read_config_data
from icl_aif.config.settings import (
    DEFAULT_GAME,
    ModelSettings,
    ModeratorConfig,
    RoleConfig,
    Roles,
    Scenario,
)

__all__ = [
    "DEFAULT_GAME",
    "ConfigChecks",
    "ExperimentConfig",
    "FeedbackConfig",
    "ModelSettings",
    "ModeratorConfig",
    "RoleConfig",
    "Roles",
    "Scenario",
    "apply_overrides",
    "config_from_dict",
    "config_to_yaml",
    "read_config_data",
]
