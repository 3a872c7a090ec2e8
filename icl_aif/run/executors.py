"""Where games are played: in the runner's process (the default), in worker processes of this
machine (:mod:`icl_aif.run.processes`) or as Ray tasks.

:func:`icl_aif.run.runner.run_experiment` schedules games the same way whatever the executor:
``concurrency`` games in flight, each one's records and calls written by the driver the moment
the game comes back, then rewritten in game-id order at the end. A worker sends a game back as
its lines, validated and serialised (:class:`icl_aif.records.writer.GameLines`): the driver only
appends bytes. An executor only decides where
one game is played; every game derives its randomness from the experiment seed and its index, so
a Ray run writes the same ``games.jsonl`` (timestamps aside), ``calls.jsonl`` (latencies aside)
and ``summary.json`` as a local one.

:class:`RayExecutor` plays each game as a Ray task (one CPU each by default) on a local Ray
instance or on a cluster (``address``). Its workers keep one event loop, one prompt library and
one moderator per config for their lifetime. Provider rate limits stay shared by every game of
the run: a Ray actor (:class:`RateLimitBuckets`) holds the buckets of :mod:`icl_aif.models.limits`, and
every worker asks it before each model call. An actor round trip costs about a millisecond on
one machine, nothing next to a vendor call, and unlike a per-worker share of the limit
(limit / workers) it lets one busy worker use the whole allowance while the others wait.

With ``actors=N`` (``--ray-actors N``) the games go to N :class:`GameActor` actors instead, one
CPU each, each playing many games at once on its event loop: the shape for vendor APIs, where a
game waits on the network and a CPU per game would cap a cluster's games in flight at its CPUs.

Differences from the local executor, by design: ``max_usd`` counts the cost of finished games
only (games in flight on workers are not visible to the driver, so a run may exceed the budget
by up to ``concurrency`` games, as documented for the local executor too); a model-backed
moderator learns its parse path per worker instead of once per experiment; a person cannot
play (no terminal on a worker).
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from typing import Any, Protocol

from icl_aif.config.experiment import Cell
from icl_aif.config.settings import RateLimit
from icl_aif.core.errors import UsageError
from icl_aif.models import limits
from icl_aif.records.writer import GameLines
from icl_aif.run.play import play_here_recorded

logger = logging.getLogger(__name__)

__all__ = ["EXECUTORS", "RAY_MISSING", "Executor", "GameLines", "RayExecutor", "make_executor"]

EXECUTORS = ("local", "processes", "ray")
RAY_MISSING = "--executor ray needs Ray: pip install 'icl-aif[ray]'"


class Executor(Protocol):
    """Plays one game of a cell somewhere and returns its lines, ready to append
    (:func:`icl_aif.run.play.recorded`: validated, serialised, tagged with the cell)."""

    name: str

    def start(self) -> None:
        """Get ready to play (connect, start workers); raises :class:`UsageError` if it cannot."""
        ...

    async def play(self, cell: Cell, index: int) -> GameLines:
        """Game ``index`` of ``cell``."""
        ...

    def close(self) -> None:
        """Release what the executor started."""
        ...


def make_executor(
    name: str,
    address: str | None = None,
    workers: int | None = None,
    actors: int | None = None,
) -> Executor | None:
    """The executor ``name`` (None for ``local``: the runner plays games itself).

    ``workers`` is the number of processes of ``processes`` (default: one per core); ``actors``
    makes ``ray`` play in that many actors instead of one task per game. Raises
    :class:`UsageError` for an unknown name, an option of another executor, or missing Ray.
    """
    if address is not None and name != "ray":
        raise UsageError("--ray-address needs --executor ray")
    if actors is not None and name != "ray":
        raise UsageError("--ray-actors needs --executor ray")
    if workers is not None and name != "processes":
        raise UsageError("--workers needs --executor processes")
    if name == "local":
        return None
    if name == "processes":
        from icl_aif.run.processes import ProcessExecutor

        return ProcessExecutor(workers)
    if name == "ray":
        return RayExecutor(address=address, actors=actors)
    raise UsageError(f"unknown executor {name!r}; allowed: {', '.join(EXECUTORS)}")


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError(RAY_MISSING) from None
    return ray


class RateLimitBuckets:
    """The rate-limit buckets of every provider, in one process (a Ray actor).

    Workers call :meth:`acquire` before each model call; it waits on the same leaky buckets as
    the local executor (:class:`icl_aif.models.limits.ProviderLimiter`) and returns the seconds waited.
    ``period_s`` replaces the minute of "per minute" (tests shrink it).
    """

    def __init__(self, period_s: float | None = None) -> None:
        if period_s is not None:
            limits.PERIOD_S = period_s
        self._acquired: dict[str, int] = {}

    async def acquire(self, provider: str, limit: RateLimit, tokens: int) -> float:
        """Wait until one request of about ``tokens`` tokens of ``provider`` may go out."""
        self._acquired[provider] = self._acquired.get(provider, 0) + 1
        limiter = limits.limiter_for(provider, limit)
        return 0.0 if limiter is None else await limiter.acquire(tokens)

    def acquired(self) -> dict[str, int]:
        """Requests let through so far, per provider."""
        return dict(self._acquired)


@dataclass(frozen=True)
class _ActorLimiter:
    """A provider's limiter in a worker: asks the buckets actor."""

    buckets: Any  # a Ray actor handle of RateLimitBuckets
    provider: str
    limit: RateLimit

    async def acquire(self, tokens: int) -> float:
        waited: float = await self.buckets.acquire.remote(self.provider, self.limit, tokens)
        return waited


# --- in a worker process ---------------------------------------------------------------------

_LOOP: dict[str, asyncio.AbstractEventLoop] = {}  # the worker's event loop


def _worker_loop() -> asyncio.AbstractEventLoop:
    """One event loop for the worker's lifetime: clients and limiters bound to it stay valid."""
    loop = _LOOP.get("loop")
    if loop is None or loop.is_closed():
        loop = _LOOP["loop"] = asyncio.new_event_loop()
    return loop


def play_in_worker(cell: Cell, index: int, buckets: Any) -> GameLines:
    """Play game ``index`` of ``cell`` in this process (the body of a Ray task).

    ``buckets`` is the :class:`RateLimitBuckets` actor (None: this process's own limiters).
    """
    limits.share(
        None if buckets is None else lambda provider, limit: _ActorLimiter(buckets, provider, limit)
    )
    return _worker_loop().run_until_complete(play_here_recorded(cell, index))


ACTOR_GAMES = 1000
"""Games one :class:`GameActor` may play at once (the driver's ``concurrency`` is the real cap)."""


class GameActor:
    """A Ray actor that plays many games at once on its event loop (``--ray-actors``).

    Its model calls ask the run's shared rate-limit buckets (``buckets``), as task workers do.
    """

    def __init__(self, buckets: Any, period_s: float | None = None) -> None:
        if period_s is not None:
            limits.PERIOD_S = period_s
        limits.share(lambda provider, limit: _ActorLimiter(buckets, provider, limit))

    async def play(self, cell: Cell, index: int) -> GameLines:
        """Game ``index`` of ``cell``."""
        return await play_here_recorded(cell, index)


# --- in the driver ---------------------------------------------------------------------------


class RayExecutor:
    """Plays each game as a Ray task; see the module docstring.

    Ray starts on the first game: ``ray.init(address)`` joins a running cluster (``"auto"`` or
    ``ray://HOST:10001``); without an address a local instance is started, and shut down by
    :meth:`close`. When Ray is already initialized in the process (a test fixture, a notebook),
    it is used as it is and left running.
    """

    name = "ray"

    def __init__(
        self,
        address: str | None = None,
        *,
        cpus_per_game: float = 1.0,
        actors: int | None = None,
        limit_period_s: float | None = None,
    ) -> None:
        if actors is not None and actors < 1:
            raise UsageError(f"--ray-actors must be at least 1, got {actors}")
        self.address = address
        self.cpus_per_game = cpus_per_game
        self.actors = actors  # None: one task per game; N: N actors playing many games each
        self.limit_period_s = limit_period_s  # the rate-limit window (tests shrink it)
        self._ray: Any = _import_ray()  # fails at once, before any game, when Ray is missing
        self._started = False
        self._task: Any = None
        self._buckets: Any = None
        self._pool: list[Any] = []  # the game actors, with actors
        self._load: list[int] = []  # games in flight per actor

    def start(self) -> None:
        """Connect to Ray (or start it) and create the rate-limit actor; idempotent."""
        if self._task is not None:
            return
        ray = self._ray
        if not ray.is_initialized():
            began = time.perf_counter()
            try:
                ray.init(
                    address=self.address, include_dashboard=False, logging_level=logging.WARNING
                )
            except (ConnectionError, RuntimeError, ValueError) as exc:
                where = f"--ray-address {self.address}" if self.address else "a local Ray"
                raise UsageError(f"{where}: Ray did not start: {exc}") from None
            self._started = True
            logger.info("ray started in %.1f s", time.perf_counter() - began)
        self._task = ray.remote(play_in_worker).options(num_cpus=self.cpus_per_game)
        # an async actor: it waits on many acquisitions at once without a CPU of its own
        buckets = ray.remote(RateLimitBuckets).options(num_cpus=0)
        self._buckets = buckets.remote(self.limit_period_s)
        if self.actors:
            players = ray.remote(GameActor).options(num_cpus=1, max_concurrency=ACTOR_GAMES)
            self._pool = [
                players.remote(self._buckets, self.limit_period_s) for _ in range(self.actors)
            ]
            self._load = [0] * self.actors

    async def play(self, cell: Cell, index: int) -> GameLines:
        """Game ``index`` of ``cell``, played by a Ray worker."""
        if cell.config.needs_person:
            raise UsageError("a game with a person cannot run on Ray: use --executor local")
        self.start()
        if not self._pool:
            result: GameLines = await self._task.remote(cell, index, self._buckets)
            return result
        slot = self._load.index(min(self._load))  # the actor with the fewest games in flight
        self._load[slot] += 1
        try:
            played: GameLines = await self._pool[slot].play.remote(cell, index)
            return played
        finally:
            self._load[slot] -= 1

    def acquisitions(self) -> dict[str, int]:
        """Requests the shared rate-limit buckets let through so far, per provider."""
        if self._buckets is None:
            return {}
        counts: dict[str, int] = self._ray.get(self._buckets.acquired.remote())
        return counts

    def close(self) -> None:
        """Drop the actors; shut Ray down if this executor started it."""
        for actor in [*self._pool, *([self._buckets] if self._buckets is not None else [])]:
            self._ray.kill(actor)
        self._task = self._buckets = None
        self._pool, self._load = [], []
        if self._started:
            self._ray.shutdown()
            self._started = False
