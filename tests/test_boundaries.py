"""The engine's boundaries (../DESIGN.md, "Boundaries"), read from the source: the price game
stays in its folder, and importing the package installs nothing."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "icl_aif"
PRICE_GAMES = ("games/price/", "games/size_price/")
"""The games whose seats are seller and buyer."""
UPGRADE_STEP = "core/record_upgrade.py"
"""The records' upgrade step: it maps the seats every game had before format 3."""
PRICE_CLI = "cli/price.py"
"""The price game's own commands."""


def modules() -> list[tuple[str, ast.Module]]:
    """Every module of the package, by its path under the package, parsed."""
    return [
        (path.relative_to(PACKAGE).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def docstrings(tree: ast.Module) -> set[int]:
    """The ids of the string constants of ``tree`` that stand alone (docstrings, comments)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def test_no_module_outside_the_price_games_spells_their_seats() -> None:
    found = []
    for path, tree in modules():
        if path.startswith(PRICE_GAMES) or path == UPGRADE_STEP:
            continue
        loose = docstrings(tree)
        found += [
            f"{path}:{node.lineno}: {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in loose
            and re.search(r"seller|buyer", node.value, re.IGNORECASE)
        ]
    assert found == []


def test_no_module_outside_the_price_game_imports_it() -> None:
    found = []
    for path, tree in modules():
        if path.startswith("games/price/") or path == PRICE_CLI:
            continue
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            if any(re.fullmatch(r"icl_aif\.games\.price(\..*)?", name) for name in names):
                found.append(f"{path}:{node.lineno}")
    assert found == []


def test_importing_the_package_registers_and_installs_nothing() -> None:
    code = (
        "import icl_aif, icl_aif.games, icl_aif.config.experiment, icl_aif.run.runner, icl_aif.cli\n"
        "from icl_aif.games.registry import GAMES, registered_games\n"
        "import sys\n"
        "assert GAMES == {}, GAMES\n"
        "assert 'icl_aif.games.price' not in sys.modules\n"
        "print(sorted(registered_games()))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=Path.cwd()
    )
    assert done.returncode == 0, done.stderr
    assert ast.literal_eval(done.stdout) == [  # every game comes in through its entry point
        "dond",
        "pie_split",
        "price",
        "resource_split",
        "size_price",
    ]
