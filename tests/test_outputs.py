"""What researchers take away from a run: plots, the analysis frames, compare and export."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import icl_aif
from icl_aif.analysis.compare import compare_games, compare_runs, newcombe_interval, wilson_interval
from icl_aif.analysis.export import chat_examples, export_run, preference_pairs
from icl_aif.analysis.frames import CALL_COLUMNS, TURN_COLUMNS, load_run, round_columns, run_columns
from icl_aif.analysis.plots import PLOT_FILES, PLOTS, plots_for_run
from icl_aif.core.errors import UsageError
from icl_aif.records.reader import read_games, read_jsonl
from icl_aif.run.runner import RunResult
from tests.conftest import PRICE_MEASURE, quickstart, run
from tests.conftest import icl_aif as cli

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


# --- plots -------------------------------------------------------------------------------------


def test_plots_are_png_files_with_fixed_names_and_same_bytes_twice(small_run: RunResult) -> None:
    paths = plots_for_run(small_run.directory)
    assert [p.name for p in paths] == list(PLOT_FILES)
    assert {p.name for p in (small_run.directory / PLOTS).iterdir()} == set(PLOT_FILES)
    first = {p.name: p.read_bytes() for p in paths}
    for name, data in first.items():
        width, height = _png_size(data)
        assert width >= 400 and height >= 300, name
    again = {p.name: p.read_bytes() for p in plots_for_run(small_run.directory)}
    assert again == first  # deterministic: same records, same bytes


def test_cli_run_writes_plots_and_report_plots_rewrites_them(tmp_path: Path) -> None:
    from tests.conftest import QUICKSTART

    out = tmp_path / "run"
    result = cli("run", QUICKSTART, "--out", out, "--set", "runs=3", "--set", "rounds=2")
    assert result.returncode == 0, result.stderr
    assert {p.name for p in (out / PLOTS).iterdir()} == set(PLOT_FILES)
    for name in PLOT_FILES:
        (out / PLOTS / name).unlink()
    report = cli("report", out, "--plots")
    assert report.returncode == 0, report.stderr
    assert f"4 plots written to {out / PLOTS}" in report.stdout
    assert all((out / PLOTS / n).read_bytes()[:8] == PNG_SIGNATURE for n in PLOT_FILES)


# --- load_run ----------------------------------------------------------------------------------


def test_load_run_frames_match_the_records(small_run: RunResult) -> None:
    d = small_run.directory
    run = icl_aif.load_run(d)
    games = read_games(d)
    calls = list(read_jsonl(d / "calls.jsonl"))
    assert "load_run" in icl_aif.__all__ and "Run" in icl_aif.__all__
    assert list(run.runs.columns) == list(run_columns("price"))  # the price game's measure
    assert list(run.rounds.columns) == list(round_columns("price"))
    assert "mean_price" in run.runs.columns and "price" in run.rounds.columns
    assert list(run.turns.columns) == list(TURN_COLUMNS)
    assert list(run.calls.columns) == list(CALL_COLUMNS)
    assert run.runs.shape[0] == 6
    assert run.rounds.shape[0] == sum(len(g["rounds"]) for g in games) == 18
    assert run.turns.shape[0] == sum(len(r["turns"]) for g in games for r in g["rounds"])
    assert run.calls.shape[0] == len(calls)
    assert run.manifest["seed"] == 7 and run.summary["runs"] == 6 and run.config.rounds == 3

    # values, row by row, against games.jsonl
    records = [(g["game_id"], r) for g in games for r in g["rounds"]]
    for (game_id, record), row in zip(records, run.rounds.itertuples(), strict=True):
        assert (row.game_id, row.round, row.outcome) == (
            game_id,
            record["round"],
            record["outcome"],
        )
        assert row.reason == record["reason"] and row.n_turns == len(record["turns"])
        if record["price"] is None:
            assert math.isnan(row.price)
        else:
            assert row.price == record["price"]
        seller = [len(t["text"]) for t in record["turns"][3:] if t["speaker"] == "seller"]
        assert row.improved_chars == sum(seller) and row.improved_lines == len(seller)
    first = games[0]["rounds"][0]["turns"]
    turns = run.turns[(run.turns.game_id == "g00000") & (run.turns["round"] == 1)]
    assert turns.text.tolist() == [t["text"] for t in first]
    assert turns.opener.tolist() == [i < 3 for i in range(len(first))]
    # the per-round mean price of the frame is the summary's
    means = run.rounds.groupby("round").price.mean().round(4).tolist()
    assert means == [r["mean_price"] for r in run.summary["per_round"]]
    assert set(run.calls.role) <= {"seller", "buyer", "critic"}
    assert run.calls.cost_usd.fillna(0).sum() == 0  # simulators cost nothing


def test_load_run_without_calls_and_missing_directory(small_run: RunResult, tmp_path: Path) -> None:
    run = load_run(small_run.directory, calls=False)
    assert run.calls.empty and list(run.calls.columns) == list(CALL_COLUMNS)
    with pytest.raises(UsageError, match="no such run directory"):
        load_run(tmp_path / "missing")


# --- compare -----------------------------------------------------------------------------------


def _game(game_id: str, *rounds: tuple[str, float | None]) -> dict[str, Any]:
    return {
        "game_id": game_id,
        "status": "complete",
        "rounds": [
            {"round": k, "turns": [], "outcome": outcome, "price": price, "reason": None}
            for k, (outcome, price) in enumerate(rounds, start=1)
        ],
    }


def test_compare_deltas_by_hand() -> None:
    # round 1: A has 2 deals of 4 ($10, $12), B 3 of 3 ($13, $15, $17)
    games_a = [
        _game("g0", ("deal", 10.0)),
        _game("g1", ("deal", 12.0)),
        _game("g2", ("no_deal", None)),
        _game("g3", ("no_deal", None)),
    ]
    games_b = [_game(f"g{i}", ("deal", p)) for i, p in enumerate((13.0, 15.0, 17.0))]
    (row,) = compare_games(games_a, games_b, PRICE_MEASURE)
    assert (row.games_a, row.games_b, row.deals_a, row.deals_b) == (4, 3, 2, 3)
    assert row.price_a == 11.0 and row.price_b == 15.0 and row.price_delta == 4.0
    assert row.deal_rate_a == 0.5 and row.deal_rate_b == 1.0 and row.deal_rate_delta == 0.5
    # Wilson 2/4 = (0.1500, 0.8500), 3/3 = (0.4385, 1.0); Newcombe: 0.5 -/+ sqrt of the sums
    assert wilson_interval(2, 4) == pytest.approx((0.15003, 0.84997), abs=1e-4)
    assert wilson_interval(3, 3) == pytest.approx((0.43850, 1.0), abs=1e-4)
    low = 0.5 - math.sqrt((1 - 0.43850) ** 2 + (0.84997 - 0.5) ** 2)
    high = 0.5 + math.sqrt(0.0 + (0.5 - 0.15003) ** 2)
    assert row.deal_rate_delta_ci == pytest.approx((low, high), abs=1e-4)
    assert row.deal_rate_delta_ci == pytest.approx((-0.1617, 0.8500), abs=1e-3)
    # bootstrap of independent samples: inside the range of possible mean differences, seeded
    assert row.price_delta_ci is not None
    low_p, high_p = row.price_delta_ci
    assert 1.0 <= low_p < 4.0 < high_p <= 7.0
    assert compare_games(games_a, games_b, PRICE_MEASURE)[0].price_delta_ci == row.price_delta_ci
    assert newcombe_interval(0, 0, 1, 1) is None


def test_compare_leaves_rounds_stopped_by_an_error_out_of_the_deal_rate() -> None:
    games_a = [
        _game("g0", ("deal", 10.0)),
        _game("g1", ("no_deal", None)),
        _game("g2", ("error", None)),
    ]
    games_b = [_game("g0", ("deal", 12.0)), _game("g1", ("deal", 14.0))]
    (row,) = compare_games(games_a, games_b, PRICE_MEASURE)
    assert (row.games_a, row.deals_a, row.deal_rate_a) == (2, 1, 0.5)  # 1 of 2, not 1 of 3
    assert row.deal_rate_delta_ci == newcombe_interval(1, 2, 2, 2)


def test_compare_cli_table_and_errors(tmp_path: Path) -> None:
    for name, games in {
        "a": [_game("g0", ("deal", 10.0), ("deal", 12.0)), _game("g1", ("deal", 12.0))],
        "b": [_game("g0", ("deal", 14.0), ("no_deal", None)), _game("g1", ("deal", 16.0))],
    }.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    rows = compare_runs(tmp_path / "a", tmp_path / "b")
    assert [r.price_delta for r in rows] == [4.0, None]
    assert [r.deal_rate_delta for r in rows] == [0.0, -1.0]
    result = cli("compare", tmp_path / "a", tmp_path / "b", env={"COLUMNS": "160"})
    assert result.returncode == 0, result.stderr
    round_1 = next(ln.split() for ln in result.stdout.splitlines() if ln.strip().startswith("1 "))
    assert round_1[:9] == [
        "1",
        "2/2",
        "100.0%",
        "100.0%",
        "+0.0",
        "[-65.8,",
        "+65.8]",
        "$11.00",
        "$15.00",
    ]
    assert round_1[9] == "+4.00"
    missing = cli("compare", tmp_path / "a", tmp_path / "nothing")
    assert missing.returncode == 2
    assert missing.stderr.strip() == f"error: {tmp_path / 'nothing'}: no such run directory"
    (tmp_path / "empty").mkdir()
    invalid = cli("compare", tmp_path / "empty", tmp_path / "a")
    assert invalid.returncode == 2 and len(invalid.stderr.strip().splitlines()) == 1
    assert "no games.jsonl here" in invalid.stderr


def test_compare_takes_one_arm_or_cell_of_a_run_that_has_several(tmp_path: Path) -> None:
    plain = run(quickstart("runs=4", "rounds=2"), tmp_path / "plain").directory
    arms = run(quickstart("runs=4", "rounds=2", "arms=[ai, none]"), tmp_path / "arms").directory
    sweep = run(quickstart("runs=4", "rounds=2", "improve=[seller, buyer]"), tmp_path / "sweep")
    with pytest.raises(UsageError, match=r"arms has 2 arms \(ai, none\): compare one of them"):
        compare_runs(plain, arms)
    rows = compare_runs(plain, arms, arm="none")
    assert [(r.games_a, r.games_b) for r in rows] == [(4, 4), (4, 4)]  # each game once
    none_only = [g for g in read_jsonl(arms / "games.jsonl") if g["arm"] == "none"]
    assert rows == compare_games(list(read_jsonl(plain / "games.jsonl")), none_only, PRICE_MEASURE)
    with pytest.raises(UsageError, match=r"no arm 'critic'; allowed: ai, none"):
        compare_runs(plain, arms, arm="critic")
    with pytest.raises(UsageError, match=r"neither run has arms: drop --arm"):
        compare_runs(plain, plain, arm="ai")
    with pytest.raises(UsageError, match=r"sweep has 2 cells \(c1, c2\): compare one"):
        compare_runs(sweep.directory, plain)
    (buyer_round_1, _) = compare_runs(sweep.directory, plain, cell="c2")
    assert buyer_round_1.games_a == 4
    result = cli("compare", plain, arms, env={"COLUMNS": "160"})
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {arms} has 2 arms (ai, none): compare one of them with --arm NAME"
    ]
    chosen = cli("compare", plain, arms, "--arm", "ai", env={"COLUMNS": "160"})
    assert chosen.returncode == 0, chosen.stderr
    assert "arm: ai" in chosen.stdout


# --- export ------------------------------------------------------------------------------------


def test_export_chat_one_round_exactly(small_run: RunResult) -> None:
    d = small_run.directory
    target, count = export_run(d, None, fmt="chat", side="buyer")
    assert target == d / "export" / "chat-buyer-all.jsonl" and count == 18
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    record = read_games(d)[0]["rounds"][0]
    brief = next(
        c["messages"][0]["content"]
        for c in read_jsonl(d / "calls.jsonl")
        if c["role"] == "buyer" and c["game_id"] == "g00000"
    )
    assert lines[0] == {
        "messages": [
            {"role": "system", "content": brief},
            *(
                {"role": "assistant" if t["speaker"] == "buyer" else "user", "content": t["text"]}
                for t in record["turns"]
            ),
        ]
    }
    assert brief.startswith("You are the buyer")


def test_export_chat_filters(small_run: RunResult) -> None:
    games = read_games(small_run.directory)
    run = load_run(small_run.directory, calls=False)
    rounds = [r for g in games for r in g["rounds"]]

    def count(keep: str, side: str) -> int:
        return sum(
            1
            for _ in chat_examples(
                games,
                run.config,
                lambda *_: "brief",
                side=side,
                keep=keep,  # type: ignore[arg-type]
            )
        )

    deals = [r for r in rounds if r["outcome"] == "deal"]
    assert count("all", "seller") == len(rounds)
    assert count("deals", "seller") == len(deals) < len(rounds)
    # the documented score: deal price; no deal scores the seller's cost ($8) or the buyer's
    # walk-away (no budget: the list price, $20), negated for the buyer
    seller = [r["price"] if r["outcome"] == "deal" else 8.0 for r in rounds]
    buyer = [-r["price"] if r["outcome"] == "deal" else -20.0 for r in rounds]
    for side, scores in (("seller", seller), ("buyer", buyer)):
        mean = sum(scores) / len(scores)
        assert count("above_mean", side) == sum(s > mean for s in scores) > 0
    with pytest.raises(UsageError, match="allowed values: all, deals, above_mean"):
        count("best", "seller")


def test_export_preference_needs_arms(small_run: RunResult, tmp_path: Path) -> None:
    result = cli("export", small_run.directory, "--format", "preference")
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: preference export needs a run with paired")
    assert len(result.stderr.strip().splitlines()) == 1
    chat = cli("export", small_run.directory, "--filter", "deals", "--out", tmp_path / "c.jsonl")
    assert chat.returncode == 0, chat.stderr
    assert f"written to {tmp_path / 'c.jsonl'}" in chat.stdout


def test_preference_pairs_from_arms(small_run: RunResult) -> None:
    """Two arms of one run (records with an ``arm``): the better later rounds are chosen."""
    run = load_run(small_run.directory, calls=False)
    base = read_games(small_run.directory)[0]
    low, high = json.loads(json.dumps(base)), json.loads(json.dumps(base))
    low["arm"], high["arm"] = "none", "ai"
    for record, price in zip(low["rounds"][1:], (12.0, 13.0), strict=True):
        record.update(outcome="deal", terms={"price": price}, price=price)
    for record, price in zip(high["rounds"][1:], (16.0, 17.0), strict=True):
        record.update(outcome="deal", terms={"price": price}, price=price)
    high["rounds"][0]["instruction"] = "ai feedback turn"
    (pair,) = preference_pairs([low, high], run.config, lambda *_: "brief")
    assert pair["metadata"]["chosen_arm"] == "ai" and pair["metadata"]["rejected_arm"] == "none"
    shared = base["rounds"][0]["turns"]
    assert pair["prompt"][0] == {"role": "system", "content": "brief"}
    assert [m["content"] for m in pair["prompt"][1:]] == [t["text"] for t in shared]
    assert pair["chosen"][0] == {"role": "user", "content": "ai feedback turn"}
    assert pair["rejected"][0]["content"] == base["rounds"][0]["instruction"]


def test_exports_and_frames_of_a_run_with_paired_arms(tmp_path: Path) -> None:
    """A real run with arms: shared rounds exported once; preference pairs from sibling arms."""
    from tests.conftest import quickstart, run

    result = run(quickstart("arms=[ai,none]", "runs=4", "rounds=3"), tmp_path / "arms")
    d = result.directory
    games = read_games(d)
    assert {g["arm"] for g in games} == {"ai", "none"}
    frames = load_run(d, calls=False)
    assert frames.rounds.shape[0] == 4 * 2 * 3
    assert frames.rounds[frames.rounds["round"] == 1].shared.all()
    _, chat = export_run(d, None, fmt="chat")
    assert chat == 4 * (1 + 2 * 2)  # round 1 once per game, rounds 2-3 once per arm
    target, pairs = export_run(d, None, fmt="preference")
    lines = [json.loads(line) for line in target.read_text().splitlines()]
    assert len(lines) == pairs <= 4
    for line in lines:
        meta = line["metadata"]
        assert {meta["chosen_arm"], meta["rejected_arm"]} == {"ai", "none"}
        assert meta["chosen_score"] > meta["rejected_score"]
        assert line["prompt"][0]["role"] == "system" and line["chosen"] != line["rejected"]
