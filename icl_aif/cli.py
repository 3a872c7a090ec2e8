"""The ``icl-aif`` command line. A bad input prints one line saying what to fix and exits with 2."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from icl_aif.config import load_config
from icl_aif.errors import UsageError

app = typer.Typer(
    name="icl-aif",
    help="Bargaining experiments with In-Context Learning from AI Feedback.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console()
errors = Console(stderr=True)

SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override a config field: --set roles.seller.model=scripted:linear"),
]


@app.command()
def run(
    config: Annotated[Path, typer.Argument(help="Experiment YAML file.")],
    out: Annotated[
        Path | None, typer.Option(help="Run directory (default runs/<name>-<time>).")
    ] = None,
    set_: SetOption = None,
    preflight: Annotated[
        bool,
        typer.Option(
            "--preflight/--no-preflight",
            help="Send each vendor model one short request before any game (default: on).",
        ),
    ] = True,
) -> None:
    """Play an experiment and print the per-round table."""
    from icl_aif.records import default_run_dir
    from icl_aif.report import LEGEND, round_table
    from icl_aif.runner import run_experiment

    overrides = list(set_ or [])
    experiment = load_config(config, overrides)
    directory = out or default_run_dir(experiment)
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    ) as bar:
        task = bar.add_task(f"{experiment.name}: runs", total=experiment.runs)
        result = asyncio.run(
            run_experiment(
                experiment,
                directory,
                overrides=overrides,
                config_file=str(config),
                progress=lambda n: bar.advance(task, n),
                probe_models=preflight,
            )
        )
    console.print(
        round_table(result.summary, title=f"{experiment.name} ({experiment.improve} improved)")
    )
    console.print(LEGEND, style="dim")
    _print_usage(result.summary)
    console.print(f"Run written to {result.directory}")


@app.command()
def report(run_dir: Annotated[Path, typer.Argument(help="A run directory.")]) -> None:
    """Print the per-round table of a finished run from disk."""
    from icl_aif.records import MANIFEST, SUMMARY, read_json
    from icl_aif.report import LEGEND, round_table

    summary = read_json(run_dir / SUMMARY)
    manifest = read_json(run_dir / MANIFEST)
    console.print(round_table(summary, title=f"{manifest['name']} ({summary['improve']} improved)"))
    console.print(LEGEND, style="dim")
    _print_usage(summary)


@app.command("estimate")
def estimate(
    config: Annotated[Path, typer.Argument(help="Experiment YAML file.")],
    set_: SetOption = None,
    sample: Annotated[int, typer.Option(help="Games to simulate, spread over the runs.")] = 10,
) -> None:
    """Predict calls, tokens and cost per role by simulating a sample of games (nothing is sent)."""
    from icl_aif.estimate import estimate_table, estimate_usage

    result = estimate_usage(load_config(config, list(set_ or [])), sample)
    console.print(estimate_table(result))
    for note in result.notes:
        console.print(note, style="dim", markup=False, highlight=False)


def _print_usage(summary: dict[str, Any]) -> None:
    """The cost line (when a model reported tokens) and the budget line (when it stopped the run)."""
    from icl_aif.report import budget_line, cost_line

    for line in (cost_line(summary), budget_line(summary)):
        if line:
            console.print(line, markup=False, highlight=False)


@app.command()
def models() -> None:
    """List the providers and example model strings."""
    from icl_aif.models.registry import PROVIDERS

    table = Table(title="Model providers (roles take provider:model)")
    table.add_column("provider")
    table.add_column("model strings")
    table.add_column("what it is")
    for provider in PROVIDERS.values():
        table.add_row(provider.name, "\n".join(provider.examples), provider.description)
    console.print(table)


@app.command("check-model")
def check_model(
    model: Annotated[str, typer.Argument(help="provider:model, e.g. openai:gpt-4o-mini")],
    base_url: Annotated[
        str | None, typer.Option(help="Another endpoint, e.g. an OpenAI-compatible server.")
    ] = None,
    max_tokens: Annotated[int, typer.Option(help="Reply budget in tokens.")] = 16,
    timeout: Annotated[float, typer.Option(help="Seconds before the request is abandoned.")] = 30,
    prompt: Annotated[
        str | None, typer.Option(help="The user message (default: asks for the word OK).")
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", help="A provider parameter KEY=VALUE, as roles.<role>.params."),
    ] = None,
) -> None:
    """Send one short request to a model and show the reply, latency and usage."""
    from icl_aif.config import apply_overrides, config_from_dict
    from icl_aif.preflight import PROBE, probe
    from icl_aif.protocol import Message

    role = "critic" if model == "scripted:critic" else "seller"
    settings = {"model": model, "base_url": base_url, "timeout": timeout}
    data = apply_overrides(
        {"roles": {role: settings}, "retry": {"attempts": 1}},
        [f"roles.{role}.params.{item}" for item in param or []],
    )
    experiment = config_from_dict(data, source="check-model")
    role_config = getattr(experiment.roles, role)
    messages = PROBE if prompt is None else (PROBE[0], Message(role="user", content=prompt))
    result = asyncio.run(
        probe(experiment, role, role_config, messages=messages, max_tokens=max_tokens)
    )
    if result.output is None:
        raise UsageError(f"{model}: the request failed: {result.error}")
    table = Table(show_header=False, box=None)
    usage = result.usage
    table.add_row("model", model + (f" at {base_url}" if base_url else ""))
    table.add_row("reply", result.output or "(empty)")
    table.add_row("latency", f"{result.latency_s:.2f} s")
    table.add_row(
        "usage",
        (
            f"{usage['input_tokens']} input ({usage['cached_input_tokens']} cached), "
            f"{usage['output_tokens']} output tokens"
            if usage
            else "not reported"
        ),
    )
    cost = result.cost_usd
    table.add_row("cost", "unknown (no price)" if cost is None else f"${cost:.6f}")
    console.print(table)


@app.command("moderator-eval")
def moderator_eval(
    file: Annotated[Path, typer.Argument(help="Labelled windows, JSONL.")],
    moderator: Annotated[str, typer.Option(help="Moderator mode: rules.")] = "rules",
) -> None:
    """Score a moderator on labelled dialog windows: accuracy, precision, recall, price accuracy."""
    from icl_aif.moderator.evaluation import evaluate, load_labelled, render_report
    from icl_aif.moderator.rules import RulesModerator

    if moderator != "rules":
        raise UsageError(f"--moderator {moderator!r}: allowed values: rules")
    items = load_labelled(file)
    render_report(evaluate(RulesModerator(), items), console)


def main() -> None:
    """Entry point of the ``icl-aif`` script."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        app()
    except UsageError as exc:
        errors.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        errors.print("interrupted", markup=False)
        sys.exit(130)


if __name__ == "__main__":
    main()
