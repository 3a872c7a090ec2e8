"""A person at the terminal: answers the pauses of games (human feedback, a side a person plays).

:class:`TerminalPerson` is the ``ask_human`` callback that ``icl-aif run`` and ``icl-aif play`` pass
to :func:`icl_aif.run.runner.run_experiment`. It shows each pause's payload with rich and reads what the
person types: a multi-line feedback (an empty line ends it) or one line of the negotiation. There is
one person, so pauses of games in flight at the same time are answered one after another. Reading
happens in a daemon thread, so the event loop keeps serving the other games and Ctrl-C is not held
up by a pending read.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar

from rich.console import Console
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from icl_aif.core.transcript import format_money

if TYPE_CHECKING:
    from icl_aif.games.base import Measure

T = TypeVar("T")

FEEDBACK_HELP = (
    "Type your feedback for the {side}: {suggestions} suggestions, one a line. "
    "An empty line ends it (an empty first line gives no feedback)."
)


def progress_bar(console: Console, *, transient: bool = False) -> Progress:
    """The bar every long command shows on ``console``: what runs, done of total, elapsed
    time."""
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=transient,
    )


class TerminalPerson:
    """Shows pauses on ``console`` and reads the answers from the terminal.

    ``pause_display`` (optional) returns a context manager that hides a live display, such as a
    progress bar, while the person reads and types. ``measure`` (optional: the game's) words how
    a round ended (:func:`outcome_text`).
    """

    def __init__(
        self,
        console: Console,
        measure: Measure,
        pause_display: Callable[[], AbstractContextManager[Any]] | None = None,
        read_line: Callable[[str], str] | None = None,
    ) -> None:
        self.console = console
        self.pause_display = pause_display or contextlib.nullcontext
        self.read_line = read_line or self._input
        self.measure = measure
        self._lock = asyncio.Lock()
        self._shown: dict[tuple[str, int], int] = {}  # turns already shown per (game, round)
        self._briefed: set[tuple[str, str]] = set()  # (game, side) whose brief was shown

    async def __call__(self, payload: dict[str, Any]) -> str:
        """Show ``payload`` and return the person's answer (one person: one pause at a time)."""
        async with self._lock:
            with self.pause_display():
                if payload.get("kind") == "feedback":
                    return await _in_daemon_thread(lambda: self._feedback(payload))
                return await _in_daemon_thread(lambda: self._turn(payload))

    # --- feedback -------------------------------------------------------------------------

    def _feedback(self, payload: dict[str, Any]) -> str:
        side = payload["side"]
        title = (
            f"Game {payload.get('game_id', '')} after round {payload['round']}: "
            f"the {side}'s record (what the critic would read)"
        )
        self.console.print(Panel(Text(payload["transcript"]), title=title, title_align="left"))
        self.console.print(
            FEEDBACK_HELP.format(side=side, suggestions=payload.get("suggestions", 3)),
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        lines: list[str] = []
        while True:
            try:
                line = self.read_line("> ")
            except EOFError:
                break
            if not line.strip():
                break
            lines.append(line.strip())
        self.console.print(
            f"Feedback recorded ({len(lines)} line(s)).", style="dim", highlight=False
        )
        return "\n".join(lines)

    # --- one line of the negotiation --------------------------------------------------------

    def _turn(self, payload: dict[str, Any]) -> str:
        game, side, number = payload.get("game_id", ""), payload["side"], payload["round"]
        if (game, side) not in self._briefed:
            self._briefed.add((game, side))
            self.console.print(
                Panel(Text(payload["brief"]), title=f"You are the {side}", title_align="left")
            )
        key = (game, number)
        turns = payload["turns"]
        if key not in self._shown:
            rounds = payload.get("rounds")
            of = f" of {rounds}" if rounds else ""
            self.console.rule(f"Game {game}, round {number}{of}")
            if payload.get("instruction"):
                self.console.print(
                    Panel(
                        Text(payload["instruction"]), title="Before this round", title_align="left"
                    )
                )
            self._shown[key] = 0
        for turn in turns[self._shown[key] :]:
            self.console.print(_turn_line(turn, side))
        while True:
            try:
                line = self.read_line(f"you ({side}): ").strip()
            except EOFError:
                raise KeyboardInterrupt from None
            if line:
                break
            self.console.print("Type a line (Ctrl-C stops).", style="dim")
        self._shown[key] = len(turns) + 1  # the person's own line is on screen already
        return line

    def show_round_ends(self, game: dict[str, Any], side: str) -> None:
        """After a game: each round's lines the person has not seen yet, and how it ended."""
        for record in game.get("rounds", []):
            key = (game["game_id"], record["round"])
            for turn in record.get("turns", [])[self._shown.get(key, 0) :]:
                self.console.print(_turn_line(turn, side))
            self._shown[key] = len(record.get("turns", []))
            self.console.print(
                f"Round {record['round']}: {outcome_text(record, self.measure)}",
                style="bold",
                highlight=False,
            )

    @staticmethod
    def _input(prompt: str) -> str:
        return input(prompt)


def outcome_text(record: dict[str, Any], measure: Measure) -> str:
    """``deal at $15`` (a measure in money), ``deal: payoff 0.45`` (another measure), or ``no deal
    (walk_away)``; a deal whose terms hold no ``measure``: the terms as they are (``deal: share
    0.6``)."""
    if record.get("outcome") == "deal":
        value = measure.of(record)
        terms = record.get("terms")
        words = measure.name.replace("_", " ")
        if value is None and isinstance(terms, Mapping) and terms:
            return f"deal: {_terms_text(terms)}"
        if value is None:
            return f"deal at an unclear {words}"
        return f"deal at {format_money(value)}" if measure.money else f"deal: {words} {value:g}"
    if record.get("outcome") == "error":
        return f"stopped by an error ({record.get('reason')})"
    return f"no deal ({record.get('reason')})"


def _terms_text(terms: Mapping[str, Any]) -> str:
    """``share 0.6, exchanges 2``: an agreement's terms, one ``name value`` each."""
    return ", ".join(
        f"{name.replace('_', ' ')} {value:g}"
        if isinstance(value, int | float) and not isinstance(value, bool)
        else f"{name.replace('_', ' ')} {value}"
        for name, value in terms.items()
    )


def _turn_line(turn: dict[str, Any], side: str) -> Text:
    who = "you" if turn["speaker"] == side else turn["speaker"]
    line = Text(f"{who}: ", style="bold cyan" if who == "you" else "bold magenta")
    line.append(turn["text"])
    return line


async def _in_daemon_thread(work: Callable[[], T]) -> T:
    """Run blocking terminal I/O in a daemon thread (an exit never waits for a pending read)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def target() -> None:
        try:
            result = work()
        except BaseException as exc:  # KeyboardInterrupt from EOF included: hand it to the loop
            loop.call_soon_threadsafe(_set_exception, future, exc)
        else:
            loop.call_soon_threadsafe(_set_result, future, result)

    threading.Thread(target=target, name="icl-aif-person", daemon=True).start()
    return await future


def _set_result(future: asyncio.Future[T], result: T) -> None:
    if not future.done():
        future.set_result(result)


def _set_exception(future: asyncio.Future[Any], exc: BaseException) -> None:
    if not future.done():
        future.set_exception(exc)


@contextlib.contextmanager
def paused(display: Any) -> Iterator[None]:
    """Stop a rich live display (``Progress``) while a person types, then start it again."""
    display.stop()
    try:
        yield
    finally:
        display.start()
