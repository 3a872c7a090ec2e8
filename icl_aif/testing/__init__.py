"""Test helpers for icl-aif and for packages that add providers or games to it (the games'
conformance check: :func:`check_game`), and the pytest plugin that serves them as fixtures
(``icl_aif.testing.plugin``, registered through ``pytest11``).

Importable with the core package alone; :mod:`icl_aif.testing.stubs` (vendor stub servers) and
the fixtures that use it need the ``testing`` extra: ``pip install 'icl-aif[testing]'``.
The names are imported on first use, so loading the plugin costs a pytest session of a user who
never asks for them nothing more than ``icl_aif`` itself. See ``docs/testing.md``.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from icl_aif.testing.conformance import check_game
    from icl_aif.testing.runs import (
        Played,
        assert_key_not_recorded,
        experiment,
        load_played,
        play,
        play_async,
        replay,
    )
    from icl_aif.testing.wire import FAKE_KEY, REPLY_LINE, WIRE_FORMATS, WireFormat

_HOMES = {
    "check_game": "conformance",
    "Played": "runs",
    "assert_key_not_recorded": "runs",
    "experiment": "runs",
    "load_played": "runs",
    "play": "runs",
    "play_async": "runs",
    "replay": "runs",
    "FAKE_KEY": "wire",
    "REPLY_LINE": "wire",
    "WIRE_FORMATS": "wire",
    "WireFormat": "wire",
}

__all__ = [
    "FAKE_KEY",
    "REPLY_LINE",
    "WIRE_FORMATS",
    "Played",
    "WireFormat",
    "assert_key_not_recorded",
    "check_game",
    "experiment",
    "load_played",
    "play",
    "play_async",
    "replay",
]


def __getattr__(name: str) -> Any:
    """The public names, from their modules on first use."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'icl_aif.testing' has no attribute {name!r}")
    return getattr(import_module(f"icl_aif.testing.{home}"), name)
