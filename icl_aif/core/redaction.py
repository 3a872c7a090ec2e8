"""What never reaches a file we write or a line we print: the credentials a config may hold.

A role reaches a server through ``base_url`` and provider ``params``; both may carry a secret: a
URL's userinfo (``http://user:password@host/v1``) and a parameter named like one (``api_key``,
``default_headers``, ``token``, ...). The run directory's ``config.yaml``, the manifest's
``overrides`` and every hint we print show them as :data:`REDACTED` (:func:`public_url`,
:func:`public_settings`, :func:`public_override`); a resume asks for them again
(:func:`hidden_paths`). The values themselves are remembered in this process (:func:`remember`),
so that :func:`icl_aif.models.keys.redact` takes them out of error messages too.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

__all__ = [
    "REDACTED",
    "hidden_paths",
    "is_credential",
    "public_override",
    "public_settings",
    "public_url",
    "remember",
    "remembered",
    "secrets_of",
]

REDACTED = "[redacted]"
"""What stands for a secret in what we write and print."""

_CREDENTIAL = re.compile(
    r"key|secret|passw|auth|header|cookie|credential|bearer|(^|_)token($|_)", re.IGNORECASE
)
_USERINFO = re.compile(r"(?<=://)([^\s/?#@]+)@")
_MIN_SECRET = 6  # shorter values are not remembered: "[redacted]" for "a" would garble text

_lock = threading.Lock()
_remembered: set[str] = set()


def is_credential(name: str) -> bool:
    """True for a setting whose name looks like a credential (``api_key``, ``default_headers``,
    ``Authorization``, ``token``; not ``max_tokens``)."""
    return bool(_CREDENTIAL.search(name))


def public_url(text: str) -> str:
    """``text`` with the userinfo of every URL in it redacted:
    ``http://user:pw@host/v1`` -> ``http://[redacted]@host/v1``."""
    return _USERINFO.sub(f"{REDACTED}@", text)


def public_settings(value: Any, *, credential: bool = False) -> Any:
    """``value`` (a role's ``params``, or any part of a config) as we may write it: under a key
    named like a credential every value is :data:`REDACTED` (a mapping keeps its keys: the
    header names stay), and every other string loses its URLs' userinfo."""
    if isinstance(value, Mapping):
        return {
            key: public_settings(item, credential=credential or is_credential(str(key)))
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [public_settings(item, credential=credential) for item in value]
    if isinstance(value, str):
        return REDACTED if credential else public_url(value)
    if credential and value is not None:
        return REDACTED
    return value


def secrets_of(value: Any, *, credential: bool = False) -> list[str]:
    """The secret strings in ``value``, those :func:`public_settings` hides: values under a key
    named like a credential, and URLs' userinfo."""
    if isinstance(value, Mapping):
        return [
            found
            for key, item in value.items()
            for found in secrets_of(item, credential=credential or is_credential(str(key)))
        ]
    if isinstance(value, list | tuple):
        return [found for item in value for found in secrets_of(item, credential=credential)]
    if isinstance(value, str):
        if credential:
            return [value]
        return [part for info in _USERINFO.findall(value) for part in (info, *info.split(":"))]
    return []


def public_override(item: str) -> str:
    """A ``--set path=value`` as we may write it: the value redacted under a path named like a
    credential (``roles.seller.params.api_key=...``), a mapping's credentials redacted
    (``roles.seller.params={api_key: ...}``, written back as JSON, which YAML reads), URLs'
    userinfo redacted in any value."""
    path, sep, value = item.partition("=")
    if not sep:
        return public_url(item)
    if any(is_credential(part) for part in path.split(".")):
        return f"{path}={REDACTED}"
    try:
        parsed = yaml.safe_load(value)
    except yaml.YAMLError:
        return public_url(item)
    if isinstance(parsed, dict | list):
        public = public_settings(parsed)
        if public != parsed:
            return f"{path}={json.dumps(public, ensure_ascii=False)}"
    return public_url(item)


def hidden_paths(data: Any, path: str = "") -> list[str]:
    """The dotted paths of ``data`` (a config as written) whose value holds :data:`REDACTED`."""
    if isinstance(data, Mapping):
        return [
            found
            for key, item in data.items()
            for found in hidden_paths(item, f"{path}.{key}".lstrip("."))
        ]
    if isinstance(data, list | tuple):
        return [found for item in data for found in hidden_paths(item, path)][:1]
    if isinstance(data, str) and REDACTED in data:
        return [path]
    return []


def remember(values: Iterable[str]) -> None:
    """Remember secret ``values`` of this process: :func:`icl_aif.models.keys.redact` takes them
    out of every text it cleans (error messages, above all)."""
    with _lock:
        _remembered.update(v for v in values if len(v) >= _MIN_SECRET)


def remembered() -> frozenset[str]:
    """The secret values remembered so far."""
    with _lock:
        return frozenset(_remembered)
