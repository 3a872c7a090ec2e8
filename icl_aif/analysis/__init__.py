"""Analysis: what records say. Metrics and statistics, the run's summary and report, plots, the
HTML report, comparisons of runs, exports, data frames, audits, and the offline cost estimate.

:func:`load_run` and :class:`Run` import pandas on first use, not with the package."""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from icl_aif.analysis.frames import Run, load_run

__all__ = ["Run", "load_run"]


def __getattr__(name: str) -> Any:
    """``load_run`` and ``Run`` from :mod:`icl_aif.analysis.frames`, imported on first use."""
    if name in __all__:
        from icl_aif.analysis import frames

        return getattr(frames, name)
    raise AttributeError(f"module 'icl_aif.analysis' has no attribute {name!r}")
