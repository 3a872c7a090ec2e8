"""Prompt templates: files under ``prompts/``, rendered strictly, hashed for the run manifest."""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

from icl_aif.core.errors import UsageError

_FORMATTER = string.Formatter()


def default_prompts_dir() -> Path:
    """``prompts/`` of a source checkout, else the copy shipped inside the installed package."""
    package = Path(__file__).resolve().parent.parent
    for candidate in (package.parent / "prompts", package / "_prompts"):
        if candidate.is_dir():
            return candidate
    raise UsageError("prompt templates not found: reinstall icl-aif or pass a prompts directory")


class PromptLibrary:
    """Loads templates by relative name (``players/seller.txt``) and remembers which were used."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_prompts_dir()
        self._cache: dict[str, str] = {}

    def text(self, name: str) -> str:
        """The raw text of template ``name``."""
        if name not in self._cache:
            path = self.root / name
            if not path.is_file():
                raise UsageError(f"prompt template {path} is missing")
            self._cache[name] = path.read_text(encoding="utf-8")
        return self._cache[name]

    def render(self, name: str, **values: Any) -> str:
        """Render ``name`` with ``{field}`` placeholders; a missing value is an error, never blank."""
        return render_strict(self.text(name), values, source=name)


def render_strict(template: str, values: dict[str, Any], source: str = "template") -> str:
    """``str.format`` that names the template and the missing field instead of a bare KeyError."""
    missing = sorted(
        {
            field.split(".")[0].split("[")[0]
            for _, field, _, _ in _FORMATTER.parse(template)
            if field
        }
        - values.keys()
    )
    if missing:
        raise UsageError(f"{source}: no value for placeholder(s) {', '.join(missing)}")
    return template.format_map(values).strip()
