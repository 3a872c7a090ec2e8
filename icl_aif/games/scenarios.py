"""What the games' scenario schemas share: the ``max_exchanges`` field, the values every game's
templates may name about a round's length, and the openers rendered with a game's values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from icl_aif.config.settings import Scenario
from icl_aif.core.transcript import Turn

__all__ = ["exchanges_field", "render_openers", "round_values"]


def exchanges_field(default: int, description: str) -> Any:
    """A game's ``max_exchanges`` field: ``default`` pairs of lines per round (2 to 100),
    described by ``description``."""
    return Field(default, ge=2, le=100, description=description)


def round_values(scenario: Scenario) -> dict[str, int]:
    """``max_exchanges`` and ``max_lines`` (twice as many: the round's cap in lines)."""
    return {"max_exchanges": scenario.max_exchanges, "max_lines": 2 * scenario.max_exchanges}


def render_openers(scenario: Scenario, values: Mapping[str, Any]) -> list[Turn]:
    """The scripted lines that open every round, each rendered with ``values``."""
    return [Turn(speaker=o.speaker, text=o.text.format_map(values)) for o in scenario.openers]
