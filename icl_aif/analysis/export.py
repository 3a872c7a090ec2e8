"""Training data from a run: chat transcripts for fine-tuning and preference pairs.

``chat`` (OpenAI fine-tuning JSONL): one line per round and side, ``{"messages": [...]}``: the
side's brief as ``system``, its own lines as ``assistant``, the other side's as ``user`` (exactly
the seat a player has in a round; the improved player's carried history of earlier rounds and
feedback is not included). Filters, after filtered behaviour cloning (keep what scored above
average):

- ``all``: every round;
- ``deals``: rounds that ended in a deal whose terms the game could score;
- ``above_mean``: rounds whose score is above the mean score of all scored rounds of the run.

A round's score for a side is its payoff in the game (:meth:`icl_aif.games.base.Game.payoff`:
higher is better for that side). In the price game the seller's is the deal price over its cost
and the buyer's its ceiling (budget, else the list price) less the deal price; a no-deal round
(walk-away, refusal or the cap) scores the side's walk-away value (nothing gained: 0). Rounds
that ended in an error or in a deal whose terms could not be bound have no score and are never
kept by ``above_mean``.

``preference`` (TRL's conversational preference format): ``{"prompt", "chosen", "rejected"}``
message lists from sibling games that share a prefix: the paired feedback arms of one run (game
records with an ``arm`` key), identical up to round ``branch_after`` and continued once per arm.
The prompt is the improved side's view of the shared rounds; each continuation is what followed
in one arm (the feedback turn, the acknowledgement, the later rounds); the arm whose later rounds
scored higher is chosen. Arms with equal scores give no pair.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.transcript import Seat
from icl_aif.engine.protocol import Message, feedback_turns, player_brief
from icl_aif.games.base import turns_as_messages
from icl_aif.games.registry import game_of
from icl_aif.records.layout import CALLS
from icl_aif.records.reader import SkippedLines, read_calls, read_games

logger = logging.getLogger(__name__)

Side = Seat
ChatFilter = Literal["all", "deals", "above_mean"]
FILTERS: tuple[ChatFilter, ...] = ("all", "deals", "above_mean")
FORMATS = ("chat", "preference")
Brief = Callable[[dict[str, Any], int, Side], str]
"""The system message of a side: ``(game record, round, side) -> brief``."""
Score = Callable[[dict[str, Any], dict[str, Any]], float | None]
"""A round's score for one side: ``(game record, round record) -> score`` (None: the round has
none)."""


def side_score(config: ExperimentConfig, side: Side) -> Score:
    """``side``'s score of a round of ``config``'s game: its payoff (the walk-away value for a
    round without an agreement), None for an error or an agreement whose terms were not bound;
    in the scenario the game played (drawn per game by some games: ``Game.game_scenario``)."""
    game = game_of(config)
    scenario = game.scenario_of(config)

    def score(played: dict[str, Any], record: dict[str, Any]) -> float | None:
        if record["outcome"] not in ("deal", "no_deal"):
            return None
        payoff = game.payoff(game.game_scenario(scenario, played), side, record)
        return float(payoff) if payoff is not None else None

    return score


def briefs_from_calls(
    directory: Path, seats: Iterable[Seat], skipped: SkippedLines | None = None
) -> dict[tuple[str, str, int, str], str]:
    """The system message each player (each of ``seats``) received, by (cell, game id, round,
    seat), from calls.jsonl (its damaged lines are skipped with a warning and noted in
    ``skipped``)."""
    players = set(seats)
    briefs: dict[tuple[str, str, int, str], str] = {}
    path = directory / CALLS
    if not path.is_file():
        return briefs
    for call in read_calls(directory, skipped):
        messages = call.get("messages") or []
        if call.get("role") in players and messages and messages[0]["role"] == "system":
            key = (str(call.get("cell") or ""), call["game_id"], int(call["round"]), call["role"])
            briefs.setdefault(key, messages[0]["content"])
    return briefs


class _Briefs:
    """A side's brief: as recorded in calls.jsonl, else rendered from the run's config."""

    def __init__(
        self, directory: Path, config: ExperimentConfig, skipped: SkippedLines | None = None
    ) -> None:
        self.recorded = briefs_from_calls(directory, config.seats, skipped)
        self.config = config
        self._rendered: dict[str, str] = {}

    def get(self, game: dict[str, Any], number: int, side: Side) -> str:
        recorded = self.recorded.get((str(game.get("cell") or ""), game["game_id"], number, side))
        if recorded is not None:
            return recorded
        if side not in self._rendered:  # a person's side, or a run without calls.jsonl
            from icl_aif.core.templates import PromptLibrary

            logger.info("no recorded brief for the %s: rendered from the current prompts", side)
            self._rendered[side] = player_brief(PromptLibrary(), self.config, side)
        return self._rendered[side]


def chat_examples(
    games: Sequence[dict[str, Any]],
    config: ExperimentConfig,
    brief: Brief,
    *,
    side: Side,
    keep: str = "all",
) -> Iterator[dict[str, Any]]:
    """Chat fine-tuning examples (``{"messages": [...]}``), one per kept round, in game order.

    ``brief`` gives the side's system message; ``keep`` is one of ``FILTERS``.
    """
    if keep not in FILTERS:
        raise UsageError(f"--filter {keep!r}: allowed values: {', '.join(FILTERS)}")
    round_score = side_score(config, side)
    scores = [round_score(g, r) for g in games for r in g["rounds"]]
    scored = [s for s in scores if s is not None]
    mean = sum(scored) / len(scored) if scored else None
    seen_shared: set[tuple[str, str, int]] = set()
    for game in games:
        for record in game["rounds"]:
            if record.get("shared"):  # paired arms repeat the shared rounds: export them once
                key = (str(game.get("cell") or ""), game["game_id"], record["round"])
                if key in seen_shared:
                    continue
                seen_shared.add(key)
            score = round_score(game, record)
            if keep == "deals" and not (record["outcome"] == "deal" and score is not None):
                continue
            if keep == "above_mean" and (score is None or mean is None or score <= mean):
                continue
            messages = [
                Message(role="system", content=brief(game, record["round"], side)),
                *turns_as_messages(side, record["turns"]),
            ]
            yield {"messages": messages}


# --- preference pairs from paired feedback arms ------------------------------------------------


def pair_key(game: dict[str, Any]) -> str:
    """What identifies the sibling records of one game across arms: its cell and game id."""
    cell = game.get("cell")
    return f"{cell}/{game['game_id']}" if cell else str(game["game_id"])


def preference_pairs(
    games: Sequence[dict[str, Any]],
    config: ExperimentConfig,
    brief: Brief,
    *,
    side: Side | None = None,
) -> Iterator[dict[str, Any]]:
    """Preference pairs from the arms of each run (see the module docstring).

    Raises :class:`UsageError` when no game record has an ``arm``.
    """
    armed = [g for g in games if g.get("arm") is not None]
    if not armed:
        raise UsageError(
            "preference export needs a run with paired feedback arms (game records with an "
            "'arm' key); this run has none: set arms in the config, e.g. arms: [ai, none]"
        )
    improved: Side = side or config.improve
    round_score = side_score(config, improved)
    groups: dict[str, list[dict[str, Any]]] = {}
    for game in armed:
        groups.setdefault(pair_key(game), []).append(game)
    for key, siblings in groups.items():
        siblings.sort(key=lambda g: str(g["arm"]))
        recorded = siblings[0].get("branch_after")
        shared = int(recorded) if recorded is not None else int(getattr(config, "branch_after", 1))
        for a, b in itertools.combinations(siblings, 2):
            if a.get("status") == "error" or b.get("status") == "error":
                continue
            score_a = _continuation_score(a, shared, round_score)
            score_b = _continuation_score(b, shared, round_score)
            if score_a is None or score_b is None or score_a == score_b:
                continue
            chosen, rejected = (a, b) if score_a > score_b else (b, a)
            prompt = [
                Message(role="system", content=brief(chosen, 1, improved)),
                *_shared_view(chosen, shared, improved),
            ]
            yield {
                "prompt": prompt,
                "chosen": _continuation(chosen, shared, improved),
                "rejected": _continuation(rejected, shared, improved),
                "metadata": {
                    "pair": key,
                    "chosen_arm": chosen["arm"],
                    "rejected_arm": rejected["arm"],
                    "chosen_score": max(score_a, score_b),
                    "rejected_score": min(score_a, score_b),
                },
            }


def _shared_view(game: dict[str, Any], shared: int, side: Side) -> list[Message]:
    """The improved side's view of the shared rounds (the last one without its feedback turn)."""
    messages: list[Message] = []
    for record in game["rounds"][:shared]:
        messages += turns_as_messages(side, record["turns"])
        if record["round"] < shared:
            messages += feedback_turns(record)
    return messages


def _continuation(game: dict[str, Any], shared: int, side: Side) -> list[Message]:
    """What followed the shared rounds in one arm: the feedback turn, then every later round."""
    rounds = game["rounds"]
    messages: list[Message] = feedback_turns(rounds[shared - 1]) if len(rounds) >= shared else []
    for record in rounds[shared:]:
        messages += turns_as_messages(side, record["turns"])
        messages += feedback_turns(record)
    return messages


def _continuation_score(game: dict[str, Any], shared: int, round_score: Score) -> float | None:
    scores = [round_score(game, r) for r in game["rounds"][shared:]]
    known = [s for s in scores if s is not None]
    return sum(known) / len(known) if known else None


# --- files ---------------------------------------------------------------------------------


def export_run(
    directory: Path,
    out: Path | None,
    *,
    fmt: str,
    keep: str = "all",
    side: str | None = None,
    skipped: SkippedLines | None = None,
) -> tuple[Path, int]:
    """Write ``fmt`` examples of the run in ``directory`` to ``out``; returns (path, lines).

    Default ``out``: ``<directory>/export/<fmt>-<side>-<filter>.jsonl``. Damaged lines of
    ``games.jsonl`` and ``calls.jsonl`` are skipped with a warning and noted in ``skipped``.
    """
    from icl_aif.analysis.frames import run_config

    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: allowed values: {', '.join(FORMATS)}")
    if keep not in FILTERS:
        raise UsageError(f"--filter {keep!r}: allowed values: {', '.join(FILTERS)}")
    games = read_games(directory, skipped)  # first: a newer format is refused before its config
    config = run_config(directory)
    if side is not None and side not in config.seats:
        raise UsageError(f"--side {side!r}: allowed values: {config.seats.listed()}")
    chosen_side: Side = side or config.improve
    briefs = _Briefs(directory, config, skipped)
    rows: Iterable[dict[str, Any]]
    if fmt == "chat":
        rows = chat_examples(games, config, briefs.get, side=chosen_side, keep=keep)
    else:
        rows = list(preference_pairs(games, config, briefs.get, side=chosen_side))
    target = out or directory / "export" / f"{fmt}-{chosen_side}-{keep}.jsonl"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        count = 0
        with target.open("w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                count += 1
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror}") from None
    return target, count
