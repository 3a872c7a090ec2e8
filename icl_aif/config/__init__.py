"""Config: the experiment a YAML file describes, validated with pydantic.

A config is validated with the checks its caller hands in (:class:`ConfigChecks`); the package's
own checks (games, model providers, feedback sources) are :data:`icl_aif.engine.configs.CHECKS`,
and :func:`icl_aif.load_config` reads a file with them."""

from icl_aif.config.experiment import (
    DEFAULT_GAME,
    ConfigChecks,
    ExperimentConfig,
    FeedbackConfig,
    ModeratorConfig,
    RoleConfig,
    Roles,
    Scenario,
    apply_overrides,
    config_from_dict,
    config_to_yaml,
    read_config_data,
)

__all__ = [
    "DEFAULT_GAME",
    "ConfigChecks",
    "ExperimentConfig",
    "FeedbackConfig",
    "ModeratorConfig",
    "RoleConfig",
    "Roles",
    "Scenario",
    "apply_overrides",
    "config_from_dict",
    "config_to_yaml",
    "read_config_data",
]
