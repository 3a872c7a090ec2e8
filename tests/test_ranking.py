"""The ranking's statistics (icl_aif/analysis/ranking.py) on games drawn from known skills."""

from __future__ import annotations

import numpy as np
import pytest

from icl_aif.analysis.ranking import (
    Meeting,
    bootstrap,
    fit_skills,
    max_entropy_nash,
    plain_means,
    rank,
)
from icl_aif.core.errors import UsageError

TRUE = {"ace": 0.3, "bee": 0.2, "cat": -0.2, "dog": -0.3}
"""Each player's skill, the same in both seats; the first seat's advantage is ADVANTAGE."""
ADVANTAGE = 0.1
# Unbalanced: ace meets almost only bee, the second best; bee meets mostly the two weakest.
SCHEDULE = {
    ("ace", "bee"): 20,
    ("bee", "ace"): 20,
    ("bee", "cat"): 20,
    ("cat", "bee"): 20,
    ("bee", "dog"): 20,
    ("dog", "bee"): 20,
    ("ace", "cat"): 5,
    ("cat", "ace"): 5,
    ("cat", "dog"): 10,
    ("dog", "cat"): 10,
}
PLAYERS = list(TRUE)


def drawn(seed: int, noise: float = 0.15) -> list[Meeting]:
    rng = np.random.default_rng(seed)
    return [
        Meeting(first, second, ADVANTAGE + TRUE[first] - TRUE[second] + rng.normal(0, noise))
        for (first, second), games in SCHEDULE.items()
        for _ in range(games)
    ]


def test_the_fit_recovers_the_skills_and_the_seat_advantage() -> None:
    skills = fit_skills(drawn(0, noise=0.0), PLAYERS)
    assert skills.seat_advantage == pytest.approx(ADVANTAGE)
    for player, skill in TRUE.items():
        assert skills.first[player] == pytest.approx(skill)
        assert skills.second[player] == pytest.approx(skill)
        assert skills.overall[player] == pytest.approx(skill)


def test_over_repetitions_the_order_holds_and_the_intervals_cover_while_plain_means_misorder() -> (
    None
):
    repetitions, covered, checked, ordered, misordered = 60, 0, 0, 0, 0
    for repetition in range(repetitions):
        games = drawn(100 + repetition)
        skills = fit_skills(games, PLAYERS)
        ordered += sorted(PLAYERS, key=lambda p: -(skills.overall[p] or 0.0)) == PLAYERS
        plain = plain_means(games, PLAYERS)
        misordered += (plain["bee"] or 0.0) > (plain["ace"] or 0.0)
        params, _ = bootstrap(games, PLAYERS, resamples=400, seed=repetition, with_regrets=False)
        # columns: [h, first-seat skills (sorted names), second-seat skills (sorted names)]
        names = sorted(PLAYERS)
        for k, player in enumerate(names):
            for column in (1 + k, 1 + len(names) + k):
                low, high = np.percentile(params[:, column], [2.5, 97.5])
                covered += low <= TRUE[player] <= high
                checked += 1
    assert ordered == repetitions  # the true order, every time
    assert covered / checked >= 0.90  # seat-specific skills: 95% intervals cover the truth
    assert misordered == repetitions  # plain means put bee above ace on this schedule


def test_the_ranking_reports_regrets_in_the_max_entropy_equilibrium() -> None:
    ranking = rank(drawn(1), PLAYERS, resamples=200, seed=0)
    assert ranking.order() == PLAYERS
    assert ranking.mixture["ace"] == pytest.approx(1.0, abs=1e-6)  # transitive: the best alone
    assert ranking.regret["ace"] == pytest.approx(0.0, abs=1e-6)
    assert ranking.regret["bee"] < ranking.regret["cat"] < ranking.regret["dog"]
    assert ranking.skill_ci["overall"]["ace"] is not None
    assert ranking.skill_ci["overall"]["ace"].covers(TRUE["ace"])
    assert ranking.filled == 2  # ace and dog never met: their pairing comes from the model


def test_rock_paper_scissors_mixes_evenly_and_nobody_regrets() -> None:
    payoff = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])
    assert max_entropy_nash(payoff) == pytest.approx([1 / 3] * 3, abs=1e-6)


def test_equal_players_share_the_equilibrium() -> None:
    # two identical best players beat a third: maximum entropy splits the weight between them
    payoff = np.array([[0.0, 0.0, 0.5], [0.0, 0.0, 0.5], [-0.5, -0.5, 0.0]])
    assert max_entropy_nash(payoff) == pytest.approx([0.5, 0.5, 0.0], abs=1e-6)


def test_players_who_never_meet_across_groups_are_refused_in_one_line() -> None:
    games = [Meeting("ace", "bee", 0.1), Meeting("cat", "dog", 0.2)]
    with pytest.raises(UsageError, match="2 groups that never meet"):
        fit_skills(games, PLAYERS)
