"""``icl-aif init``: list the shipped designs, or copy one (and the data files it reads) into a
directory; and how the commands that read an experiment file accept a shipped design's name
(:mod:`icl_aif.core.designs`)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer

from icl_aif.cli.output import console
from icl_aif.core.designs import data_files, find_design, shipped_designs
from icl_aif.core.errors import UsageError


def given_or_shipped(path: Path) -> Path:
    """``path`` when that file exists; else, when it is a bare name (``quickstart`` or
    ``quickstart.yaml``) of a shipped design, that design's file, said in one line; else
    ``path`` (whose reader says there is no such file)."""
    if path.exists() or path.parent != Path("."):
        return path
    design = find_design(path.name)
    if design is None:
        return path
    console.print(
        f"no file {path} here: using the shipped design {design.name} ({design.path})",
        markup=False,
        highlight=False,
        soft_wrap=True,
    )
    return design.path


def init(
    name: Annotated[
        str | None,
        typer.Argument(
            help="The shipped design to copy (icl-aif init --list).", show_default=False
        ),
    ] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the shipped designs.")] = False,
    to: Annotated[Path, typer.Option(help="The directory to copy into.")] = Path("."),
    force: Annotated[bool, typer.Option(help="Overwrite files that are there already.")] = False,
) -> None:
    """Copy a shipped experiment design into a directory, with the data files it reads, to run
    or edit it (icl-aif run NAME also runs one without copying)."""
    designs = shipped_designs()
    if list_ or name is None:
        if not designs:
            raise UsageError("no shipped designs found: reinstall icl-aif")
        width = max(len(d.name) for d in designs)
        for shipped in designs:
            console.print(
                f"{shipped.name:<{width}}  {shipped.summary}",
                markup=False,
                highlight=False,
                soft_wrap=True,
            )
        return
    design = find_design(name)
    if design is None:
        known = ", ".join(d.name for d in designs)
        raise UsageError(f"no shipped design {name!r}; shipped designs: {known}")
    import yaml

    files = [(design.path, to / design.path.name)]
    root = design.path.parent.parent
    data = yaml.safe_load(design.path.read_text(encoding="utf-8"))
    named = data_files(data)
    readmes = {str(Path(r).parent / "README.md") for r in named}  # where the data comes from
    named += sorted(r for r in readmes if (root / r).is_file())
    files += [(root / relative, to / relative) for relative in named]
    there = [str(target) for _, target in files if target.exists()]
    if there and not force:
        raise UsageError(f"{', '.join(there)} exists already; --force overwrites it")
    for source, target in files:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        console.print(f"wrote {target}", markup=False, highlight=False)
    run = f"icl-aif run {design.path.name}"
    shown = run if to == Path(".") else f"cd {to} && {run}"
    console.print(f"run it with: {shown}", markup=False, highlight=False)
