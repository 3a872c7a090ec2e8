"""Resuming a stopped run: the config comes from the run directory, and nothing may change it
but ``concurrency``.

``icl-aif run --resume RUN_DIR`` plays the games a killed, interrupted or stopped run did not
finish, with the config recorded in ``RUN_DIR/config.yaml``. A config file or ``--set`` given
with ``--resume`` must describe that same experiment (the manifest's overrides and ``--offline``
are applied to a config file as in the first run), or the resume is refused in one line: two
configs never mix in one directory. Only ``concurrency`` may change (lowered after rate-limit
trouble, say): no game depends on it. Prompts and data files must be the ones the run started
with (:func:`check_prompts`); package versions that changed are recorded in the manifest's
``resumed_with``. The records are repaired by
:func:`icl_aif.records.writer.repair_records` when :func:`icl_aif.run.runner.run_experiment` resumes.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.files import apply_overrides, config_to_yaml, read_config_data
from icl_aif.config.offline import offline_data
from icl_aif.core.errors import UsageError
from icl_aif.core.redaction import REDACTED, hidden_paths
from icl_aif.engine.configs import config_from_dict, load_run_config
from icl_aif.records.layout import CONFIG, MANIFEST
from icl_aif.records.reader import read_run_config_data, run_seats, upgraded
from icl_aif.records.schema import check_format_version

RESULT_NEUTRAL = ("concurrency",)
"""Config fields a resume may change: they change how fast games are played, never a game."""


def resume_command(directory: Path) -> str:
    """The command that continues the run of ``directory``."""
    return f"icl-aif run --resume {shlex.quote(str(directory))}"


def resume_config(
    directory: Path,
    config_file: Path | None = None,
    overrides: list[str] | None = None,
    offline: bool = False,
) -> ExperimentConfig:
    """The config of the run in ``directory``, checked against what the command line gives.

    With ``config_file`` the file is loaded with the run's recorded overrides, then
    ``overrides``, and made offline when the run was (or ``offline``); without it ``overrides``
    apply to the recorded config. Anything that differs from the recorded config is refused,
    except the fields of :data:`RESULT_NEUTRAL` (``concurrency``): the recorded config comes
    back with the new values of those (``config.yaml`` keeps the first run's).
    """
    if not directory.is_dir():
        raise UsageError(f"{directory}: no such run directory")
    recorded_path = directory / CONFIG
    if not recorded_path.is_file():
        raise UsageError(
            f"{directory}: no {CONFIG} here, so no run to resume (a run writes it before its "
            "first game); start it again without --resume"
        )
    manifest = _manifest(directory)  # first: a newer record format is refused in one line
    recorded = load_run_config(directory)  # in the game's seats, whatever the run's format
    hidden = hidden_paths(read_run_config_data(directory))  # credentials written as [redacted]
    extra = list(overrides or [])
    if config_file is None and not extra and not offline:
        if hidden:
            raise UsageError(_secrets_needed(directory, hidden))
        return recorded
    if config_file is not None:
        recorded_overrides = [o for o in manifest.get("overrides", []) if REDACTED not in o]
        data = apply_overrides(read_config_data(config_file), [*recorded_overrides, *extra])
        offline = offline or manifest.get("offline") is not None
        source = str(config_file)
    else:
        data = apply_overrides(read_run_config_data(directory), extra)
        source = str(recorded_path)
    if offline:
        data, _ = offline_data(data)
    candidate = config_from_dict(data, source=source)
    neutral = {key: getattr(candidate, key) for key in RESULT_NEUTRAL}
    before = config_to_yaml(recorded)
    after = config_to_yaml(candidate.model_copy(update={k: getattr(recorded, k) for k in neutral}))
    if before != after:
        field, old, new = first_difference(yaml.safe_load(before), yaml.safe_load(after))
        raise UsageError(
            f"{directory} holds a run of another config ({field}: {_show(old)} there, "
            f"{_show(new)} here); resume it as it is with: {resume_command(directory)}"
        )
    if hidden:  # the secrets come from the command line: the candidate has them
        missing = hidden_paths(candidate.model_dump(mode="json"))
        if missing:
            raise UsageError(_secrets_needed(directory, missing))
        return candidate
    return recorded.model_copy(update=neutral)


def _secrets_needed(directory: Path, paths: list[str]) -> str:
    """The one-line error of a resume whose recorded config left credentials out."""
    return (
        f"{directory / CONFIG} leaves out the secrets of {', '.join(paths)} (never written to "
        f"disk); continue with the experiment file that holds them: icl-aif run CONFIG --resume "
        f"{shlex.quote(str(directory))}, or give them with --set PATH=VALUE"
    )


def first_difference(old: Any, new: Any, path: str = "") -> tuple[str, Any, Any]:
    """The first dotted path at which two parsed configs differ, with both values there."""
    if isinstance(old, dict) and isinstance(new, dict):
        for key in [*old, *(k for k in new if k not in old)]:
            if old.get(key) != new.get(key):
                return first_difference(old.get(key), new.get(key), f"{path}.{key}".lstrip("."))
    return path or "(top level)", old, new


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)


def _manifest(directory: Path) -> dict[str, Any]:
    path = directory / MANIFEST
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return {}
    if not isinstance(data, dict):
        return {}
    check_format_version(data, path)  # a newer record format: upgrade icl-aif to resume it
    return upgraded(data, run_seats(directory))


def check_prompts(directory: Path, recorded: Mapping[str, str], current: Mapping[str, str]) -> None:
    """Refuse, in one line, to resume a run whose prompts or data files changed since it started:
    its finished games used the recorded text, so the rest must too. Files added since are fine.
    """
    changed = [path for path, digest in recorded.items() if current.get(path) != digest]
    if not changed:
        return
    first = changed[0]
    what = "changed" if first in current else "is gone"
    more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
    raise UsageError(
        f"{directory}: {first} {what} since the run started{more}; its games used the old "
        "text: restore it to resume, or start a new run"
    )


def version_changes(
    recorded: Mapping[str, str | None], current: Mapping[str, str | None]
) -> dict[str, list[str | None]]:
    """Packages whose version differs from the run's first process: ``{name: [then, now]}``."""
    return {
        name: [then, current.get(name)]
        for name, then in recorded.items()
        if current.get(name) != then
    }
