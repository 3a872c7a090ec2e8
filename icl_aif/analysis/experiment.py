"""Playing an experiment with the package's summary: :func:`run_experiment` is
:func:`icl_aif.run.runner.run_experiment` with :func:`icl_aif.analysis.summary.summarize_run` (the runner sits
below the analysis side that summarizes a run, so the summary is handed to it here)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from icl_aif.analysis.summary import summarize_run
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.run import runner
from icl_aif.run.runner import RunResult

__all__ = ["run_experiment"]


async def run_experiment(config: ExperimentConfig, directory: Path, **options: Any) -> RunResult:
    """Play ``config`` into ``directory`` and write its summary (``summarize`` in ``options``:
    another summary); the other ``options`` are :func:`icl_aif.run.runner.run_experiment`'s."""
    options.setdefault("summarize", summarize_run)
    return await runner.run_experiment(config, directory, **options)
