"""``icl-aif run`` and ``icl-aif play``: an experiment, with a progress bar, or one game at the
terminal with a person in a seat or as the critic."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from icl_aif.cli.designs import given_or_shipped
from icl_aif.cli.options import (
    ConfigArgument,
    ExecutorOption,
    OfflineOption,
    PreflightOption,
    RayActorsOption,
    RayAddressOption,
    ResumeOption,
    SetOption,
    WorkersOption,
)
from icl_aif.cli.output import console, exit_interrupted, finish_run
from icl_aif.cli.terminal import progress_bar
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config

if TYPE_CHECKING:
    from icl_aif.games.base import Measure
    from icl_aif.run.executors import Executor
    from icl_aif.run.runner import RunResult


def run(
    config: ConfigArgument = None,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default runs/<name>-<time>).")
    ] = None,
    set_: SetOption = None,
    preflight: PreflightOption = True,
    offline: OfflineOption = False,
    resume: ResumeOption = None,
    executor: ExecutorOption = "local",
    workers: WorkersOption = None,
    ray_actors: RayActorsOption = None,
    ray_address: RayAddressOption = None,
) -> None:
    """Play an experiment and print the per-round table (Table 1 for arms, one table for a sweep).

    With feedback.source human the games pause after each round: the improved player's record is
    shown and the feedback you type (one suggestion a line, an empty line ends it) is given to it.
    Ctrl-C stops the run; icl-aif run --resume RUN_DIR continues it.

    Exit codes: 0 the run finished (or its budget max_usd stopped it); 2 a bad config or input,
    nothing played; 3 the run finished but some games failed (a model call failed for good:
    games.jsonl "error" says why) or some rounds ended because a side made no valid move
    (games.jsonl "refused" says why): the last lines count them; 130 interrupted (Ctrl-C).
    """
    from icl_aif.config.files import apply_overrides, read_config_data
    from icl_aif.config.offline import offline_line
    from icl_aif.engine.configs import load_offline_config
    from icl_aif.records.layout import default_run_dir
    from icl_aif.run.resume import resume_command, resume_config

    overrides = list(set_ or [])
    replaced: dict[str, Any] | None = None
    if resume is not None:
        if out is not None and out != resume:
            raise UsageError("--out and --resume name different directories: give only --resume")
        experiment = resume_config(resume, config, overrides, offline)
    elif config is None:
        raise UsageError("give an experiment file (icl-aif run CONFIG), or --resume RUN_DIR")
    else:
        config = given_or_shipped(config)  # a file, or a shipped design's name
        if offline:
            experiment, replaced = load_offline_config(config, overrides)
            original = apply_overrides(read_config_data(config), overrides)
            line = offline_line(original, replaced, experiment)
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            experiment = load_config(config, overrides)
    _check_terminal(experiment)
    from icl_aif.run.executors import make_executor

    if executor != "local" and experiment.needs_person:
        raise UsageError("a game with a person runs in this process: drop --executor")
    games_executor = make_executor(executor, ray_address, workers, ray_actors)
    if games_executor is not None:
        games_executor.start()  # a wrong address fails here, before the run directory exists
    directory = resume or out or default_run_dir(experiment)
    try:
        result = _run_with_progress(
            experiment,
            directory,
            overrides=overrides,
            config_file=None if config is None else str(config),
            preflight=preflight,
            offline=replaced,
            resume=resume is not None,
            executor=games_executor,
        )
    except KeyboardInterrupt:
        exit_interrupted(directory, resume_command(directory))
    finish_run(result, experiment.name)


def _run_with_progress(
    experiment: ExperimentConfig,
    directory: Path,
    *,
    overrides: list[str],
    config_file: str | None,
    preflight: bool,
    offline: dict[str, Any] | None,
    resume: bool,
    executor: Executor | None = None,
) -> RunResult:
    """Play ``experiment`` into ``directory`` under a progress bar (a person's pauses stop it)."""
    from icl_aif.analysis.experiment import run_experiment
    from icl_aif.cli.terminal import TerminalPerson, paused

    with progress_bar(console) as bar:
        total = experiment.total_games()
        task = bar.add_task(f"{experiment.name}: runs", total=total)
        person = TerminalPerson(
            console, pause_display=lambda: paused(bar), measure=_measure_of(experiment)
        )
        try:
            return asyncio.run(
                run_experiment(
                    experiment,
                    directory,
                    overrides=overrides,
                    config_file=config_file,
                    progress=lambda n: bar.advance(task, n),
                    probe_models=preflight,
                    ask_human=person if experiment.needs_person else None,
                    offline=offline,
                    resume=resume,
                    executor=executor,
                )
            )
        finally:
            if executor is not None:
                executor.close()


def play(
    config: Annotated[Path, typer.Argument(help="Experiment YAML file (scenario and models).")],
    side: Annotated[
        str,
        typer.Option(
            "--as",
            help="The seat you play, one of the game's (icl-aif games lists each game's seats).",
            show_default=False,
        ),
    ],
    rounds: Annotated[
        int,
        typer.Option(
            min=1,
            help="Rounds to play (default 1: one negotiation; the config's rounds are not used). "
            "Between rounds the improved side gets its feedback as configured.",
        ),
    ] = 1,
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default runs/<name>-<time>).")
    ] = None,
    set_: SetOption = None,
    preflight: PreflightOption = True,
) -> None:
    """Play one side yourself against the configured model; recorded like any run.

    Each time it is your turn the new lines are shown and you type yours; the moderator ends the
    round as usual. The run directory holds your lines in games.jsonl; calls.jsonl holds only
    model calls.
    """
    from icl_aif.analysis.experiment import run_experiment
    from icl_aif.cli.terminal import TerminalPerson
    from icl_aif.records.layout import default_run_dir
    from icl_aif.records.reader import read_games

    config = given_or_shipped(config)
    seats = load_config(config, list(set_ or [])).seats
    if side not in seats:
        raise UsageError(f"--as {side!r}: allowed values: {seats.listed()}")
    overrides = [
        *(set_ or []),
        f"person={side}",
        "runs=1",
        "concurrency=1",
        f"rounds={rounds}",
    ]
    experiment = load_config(config, overrides)
    _check_terminal(experiment)
    directory = out or default_run_dir(experiment)
    person = TerminalPerson(console, measure=_measure_of(experiment))
    result = asyncio.run(
        run_experiment(
            experiment,
            directory,
            overrides=overrides,
            config_file=str(config),
            probe_models=preflight,
            ask_human=person,
        )
    )
    for game in read_games(result.directory):
        person.show_round_ends(game, side)
        if game.get("error"):
            console.print(f"The game stopped: {game['error']}", markup=False, highlight=False)
    console.print(f"Run written to {result.directory}", soft_wrap=True, highlight=False)


def _measure_of(experiment: ExperimentConfig) -> Measure:
    """The per-round figure of ``experiment``'s game, as a person at the terminal reads results."""
    from icl_aif.games.registry import measure_of

    return measure_of(experiment)


def _check_terminal(experiment: ExperimentConfig) -> None:
    """A config that pauses for a person needs one at an interactive terminal."""
    from icl_aif.run.runner import person_needed

    if experiment.needs_person and not sys.stdin.isatty():
        raise UsageError(person_needed(experiment))
