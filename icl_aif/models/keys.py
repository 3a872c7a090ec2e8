"""API keys: read from the environment or a ``.env`` file in the working directory, never from configs.

Key values are never written to a run directory nor printed; errors name the variable only.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

from icl_aif.core.errors import UsageError
from icl_aif.core.redaction import REDACTED, public_url, remembered


@cache
def load_env_file(path: Path = Path(".env")) -> bool:
    """Load ``.env`` once (variables already set in the environment win). True if a file was read."""
    if not path.is_file():
        return False
    from dotenv import load_dotenv

    return load_dotenv(path, override=False)


def api_key(variable: str, spec: str, *, required: bool = True) -> str | None:
    """The key in ``variable``; a missing required key is a one-line error naming the variable."""
    load_env_file()
    value = os.environ.get(variable, "").strip()
    if not value and required:
        raise UsageError(
            f"model {spec!r} needs an API key: set {variable} in the environment or in .env"
        )
    return value or None


KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "COHERE_API_KEY",
    "CO_API_KEY",
    "AI21_API_KEY",
)
# Shapes of vendor keys, whole or masked by the vendor's own error message ("sk-abc***xyz").
_KEY_SHAPES = re.compile(r"\b(?:sk|sk-ant|sk-proj|co|ai21)[-_][A-Za-z0-9_\-*.]{6,}")


def redact(text: str) -> str:
    """``text`` with every configured key value, every secret of a role's settings and anything
    shaped like a key replaced.

    Configured keys are ours (:data:`KEY_VARIABLES`) and any ``*_API_KEY`` variable, such as
    the keys of LangChain integrations (``MISTRAL_API_KEY``, ``DEEPSEEK_API_KEY``); a role's
    secrets are the userinfo of its ``base_url`` and its ``params`` named like credentials
    (:func:`icl_aif.core.redaction.remember`), and the userinfo of any URL in ``text``.
    """
    variables = {*KEY_VARIABLES, *(v for v in os.environ if v.endswith("_API_KEY"))}
    for variable in sorted(variables):
        value = os.environ.get(variable, "").strip()
        if len(value) >= 8:
            text = text.replace(value, REDACTED)
    for value in sorted(remembered(), key=len, reverse=True):
        text = text.replace(value, REDACTED)
    return public_url(_KEY_SHAPES.sub(REDACTED, text))
