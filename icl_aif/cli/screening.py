"""``icl-aif screen MODEL``: the capability ladder of seed 002, per seat, priced before it starts
(:mod:`icl_aif.analysis.screening`)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer

from icl_aif.cli.options import PreflightOption
from icl_aif.cli.output import console
from icl_aif.cli.terminal import progress_bar
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError

SCREEN_FILE = "screen.json"


def screen(
    model: Annotated[str, typer.Argument(help="The model to screen, provider:model.")],
    game: Annotated[str, typer.Option(help="The game it plays (icl-aif games lists them).")] = (
        "price"
    ),
    runs: Annotated[int, typer.Option(min=2, help="Games each step plays, per seat.")] = 20,
    rounds: Annotated[
        int, typer.Option(min=3, help="Rounds of the last step (keeps improving).")
    ] = 4,
    rival: Annotated[
        str | None,
        typer.Option(
            help="The rival's model (default: the game's scripted:linear).", show_default=False
        ),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option(
            help="Another endpoint for MODEL, e.g. an OpenAI-compatible server.", show_default=False
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="The seed every step's seed derives from.")] = 0,
    alpha: Annotated[
        float, typer.Option(min=0.0001, max=0.5, help="One-sided level of the paired tests.")
    ] = 0.05,
    max_usd: Annotated[
        float | None,
        typer.Option(
            help="Refuse to start when the estimated cost of every step is above this.",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Where it writes (default runs/screen-<time>).")
    ] = None,
    preflight: PreflightOption = True,
) -> None:
    """Screen a model as the core paper does by hand: does it play the rules, use feedback,
    keep improving? One ladder per seat against a fixed rival, each step a run of its own.

    Prints a tier per seat with the evidence (failed checks, example lines) and writes
    OUT/screen.json and every step's records under OUT/<seat>/<step>/. The price of every step
    (nothing is sent to price it) is printed before the first game; docs/known_types.md says
    what each step checks. Exit codes: 0 screened; 2 a bad option, nothing played.
    """
    from icl_aif.analysis.screening import (
        STEPS,
        ScreenSettings,
        game_seats,
        screen_configs,
        screen_record,
        screen_seat,
    )

    settings = ScreenSettings(
        model=model,
        game=game,
        runs=runs,
        rounds=rounds,
        rival=rival,
        base_url=base_url,
        seed=seed,
        alpha=alpha,
    )
    seat_ids = game_seats(game)
    plans = {seat: screen_configs(settings, seat) for seat in seat_ids}
    _price(plans, max_usd)
    directory = out or Path("runs") / f"screen-{datetime.now(UTC).strftime('%Y%m%d-%H%M%S')}"
    if (directory / SCREEN_FILE).exists():
        raise UsageError(f"--out {directory}: holds a screen already; name another directory")
    total = len(seat_ids) * len(STEPS) * runs
    with progress_bar(console) as bar:
        task = bar.add_task(f"screen {model}: games (at most)", total=total)

        def play(step: str, config: ExperimentConfig, where: Path) -> list[dict[str, Any]]:
            from icl_aif.analysis.experiment import run_experiment
            from icl_aif.records.reader import read_games

            asyncio.run(
                run_experiment(
                    config,
                    where,
                    progress=lambda n: bar.advance(task, n),
                    probe_models=preflight,
                )
            )
            return read_games(where)

        screened = [screen_seat(settings, seat, directory, play) for seat in seat_ids]
    record = screen_record(settings, screened)
    (directory / SCREEN_FILE).write_text(json.dumps(record, indent=2) + "\n")
    _print(record)
    console.print(f"Screen written to {directory / SCREEN_FILE}", soft_wrap=True, highlight=False)


def _price(plans: Mapping[str, Mapping[str, ExperimentConfig]], max_usd: float | None) -> None:
    """Print what every step would cost (each simulated on a sample, nothing sent); refuse when
    it is above ``max_usd``."""
    from icl_aif.analysis.estimate import estimate_usage, total_line
    from icl_aif.core.templates import PromptLibrary
    from icl_aif.run.checks import check_inputs

    estimates = []
    for steps in plans.values():
        for config in steps.values():
            check_inputs(config, PromptLibrary())
            estimates.append(estimate_usage(config, sample=min(config.runs, 4)))
    line = total_line(estimates).replace(f"All {len(estimates)} cells", "Every step, both seats")
    console.print(f"{line} (estimated; a seat stops at the first step it fails)", highlight=False)
    cost = sum(e.known_cost_usd for e in estimates)
    if max_usd is not None and cost > max_usd:
        raise UsageError(
            f"--max-usd {max_usd:g}: the screen is estimated at ${cost:.4f}; raise --max-usd or "
            "lower --runs"
        )


def _print(record: Mapping[str, Any]) -> None:
    """Each seat's tier and the evidence of the step it stopped at."""
    from rich import box
    from rich.table import Table

    table = Table(
        title=f"screen of {record['model']} ({record['game']})",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for header in ("seat", "tier", "", "steps passed", "evidence"):
        table.add_column(header)
    for seat in record["seats"]:
        steps: Sequence[Mapping[str, Any]] = seat["steps"]
        passed = ", ".join(s["step"] for s in steps if s["passed"]) or "-"
        stopped = next((s for s in steps if not s["passed"]), None)
        evidence = "" if stopped is None else "; ".join(stopped["failures"])
        table.add_row(seat["seat"], str(seat["tier"]), seat["label"], passed, evidence)
    console.print(table)
    for seat in record["seats"]:
        for step in seat["steps"]:
            for example in step["examples"]:
                console.print(
                    f"  {seat['seat']} {step['step']}: {example}",
                    markup=False,
                    highlight=False,
                    soft_wrap=True,
                )
