"""The shipped designs (issue 28): icl-aif init lists and copies them with their data files,
icl-aif run NAME plays one from any directory, one version source, the citation file."""

from __future__ import annotations

import tomllib
from pathlib import Path

import yaml

from icl_aif import __version__
from icl_aif.core.designs import find_design, shipped_designs
from tests.conftest import ROOT, icl_aif

SHIPPED = sorted(path.stem for path in (ROOT / "experiments").glob("*.yaml"))


def test_init_lists_every_shipped_design_with_a_line_each(tmp_path: Path) -> None:
    listed = icl_aif("init", "--list", cwd=tmp_path, columns=200)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert [line.split()[0] for line in lines] == SHIPPED
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)  # each with its summary
    assert [d.name for d in shipped_designs()] == SHIPPED
    assert "Paper Table 1 (Fu et al. 2023)" in find_design("table1_feedback_pools.yaml").summary


def test_init_copies_a_design_and_its_data_and_refuses_to_overwrite(tmp_path: Path) -> None:
    done = icl_aif("init", "craigslist_listings", "--to", "mine", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    mine = tmp_path / "mine"
    assert (mine / "craigslist_listings.yaml").read_text() == (
        ROOT / "experiments" / "craigslist_listings.yaml"
    ).read_text()
    data = mine / "experiments" / "data"
    assert sorted(p.name for p in data.iterdir()) == ["README.md", "craigslist_dev_100.jsonl"]
    assert "cd mine && icl-aif run craigslist_listings.yaml" in done.stdout
    again = icl_aif("init", "craigslist_listings", "--to", "mine", cwd=tmp_path)
    assert again.returncode == 2
    assert again.stderr.strip().endswith("exists already; --force overwrites it")
    (mine / "craigslist_listings.yaml").write_text("edited\n")
    forced = icl_aif("init", "craigslist_listings", "--to", "mine", "--force", cwd=tmp_path)
    assert (
        forced.returncode == 0 and "edited" not in (mine / "craigslist_listings.yaml").read_text()
    )
    played = icl_aif(
        "run", "craigslist_listings.yaml", "--set", "runs=2", "--set", "rounds=1", cwd=mine
    )
    assert played.returncode == 0, played.stderr


def test_an_unknown_design_is_one_line(tmp_path: Path) -> None:
    done = icl_aif("init", "nope", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("error: no shipped design 'nope'; shipped designs: ")


def test_run_plays_a_shipped_design_by_name_from_any_directory(tmp_path: Path) -> None:
    done = icl_aif(
        "run",
        "craigslist_listings",
        "--set",
        "runs=2",
        "--set",
        "rounds=1",
        "--out",
        "r",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0]
    assert first == (
        "no file craigslist_listings here: using the shipped design craigslist_listings "
        f"({ROOT / 'experiments' / 'craigslist_listings.yaml'})"
    )
    config = yaml.safe_load((tmp_path / "r" / "config.yaml").read_text())
    assert config["scenario"]["listings"] == str(
        ROOT / "experiments" / "data" / "craigslist_dev_100.jsonl"
    )
    missing = icl_aif("run", "no_such_design", cwd=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip() == "error: no_such_design: no such config file"


def test_one_version_shown_recorded_and_cited() -> None:
    shown = icl_aif("--version")
    assert shown.returncode == 0 and shown.stdout.strip() == f"icl-aif {__version__}"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["hatch"]["version"]["path"] == "icl_aif/_version.py"
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["version"] == __version__ and citation["cff-version"] == "1.2.0"
    titles = [reference["title"] for reference in citation["references"]]
    assert any(title.startswith("Improving Language Model Negotiation") for title in titles)
    assert len(titles) == 4  # the seed papers: 000/001 are one paper
    assert "## Cite" in (ROOT / "README.md").read_text()
