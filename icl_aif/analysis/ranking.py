"""Rankings of a tournament: seat-corrected skills, and regrets in the meta-game's equilibrium.

A tournament's games each put one player in the game's first seat and one in its second; each
game gives one number, the first seat's **margin** over the second (its payoff share minus the
second seat's, see :mod:`icl_aif.analysis.tournament`). Two rankings are read from them:

**Skills** (:func:`fit_skills`). The margin of a game between ``i`` in the first seat and ``j``
in the second is modelled as ``h + a[i] - b[j] + noise``: ``h`` is the first seat's advantage,
``a[i]`` the skill of ``i`` in the first seat and ``b[j]`` that of ``j`` in the second, each
seat's skills centred on zero over the players that sat there. A player's overall skill is the
mean of its two. The fit is least squares over the games; it needs every player of a seat linked
to every other through the schedule (the players who met, seat by seat, form one connected
group). The model is additive on the margin scale, with the noise independent between games and
of equal spread; under an unbalanced schedule it corrects what plain means cannot, the strength of
the opponents each player happened to meet.

**Regrets** (:func:`meta_game`, :func:`max_entropy_nash`). The empirical meta-game is the
symmetric zero-sum game in which each side picks a player and the row side wins half the margin
difference of the two orders, ``M[i, j] = (m(i, j) - m(j, i)) / 2``, ``m(i, j)`` the mean margin
of ``i`` first against ``j`` second (a pairing the schedule left out is filled from the skills'
model). Among its Nash equilibria the one of maximum entropy is unique; a player's regret is what
it loses against that mixture, ``-(M p)[i]``, zero for the players in its support (Balduzzi et
al. 2018; Smithline and Wellman 2025 rank agents by such regrets).

**Uncertainty** (:func:`bootstrap`). Games are resampled within each pairing (who sat first, who
second), so the schedule stays as it was played: a cluster bootstrap over pairings. A pairing's
resampled mean is spread by ``sqrt(n / (n - 1))`` about its mean, so that a pairing of few games
varies as much as its sample variance says (the plain bootstrap of ``n`` values understates it by
``(n - 1) / n``). Each resample refits the skills and solves the meta-game again; the 95%
intervals are percentiles.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.optimize import LinearConstraint, linprog, minimize

from icl_aif.core.errors import UsageError

__all__ = [
    "Interval",
    "Meeting",
    "Ranking",
    "Skills",
    "bootstrap",
    "fit_skills",
    "max_entropy_nash",
    "meta_game",
    "plain_means",
    "rank",
]

RESAMPLES = 1000
"""Bootstrap resamples of a ranking."""


@dataclass(frozen=True)
class Meeting:
    """One game of a tournament: the player in the first seat, the one in the second, and the
    first seat's margin over the second."""

    first: str
    second: str
    margin: float


@dataclass(frozen=True)
class Skills:
    """The fitted skills: per player in the first and in the second seat (None where it never
    sat there), overall (the mean of the two, None without both) and the first seat's
    advantage ``h``."""

    first: dict[str, float | None]
    second: dict[str, float | None]
    overall: dict[str, float | None]
    seat_advantage: float


@dataclass(frozen=True)
class Interval:
    """A bootstrap percentile interval."""

    low: float
    high: float

    def covers(self, value: float) -> bool:
        """Whether ``value`` lies in the interval."""
        return self.low <= value <= self.high


@dataclass(frozen=True)
class Ranking:
    """A tournament's ranking: the skills and regrets with their 95% intervals, the meta-game's
    equilibrium mixture, plain means for comparison, and the counts behind them."""

    players: tuple[str, ...]
    skills: Skills
    skill_ci: dict[str, dict[str, Interval | None]]  # seat ("first", "second", "overall") -> player
    seat_advantage_ci: Interval
    regret: dict[str, float]
    regret_ci: dict[str, Interval]
    mixture: dict[str, float]
    plain: dict[str, float | None]
    games: int
    pairings: int
    filled: int  # pairings of the meta-game filled in from the model
    resamples: int

    def order(self) -> list[str]:
        """The players by overall skill, best first (those without one last, by name)."""
        known = [p for p in self.players if self.skills.overall[p] is not None]
        unknown = sorted(p for p in self.players if self.skills.overall[p] is None)
        return sorted(known, key=lambda p: -(self.skills.overall[p] or 0.0)) + unknown


# ---------------------------------------------------------------------------------------------
# Pairings
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Pairings:
    """The games grouped by pairing: each pairing's players, count and mean margin."""

    players: tuple[str, ...]
    keys: list[tuple[str, str]]
    counts: np.ndarray
    margins: list[np.ndarray]

    @classmethod
    def of(cls, meetings: Sequence[Meeting], players: Sequence[str]) -> _Pairings:
        grouped: dict[tuple[str, str], list[float]] = defaultdict(list)
        for m in meetings:
            grouped[m.first, m.second].append(m.margin)
        keys = sorted(grouped)
        return cls(
            players=tuple(players),
            keys=keys,
            counts=np.array([len(grouped[k]) for k in keys], dtype=float),
            margins=[np.array(grouped[k], dtype=float) for k in keys],
        )

    def means(self) -> np.ndarray:
        return np.array([values.mean() for values in self.margins])


def _check_players(meetings: Sequence[Meeting], players: Sequence[str]) -> None:
    known = set(players)
    for m in meetings:
        for name in (m.first, m.second):
            if name not in known:
                raise UsageError(f"the games name a player {name!r} the tournament does not list")
        if not math.isfinite(m.margin):
            raise UsageError(f"a game of {m.first} v {m.second} has no finite margin")


def _connected(keys: Iterable[tuple[str, str]]) -> list[set[str]]:
    """The groups of seat places (``1:name``, ``2:name``) linked by the pairings played."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for first, second in keys:
        parent[find(f"1:{first}")] = find(f"2:{second}")
    groups: dict[str, set[str]] = defaultdict(set)
    for x in list(parent):
        groups[find(x)].add(x)
    return list(groups.values())


class _Design:
    """The least-squares design of the skills' model over the pairings (rows weighted by their
    game counts): ``solve(means)`` gives the parameters ``[h, a..., b...]``."""

    def __init__(self, pairings: _Pairings) -> None:
        firsts = sorted({f for f, _ in pairings.keys})
        seconds = sorted({s for _, s in pairings.keys})
        self.firsts, self.seconds = firsts, seconds
        col_a = {p: 1 + i for i, p in enumerate(firsts)}
        col_b = {p: 1 + len(firsts) + i for i, p in enumerate(seconds)}
        width = 1 + len(firsts) + len(seconds)
        rows = np.zeros((len(pairings.keys), width))
        for r, (f, s) in enumerate(pairings.keys):
            rows[r, 0] = 1.0
            rows[r, col_a[f]] = 1.0
            rows[r, col_b[s]] = -1.0
        weights = np.sqrt(pairings.counts)[:, None]
        constraints = np.zeros((2, width))
        constraints[0, 1 : 1 + len(firsts)] = 1.0
        constraints[1, 1 + len(firsts) :] = 1.0
        system = np.vstack([rows * weights, constraints])
        self._solver = np.linalg.pinv(system)[:, : len(pairings.keys)] * weights.T
        self.col_a, self.col_b = col_a, col_b

    def solve(self, means: np.ndarray) -> np.ndarray:
        """Parameters for pairing means ``means`` (one row per resample for a 2-d array)."""
        params: np.ndarray = means @ self._solver.T
        return params


def _skills(design: _Design, params: np.ndarray, players: Sequence[str]) -> Skills:
    first = {p: float(params[design.col_a[p]]) if p in design.col_a else None for p in players}
    second = {p: float(params[design.col_b[p]]) if p in design.col_b else None for p in players}
    overall: dict[str, float | None] = {}
    for p in players:
        a, b = first[p], second[p]
        overall[p] = None if a is None or b is None else (a + b) / 2
    return Skills(first=first, second=second, overall=overall, seat_advantage=float(params[0]))


def fit_skills(meetings: Sequence[Meeting], players: Sequence[str]) -> Skills:
    """The skills' least-squares fit (module doc). Refused, in one line, when the games do not
    link every player of a seat to the others."""
    pairings, design = _prepared(meetings, players)
    return _skills(design, design.solve(pairings.means()), players)


def _prepared(meetings: Sequence[Meeting], players: Sequence[str]) -> tuple[_Pairings, _Design]:
    """The games by pairing and the model's design, once the games are checked."""
    _check_players(meetings, players)
    pairings = _Pairings.of(meetings, players)
    _check_linked(pairings)
    return pairings, _Design(pairings)


def _check_linked(pairings: _Pairings) -> None:
    if not pairings.keys:
        raise UsageError("the tournament has no finished games to rank")
    groups = _connected(pairings.keys)
    if len(groups) > 1:
        shown = " | ".join(
            ", ".join(sorted({place[2:] for place in group})) for group in groups[:3]
        )
        raise UsageError(
            f"the schedule splits the players into {len(groups)} groups that never meet, "
            f"seat by seat ({shown}): their skills cannot be compared; add pairings between them"
        )


def plain_means(meetings: Sequence[Meeting], players: Sequence[str]) -> dict[str, float | None]:
    """Each player's mean margin over its games, from its own seat (the second seat's margin
    is the first's, negated): what a ranking without the model reads."""
    totals: dict[str, list[float]] = defaultdict(list)
    for m in meetings:
        totals[m.first].append(m.margin)
        totals[m.second].append(-m.margin)
    return {p: float(np.mean(totals[p])) if totals[p] else None for p in players}


# ---------------------------------------------------------------------------------------------
# The meta-game
# ---------------------------------------------------------------------------------------------


def meta_game(
    means: dict[tuple[str, str], float], skills: Skills, players: Sequence[str]
) -> tuple[np.ndarray, int]:
    """The meta-game's payoff matrix ``M`` (rows and columns in the order of ``players``) and
    how many ordered pairings it filled in from the skills' model (``h + a[i] - b[j]``)."""
    filled = 0
    n = len(players)
    margin = np.zeros((n, n))
    for r, i in enumerate(players):
        for c, j in enumerate(players):
            if (i, j) in means:
                margin[r, c] = means[i, j]
                continue
            a, b = skills.first[i], skills.second[j]
            if a is None or b is None:  # a player who never sat in a seat: its overall skill
                a = skills.overall[i] if a is None else a
                b = skills.overall[j] if b is None else b
            margin[r, c] = skills.seat_advantage + (a or 0.0) - (b or 0.0)
            filled += int(i != j)
    return (margin - margin.T) / 2, filled


def max_entropy_nash(payoff: np.ndarray, tolerance: float = 1e-9) -> np.ndarray:
    """The maximum-entropy Nash equilibrium of the symmetric zero-sum game ``payoff``
    (antisymmetric): the mixture ``p`` with ``payoff @ p <= 0`` of greatest entropy."""
    n = len(payoff)
    if n == 1:
        return np.ones(1)
    found = linprog(
        np.zeros(n),
        A_ub=payoff,
        b_ub=np.full(n, tolerance),
        A_eq=np.ones((1, n)),
        b_eq=[1.0],
        bounds=[(0.0, 1.0)] * n,
        method="highs",
    )
    start = found.x if found.success else np.full(n, 1.0 / n)

    def negative_entropy(p: np.ndarray) -> float:
        q = np.clip(p, 1e-300, None)
        return float(np.sum(q * np.log(q)))

    def gradient(p: np.ndarray) -> np.ndarray:
        slope: np.ndarray = np.log(np.clip(p, 1e-12, None)) + 1.0
        return slope

    result = minimize(
        negative_entropy,
        start,
        jac=gradient,
        bounds=[(0.0, 1.0)] * n,
        constraints=[
            LinearConstraint(payoff, -np.inf, tolerance),
            LinearConstraint(np.ones((1, n)), 1.0, 1.0),
        ],
        method="SLSQP",
        options={"maxiter": 500, "ftol": 1e-12},
    )
    p = result.x if result.success else start
    feasible = np.all(payoff @ p <= 1e-6) and abs(p.sum() - 1.0) < 1e-6
    p = np.clip(p if feasible else start, 0.0, None)
    mixture: np.ndarray = p / p.sum()
    return mixture


def regrets(payoff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The maximum-entropy equilibrium of ``payoff`` and each player's regret against it."""
    mixture = max_entropy_nash(payoff)
    return mixture, np.clip(-(payoff @ mixture), 0.0, None)


# ---------------------------------------------------------------------------------------------
# Ranking with its uncertainty
# ---------------------------------------------------------------------------------------------


def _interval(values: np.ndarray) -> Interval:
    low, high = np.percentile(values, [2.5, 97.5])
    return Interval(float(low), float(high))


def bootstrap(
    meetings: Sequence[Meeting],
    players: Sequence[str],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
    with_regrets: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Cluster-bootstrap resamples (games drawn again within each pairing): the skills'
    parameters ``[h, a..., b...]`` per resample (rows) and, ``with_regrets``, each resample's
    regrets in its meta-game (rows, in the order of ``players``)."""
    pairings, design = _prepared(meetings, players)
    return _resampled(pairings, design, players, resamples, seed, with_regrets)


def _resampled(
    pairings: _Pairings,
    design: _Design,
    players: Sequence[str],
    resamples: int,
    seed: int,
    with_regrets: bool,
) -> tuple[np.ndarray, np.ndarray | None]:
    """:func:`bootstrap` of games already grouped and checked."""
    rng = np.random.default_rng(seed)
    means = np.empty((resamples, len(pairings.keys)))
    for k, values in enumerate(pairings.margins):
        n = len(values)
        draws = values[rng.integers(0, n, size=(resamples, n))].mean(axis=1)
        spread = math.sqrt(n / (n - 1)) if n > 1 else 1.0
        means[:, k] = values.mean() + spread * (draws - values.mean())
    params = design.solve(means)
    if not with_regrets:
        return params, None
    regret_rows = np.empty((resamples, len(players)))
    for r in range(resamples):
        skills = _skills(design, params[r], players)
        payoff, _ = meta_game(dict(zip(pairings.keys, means[r], strict=True)), skills, players)
        regret_rows[r] = regrets(payoff)[1]
    return params, regret_rows


def rank(
    meetings: Sequence[Meeting],
    players: Sequence[str],
    *,
    resamples: int = RESAMPLES,
    seed: int = 0,
) -> Ranking:
    """The ranking of ``meetings`` (module doc), its intervals from ``resamples`` cluster
    bootstrap resamples seeded with ``seed``."""
    players = tuple(players)
    pairings, design = _prepared(meetings, players)
    skills = _skills(design, design.solve(pairings.means()), players)
    payoff, filled = meta_game(
        dict(zip(pairings.keys, pairings.means(), strict=True)), skills, players
    )
    mixture, regret = regrets(payoff)
    params, regret_rows = _resampled(pairings, design, players, resamples, seed, True)
    assert regret_rows is not None
    skill_ci: dict[str, dict[str, Interval | None]] = {"first": {}, "second": {}, "overall": {}}
    for p in players:
        a = params[:, design.col_a[p]] if p in design.col_a else None
        b = params[:, design.col_b[p]] if p in design.col_b else None
        skill_ci["first"][p] = None if a is None else _interval(a)
        skill_ci["second"][p] = None if b is None else _interval(b)
        skill_ci["overall"][p] = None if a is None or b is None else _interval((a + b) / 2)
    return Ranking(
        players=players,
        skills=skills,
        skill_ci=skill_ci,
        seat_advantage_ci=_interval(params[:, 0]),
        regret={p: float(regret[k]) for k, p in enumerate(players)},
        regret_ci={p: _interval(regret_rows[:, k]) for k, p in enumerate(players)},
        mixture={p: float(mixture[k]) for k, p in enumerate(players)},
        plain=plain_means(meetings, players),
        games=len(meetings),
        pairings=len(pairings.keys),
        filled=filled,
        resamples=resamples,
    )
