"""Results depend on the seed only: not on the concurrency or the order games finish in."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import games_without_times, quickstart, run


def test_same_seed_same_games_at_concurrency_1_and_16(tmp_path: Path) -> None:
    one = run(quickstart("runs=24", "rounds=3", "concurrency=1"), tmp_path / "c1")
    many = run(quickstart("runs=24", "rounds=3", "concurrency=16"), tmp_path / "c16")
    assert games_without_times(one.directory) == games_without_times(many.directory)
    lines = lambda d: [ln for ln in (d / "games.jsonl").read_text().splitlines()]  # noqa: E731
    strip = lambda ln: ln.split(',"started_at"')[0]  # noqa: E731
    assert [strip(ln) for ln in lines(one.directory)] == [strip(ln) for ln in lines(many.directory)]
    assert one.summary == many.summary


def test_another_seed_gives_other_games(tmp_path: Path) -> None:
    first = run(quickstart("runs=8", "rounds=2", "seed=1"), tmp_path / "s1")
    second = run(quickstart("runs=8", "rounds=2", "seed=2"), tmp_path / "s2")
    assert games_without_times(first.directory) != games_without_times(second.directory)
