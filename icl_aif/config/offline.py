"""Offline: every model-backed role on a simulator (``--offline``, ``icl-aif estimate``), and
what was replaced, in one line."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from icl_aif.config.checks import ConfigChecks
from icl_aif.config.experiment import ExperimentConfig, deep_copy, sweep_axes
from icl_aif.config.files import apply_overrides, config_from_dict, read_config_data
from icl_aif.config.settings import NON_SEAT_ROLES, PLAYER_DEFAULT


def load_offline_config(
    path: str | Path, overrides: list[str] | None = None, *, checks: ConfigChecks
) -> tuple[ExperimentConfig, dict[str, Any]]:
    """:func:`load_config` with every model-backed role on a simulator (:func:`offline_data`);
    also returns what replaced what."""
    data, replaced = offline_data(apply_overrides(read_config_data(path), overrides or []))
    return config_from_dict(data, source=str(path), checks=checks), replaced


def offline_line(
    original: dict[str, Any], replaced: dict[str, Any], config: ExperimentConfig
) -> str:
    """What ``--offline`` did, in one line: each path's models and the simulator that replaced
    them, and the sweep's cells kept (values that became one simulator are played once).
    ``original`` is the config's data before :func:`offline_data`, ``replaced`` its map."""
    if not replaced:
        return "--offline: every role already runs offline; nothing replaced"
    parts = []
    for path, mapping in replaced.items():
        by_new: dict[str, list[str]] = {}
        for old, new in mapping.items():
            by_new.setdefault(str(new), []).append(str(old))
        parts += [f"{path} {', '.join(olds)} -> {new}" for new, olds in by_new.items()]
    try:
        axes, _ = sweep_axes(original, config.seats)
    except ValueError:  # a bad sweep is reported by the config's own checks
        axes = {}
    before = math.prod(len(values) for values in axes.values())
    after = len(config.cells())
    if before > 1:
        kept = f"{after} of {before} cells kept"
        if after < before:
            merged = [path for path in axes if path in replaced]
            kept += f" (the values of {', '.join(merged)} that became one simulator play once)"
        parts.append(kept)
    return f"--offline: {'; '.join(parts)}"


KEPT_OFFLINE = ("scripted", "replay")
"""The providers an offline run keeps: they call no model."""
STAND_INS: dict[str, str] = {"critic": "scripted:critic", "moderator": "rules"}
"""What stands in offline (``--offline``, ``icl-aif estimate``) for a role whose model would be
called: the scripted critic for the critic, the rules for a model-backed moderator (its calls
are not counted), :data:`PLAYER_DEFAULT` for a seat (:func:`stand_in`)."""


def stand_in(role: str) -> str:
    """The simulator (or, for the moderator, the mode) that stands in offline for ``role``."""
    return STAND_INS.get(role, PLAYER_DEFAULT)


def offline_data(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``data`` with every role that would call a model (vendor or ``local:``) on a simulator.

    Players become ``scripted:linear``, the critic ``scripted:critic`` and a model-backed
    moderator the rules (``scripted:`` and ``replay:`` stay). Sweep lists are mapped value by
    value. Returns the new data and what replaced what: ``{path: {old: new}}``.
    """
    result = deep_copy(data)
    replaced: dict[str, Any] = {}
    improved = result.get("improved_model")
    if improved is not None:
        values = improved if isinstance(improved, list) else [improved]
        mapping = {
            str(m): PLAYER_DEFAULT for m in values if str(m).partition(":")[0] not in KEPT_OFFLINE
        }
        if mapping:
            replaced["improved_model"] = mapping
            new = list(dict.fromkeys(mapping.get(str(m), m) for m in values))
            result["improved_model"] = (
                new if isinstance(improved, list) and len(new) > 1 else new[0]
            )
    roles = result.get("roles")
    if not isinstance(roles, dict):
        return result, replaced
    for role in [*(r for r in roles if r not in NON_SEAT_ROLES), "critic"]:
        settings = roles.get(role)
        if not isinstance(settings, dict):
            continue
        models = settings.get("model")
        values = models if isinstance(models, list) else [models]
        mapping = {
            str(m): stand_in(role)
            for m in values
            if isinstance(m, str) and m.partition(":")[0] not in KEPT_OFFLINE
        }
        if not mapping:
            continue
        replaced[f"roles.{role}.model"] = mapping
        new = [mapping.get(str(m), m) for m in values]
        if isinstance(models, list):
            deduped = list(dict.fromkeys(new))
            roles[role] = {"model": deduped if len(deduped) > 1 else deduped[0]}
        else:
            roles[role] = {"model": new[0]}
    moderator = roles.get("moderator")
    rules = stand_in("moderator")
    if isinstance(moderator, dict) and moderator.get("mode", rules) != rules:
        replaced["roles.moderator.mode"] = {str(moderator["mode"]): rules}
        roles["moderator"] = {"mode": rules, "window": moderator.get("window", 4)}
    if replaced:
        result["rate_limits"] = {}
    return result, replaced
