"""``icl-aif screen``: the core paper's capability ladder, automated, per seat (issue 26).

Seed 002 screens its models by hand before the main experiments: can a model play the rules of
bargaining, can it use a critic's feedback, does it keep improving over several rounds? Here
each seat of the game climbs the same ladder, against a fixed rival (``scripted:linear`` by
default), each step a run of its own with the usual records:

1. **rules**: one round, no feedback. Each round is checked for breaks of the rules
   (:meth:`icl_aif.games.base.Game.rule_breaks`: the price game's deals outside the range,
   deals below an offer it let pass, asking more than it asked). The step passes when at most
   ``max_breaks`` of the rounds break a rule and at least one round ends in a deal.
2. **feedback**: two rounds, the critic the screened model itself (as in the paper). The step
   passes when the seat's payoff (the game's; its walk-away value without a deal: the price
   game's unconditional score, in payoff units) is higher in round 2 than in round 1 by a paired
   sign-flip permutation test over the runs (one-sided, ``alpha``).
3. **improving**: ``rounds`` rounds. It passes when the last round beats round 2 by the same
   test: the model keeps improving after its first feedback.

A seat's tier is the number of steps it passed in a row (0: does not play the rules, 1: plays
the rules, 2: uses feedback, 3: keeps improving); a step is played only when the one before it
passed, and a step with rounds stopped by an error is not passed (a failure is never read as a
result). ``screen.json`` keeps the tiers, every step's figures and evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

from icl_aif.analysis.metrics import sign_flip_p
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.core.seeds import derive_seed
from icl_aif.core.transcript import Seat
from icl_aif.engine.configs import config_from_dict
from icl_aif.games.base import Game
from icl_aif.games.registry import game_of

__all__ = [
    "STEPS",
    "TIERS",
    "ScreenSettings",
    "SeatScreen",
    "StepResult",
    "game_seats",
    "judge_step",
    "screen_configs",
    "screen_record",
    "screen_seat",
]

STEPS = ("rules", "feedback", "improving")
"""The ladder's steps, in order."""

TIERS = ("does not play the rules", "plays the rules", "uses feedback", "keeps improving")
"""A seat's tier by the number of steps it passed."""

EXAMPLES = 3
"""Example lines kept as evidence per step."""


@dataclass(frozen=True)
class ScreenSettings:
    """What a screen plays: the model (and its endpoint), the game, the rival, how many runs
    each step plays, the rounds of the last step, the seed and the tests' thresholds."""

    model: str
    game: str = "price"
    runs: int = 20
    rounds: int = 4
    rival: str | None = None
    base_url: str | None = None
    seed: int = 0
    alpha: float = 0.05
    max_breaks: float = 0.1

    def rival_model(self, game: Game[Any, Any]) -> str:
        """The rival: as given, else the game's ``scripted:linear``."""
        if self.rival is not None:
            return self.rival
        return (
            "scripted:linear" if "linear" in game.simulators else f"scripted:{game.simulators[0]}"
        )


def game_seats(game: str) -> tuple[Seat, ...]:
    """The seats of ``game`` (an unknown game is one UsageError line naming the known ones)."""
    return config_from_dict({"game": game}, "icl-aif screen").seats.ids


def screen_configs(settings: ScreenSettings, seat: Seat) -> dict[str, ExperimentConfig]:
    """The experiment of each step for ``seat`` (module doc); a bad setting is one
    :class:`~icl_aif.core.errors.UsageError` line, as a config file's would be."""
    probe = config_from_dict({"game": settings.game}, "icl-aif screen")
    game = game_of(probe)
    rival = probe.seats.other(seat)
    role: dict[str, Any] = {"model": settings.model}
    if settings.base_url is not None:
        role["base_url"] = settings.base_url
    configs = {}
    for step in STEPS:
        rounds = {"rules": 1, "feedback": 2, "improving": settings.rounds}[step]
        data = {
            "name": f"screen-{seat}-{step}",
            "game": settings.game,
            "seed": derive_seed(settings.seed, "screen", seat, step) % 2**31,
            "runs": settings.runs,
            "rounds": rounds,
            "improve": seat,
            "acknowledgement": "scripted",
            "roles": {seat: role, rival: {"model": settings.rival_model(game)}},
            "feedback": {"source": "none" if step == "rules" else "ai"},
        }
        configs[step] = config_from_dict(data, f"icl-aif screen ({seat}, {step})")
    return configs


@dataclass
class StepResult:
    """One step of a seat's ladder: whether it passed, its figures and its evidence."""

    step: str
    passed: bool
    runs: int
    figures: dict[str, Any] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    run_dir: str | None = None


@dataclass
class SeatScreen:
    """A seat's ladder: its tier, the steps it played."""

    seat: str
    steps: list[StepResult] = field(default_factory=list)

    @property
    def tier(self) -> int:
        """The steps passed in a row."""
        passed = 0
        for step in self.steps:
            if not step.passed:
                break
            passed += 1
        return passed

    @property
    def label(self) -> str:
        """The tier in words (:data:`TIERS`)."""
        return TIERS[self.tier]

    def record(self) -> dict[str, Any]:
        """As ``screen.json`` keeps it."""
        return {
            "seat": self.seat,
            "tier": self.tier,
            "label": self.label,
            "steps": [asdict(step) for step in self.steps],
        }


def judge_step(
    step: str,
    config: ExperimentConfig,
    games: Sequence[Mapping[str, Any]],
    settings: ScreenSettings,
) -> StepResult:
    """Read a played step's games (``games.jsonl`` records) into its result (module doc)."""
    game = game_of(config)
    seat = config.improve
    errors = [
        f"{g.get('game_id')} round {r.get('round')}: {r.get('reason') or 'an error'}"
        for g in games
        for r in g.get("rounds") or ()
        if r.get("outcome") == "error"
    ]
    errors += [f"{g.get('game_id')}: {g.get('error')}" for g in games if g.get("status") == "error"]
    result = StepResult(step=step, passed=False, runs=len(games))
    if step == "rules":
        _judge_rules(result, game, config, games, settings)
    else:
        first, last = (1, 2) if step == "feedback" else (2, config.rounds)
        _judge_improvement(result, game, config, games, settings, first, last)
    if errors:
        result.passed = False
        result.failures.insert(0, f"{len(errors)} rounds or games stopped by an error")
        result.examples = [*errors[:EXAMPLES], *result.examples][:EXAMPLES]
    result.figures["seat"] = seat
    return result


def _judge_rules(
    result: StepResult,
    game: Game[Any, Any],
    config: ExperimentConfig,
    games: Sequence[Mapping[str, Any]],
    settings: ScreenSettings,
) -> None:
    rounds = deals = broken = 0
    for record in games:
        scenario = game.game_scenario(config.scenario, record)
        for played in record.get("rounds") or ():
            if played.get("outcome") == "error":
                continue
            rounds += 1
            deals += played.get("outcome") == "deal"
            breaks = game.rule_breaks(scenario, config.improve, played)
            if breaks:
                broken += 1
                result.examples += [f"{record.get('game_id')}: {b}" for b in breaks]
    share = broken / rounds if rounds else None
    result.figures.update(rounds=rounds, deals=deals, rounds_with_breaks=broken, break_share=share)
    result.examples = result.examples[:EXAMPLES]
    if not rounds:
        result.failures.append("no round finished")
        return
    if share is not None and share > settings.max_breaks:
        result.failures.append(
            f"{broken} of {rounds} rounds break a rule of bargaining ({share:.0%}; at most "
            f"{settings.max_breaks:.0%} allowed)"
        )
    if deals == 0:
        result.failures.append(f"no deal in {rounds} rounds")
    result.passed = not result.failures


def payoffs_by_round(
    game: Game[Any, Any], config: ExperimentConfig, games: Sequence[Mapping[str, Any]]
) -> dict[str, dict[int, float]]:
    """The improved seat's payoff per game and round (rounds that ended in an error, or a deal
    with no bound terms, left out)."""
    found: dict[str, dict[int, float]] = {}
    for record in games:
        scenario = game.game_scenario(config.scenario, record)
        for played in record.get("rounds") or ():
            payoff = game.payoff(scenario, config.improve, played)
            if payoff is not None:
                found.setdefault(str(record.get("game_id")), {})[int(played["round"])] = payoff
    return found


def _judge_improvement(
    result: StepResult,
    game: Game[Any, Any],
    config: ExperimentConfig,
    games: Sequence[Mapping[str, Any]],
    settings: ScreenSettings,
    first: int,
    last: int,
) -> None:
    payoffs = payoffs_by_round(game, config, games)
    pairs = [(p[first], p[last]) for p in payoffs.values() if first in p and last in p]
    diffs = [b - a for a, b in pairs]
    if not diffs:
        result.failures.append(f"no run has both round {first} and round {last}")
        return
    mean = fmean(diffs)
    two_sided = sign_flip_p(diffs, derive_seed(config.seed, "screen", result.step))
    p = two_sided / 2 if mean > 0 else 1 - two_sided / 2
    result.figures.update(
        rounds=[first, last],
        pairs=len(diffs),
        payoff_first=round(fmean(a for a, _ in pairs), 4),
        payoff_last=round(fmean(b for _, b in pairs), 4),
        mean_difference=round(mean, 4),
        p_one_sided=round(p, 6),
        alpha=settings.alpha,
    )
    if p >= settings.alpha:
        result.failures.append(
            f"payoff round {first} {result.figures['payoff_first']:g} -> round {last} "
            f"{result.figures['payoff_last']:g} (mean change {mean:+.3f}, one-sided p {p:.3f}): "
            f"no improvement beyond noise at alpha {settings.alpha:g}"
        )
        changed = [d for d in diffs if d < 0]
        if changed:
            result.examples.append(f"{len(changed)} of {len(diffs)} runs did worse in round {last}")
    result.passed = not result.failures


Player = Callable[[str, ExperimentConfig, Path], Sequence[Mapping[str, Any]]]
"""Plays a step's experiment into a directory and returns its games (the CLI: under a progress
bar; a test: in process)."""


def screen_seat(settings: ScreenSettings, seat: Seat, out: Path, play: Player) -> SeatScreen:
    """Climb the ladder for ``seat``: each step played (into ``out/<seat>/<step>``) only when
    the one before it passed."""
    screened = SeatScreen(seat=seat)
    for step, config in screen_configs(settings, seat).items():
        directory = out / seat / step
        games = play(step, config, directory)
        result = judge_step(step, config, games, settings)
        result.run_dir = str(directory)
        screened.steps.append(result)
        if not result.passed:
            break
    return screened


def screen_record(settings: ScreenSettings, seats: Sequence[SeatScreen]) -> dict[str, Any]:
    """``screen.json``: the settings and each seat's ladder."""
    return {
        "model": settings.model,
        "game": settings.game,
        "settings": {k: v for k, v in asdict(settings).items() if k != "base_url"},
        "tiers": {s.seat: s.tier for s in seats},
        "seats": [s.record() for s in seats],
    }
