"""The wheel alone (issue 28): installed into a fresh virtual environment, from an empty
directory, it lists and copies the shipped designs and plays them.

``make dist`` builds the wheel and runs this file with ``ICL_AIF_WHEEL`` set to it (CI does, via
``.ci/run``); without it the test is skipped: installing the wheel's dependencies into a fresh
environment takes about a minute, and the suite of ``make test`` plays from the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

WHEEL = os.environ.get("ICL_AIF_WHEEL")


def _run(
    args: list[str], cwd: Path, home: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``args`` in a clean environment (no keys); ``home`` the HOME it sees (default ``cwd``)."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home or cwd), "COLUMNS": "200"}
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.skipif(WHEEL is None, reason="make dist sets ICL_AIF_WHEEL to the built wheel")
def test_the_wheel_alone_lists_copies_and_plays_the_shipped_designs(tmp_path: Path) -> None:
    assert WHEEL is not None and Path(WHEEL).is_file(), WHEEL
    wheel = str(Path(WHEEL).resolve())
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "pip"), "install", "--quiet", wheel]
    installed = _run(pip, tmp_path, home=Path.home())  # the user's pip cache
    assert installed.returncode == 0, installed.stderr[-2000:]
    cli = str(venv / "bin" / "icl-aif")
    empty = tmp_path / "empty"
    empty.mkdir()
    where = _run(
        [str(venv / "bin" / "python"), "-c", "import icl_aif; print(icl_aif.__file__)"], empty
    )
    assert str(venv) in where.stdout  # the wheel's package, not a checkout's
    listed = _run([cli, "init", "--list"], empty)
    assert listed.returncode == 0, listed.stderr
    names = [line.split()[0] for line in listed.stdout.splitlines()]
    assert {"quickstart", "dond", "table1_feedback_pools", "craigslist_listings"} <= set(names)
    assert _run([cli, "init", "dond"], empty).returncode == 0
    dond = _run([cli, "run", "dond.yaml", "--set", "runs=3", "--out", "r1"], empty)
    assert dond.returncode == 0, dond.stderr
    table1 = _run(
        [cli, "run", "table1_feedback_pools", "--offline", "--set", "runs=3", "--out", "r2"], empty
    )
    assert table1.returncode == 0, table1.stderr
    assert table1.stdout.startswith("no file table1_feedback_pools here: using the shipped design")
    listings = _run(
        [cli, "run", "craigslist_listings", "--set", "runs=2", "--set", "rounds=1", "--out", "r3"],
        empty,
    )
    assert listings.returncode == 0, listings.stderr
    for run in ("r1", "r2", "r3"):
        assert (empty / run / "summary.json").is_file()
    version = _run([cli, "--version"], empty)
    assert version.stdout.startswith("icl-aif ")
