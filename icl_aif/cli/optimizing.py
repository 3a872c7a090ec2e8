"""``icl-aif optimize CONFIG``: evolve the improved seat's standing instruction from feedback,
then compare it with in-context learning on held-out scenarios
(:mod:`icl_aif.analysis.optimizer`)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from icl_aif.cli.options import OfflineOption, SetOption
from icl_aif.cli.output import console
from icl_aif.cli.terminal import progress_bar
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError


def optimize(
    config: Annotated[
        Path | None,
        typer.Argument(help="Experiment YAML file with an optimize: section.", show_default=False),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Where it writes (default runs/<name>-optimize-<time>).")
    ] = None,
    set_: SetOption = None,
    offline: OfflineOption = False,
    resume: Annotated[
        Path | None,
        typer.Option(
            "--resume",
            metavar="OUT",
            help="Continue a stopped optimisation: it is played again from the start, every "
            "call paid before coming back from the response cache.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Evolve the improved seat's standing instruction from the configured feedback (a GEPA-style
    search: a Pareto pool over validation scenarios, a reflection model, minibatch acceptance,
    merges, a budget), then compare it with ICL-AIF and with no feedback on held-out scenarios.

    Writes OUT/best_instruction.txt (give it to a seat with instructions: {SEAT: FILE}),
    OUT/lineage.md, OUT/candidates.jsonl, OUT/comparison.json, OUT/report.html, the search's
    games under OUT/search/ and the comparison's runs under OUT/compare/. The price of the search
    and of the comparison is printed before the first game (docs/optimize.md).
    Exit codes: 0 done; 2 a bad config, nothing played; 3 games of the search failed.
    """
    from icl_aif.analysis.optimizer import OptimizeError, planned_games
    from icl_aif.analysis.optimizer import optimize as run_optimize

    experiment, directory = _experiment(config, out, set_, offline, resume)
    _price(experiment)
    search_games, compare_games = planned_games(experiment)
    with progress_bar(console) as bar:
        total = search_games + compare_games
        task = bar.add_task(f"{experiment.name}: games (at most)", total=total)
        try:
            result = run_optimize(experiment, directory, progress=lambda n: bar.advance(task, n))
        except OptimizeError as exc:
            console.print(f"error: {exc}", style="red", markup=False, highlight=False)
            raise typer.Exit(3) from None
    _print(result)


def _experiment(
    config: Path | None,
    out: Path | None,
    set_: list[str] | None,
    offline: bool,
    resume: Path | None,
) -> tuple[ExperimentConfig, Path]:
    """The config (a resume's recorded one) and the directory it writes."""
    from icl_aif.analysis.optimizer import check_optimizable
    from icl_aif.cli.designs import given_or_shipped
    from icl_aif.config.offline import offline_line
    from icl_aif.engine.configs import load_config, load_offline_config

    overrides = list(set_ or [])
    if resume is not None:
        recorded = resume / "search" / "config.yaml"
        if not recorded.is_file():
            raise UsageError(f"--resume {resume}: no optimisation there ({recorded} is missing)")
        if config is not None or overrides:
            raise UsageError("--resume replays the recorded config: give neither CONFIG nor --set")
        return load_config(recorded), resume
    if config is None:
        raise UsageError("give an experiment file (icl-aif optimize CONFIG), or --resume OUT")
    config = given_or_shipped(config)
    if offline:
        from icl_aif.config.files import apply_overrides, read_config_data

        experiment, replaced = load_offline_config(config, overrides)
        original = apply_overrides(read_config_data(config), overrides)
        console.print(offline_line(original, replaced, experiment), markup=False, highlight=False)
        experiment = _offline_reflection(experiment)
    else:
        experiment = load_config(config, overrides)
    check_optimizable(experiment)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    directory = out or Path("runs") / f"{experiment.name}-optimize-{stamp}"
    if (directory / "search").exists():
        raise UsageError(f"--out {directory}: holds an optimisation; continue it with --resume")
    return experiment, directory


def _offline_reflection(experiment: ExperimentConfig) -> ExperimentConfig:
    """``--offline``: the reflection model too is the scripted one."""
    from icl_aif.models.registry import is_offline

    settings = experiment.optimize
    if settings is None or is_offline(settings.reflection.model):
        return experiment
    console.print(
        f"--offline: optimize.reflection {settings.reflection.model} is played by "
        "scripted:reflector",
        markup=False,
        highlight=False,
    )
    return experiment.cell_config({"optimize.reflection": {"model": "scripted:reflector"}})


def _price(experiment: ExperimentConfig) -> None:
    """The estimated calls and cost of the search's most games and of the comparison, from a
    simulated sample (nothing is sent)."""
    from icl_aif.analysis.estimate import estimate_usage
    from icl_aif.analysis.optimize_compare import comparison_configs
    from icl_aif.analysis.optimizer import planned_games, set_seed
    from icl_aif.analysis.report import usd
    from icl_aif.core.templates import PromptLibrary
    from icl_aif.engine.context import build_model
    from icl_aif.games.simulators import REFLECTION
    from icl_aif.run.checks import check_inputs
    from icl_aif.run.preflight import preflight

    settings = experiment.optimize
    assert settings is not None
    search_games, _ = planned_games(experiment)
    one_round = experiment.cell_config({"rounds": 1, "arms": None, "optimize": None})
    compared = comparison_configs(experiment, set_seed(experiment, "heldout"), None)
    for config in (one_round, *compared.values()):
        check_inputs(config, PromptLibrary())
    asyncio.run(preflight(one_round, PromptLibrary(), send=False))  # models build, keys are set
    build_model(experiment, REFLECTION, settings.reflection, seed=0)
    sample = estimate_usage(one_round, sample=min(one_round.runs, 4))
    per_game_calls = sample.calls / max(1, sample.runs)
    per_game_cost = sample.known_cost_usd / max(1, sample.runs)
    parts: list[Any] = [estimate_usage(c, sample=min(c.runs, 4)) for c in compared.values()]
    compare_calls = sum(p.calls for p in parts)
    compare_cost = sum(p.known_cost_usd for p in parts)
    budget = [
        *([f"{settings.max_calls:,} calls"] if settings.max_calls else []),
        *([usd(settings.max_usd)] if settings.max_usd else []),
    ]
    console.print(
        f"Search: at most {search_games:,} games, about {round(per_game_calls * search_games):,} "
        f"calls and {usd(per_game_cost * search_games)} (budget: {', '.join(budget) or 'none'}); "
        f"comparison: {compare_calls:,} calls, {usd(compare_cost)} (estimated, nothing sent)",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _print(result: Any) -> None:
    """The search's outcome, the comparison table and where everything is."""
    from icl_aif.analysis.optimize_compare import COMPARISON_LEGEND, comparison_table

    search = result.comparison["search"]
    best = result.comparison["best"]
    console.print(
        f"Search: {search['proposals']} proposals, {search['kept']} kept, {search['calls']:,} "
        f"calls, ${search['cost_usd']:.4f}; {search['stopped']}. Best: {best['id']} (mean "
        f"validation score {best['mean']:.3f}).",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    console.print(comparison_table(result.comparison, "held-out comparison"))
    console.print(COMPARISON_LEGEND, style="dim", markup=False, highlight=False, soft_wrap=True)
    directory = result.directory
    console.print(
        f"Best instruction: {directory / 'best_instruction.txt'}; lineage: "
        f"{directory / 'lineage.md'}; report: {directory / 'report.html'}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
