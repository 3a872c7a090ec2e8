"""The evaluation design of ``icl-aif optimize`` (issue 27): the optimised instruction against
in-context learning from AI feedback and against no feedback, on held-out scenarios.

Three runs play the same held-out games (a seed of their own, never played by the search), each
``compare_rounds`` rounds against the same rivals:

- ``optimized``: the best instruction in the seat's brief, no feedback and no earlier
  transcript in context (``context: feedback_only`` with source ``none``: only the turns
  between rounds);
- ``icl_aif``: today's loop, the configured feedback source, every earlier round in context;
- ``none``: neither.

Per round and run: the game's score of the improved seat (its measure after a deal, the no-deal
value otherwise) with a 95% bootstrap CI over the games; the paired difference with ``none``
(game by game, the same scenario and seed) with its CI; the improved seat's input tokens per game
in that round (reported usage, else characters / 4): constant for an instruction, growing for
in-context learning; and each run's cost.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from statistics import fmean
from typing import Any

from rich import box
from rich.table import Table

from icl_aif.analysis.estimate import call_tokens
from icl_aif.analysis.metrics import bootstrap_ci
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.seeds import derive_seed
from icl_aif.games.registry import game_of
from icl_aif.records.reader import read_games, read_jsonl

__all__ = [
    "ARMS",
    "COMPARISON_LEGEND",
    "compare_runs",
    "comparison_configs",
    "comparison_rows",
    "comparison_table",
]

ARMS = ("optimized", "icl_aif", "none")
"""The three runs of the comparison, in the order the tables show them."""

COMPARISON_LEGEND = (
    "score: the improved seat's mean score per game (the game's measure after a deal, the "
    "no-deal value otherwise), 95% bootstrap CI over the held-out games (per round); vs none: "
    "the paired difference with no feedback, game by game, and its 95% CI; tokens: the improved "
    "seat's input tokens per game in that round (reported usage, else characters / 4)."
)


def comparison_configs(
    config: ExperimentConfig, heldout_seed: int, best: Path | None
) -> dict[str, ExperimentConfig]:
    """The three runs (module doc): ``best`` is the instruction file (None: the search kept
    none, and ``optimized`` plays the brief alone)."""
    settings = config.optimize
    assert settings is not None
    base: dict[str, Any] = {
        "seed": heldout_seed,
        "runs": settings.heldout,
        "rounds": settings.compare_rounds,
        "arms": None,
        "optimize": None,
        "instructions": {},
    }
    seat = config.improve
    return {
        "optimized": config.cell_config(
            {
                **base,
                "name": f"{config.name}-optimized",
                "feedback.source": "none",
                "context": "feedback_only",
                "instructions": {seat: str(best)} if best else {},
            }
        ),
        "icl_aif": config.cell_config({**base, "name": f"{config.name}-icl_aif"}),
        "none": config.cell_config(
            {**base, "name": f"{config.name}-none", "feedback.source": "none"}
        ),
    }


def _scores(config: ExperimentConfig, directory: Path) -> dict[int, dict[str, float]]:
    """The improved seat's score per round and game (rounds that ended in an error left out)."""
    game = game_of(config)
    measure = game.measure(game.setup(config))
    found: dict[int, dict[str, float]] = defaultdict(dict)
    for record in read_games(directory):
        for played in record.get("rounds") or ():
            if played.get("outcome") == "error":
                continue
            value = measure.of(played) if played.get("outcome") == "deal" else None
            score = measure.no_deal_value if value is None else value
            found[int(played["round"])][str(record["game_id"])] = float(score)
    return found


def _tokens(config: ExperimentConfig, directory: Path) -> dict[int, float]:
    """The improved seat's input tokens per game, by round."""
    per_game: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for call in read_jsonl(directory / "calls.jsonl"):
        if call.get("role") == config.improve:
            per_game[int(call["round"])][str(call["game_id"])] += call_tokens(call)[0]
    return {r: fmean(games.values()) for r, games in per_game.items() if games}


def _cost(directory: Path) -> float:
    return round(
        sum(float(c.get("cost_usd") or 0.0) for c in read_jsonl(directory / "calls.jsonl")), 6
    )


def compare_runs(
    configs: Mapping[str, ExperimentConfig], directories: Mapping[str, Path], seed: int
) -> dict[str, Any]:
    """``comparison.json``: per arm, its cost and per round its score, CI, paired difference
    with ``none`` and tokens (module doc)."""
    scores = {arm: _scores(configs[arm], directories[arm]) for arm in ARMS}
    result: dict[str, Any] = {"arms": {}, "legend": COMPARISON_LEGEND}
    for arm in ARMS:
        tokens = _tokens(configs[arm], directories[arm])
        rounds = []
        for number in sorted(scores[arm]):
            mine = scores[arm][number]
            values = list(mine.values())
            row: dict[str, Any] = {
                "round": number,
                "games": len(values),
                "score": round(fmean(values), 4) if values else None,
                "score_ci95": bootstrap_ci(values, derive_seed(seed, arm, number)),
                "tokens": round(tokens.get(number, 0.0), 1),
            }
            if arm != "none":
                base = scores["none"].get(number, {})
                diffs = [mine[g] - base[g] for g in mine if g in base]
                row["vs_none"] = round(fmean(diffs), 4) if diffs else None
                row["vs_none_ci95"] = bootstrap_ci(diffs, derive_seed(seed, arm, number, "paired"))
            rounds.append(row)
        result["arms"][arm] = {
            "cost_usd": _cost(directories[arm]),
            "run": str(directories[arm]),
            "per_round": rounds,
        }
    return result


def _interval(values: Sequence[float] | None, signed: bool = False) -> str:
    if not values:
        return "-"
    form = "+.2f" if signed else ".2f"
    return f"[{values[0]:{form}}, {values[1]:{form}}]"


def _number(value: float | None, signed: bool = False) -> str:
    if value is None:
        return "-"
    return f"{value:+.3f}" if signed else f"{value:.3f}"


COMPARISON_HEADERS = ("run", "round", "games", "score", "95% CI", "vs none", "95% CI", "tokens")


def comparison_rows(comparison: Mapping[str, Any]) -> list[list[str]]:
    """The comparison as table rows: one per run and round, the cost on each run's first."""
    body = []
    for arm, part in comparison["arms"].items():
        for row in part["per_round"]:
            body.append(
                [
                    arm if row["round"] == 1 else "",
                    str(row["round"]),
                    str(row["games"]),
                    _number(row["score"]),
                    _interval(row["score_ci95"]),
                    _number(row.get("vs_none"), signed=True) if arm != "none" else "",
                    _interval(row.get("vs_none_ci95"), signed=True) if arm != "none" else "",
                    f"{row['tokens']:,.0f}",
                ]
            )
    return body


def comparison_table(comparison: Mapping[str, Any], title: str) -> Table:
    """The comparison for the terminal."""
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False)
    for i, header in enumerate(COMPARISON_HEADERS):
        table.add_column(header, justify="left" if i == 0 else "right")
    for row in comparison_rows(comparison):
        table.add_row(*row)
    return table
