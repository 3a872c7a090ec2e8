"""icl-aif: bargaining experiments in which language models improve each other through
In-Context Learning from AI Feedback (Fu et al. 2023, arXiv 2305.10142).

Importing the package installs nothing into its modules: a config is validated with the checks
handed in where it is validated (:mod:`icl_aif.engine.configs`), and a run is summarized by the summary
:func:`icl_aif.analysis.experiment.run_experiment` hands the runner.
"""

from typing import TYPE_CHECKING, Any

from icl_aif._version import __version__
from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config
from icl_aif.records.reader import read_games
from icl_aif.run.runner import RunResult

if TYPE_CHECKING:
    from icl_aif.analysis.frames import Run, load_run

__all__ = [
    "ExperimentConfig",
    "Run",
    "RunResult",
    "UsageError",
    "__version__",
    "load_config",
    "load_run",
    "read_games",
    "run_experiment",
]


def __getattr__(name: str) -> Any:
    """``load_run`` and ``Run`` import pandas on first use, not with the package."""
    if name in ("Run", "load_run"):
        from icl_aif.analysis import frames as analysis

        return getattr(analysis, name)
    raise AttributeError(f"module 'icl_aif' has no attribute {name!r}")
