"""Per-round statistics on hand-made runs with known answers."""

from __future__ import annotations

from typing import Any

from icl_aif.analysis.metrics import bootstrap_ci, summarize
from tests.conftest import PRICE_MEASURE


def game(*rounds: tuple[str, float | None, int]) -> dict[str, Any]:
    """A run from (outcome, price, turns) per round; the seller's lines are 10 characters."""
    records = []
    for number, (outcome, price, turns) in enumerate(rounds, start=1):
        lines = [
            {
                "speaker": "buyer" if i % 2 == 0 else "seller",
                "text": "x" * (5 if i % 2 == 0 else 10),
            }
            for i in range(turns)
        ]
        records.append(
            {
                "round": number,
                "turns": lines,
                "outcome": outcome,
                "price": price,
                "reason": None if outcome == "deal" else "cap",
            }
        )
    return {"game_id": "g", "status": "complete", "rounds": records}


def test_deal_rate_price_and_effective_runs() -> None:
    games = [
        game(("deal", 14.0, 6), ("deal", 16.0, 8)),
        game(("deal", 15.0, 6), ("no_deal", None, 20)),
        game(("no_deal", None, 20), ("deal", 18.0, 6)),
        {"game_id": "e", "status": "error", "rounds": [game(("deal", 12.0, 4))["rounds"][0]]},
    ]
    summary = summarize(
        games, rounds=2, runs=4, improve="seller", openers=3, seed=0, measure=PRICE_MEASURE
    )
    first, second = summary["per_round"]
    assert (first["games"], first["deals"], first["deal_rate"]) == (4, 3, 0.75)
    assert first["mean_price"] == round((14 + 15 + 12) / 3, 4)
    assert first["median_price"] == 14.0
    assert (second["games"], second["deals"], second["deal_rate"]) == (3, 2, 0.6667)
    assert second["deal_rate_all_runs"] == 0.5
    assert second["mean_price"] == 17.0
    assert second["no_deal_reasons"] == {"cap": 1}
    assert first["mean_exchanges"] == round((3 + 3 + 10 + 2) / 4, 4)
    assert first["mean_response_chars"] == 10.0  # the seller's generated lines only
    assert summary["errored_runs"] == 1
    assert summary["effective_runs"] == 1
    assert summary["per_round_effective"][1]["mean_price"] == 16.0


def test_bootstrap_ci_is_seeded_and_brackets_the_mean() -> None:
    values = [12.0, 14.0, 15.0, 15.0, 16.0, 18.0, 19.0]
    low, high = bootstrap_ci(values, seed=3)  # type: ignore[misc]
    assert low < sum(values) / len(values) < high
    assert bootstrap_ci(values, seed=3) == [low, high]
    assert bootstrap_ci(values, seed=4) != [low, high]
    assert bootstrap_ci([15.0], seed=0) is None
