"""The price game's own commands: ``moderator-eval`` and ``moderator-add`` (its moderator, scored
on labelled windows and dialogs, and its few-shot examples) and ``scenarios import`` (price-game
scenarios from a data set of listings). The one module outside ``icl_aif/games/price`` that
imports the price game; :mod:`icl_aif.cli.app` adds these commands to ``icl-aif``."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.console import Console

from icl_aif.cli.terminal import progress_bar
from icl_aif.core.errors import UsageError

if TYPE_CHECKING:
    from icl_aif.games.price.judge.evaluation import EvalReport, LabelledWindow

SCENARIO_SOURCES = ("craigslist",)

console = Console()


def register_price_commands(app: typer.Typer) -> None:
    """Add the price game's commands to ``app``."""
    app.command("moderator-eval")(moderator_eval)
    app.command("moderator-add")(moderator_add)
    app.add_typer(scenarios_app, name="scenarios")


def moderator_eval(
    file: Annotated[
        Path, typer.Argument(help="Labelled windows, JSONL (with --dialogs: whole dialogs).")
    ],
    moderator: Annotated[
        str, typer.Option("--moderator", "--mode", help="Moderator mode: rules, llm or hybrid.")
    ] = "rules",
    model: Annotated[
        str | None, typer.Option(help="provider:model of the llm and hybrid modes, e.g. local:")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="Another endpoint, e.g. an OpenAI-compatible server.")
    ] = None,
    examples: Annotated[
        Path | None,
        typer.Option(help="Few-shot examples (default: prompts/price/moderator/examples.jsonl)."),
    ] = None,
    concurrency: Annotated[
        int, typer.Option(help="Windows (with --dialogs: dialogs) judged at once by a model.")
    ] = 4,
    write_failures: Annotated[
        Path | None,
        typer.Option(help="Save the mistakes here, labelled, with the moderator's answer."),
    ] = None,
    dialogs: Annotated[
        bool,
        typer.Option(
            "--dialogs",
            help="FILE holds whole labelled dialogs: replay each line by line as a game would "
            "and score the first terminal verdict (docs/moderator.md).",
        ),
    ] = False,
    window: Annotated[
        int | None,
        typer.Option(help="With --dialogs: turns the moderator sees (roles.moderator.window: 4)."),
    ] = None,
    mistakes: Annotated[
        Path | None,
        typer.Option(help="With --dialogs: save the mistakes here, JSONL, with their windows."),
    ] = None,
) -> None:
    """Score a moderator on labelled dialog windows (accuracy, precision, recall, price accuracy)
    or, with --dialogs, on whole dialogs replayed line by line (outcome and price accuracy)."""
    if moderator not in ("rules", "llm", "hybrid"):
        raise UsageError(f"--moderator {moderator!r}: allowed values: rules, llm, hybrid")
    if moderator != "rules" and not model:
        raise UsageError(
            f"--moderator {moderator} needs --model provider:model, e.g. --model local:"
        )
    if concurrency < 1:
        raise UsageError(f"--concurrency {concurrency}: judge at least one window at a time")
    if dialogs:
        if write_failures is not None:
            raise UsageError("--write-failures saves windows; with --dialogs use --mistakes PATH")
        if window is not None and window < 1:
            raise UsageError(f"--window {window}: the moderator sees at least one turn")
        settings: dict[str, Any] = {"mode": moderator}
        if moderator != "rules":
            settings.update(model=model, base_url=base_url, examples=examples)
        if window is not None:
            settings["window"] = window
        _eval_dialogs(file, settings, concurrency, mistakes)
        return
    if window is not None or mistakes is not None:
        raise UsageError("--window and --mistakes need --dialogs (windows: --write-failures)")
    from icl_aif.games.price.judge.evaluation import load_labelled, render_report
    from icl_aif.games.price.judge.evaluation import write_failures as save_failures

    items = load_labelled(file)
    report = _moderator_report(items, moderator, model, base_url, examples, concurrency)
    render_report(report, console)
    if write_failures is not None:
        count = save_failures(report, write_failures)
        console.print(
            f"{count} mistake(s) written to {write_failures}", markup=False, soft_wrap=True
        )


def _eval_dialogs(
    file: Path, settings: dict[str, Any], concurrency: int, mistakes: Path | None
) -> None:
    """``moderator-eval --dialogs``: the moderator ``settings`` (``roles.moderator``) replay the
    labelled dialogs of ``file`` line by line; the report, and the mistakes to ``mistakes``."""
    from icl_aif.engine.configs import config_from_dict
    from icl_aif.engine.context import judge_for
    from icl_aif.games.price.judge.dialogs import (
        evaluate_dialogs,
        load_dialogs,
        render_dialog_report,
        write_mistakes,
    )
    from icl_aif.games.price.judge.evaluation import AsyncPriceJudge
    from icl_aif.models.calls import ModelCallError

    experiment = config_from_dict({"roles": {"moderator": settings}}, source="moderator-eval")
    found = load_dialogs(file)
    judge = cast(AsyncPriceJudge, judge_for(experiment))  # the price game's judge
    size = experiment.roles.moderator.window
    mode, model = settings["mode"], settings.get("model")
    if mode == "rules":
        dialog_report = evaluate_dialogs(judge, found, size)
    else:
        with progress_bar(console, transient=True) as bar:
            task = bar.add_task(f"{mode} moderator ({model})", total=len(found))
            try:
                dialog_report = evaluate_dialogs(
                    judge,
                    found,
                    size,
                    concurrency=concurrency,
                    progress=lambda n: bar.advance(task, n),
                )
            except ModelCallError as exc:
                raise UsageError(f"--model {model}: {exc}") from None
    render_dialog_report(dialog_report, console)
    if mistakes is not None:
        count = write_mistakes(dialog_report, mistakes)
        console.print(f"{count} mistake(s) written to {mistakes}", markup=False, soft_wrap=True)


def _moderator_report(
    items: Sequence[LabelledWindow],
    mode: str,
    model: str | None,
    base_url: str | None,
    examples: Path | None,
    concurrency: int,
) -> EvalReport:
    """Evaluate the moderator ``mode`` on ``items``; model-backed modes show a progress bar."""
    from icl_aif.engine.configs import config_from_dict
    from icl_aif.engine.context import judge_for
    from icl_aif.games.price.judge.evaluation import AsyncPriceJudge, aevaluate, evaluate
    from icl_aif.games.price.judge.examples import overlap
    from icl_aif.games.price.judge.llm import LLMJudge
    from icl_aif.games.price.judge.rules import PriceRulesJudge
    from icl_aif.models.calls import ModelCallError

    if mode == "rules":
        return evaluate(PriceRulesJudge(), items)
    settings = {"mode": mode, "model": model, "base_url": base_url, "examples": examples}
    experiment = config_from_dict({"roles": {"moderator": settings}}, source="moderator-eval")
    judge = judge_for(experiment)
    llm = judge if isinstance(judge, LLMJudge) else getattr(judge, "llm", None)
    if isinstance(llm, LLMJudge):
        shared = overlap(items, llm.examples)
        if shared:
            console.print(
                f"note: {shared} of these windows are also few-shot examples; "
                "their scores are not held out",
                style="yellow",
                markup=False,
            )
    with progress_bar(console, transient=True) as bar:
        task = bar.add_task(f"{mode} moderator ({model})", total=len(items))
        try:
            return asyncio.run(
                aevaluate(
                    cast(AsyncPriceJudge, judge),  # the price game's judge: price verdicts
                    items,
                    concurrency=concurrency,
                    progress=lambda n: bar.advance(task, n),
                )
            )
        except ModelCallError as exc:
            raise UsageError(f"--model {model}: {exc}") from None


def moderator_add(
    examples_file: Annotated[
        Path,
        typer.Argument(help="Corrected labelled windows, JSONL (e.g. from --write-failures)."),
    ],
    to: Annotated[
        Path | None,
        typer.Option(help="The few-shot file (default: prompts/price/moderator/examples.jsonl)."),
    ] = None,
) -> None:
    """Append corrected windows to the LLM moderator's few-shot examples, skipping duplicates."""
    from icl_aif.core.templates import default_prompts_dir
    from icl_aif.games.price.judge.examples import add_examples
    from icl_aif.games.price.judge.llm import EXAMPLES

    target = to if to is not None else default_prompts_dir() / EXAMPLES
    result = add_examples(examples_file, target)
    skipped = f" ({result.duplicates} duplicate(s) skipped)" if result.duplicates else ""
    console.print(
        f"{result.added} example(s) added to {result.target}{skipped}",
        markup=False,
        soft_wrap=True,
    )


scenarios_app = typer.Typer(
    help="Scenarios from data sets: icl-aif scenarios import craigslist FILE.",
    no_args_is_help=True,
)


@scenarios_app.command("import")
def scenarios_import(
    source: Annotated[
        str,
        typer.Argument(help="The data set: craigslist (CraigslistBargain, He et al. 2018)."),
    ],
    file: Annotated[
        Path,
        typer.Argument(help="Its dialogs, JSONL (e.g. shared/data/craigslistbargain_dev.jsonl)."),
    ],
    out: Annotated[
        Path | None,
        typer.Option(
            help="The listings file to write (default: <FILE stem>.scenarios.jsonl here)."
        ),
    ] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Import at most this many listings (the first valid ones).",
            show_default=False,
        ),
    ] = None,
    floor_ratio: Annotated[
        float,
        typer.Option(
            help="The lowest price the item sells for, as a share of the list price (the data has none)."
        ),
    ] = 0.7,
) -> None:
    """Turn real listings into price-game scenarios, one a line, for scenario.listings.

    Each listing's title becomes the item, its price the list price, the buyer's target the
    buyer's opening offer and floor-ratio x the list price the seller's cost. Listings that make
    no valid scenario (e.g. a buyer target not below the list price) or repeat one are skipped
    and counted.
    """
    from icl_aif.games.price.listings import ListingsError, import_craigslist, write_listings

    if source not in SCENARIO_SOURCES:
        raise UsageError(f"source {source!r}: allowed values: {', '.join(SCENARIO_SOURCES)}")
    target = out if out is not None else Path(f"{file.stem}.scenarios.jsonl")
    if target.exists() and file.exists() and target.resolve() == file.resolve():
        raise UsageError(f"--out {target}: that is the input file; write the listings elsewhere")
    try:
        result = import_craigslist(file, limit=limit, floor_ratio=floor_ratio)
    except ListingsError as exc:
        raise UsageError(str(exc)) from None
    write_listings(result.scenarios, target)
    console.print(result.summary(target), markup=False, highlight=False, soft_wrap=True)
