"""What the ``icl-aif`` commands print: tables of a run's summary, its failures and usage, the
plots written, the line a stopped run ends with, and the damaged lines a command skipped."""

from __future__ import annotations

import logging
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

if TYPE_CHECKING:
    from icl_aif.records.reader import SkippedLines
    from icl_aif.run.runner import RunResult


console = Console()
errors = Console(stderr=True)
logger = logging.getLogger(__name__)


def write_plots(run_dir: Path) -> None:
    """Write the run's figures into its plots/ folder and say where."""
    from icl_aif.analysis.plots import PLOTS, plots_for_run

    paths = plots_for_run(run_dir)
    console.print(f"{len(paths)} plots written to {run_dir / PLOTS}", markup=False, soft_wrap=True)


def print_tables(summary: dict[str, Any], name: str) -> None:
    """The run's tables, each with its legend: per round, Table 1 of arms, or a sweep's."""
    from icl_aif.analysis.report import summary_tables

    title = f"{name} ({summary['improve']} improved)" if "improve" in summary else name
    for table, legend in summary_tables(summary, title):
        print_uncut(table)
        console.print(legend, style="dim", markup=False, highlight=False)


def print_uncut(table: Table) -> None:
    """Print ``table`` at its natural width, wider than the terminal or a pipe's 80 columns if it
    needs to be, so that no value is cut to "…" (its columns must be no_wrap)."""
    from icl_aif.analysis.report import natural_width

    width = natural_width(console, table)
    wide = console if width <= console.width else Console(file=console.file, width=width)
    wide.print(table)


def print_failures(summary: dict[str, Any]) -> bool:
    """The failed-games line (how many, each kind of error) and the line of rounds that ended
    for want of a valid move (how many, whose, why); True when there was either."""
    from icl_aif.analysis.report import failure_line, no_move_line

    lines = [line for line in (failure_line(summary), no_move_line(summary)) if line]
    for line in lines:
        console.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)
    return bool(lines)


def exit_interrupted(directory: Path, resume: str) -> NoReturn:
    """Ctrl-C during a run: how to continue it (``resume``), or that nothing was recorded;
    exit code 130."""
    from icl_aif.records.layout import MANIFEST

    _quiet_shutdown()
    if (directory / MANIFEST).is_file():
        errors.print(
            f"interrupted; continue with: {resume}", markup=False, highlight=False, soft_wrap=True
        )
    else:
        errors.print("interrupted before the first game; nothing recorded", markup=False)
    raise typer.Exit(130) from None  # called in the except clause: no chained traceback


def _quiet_shutdown() -> None:
    """After an interrupt, work abandoned in flight may fail while Python shuts down (an async
    generator finalised with no event loop left: "RuntimeError: no running event loop"; a
    coroutine never awaited). Log such failures at debug level, and ignore the "never awaited"
    warning, instead of printing them after the resume line, which must stay the last line a
    stopped run prints."""

    def log_it(unraisable: sys.UnraisableHookArgs) -> None:
        logger.debug(
            "after the interrupt, ignored %r in %r", unraisable.exc_value, unraisable.object
        )

    sys.unraisablehook = log_it
    logging.getLogger("asyncio").setLevel(logging.CRITICAL)  # "Task exception was never ..."
    warnings.filterwarnings("ignore", message="coroutine .* was never awaited")


def finish_run(result: RunResult, name: str) -> None:
    """A finished run's tables, cost and cache lines, plots and directory; exit code 3 when
    games failed or rounds ended for want of a valid move."""
    print_tables(result.summary, name)
    print_usage(result.summary)
    write_plots(result.directory)
    console.print(f"Run written to {result.directory}", soft_wrap=True, highlight=False)
    if result.dropped_lines:  # a resume's repair: the warning named them
        where = ", ".join(f"{n} in {file}" for file, n in result.dropped_lines.items())
        total = sum(result.dropped_lines.values())
        console.print(
            f"the resume dropped {total} damaged line{'' if total == 1 else 's'} ({where})",
            style="yellow",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    if print_failures(result.summary):
        raise typer.Exit(3)


def print_usage(summary: dict[str, Any]) -> None:
    """The cost line (when a model reported tokens), the cache line (when the run had a response
    cache) and the budget line (when it stopped the run)."""
    from icl_aif.analysis.report import budget_line, cache_line, cost_line

    for line in (cost_line(summary), cache_line(summary), budget_line(summary)):
        if line:
            console.print(line, markup=False, highlight=False)


def print_skipped(skipped: SkippedLines, verb: str = "skipped") -> None:
    """The line that counts the damaged record lines a command skipped, if any."""
    line = skipped.line(verb)
    if line:
        console.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)
