"""icl-aif: bargaining experiments in which language models improve each other through
In-Context Learning from AI Feedback (Fu et al. 2023, arXiv 2305.10142)."""

from typing import TYPE_CHECKING, Any

from icl_aif import config, feedback, games, runner, summary
from icl_aif._version import __version__
from icl_aif.config import ExperimentConfig, load_config
from icl_aif.errors import UsageError
from icl_aif.models import registry
from icl_aif.records import read_games
from icl_aif.runner import RunResult, run_experiment

if TYPE_CHECKING:
    from icl_aif.analysis import Run, load_run

# The package wires its layers (imports go one way, down: README, Architecture): the config's
# checks of model strings come from the model layer above it, its checks of feedback source names
# from the engine's registry (ours register in icl_aif.feedback), and a run's summary from the
# analysis side above the runner; the schema of a game's scenario from the games registry.
config.check_models_with(
    model_string=registry.model_string_problem, provider=registry.provider_problem
)
config.check_feedback_sources_with(find=feedback.find_source, problem=feedback.source_problem)
config.check_games_with(find=games.find_game, problem=games.registry.game_problem)
runner.summarize_with(summary.summarize_run)

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
        from icl_aif import analysis

        return getattr(analysis, name)
    raise AttributeError(f"module 'icl_aif' has no attribute {name!r}")
