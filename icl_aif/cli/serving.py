"""``icl-aif serve``: human critics on a web page, for a feedback pool or a whole run."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from icl_aif.cli.options import PreflightOption, SetOption
from icl_aif.cli.output import console, errors, exit_interrupted, finish_run
from icl_aif.core.errors import UsageError
from icl_aif.engine.configs import load_config


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
        exit_interrupted(directory, f"icl-aif serve {directory}")
    finish_run(result, experiment.name)


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
