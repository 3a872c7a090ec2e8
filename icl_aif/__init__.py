"""icl-aif: bargaining experiments in which language models improve each other through
In-Context Learning from AI Feedback (Fu et al. 2023, arXiv 2305.10142)."""

from icl_aif.config import ExperimentConfig, load_config
from icl_aif.errors import UsageError
from icl_aif.records import read_games
from icl_aif.runner import RunResult, run_experiment

__version__ = "0.1.0"

__all__ = [
    "ExperimentConfig",
    "RunResult",
    "UsageError",
    "__version__",
    "load_config",
    "read_games",
    "run_experiment",
]
