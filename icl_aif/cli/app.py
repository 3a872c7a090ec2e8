"""The ``icl-aif`` command line. A bad input prints one line saying what to fix and exits with 2."""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from icl_aif.cli.price import register_price_commands
from icl_aif.cli.terminal import progress_bar
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import ModeratorConfig
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config

if TYPE_CHECKING:
    from icl_aif.games.base import Measure
    from icl_aif.records.reader import SkippedLines
    from icl_aif.run.executors import Executor
    from icl_aif.run.runner import RunResult

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
    typer.Option("--set", help="Override a config field: --set roles.<seat>.model=scripted:linear"),
]

PreflightOption = Annotated[
    bool,
    typer.Option(
        "--preflight/--no-preflight",
        help="Send each vendor model one short request before any game (default: on).",
    ),
]

ConfigArgument = Annotated[
    Path | None,
    typer.Argument(help="Experiment YAML file (optional with --resume).", show_default=False),
]

OfflineOption = Annotated[
    bool,
    typer.Option(
        "--offline",
        help="Play every model-backed role with a simulator (players scripted:linear, critic "
        "scripted:critic, moderator rules); the manifest records what replaced what.",
    ),
]

ResumeOption = Annotated[
    Path | None,
    typer.Option(
        "--resume",
        metavar="RUN_DIR",
        help="Continue a stopped run (killed, Ctrl-C, disk full) with its recorded config: "
        "finished games are kept, the others are played.",
        show_default=False,
    ),
]

ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Where games are played: local (this process), processes (worker processes "
        "of this machine, see --workers) or ray (Ray tasks; needs pip install "
        "'icl-aif\\[ray]'). Records and summary are the same.",
    ),
]

WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="With --executor processes: how many worker processes; default one per core.",
        show_default=False,
    ),
]

RayActorsOption = Annotated[
    int | None,
    typer.Option(
        "--ray-actors",
        min=1,
        help="With --executor ray: play in this many Ray actors (one CPU each, many games "
        "at once each; suits vendor APIs) instead of one Ray task per game.",
        show_default=False,
    ),
]

RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="With --executor ray: the cluster to join (auto, or ray://HOST:10001); "
        "default a local Ray instance.",
        show_default=False,
    ),
]


@app.command()
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
    elif offline:
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
        _interrupted(directory, resume_command(directory))
    _finish_run(result, experiment.name)


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
        total = experiment.runs * len(experiment.cells())
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


@app.command()
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


@app.command()
def serve(
    config_or_run: Annotated[
        Path | None,
        typer.Argument(
            help="Experiment YAML file (a new run), or a run directory (continue it).",
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Run directory of a new run (default runs/<name>-<time>).")
    ] = None,
    set_: SetOption = None,
    host: Annotated[
        str,
        typer.Option(
            help="Address to listen on (another than 127.0.0.1 opens the page to the network)."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free one).")] = 8765,
    claim_timeout: Annotated[
        float,
        typer.Option(
            min=1,
            help="Seconds an opened task stays with its annotator; unanswered, it returns to the queue.",
        ),
    ] = 900,
    pool: Annotated[
        Path | None,
        typer.Option(
            "--pool",
            metavar="RUN_DIR",
            help="Pool building: show the finished games of RUN_DIR and collect suggestions.",
            show_default=False,
        ),
    ] = None,
    pool_out: Annotated[
        Path | None,
        typer.Option(
            "--pool-out",
            help="With --pool: the pool file to append to (provenance goes to "
            "<name>.provenance.jsonl beside it).",
            show_default=False,
        ),
    ] = None,
    preflight: PreflightOption = True,
) -> None:
    """Human critics on a web page: the feedback of a feedback.source human run, or a pool.

    Prints the page's link with its token and `token: ...` on its own line (set
    ICL_AIF_SERVE_TOKEN to keep the same token across restarts). Each paused game is a task on
    the page and in the JSON API (/api/tasks, /api/status); the run resumes each game with the
    submitted suggestions. Killed or stopped, icl-aif serve RUN_DIR continues the run. A task is
    answered by the annotator who opened it, with at most feedback.suggestions suggestions of
    1,000 characters; bodies over 64 KiB get 413 and POSTs from another origin 403.

    Exit codes as icl-aif run: 0 finished, 2 bad input, 3 some games failed, 130 interrupted.
    """
    import os
    import secrets

    from icl_aif.serve import require_web

    require_web()
    if claim_timeout <= 0:
        raise UsageError("--claim-timeout: give a number of seconds above 0")
    token = os.environ.get("ICL_AIF_SERVE_TOKEN") or secrets.token_urlsafe(32)
    page = _Page(host=host, port=port, token=token, claim_timeout=claim_timeout)
    if pool is not None:
        if config_or_run is not None or out is not None or set_:
            raise UsageError("--pool RUN_DIR shows a finished run: give no config, --out or --set")
        if pool_out is None:
            raise UsageError("--pool needs --pool-out FILE: the pool file to append suggestions to")
        _serve_pool(page, pool, pool_out)
        return
    if pool_out is not None:
        raise UsageError("--pool-out goes with --pool RUN_DIR")
    if config_or_run is None:
        raise UsageError("give an experiment file (a new run) or a run directory (continue it)")
    _serve_run(page, config_or_run, out, list(set_ or []), preflight=preflight)


@dataclass(frozen=True)
class _Page:
    """Where ``icl-aif serve`` listens, with its token and how long a task stays claimed."""

    host: str
    port: int
    token: str
    claim_timeout: float

    def announce(self, url: str) -> None:
        """The token on its own line (study platforms read it), then the link that sets it."""
        print(f"token: {self.token}", flush=True)
        print(f"page: {url}?token={self.token}", flush=True)
        print(f"api: {url}api/status (Authorization: Bearer <token>)", flush=True)


def _serve_pool(page: _Page, pool: Path, pool_out: Path) -> None:
    """``icl-aif serve --pool RUN_DIR --pool-out FILE``: people write suggestions on the
    finished games of a run, appended to a pool file."""
    from icl_aif.serve.server import listen, page_url, serve_pool

    if not pool.is_dir():
        raise UsageError(f"--pool {pool}: no such run directory")
    _check_pool_out(pool_out)
    sock = listen(page.host, page.port)
    url = page_url(sock)

    def announce_pool(tasks: Any) -> None:
        console.print(
            f"{tasks.total - tasks.answered_before} of {tasks.total} transcripts to answer; "
            f"suggestions go to {pool_out}",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        page.announce(url)

    try:
        tasks = asyncio.run(
            serve_pool(
                pool,
                pool_out,
                sock=sock,
                token=page.token,
                claim_timeout=page.claim_timeout,
                announce=announce_pool,
            )
        )
    except KeyboardInterrupt:
        errors.print("interrupted; continue with the same command", markup=False)
        raise typer.Exit(130) from None
    console.print(
        f"{tasks.total} transcripts answered; pool written to {pool_out}",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )


def _serve_run(
    page: _Page, config_or_run: Path, out: Path | None, overrides: list[str], *, preflight: bool
) -> None:
    """``icl-aif serve CONFIG`` (a new run) or ``icl-aif serve RUN_DIR`` (continue it): the
    feedback of a ``feedback.source: human`` run, written on the page."""
    from icl_aif.records.layout import GAMES, default_run_dir
    from icl_aif.run.resume import resume_config
    from icl_aif.serve.server import listen, page_url, serve_run

    resume = config_or_run.is_dir()
    if resume:
        if out is not None and out != config_or_run:
            raise UsageError("a run directory is continued where it is: drop --out")
        experiment = resume_config(config_or_run, None, overrides)
        directory = config_or_run
    else:
        experiment = load_config(config_or_run, overrides)
        directory = out or default_run_dir(experiment)
        if (directory / GAMES).exists():
            raise UsageError(
                f"{directory} already holds a run; choose another --out directory, "
                f"or continue it with: icl-aif serve {directory}"
            )
    if not experiment.feedback_needs_person or experiment.person is not None:
        raise UsageError(
            f"icl-aif serve answers the feedback of feedback.source human on the web; this "
            f"experiment has feedback.source {experiment.feedback.source}"
            + (f" and person: {experiment.person}" if experiment.person else "")
            + ": play it with icl-aif run (--set feedback.source=human to serve it)"
        )
    _check_run_dir(directory, resume)
    sock = listen(page.host, page.port)
    url = page_url(sock)

    def recorded(state: Any) -> None:
        console.print(
            f"{state.done} of {state.games} games recorded", markup=False, highlight=False
        )

    try:
        result = asyncio.run(
            serve_run(
                experiment,
                directory,
                sock=sock,
                token=page.token,
                claim_timeout=page.claim_timeout,
                announce=lambda: page.announce(url),
                resume=resume,
                overrides=overrides,
                config_file=None if resume else str(config_or_run),
                probe_models=preflight,
                progress=recorded,
            )
        )
    except KeyboardInterrupt:
        _interrupted(directory, f"icl-aif serve {directory}")
    _finish_run(result, experiment.name)


def _check_pool_out(pool_out: Path) -> None:
    """The pool file and its provenance file can be appended to (a one-line error otherwise)."""
    from icl_aif.serve.journal import write_problem
    from icl_aif.serve.pool import provenance_path

    for path in (pool_out, provenance_path(pool_out)):
        problem = write_problem(path)
        if problem is not None:
            raise UsageError(f"--pool-out {pool_out}: {problem}; choose another --pool-out file")


def _check_run_dir(directory: Path, resume: bool) -> None:
    """The run directory of icl-aif serve can be written (a one-line error otherwise)."""
    from icl_aif.serve.journal import write_problem

    problem = write_problem(directory, directory=True)
    if problem is not None:
        where = f"the run directory {directory}" if resume else f"--out {directory}"
        fix = "make it writable and start again" if resume else "choose another --out directory"
        raise UsageError(f"{where}: {problem}; {fix}")


def _measure_of(experiment: ExperimentConfig) -> Measure:
    """The per-round figure of ``experiment``'s game, as a person at the terminal reads results."""
    from icl_aif.games.registry import measure_of

    return measure_of(experiment)


def _check_terminal(experiment: ExperimentConfig) -> None:
    """A config that pauses for a person needs one at an interactive terminal."""
    from icl_aif.run.runner import person_needed

    if experiment.needs_person and not sys.stdin.isatty():
        raise UsageError(person_needed(experiment))


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    plots: Annotated[
        bool, typer.Option("--plots", help="Also write the figures into RUN_DIR/plots/.")
    ] = False,
    html: Annotated[
        bool, typer.Option("--html", help="Also write one self-contained HTML page.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option(help="Where --html writes (default RUN_DIR/report.html).")
    ] = None,
    transcripts: Annotated[
        int, typer.Option(help="Games whose transcripts --html shows (0: every game).")
    ] = 200,
) -> None:
    """Print the per-round table of a finished run from disk; --plots and --html write figures.

    A run with failed games ends with the line that counts them, as icl-aif run does; the exit
    code stays 0 (the report was made). Damaged lines of games.jsonl are warned of and counted
    (the tables are summary.json's, computed when the run finished).
    """
    from icl_aif.records.layout import GAMES
    from icl_aif.records.reader import SkippedLines, count_records, read_manifest, read_summary

    summary = read_summary(run_dir)
    manifest = read_manifest(run_dir)  # a newer record format: one line saying to upgrade
    skipped = SkippedLines()
    if (run_dir / GAMES).is_file():  # the games the tables count: their damaged lines are said
        count_records(run_dir / GAMES, skipped, "game")
    _print_tables(summary, manifest["name"])
    _print_usage(summary)
    if plots:
        _write_plots(run_dir)
    if html:
        from icl_aif.analysis.html_report import write_html_report

        page = write_html_report(run_dir, out, max_transcripts=transcripts, skipped=skipped)
        console.print(f"HTML report written to {page}", markup=False, soft_wrap=True)
    _print_skipped(skipped)
    _print_failures(summary)


def _write_plots(run_dir: Path) -> None:
    """Write the run's figures into its plots/ folder and say where."""
    from icl_aif.analysis.plots import PLOTS, plots_for_run

    paths = plots_for_run(run_dir)
    console.print(f"{len(paths)} plots written to {run_dir / PLOTS}", markup=False, soft_wrap=True)


@app.command()
def compare(
    run_a: Annotated[Path, typer.Argument(help="Run directory A (the baseline).")],
    run_b: Annotated[Path, typer.Argument(help="Run directory B.")],
    arm: Annotated[
        str | None,
        typer.Option(help="The feedback arm to compare, for runs with arms.", show_default=False),
    ] = None,
    cell: Annotated[
        str | None,
        typer.Option(help="The sweep cell to compare, for runs with cells.", show_default=False),
    ] = None,
) -> None:
    """Per-round deal rate and price of two runs side by side, with deltas B - A and 95% CIs.

    A run with feedback arms or sweep cells is compared through one of them (--arm, --cell)."""
    from rich import box

    from icl_aif.analysis.compare import (
        compare_headers,
        compare_legend,
        compare_runs,
        compared_measure,
        comparison_rows,
    )

    chosen = "".join(f"  {k}: {v}" for k, v in (("arm", arm), ("cell", cell)) if v is not None)
    table = Table(
        title=f"A: {run_a}  B: {run_b}{chosen}",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    from icl_aif.records.reader import SkippedLines

    measure = compared_measure(run_a, run_b)  # the game's per-round figure: price, payoff, ...
    skipped = SkippedLines()
    compared = compare_runs(run_a, run_b, arm=arm, cell=cell, skipped=skipped)
    for header in compare_headers(measure):
        table.add_column(header, justify="right", no_wrap=True)
    for row in comparison_rows(compared, measure):
        table.add_row(*row)
    _print_uncut(table)
    console.print(compare_legend(measure), style="dim", markup=False, highlight=False)
    _print_skipped(skipped)


@app.command()
def export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    format_: Annotated[
        str, typer.Option("--format", help="chat (fine-tuning JSONL) or preference (pairs).")
    ] = "chat",
    filter_: Annotated[
        str, typer.Option("--filter", help="chat: all, deals or above_mean (docs/records.md).")
    ] = "all",
    side: Annotated[
        str | None, typer.Option(help="One of the game's seats (default: the improved one).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Output JSONL (default RUN_DIR/export/<format>-<side>-<filter>.jsonl)."),
    ] = None,
) -> None:
    """Write training data from a run: chat transcripts or preference pairs from feedback arms."""
    from icl_aif.analysis.export import export_run
    from icl_aif.records.reader import SkippedLines

    skipped = SkippedLines()
    target, count = export_run(run_dir, out, fmt=format_, keep=filter_, side=side, skipped=skipped)
    console.print(f"{count} line(s) written to {target}", markup=False, soft_wrap=True)
    _print_skipped(skipped)


@app.command()
def audit(
    run_dir: Annotated[Path, typer.Argument(help="A finished run directory.")],
    moderator: Annotated[
        str, typer.Option(help="The audit judge: rules, llm or hybrid (the game's judges).")
    ] = "rules",
    model: Annotated[
        str | None,
        typer.Option(help="provider:model of an llm or hybrid judge (default: the run's)."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="Another endpoint, e.g. an OpenAI-compatible server.")
    ] = None,
    window: Annotated[
        int | None,
        typer.Option(help="Turns the judge reads (default: the run's roles.moderator.window)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="The disputed rounds, JSONL (default RUN_DIR/audit.jsonl).")
    ] = None,
) -> None:
    """Re-judge every recorded round with another judge and list where it disagrees.

    Nothing is played: each round's lines are judged again as the game judged them. A model
    judge's calls go to RUN_DIR/audit_calls.jsonl.
    """
    from icl_aif.analysis.audit import audit_line, audit_rows, plan_audit, run_audit
    from icl_aif.records.reader import SkippedLines

    skipped = SkippedLines()
    plan = plan_audit(
        run_dir, moderator, model=model, base_url=base_url, window=window, out=out, skipped=skipped
    )
    with progress_bar(console, transient=True) as bar:
        task = bar.add_task(f"audit ({moderator})", total=plan.size)
        result = run_audit(plan, progress=lambda n: bar.advance(task, n))
    judge = moderator if result.model is None else f"{moderator} ({result.model})"
    table = Table(title=f"audit of {run_dir} by the {judge} judge")
    for header in ("", "rounds", "share"):
        table.add_column(header, justify="left" if not header else "right", no_wrap=True)
    for row in audit_rows(result):
        table.add_row(*row)
    _print_uncut(table)
    console.print(audit_line(result), markup=False, highlight=False, soft_wrap=True)
    _print_skipped(skipped)


@app.command("estimate")
def estimate(
    config: Annotated[Path, typer.Argument(help="Experiment YAML file.")],
    set_: SetOption = None,
    sample: Annotated[int, typer.Option(help="Games to simulate, spread over the runs.")] = 10,
) -> None:
    """Predict calls, tokens and cost per role by simulating a sample of games (nothing is sent)."""
    from icl_aif.analysis.estimate import estimate_cells, estimate_table, total_line

    experiment = load_config(config, list(set_ or []))
    results = estimate_cells(experiment, sample)
    for cell, result in results:
        if cell.id is not None:
            shown = ", ".join(f"{k}={v}" for k, v in cell.settings.items())
            console.print(f"Cell {cell.id}: {shown}", markup=False, highlight=False)
        console.print(estimate_table(result))
        for note in result.notes:
            console.print(note, style="dim", markup=False, highlight=False)
    if len(results) > 1:
        console.print(total_line([r for _, r in results]), markup=False, highlight=False)


def _print_tables(summary: dict[str, Any], name: str) -> None:
    """The run's tables, each with its legend: per round, Table 1 of arms, or a sweep's."""
    from icl_aif.analysis.report import summary_tables

    title = f"{name} ({summary['improve']} improved)" if "improve" in summary else name
    for table, legend in summary_tables(summary, title):
        _print_uncut(table)
        console.print(legend, style="dim", markup=False, highlight=False)


def _print_uncut(table: Table) -> None:
    """Print ``table`` at its natural width, wider than the terminal or a pipe's 80 columns if it
    needs to be, so that no value is cut to "…" (its columns must be no_wrap)."""
    from icl_aif.analysis.report import natural_width

    width = natural_width(console, table)
    wide = console if width <= console.width else Console(file=console.file, width=width)
    wide.print(table)


def _print_failures(summary: dict[str, Any]) -> bool:
    """The failed-games line (how many, each kind of error) and the line of rounds that ended
    for want of a valid move (how many, whose, why); True when there was either."""
    from icl_aif.analysis.report import failure_line, no_move_line

    lines = [line for line in (failure_line(summary), no_move_line(summary)) if line]
    for line in lines:
        console.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)
    return bool(lines)


def _interrupted(directory: Path, resume: str) -> NoReturn:
    """Ctrl-C during a run: how to continue it (``resume``), or that nothing was recorded;
    exit code 130."""
    from icl_aif.records.layout import MANIFEST

    if (directory / MANIFEST).is_file():
        errors.print(
            f"interrupted; continue with: {resume}", markup=False, highlight=False, soft_wrap=True
        )
    else:
        errors.print("interrupted before the first game; nothing recorded", markup=False)
    raise typer.Exit(130) from None  # called in the except clause: no chained traceback


def _finish_run(result: RunResult, name: str) -> None:
    """A finished run's tables, cost and cache lines, plots and directory; exit code 3 when
    games failed or rounds ended for want of a valid move."""
    _print_tables(result.summary, name)
    _print_usage(result.summary)
    _write_plots(result.directory)
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
    if _print_failures(result.summary):
        raise typer.Exit(3)


def _print_usage(summary: dict[str, Any]) -> None:
    """The cost line (when a model reported tokens), the cache line (when the run had a response
    cache) and the budget line (when it stopped the run)."""
    from icl_aif.analysis.report import budget_line, cache_line, cost_line

    for line in (cost_line(summary), cache_line(summary), budget_line(summary)):
        if line:
            console.print(line, markup=False, highlight=False)


@app.command()
def models() -> None:
    """List the providers (ours, installed plugins') and example model strings."""
    from icl_aif.models.registry import PROVIDERS, langchain_only, load_plugins

    failures = load_plugins()
    table = Table(title="Model providers (roles take provider:model)")
    table.add_column("provider")
    table.add_column("model strings")
    table.add_column("what it is")
    for provider in PROVIDERS.values():
        table.add_row(provider.name, "\n".join(provider.examples), provider.description)
    table.add_row(
        "any other",
        "PROVIDER:MODEL",
        "LangChain's init_chat_model, once the provider's integration package is installed "
        "(a missing one is named): " + ", ".join(langchain_only()) + ".",
    )
    console.print(table)
    for line in failures:
        console.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)


@app.command()
def games() -> None:
    """List the bargaining games (ours, installed plugins'): judges, simulators, the terms of an
    agreement and the scenario's fields with their defaults."""
    from icl_aif.games.registry import load_plugins, registered_games

    failures = load_plugins()
    for game in registered_games().values():
        console.print(_game_table(game))
    for line in failures:
        console.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)


def _game_table(game: Any) -> Table:
    """One game of ``icl-aif games``: a row per trait (plain text, no markup)."""
    from rich.text import Text

    table = Table(title=f"{game.name}: {game.title}", show_header=False, title_justify="left")
    table.add_column("trait", style="bold")
    table.add_column("value")
    rows = {
        "config": f"game: {game.name}",
        "source": game.source,
        "module": getattr(game, "origin", type(game).__module__),
        "judges": ", ".join(game.judges),
        "simulators": ", ".join(f"scripted:{kind}" for kind in game.simulators),
        "terms": "\n".join(
            f"{name}: {_type_name(field.annotation)}"
            for name, field in game.terms_model.model_fields.items()
        ),
        "scenario": _scenario_defaults(game.scenario_model),
    }
    for trait, value in rows.items():
        table.add_row(trait, Text(value))
    return table


def _type_name(annotation: Any) -> str:
    """``float``, ``float | None``, ``Literal['a', 'b']``: a field's type as written."""
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _scenario_defaults(model: Any) -> str:
    """``field: default`` a line, the game's own fields first (the openers one a line, indented),
    as in an experiment file."""
    from pydantic import ValidationError

    from icl_aif.config.settings import Scenario

    try:
        values = model().model_dump(mode="json")
    except ValidationError as exc:
        return f"(no default scenario: {exc.errors()[0]['msg']})"
    shared = [name for name in values if name in Scenario.model_fields]
    lines = []
    for name in [*(n for n in values if n not in shared), *shared]:
        value = values[name]
        if name == "openers":
            lines.append("openers:")
            lines.extend(f"  {o['speaker']}: {o['text']}" for o in value)
        else:
            lines.append(f"{name}: {'null' if value is None else value}")
    return "\n".join(lines)


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
    from icl_aif.config.files import apply_overrides
    from icl_aif.engine.configs import config_from_dict
    from icl_aif.engine.protocol import Message
    from icl_aif.run.preflight import PROBE, probe

    experiment = config_from_dict({}, source="check-model")  # the default game's seats
    role = "critic" if model == "scripted:critic" else experiment.seats.ids[0]
    settings = {"model": model, "base_url": base_url, "timeout": timeout}
    data = apply_overrides(
        {"roles": {role: settings}, "retry": {"attempts": 1}},
        [f"roles.{role}.params.{item}" for item in param or []],
    )
    experiment = config_from_dict(data, source="check-model")
    role_config = experiment.roles.of(role)
    assert not isinstance(role_config, ModeratorConfig)
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


def _print_skipped(skipped: SkippedLines, verb: str = "skipped") -> None:
    """The line that counts the damaged record lines a command skipped, if any."""
    line = skipped.line(verb)
    if line:
        console.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)


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
