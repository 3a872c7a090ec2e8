"""Config files: reading YAML (a duplicate key refused), ``--set`` overrides, validation with
the caller's checks, and the resolved config written back as YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from icl_aif.config.checks import ConfigChecks
from icl_aif.config.experiment import ExperimentConfig, deep_copy, validation_problem
from icl_aif.core.designs import anchored, design_root, is_shipped
from icl_aif.core.errors import UsageError
from icl_aif.core.redaction import public_settings


def parse_override(item: str) -> tuple[list[str], Any]:
    """``"roles.seller.model=openai:gpt-4o"`` -> (``["roles", "seller", "model"]``, value).

    The value is read as YAML, so numbers, booleans, ``null``, lists and ``{k: v}`` mappings come
    out typed; text that YAML would read as a mapping without braces (``local:``) stays text.
    """
    key, sep, raw = item.partition("=")
    if not sep or not key.strip():
        raise UsageError(f"--set {item!r}: expected KEY.PATH=VALUE, e.g. --set runs=10")
    try:
        value = yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError:
        value = raw
    if isinstance(value, dict) and not raw.lstrip().startswith("{"):
        value = raw  # "local:" or "a: b" is text; a mapping must be written {key: value}
    return key.strip().split("."), value


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Return a copy of ``data`` with every ``--set`` override applied."""
    result: dict[str, Any] = deep_copy(data)
    for item in overrides:
        path, value = parse_override(item)
        node = result
        for part in path[:-1]:
            child = node.get(part)
            if child is None:
                child = node[part] = {}
            if not isinstance(child, dict):
                raise UsageError(f"--set {item!r}: {part!r} is not a section")
            node = child
        node[path[-1]] = value
    return result


def config_from_dict(
    data: dict[str, Any], source: str = "config", *, checks: ConfigChecks
) -> ExperimentConfig:
    """Validate ``data`` with ``checks``; a problem becomes one line naming ``source``, the field
    and what is allowed. (:func:`icl_aif.engine.configs.config_from_dict` passes the package's checks.)"""
    try:
        return ExperimentConfig.model_validate(data, context={"checks": checks})
    except ValidationError as exc:
        raise UsageError(f"{source}: {validation_problem(exc)}") from None


def load_config(
    path: str | Path, overrides: list[str] | None = None, *, checks: ConfigChecks
) -> ExperimentConfig:
    """Read an experiment YAML file, apply ``--set`` overrides and validate it with ``checks``."""
    data = apply_overrides(read_config_data(path), overrides or [])
    return config_from_dict(data, str(path), checks=checks)


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, except that a key written twice in one mapping is an error (plain
    YAML keeps the last one silently)."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)  # merge keys (<<) resolve as usual
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        line = key_node.start_mark.line + 1
        try:
            if key in seen:
                raise _DuplicateKeyError(key, seen[key], line)
            seen[key] = line
        except TypeError:  # an unhashable key: construct_mapping reports it
            continue
    return loader.construct_mapping(node)


class _DuplicateKeyError(yaml.YAMLError):
    def __init__(self, key: Any, first: int, again: int) -> None:
        super().__init__(f"key {key!r} is written twice (lines {first} and {again})")
        self.line = again


_UniqueKeyLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _unique_mapping,
)


def read_config_data(path: str | Path) -> dict[str, Any]:
    """The raw mapping of an experiment YAML file, or a one-line error (also for an empty file
    and for a key written twice)."""
    path = Path(path)
    if not path.is_file():
        raise UsageError(f"{path}: no such config file")
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)
    except _DuplicateKeyError as exc:
        raise UsageError(f"{path}: line {exc.line}: {exc}; keep one") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise UsageError(f"{path}:{where} is not valid YAML") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not a UTF-8 text file") from None
    if data is None:
        raise UsageError(
            f"{path}: the file is empty; write the experiment's settings (e.g. name: and runs:), "
            "or start from experiments/quickstart.yaml"
        )
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping of settings at the top level")
    root = design_root()
    if root is not None and is_shipped(path):  # its data files, from any directory
        return dict(anchored(data, root))
    return data


def config_to_yaml(config: ExperimentConfig) -> str:
    """The resolved config as YAML (paths as strings), as written into every run directory.

    A sweep's lists are written back at their paths, so the file loads as the same sweep.
    Credentials are written as ``[redacted]`` (:func:`icl_aif.core.redaction.public_settings`: a
    URL's userinfo, a ``params`` entry named like a key or a header); a resume asks for them.
    """
    data = public_settings(config.model_dump(mode="json"))
    judge = data["roles"]["moderator"]  # its mode and window first, then its model's settings
    data["roles"]["moderator"] = {key: judge[key] for key in ("mode", "window")} | judge
    roles_given = config.sweep_base.get("roles") or {}
    if config.has_cells and isinstance(roles_given, dict) and roles_given.get("critic") is None:
        data["roles"].pop("critic")  # each cell's critic follows its improved player
    for path, values in config.sweep.items():
        node = data
        parts = path.split(".")
        for part in parts[:-1]:
            node = node[part]
        node[parts[-1]] = list(values)
    if config.arms is None:  # a run without arms writes the file it always wrote
        data.pop("arms")
        data.pop("branch_after")
    if data.get("improved_model") is None:
        data.pop("improved_model")
    if data.get("optimize") is None:  # a run without an optimiser writes the file it always wrote
        data.pop("optimize")
    if data.get("tournament") is None:  # a run without a tournament writes the file it always wrote
        data.pop("tournament")
    for key in ("personas", "instructions"):  # absent when unset: the file it always wrote
        if not data.get(key):
            data.pop(key)
    if data.get("cache") is None:  # a run without a cache writes the file it always wrote
        data.pop("cache")
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
