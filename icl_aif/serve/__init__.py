"""``icl-aif serve``: human critics on a web page.

- :mod:`icl_aif.serve.tasks`: the board of tasks (claims that lapse, submissions);
- :mod:`icl_aif.serve.study`: a run whose human feedback is answered from the board;
- :mod:`icl_aif.serve.pool`: finished transcripts shown to build a suggestion pool;
- :mod:`icl_aif.serve.app`: the pages and the JSON API (FastAPI, Jinja2);
- :mod:`icl_aif.serve.server`: the app and the run (or the pool) in one event loop (uvicorn).

Importing this package needs nothing beyond the core; the web modules need the ``web`` extra
(:func:`require_web` says so in one line).
"""

from __future__ import annotations

import importlib

from icl_aif.core.errors import UsageError

__all__ = ["WEB_MISSING", "require_web"]

WEB_MISSING = "icl-aif serve needs the web extra: pip install 'icl-aif[web]'"


def require_web() -> None:
    """A one-line :class:`UsageError` unless FastAPI, uvicorn and Jinja2 are installed."""
    for module in ("fastapi", "uvicorn", "jinja2"):
        try:
            importlib.import_module(module)
        except ImportError:
            raise UsageError(WEB_MISSING) from None
