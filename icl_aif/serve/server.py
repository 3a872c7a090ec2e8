"""The web app and the run (or the pool building) in one event loop, served by uvicorn.

The app answers on a socket bound before anything else starts (a port in use is a one-line
error); the run is :func:`icl_aif.run.runner.run_experiment` with :class:`~icl_aif.serve.study.WebCritics`
as its ``ask_human``, so Ctrl-C stops it as it stops ``icl-aif run`` (uvicorn's own signal
handling is off) and ``icl-aif serve RUN_DIR`` resumes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import uvicorn

from icl_aif.analysis.experiment import run_experiment
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.run.runner import RunResult
from icl_aif.serve.app import build_app
from icl_aif.serve.pool import PoolTasks
from icl_aif.serve.study import RunProgress, WebCritics
from icl_aif.serve.tasks import TaskBoard

logger = logging.getLogger(__name__)

__all__ = ["LINGER_S", "listen", "page_url", "serve_pool", "serve_run"]

LINGER_S = 3.0
"""Seconds the pages stay up once everything is done (the last annotator sees it finished)."""

Announce = Callable[[], None]


class _Server(uvicorn.Server):
    """uvicorn without its own signal handlers: Ctrl-C cancels the run, as in ``icl-aif run``."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (port 0: a free one); a one-line error if it cannot be."""
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
        sock = socket.socket(info[0], socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(info[4])
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.setblocking(False)
    return sock


def page_url(sock: socket.socket) -> str:
    """``http://HOST:PORT/`` of a bound socket."""
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


@contextlib.asynccontextmanager
async def _serving(app: Any, sock: socket.socket) -> AsyncIterator[None]:
    """Serve ``app`` on ``sock`` for the duration of the block."""
    config = uvicorn.Config(
        app,
        lifespan="off",
        access_log=False,  # request lines carry ?token= on the first visit
        log_config=None,
        ws="none",
        timeout_graceful_shutdown=3,
    )
    server = _Server(config)
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        if serving.done():
            serving.result()  # raises what stopped it
            raise UsageError("the web server stopped before it started")
        await asyncio.sleep(0.02)
    try:
        yield
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await serving
        sock.close()


async def serve_run(
    config: ExperimentConfig,
    directory: Path,
    *,
    sock: socket.socket,
    token: str,
    claim_timeout: float,
    announce: Announce,
    resume: bool = False,
    overrides: list[str] | None = None,
    config_file: str | None = None,
    probe_models: bool = True,
    progress: Callable[[RunProgress], None] | None = None,
) -> RunResult:
    """Play ``config`` into ``directory`` with its feedback written on the web page.

    ``announce`` is called once the page answers; ``progress`` after each recorded game.
    """
    board = TaskBoard(claim_timeout)
    games = config.total_games()
    state = RunProgress(games=games)
    critics = WebCritics(board, directory)

    def status() -> dict[str, Any]:
        return {
            "games": state.games,
            "done": state.done,
            **board.counts(),
            "finished": state.finished,
        }

    def advance(count: int) -> None:
        state.advance(count)
        if progress is not None:
            progress(state)

    title = f"{config.name}: feedback for the {config.improve}"
    app = build_app(board, token, status, title=title, mode="run")
    async with _serving(app, sock):
        announce()
        result = await run_experiment(
            config,
            directory,
            overrides=overrides,
            config_file=config_file,
            progress=advance,
            probe_models=probe_models,
            ask_human=critics,
            resume=resume,
        )
        state.finished = True
        await asyncio.sleep(LINGER_S)
    return result


async def serve_pool(
    run_dir: Path,
    pool_file: Path,
    *,
    sock: socket.socket,
    token: str,
    claim_timeout: float,
    announce: Callable[[PoolTasks], None],
) -> PoolTasks:
    """Show the finished games of ``run_dir`` until each has suggestions in ``pool_file``."""
    board = TaskBoard(claim_timeout)
    tasks = PoolTasks(board, run_dir, pool_file)

    def status() -> dict[str, Any]:
        return {**tasks.status(), **board.counts(), "finished": tasks.remaining() == 0}

    title = f"suggestions for the {tasks.side} from {run_dir.name}"
    app = build_app(board, token, status, title=title, mode="pool")
    async with _serving(app, sock):
        announce(tasks)
        while tasks.remaining():
            await asyncio.sleep(0.25)
        await asyncio.sleep(LINGER_S)
    return tasks
