"""A tournament run, ranked: its games as meetings of players, and the ranking's files.

A game's **margin** is the first seat's payoff share minus the second seat's, each share its
payoff scaled to the range the game's simulators can get in that seat
(``Game.payoff_bounds``: 0 at the least, 1 at the most), averaged over the game's rounds that
ended in an agreement or without one (a round that ended in an error, or whose agreement has no
terms, is left out; a game without such a round is not counted). Rounds of one game are one
cluster: the game counts once. :mod:`icl_aif.analysis.ranking` ranks the players from the
margins; :func:`rank_run` writes ``ranking.json``, the ``Ranking`` section of ``summary.md`` and
``plots/ranking.png``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icl_aif.analysis.frames import run_config
from icl_aif.analysis.ranking import RESAMPLES, Interval, Meeting, Ranking, rank
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.games.registry import game_of
from icl_aif.records.reader import SkippedLines, read_games

__all__ = [
    "RANKING",
    "TournamentGames",
    "advantage_line",
    "rank_run",
    "ranking_entry",
    "ranking_markdown",
    "ranking_table",
    "shown",
    "tournament_games",
]

logger = logging.getLogger(__name__)

RANKING = "ranking.json"
"""The ranking of a tournament run, written by ``icl-aif rank``."""
SECTION = "## Ranking"
"""The heading of the ranking's section in ``summary.md`` (replaced on every ``rank``)."""


@dataclass(frozen=True)
class TournamentGames:
    """A tournament run's games as meetings, its players and seats, and the games left out."""

    config: ExperimentConfig
    players: tuple[str, ...]
    seats: tuple[str, str]
    meetings: list[Meeting]
    left_out: int


def tournament_games(directory: Path, skipped: SkippedLines | None = None) -> TournamentGames:
    """The meetings of the tournament run in ``directory`` (module doc); a run that is no
    tournament is a one-line error."""
    config = run_config(directory)
    if config.tournament is None:
        raise UsageError(
            f"{directory}: not a tournament (its config.yaml has no tournament:); icl-aif rank "
            "ranks the players of one, e.g. experiments/tournament.yaml"
        )
    game = game_of(config)
    first, second = config.seats.ids[0], config.seats.ids[1]
    cells = {cell.id: cell for cell in config.cells()}
    meetings: list[Meeting] = []
    left_out = 0
    for record in read_games(directory, skipped):
        cell = cells.get(record.get("cell"))
        if cell is None or cell.players is None:
            left_out += 1
            continue
        scenario = game.game_scenario(game.scenario_of(cell.config), record)
        bounds = {seat: game.payoff_bounds(scenario, seat) for seat in (first, second)}
        margins = []
        for played in record.get("rounds") or []:
            if played.get("outcome") not in ("deal", "no_deal"):
                continue
            shares = []
            for seat in (first, second):
                payoff = game.payoff(scenario, seat, played)
                low, high = bounds[seat]
                if payoff is None or high <= low:
                    break
                shares.append((payoff - low) / (high - low))
            if len(shares) == 2:
                margins.append(shares[0] - shares[1])
        if not margins:
            left_out += 1
            continue
        meetings.append(
            Meeting(cell.players[first], cell.players[second], sum(margins) / len(margins))
        )
    players = tuple(p.name for p in config.tournament.players)
    return TournamentGames(config, players, (first, second), meetings, left_out)


def _ci(interval: Interval | None) -> list[float] | None:
    return None if interval is None else [interval.low, interval.high]


def ranking_entry(ranking: Ranking, games: TournamentGames, seed: int) -> dict[str, Any]:
    """``ranking.json``: per player (best first) its skills with 95% intervals, regret, share of
    the equilibrium mixture and plain mean; the seat advantage; what the figures rest on."""
    first, second = games.seats
    rows = []
    for player in ranking.order():
        rows.append(
            {
                "player": player,
                "skill": ranking.skills.overall[player],
                "skill_ci95": _ci(ranking.skill_ci["overall"][player]),
                f"skill_{first}": ranking.skills.first[player],
                f"skill_{first}_ci95": _ci(ranking.skill_ci["first"][player]),
                f"skill_{second}": ranking.skills.second[player],
                f"skill_{second}_ci95": _ci(ranking.skill_ci["second"][player]),
                "regret": ranking.regret[player],
                "regret_ci95": _ci(ranking.regret_ci[player]),
                "equilibrium_share": ranking.mixture[player],
                "plain_mean_margin": ranking.plain[player],
                "games": sum(1 for m in games.meetings if player in (m.first, m.second)),
            }
        )
    return {
        "players": rows,
        "seats": [first, second],
        "seat_advantage": ranking.skills.seat_advantage,
        "seat_advantage_ci95": _ci(ranking.seat_advantage_ci),
        "games": ranking.games,
        "games_left_out": games.left_out,
        "pairings": ranking.pairings,
        "pairings_filled_by_model": ranking.filled,
        "bootstrap": {
            "resamples": ranking.resamples,
            "seed": seed,
            "level": 0.95,
            "method": "percentile, games resampled within each pairing",
        },
        "margin": f"{first}'s payoff share minus {second}'s, per game (mean over its rounds)",
    }


def shown(value: float | None, ci: Sequence[float] | None = None, signed: bool = True) -> str:
    """A figure with its interval (``+0.092 [+0.073, +0.108]``); ``n/a`` without one."""
    if value is None:
        return "n/a"
    form = "{:+.3f}" if signed else "{:.3f}"
    text = form.format(value)
    return text if ci is None else f"{text} [{form.format(ci[0])}, {form.format(ci[1])}]"


def ranking_table(entry: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The ranking as a table, best first: its headers and rows of text (the terminal's, the
    HTML report's and ``summary.md``'s)."""
    first, second = entry["seats"]
    headers = ["rank", "player", "skill [95% CI]", f"as {first}", f"as {second}"]
    headers += ["regret [95% CI]", "equilibrium share", "plain mean", "games"]
    rows = [
        [
            str(number),
            row["player"],
            shown(row["skill"], row["skill_ci95"]),
            shown(row[f"skill_{first}"], row[f"skill_{first}_ci95"]),
            shown(row[f"skill_{second}"], row[f"skill_{second}_ci95"]),
            shown(row["regret"], row["regret_ci95"], signed=False),
            f"{row['equilibrium_share']:.2f}",
            shown(row["plain_mean_margin"]),
            str(row["games"]),
        ]
        for number, row in enumerate(entry["players"], start=1)
    ]
    return headers, rows


def advantage_line(entry: dict[str, Any]) -> str:
    """The first seat's advantage with its interval, and what the margin is."""
    first, second = entry["seats"]
    advantage = shown(entry["seat_advantage"], entry["seat_advantage_ci95"])
    return f"{first}'s advantage over {second}: {advantage} (margin: {entry['margin']})."


def ranking_markdown(entry: dict[str, Any]) -> str:
    """The ranking as the ``Ranking`` section of ``summary.md``."""
    headers, rows = ranking_table(entry)
    lines = [SECTION, "", "| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    lines += [
        "",
        advantage_line(entry),
        "Skill: least squares of each game's margin on the seat's advantage and the players' "
        "skills per seat, each seat's skills centred on zero; a player's skill is the mean of "
        "its two. Regret: what the player loses against the maximum-entropy equilibrium of the "
        "meta-game (0 in its support). Plain mean: the player's mean margin from its own seat, "
        "uncorrected for whom it met.",
        f"95% intervals: {entry['bootstrap']['resamples']} cluster-bootstrap resamples (games "
        f"within each pairing), seed {entry['bootstrap']['seed']}; {entry['games']} games in "
        f"{entry['pairings']} pairings"
        + (
            f", {entry['games_left_out']} left out (no scored round)"
            if entry["games_left_out"]
            else ""
        )
        + (
            f"; {entry['pairings_filled_by_model']} pairings of the meta-game filled in from the "
            "skills' model"
            if entry["pairings_filled_by_model"]
            else ""
        )
        + ".",
        "",
    ]
    return "\n".join(lines)


def _replace_section(markdown: str, section: str) -> str:
    """``markdown`` with its ranking section (to the next ``## `` heading) replaced by
    ``section``, or ``section`` appended."""
    start = markdown.find(SECTION)
    if start < 0:
        return markdown.rstrip("\n") + "\n\n" + section
    end = markdown.find("\n## ", start + len(SECTION))
    rest = markdown[end + 1 :] if end >= 0 else ""
    return markdown[:start] + section + ("\n" + rest if rest else "")


def rank_run(
    directory: Path,
    *,
    resamples: int = RESAMPLES,
    seed: int | None = None,
    skipped: SkippedLines | None = None,
) -> tuple[dict[str, Any], Ranking, TournamentGames]:
    """Rank the tournament run in ``directory``: write ``ranking.json``, the ``Ranking``
    section of ``summary.md`` and ``plots/ranking.png``; the entry, the ranking and its games.
    ``seed`` defaults to the run's bootstrap seed."""
    games = tournament_games(directory, skipped)
    seed = games.config.bootstrap_seed if seed is None else seed
    ranking = rank(games.meetings, games.players, resamples=resamples, seed=seed)
    entry = ranking_entry(ranking, games, seed)
    (directory / RANKING).write_text(json.dumps(entry, indent=2) + "\n", encoding="utf-8")
    summary_md = directory / "summary.md"
    if summary_md.is_file():
        text = summary_md.read_text(encoding="utf-8")
        summary_md.write_text(_replace_section(text, ranking_markdown(entry)), encoding="utf-8")
    from icl_aif.analysis.plots import ranking_plot

    plots = directory / "plots"
    plots.mkdir(exist_ok=True)
    ranking_plot(entry, plots / "ranking.png")
    logger.info("ranking of %s written to %s", directory, directory / RANKING)
    return entry, ranking, games
