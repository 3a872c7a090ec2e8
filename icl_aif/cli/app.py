"""The ``icl-aif`` command line: the typer app, its commands in the order ``--help`` lists
them, and :func:`main`. A bad input prints one line saying what to fix and exits with 2."""

from __future__ import annotations

import logging
import signal
import sys
import threading
from typing import Annotated, Any

import typer

from icl_aif.cli import designs, experiments, listing, optimizing, reading, screening, serving
from icl_aif.cli.output import errors
from icl_aif.cli.price import register_price_commands
from icl_aif.core.errors import UsageError

app = typer.Typer(
    name="icl-aif",
    help="Bargaining experiments with In-Context Learning from AI Feedback.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _show_version(value: bool) -> None:
    if value:
        from icl_aif._version import __version__

        typer.echo(f"icl-aif {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            help="Show the version and exit.",
            callback=_show_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Bargaining experiments with In-Context Learning from AI Feedback."""


# The commands, in the order --help lists them.
app.command()(designs.init)
app.command()(experiments.run)
app.command()(experiments.play)
app.command()(screening.screen)
app.command()(optimizing.optimize)
app.command()(serving.serve)
app.command()(reading.report)
app.command()(reading.compare)
app.command()(reading.rank)
app.command()(reading.plan)
app.command()(reading.export)
app.command()(reading.audit)
app.command("estimate")(reading.estimate)
app.command()(listing.models)
app.command()(listing.games)
app.command("check-model")(listing.check_model)
register_price_commands(app)  # moderator-eval, moderator-add, scenarios import


def _warn_of_damaged_records() -> None:
    """Damaged record lines (:data:`icl_aif.records.reader.DAMAGE_LOG`) are said as one ``warning: ...``
    line on stderr, a file's damaged lines in one."""
    from icl_aif.records.reader import DAMAGE_LOG

    handler = logging.StreamHandler()  # today's stderr (main may run again in one process)
    handler.set_name("icl-aif warnings")
    handler.setFormatter(logging.Formatter("warning: %(message)s"))
    damaged = logging.getLogger(DAMAGE_LOG)
    for old in [h for h in damaged.handlers if h.get_name() == handler.get_name()]:
        damaged.removeHandler(old)
    damaged.addHandler(handler)
    damaged.propagate = False


def main() -> None:
    """Entry point of the ``icl-aif`` script.

    Every problem with the command line is one ``error:`` line with exit code 2: ours
    (:class:`UsageError`) and click's (an option out of range, an unknown option, a missing
    argument), never a box. SIGTERM stops a run as Ctrl-C does (:func:`_terminate_as_interrupt`).
    """
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    _terminate_as_interrupt()
    _warn_of_damaged_records()
    try:
        code = app(standalone_mode=False)
    except typer.TyperException as exc:  # click's errors: a bad command line
        if type(exc).__name__ == "NoArgsIsHelpError":  # icl-aif alone: the help, as before
            errors.print(exc.format_message(), markup=False, highlight=False)
            sys.exit(2)
        context = getattr(exc, "ctx", None)
        where = f" (see {context.command_path} --help)" if context is not None else ""
        message = " ".join(exc.format_message().split())
        errors.print(f"error: {message}{where}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except typer.Abort:
        errors.print("interrupted", markup=False)
        sys.exit(_interrupt_code())
    except UsageError as exc:
        errors.print(f"error: {exc}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(2)
    except KeyboardInterrupt:
        errors.print("interrupted", markup=False)
        sys.exit(_interrupt_code())
    code = code if isinstance(code, int) else 0  # as click's standalone mode: always exits
    sys.exit(_interrupt_code() if code == INTERRUPTED else code)


INTERRUPTED = 130
"""The exit code of a command stopped by Ctrl-C (SIGINT)."""
TERMINATED = 143
"""The exit code of a command stopped by SIGTERM (128 + 15), which stops it as Ctrl-C does."""
_signals: dict[str, bool] = {"terminated": False}


def _terminate_as_interrupt() -> None:
    """Make SIGTERM stop the command as Ctrl-C does: a run's games in flight are abandoned, its
    manifest says ``interrupted`` and the resume line is printed; the exit code is then
    :data:`TERMINATED`."""

    def on_term(signum: int, frame: Any) -> None:
        _signals["terminated"] = True
        on_interrupt = signal.getsignal(signal.SIGINT)
        if callable(on_interrupt):  # asyncio's: cancels the run's task; Python's: raises
            on_interrupt(signal.SIGINT, frame)
            return
        raise KeyboardInterrupt  # Ctrl-C ignored (a background job): stop all the same

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, on_term)


def _interrupt_code() -> int:
    """:data:`TERMINATED` after SIGTERM, else :data:`INTERRUPTED`."""
    return TERMINATED if _signals["terminated"] else INTERRUPTED


if __name__ == "__main__":
    main()
