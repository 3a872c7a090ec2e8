"""Small command-line fixes: compare's CI columns in full, help texts that keep their brackets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from icl_aif.analysis.compare import compare_runs, comparison_rows
from tests.conftest import PRICE_MEASURE, icl_aif
from tests.test_outputs import _game


def _two_runs(tmp_path: Path) -> tuple[Path, Path]:
    runs = {
        "a": [
            _game("g0", ("deal", 10.0), ("deal", 12.5)),
            _game("g1", ("deal", 12.0), ("no_deal", None)),
            _game("g2", ("no_deal", None), ("deal", 11.0)),
        ],
        "b": [
            _game("g0", ("deal", 14.0), ("deal", 18.0)),
            _game("g1", ("deal", 16.0), ("deal", 13.0)),
            _game("g2", ("deal", 17.5), ("no_deal", None)),
        ],
    }
    for name, games in runs.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in games))
    return tmp_path / "a", tmp_path / "b"


@pytest.mark.parametrize("columns", [80, 40])
def test_compare_shows_both_ci_columns_whole_in_a_narrow_pipe(tmp_path: Path, columns: int) -> None:
    run_a, run_b = _two_runs(tmp_path)
    result = icl_aif("compare", run_a, run_b, env={"COLUMNS": str(columns)})
    assert result.returncode == 0, result.stderr
    assert "…" not in result.stdout
    rows = comparison_rows(compare_runs(run_a, run_b), PRICE_MEASURE)
    for row in rows:
        rate_ci, price_ci = row[5], row[9]
        assert rate_ci.startswith("[") and price_ci.startswith("[")  # both CIs were computed
        line = next(ln for ln in result.stdout.splitlines() if ln.split()[:1] == [row[0]])
        assert line.split() == " ".join(row).split()  # every value whole, on the round's line


def test_run_help_names_the_ray_extra_with_its_brackets() -> None:
    result = icl_aif("run", "--help", env={"COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    words = " ".join(result.stdout.replace("│", " ").split())  # the panel wraps long help
    assert "needs pip install 'icl-aif[ray]')" in words
    assert "\\[" not in words
