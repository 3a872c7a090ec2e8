"""The options several ``icl-aif`` commands share, as annotated types (their help is the
commands' ``--help``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

SetOption = Annotated[
    list[str] | None,
    typer.Option("--set", help="Override a config field: --set roles.<seat>.model=scripted:linear"),
]

PreflightOption = Annotated[
    bool,
    typer.Option(
        "--preflight/--no-preflight",
        help="Send each vendor model one short request before any game (default: on).",
    ),
]

ConfigArgument = Annotated[
    Path | None,
    typer.Argument(help="Experiment YAML file (optional with --resume).", show_default=False),
]

OfflineOption = Annotated[
    bool,
    typer.Option(
        "--offline",
        help="Play every model-backed role with a simulator (players scripted:linear, critic "
        "scripted:critic, moderator rules); the manifest records what replaced what.",
    ),
]

ResumeOption = Annotated[
    Path | None,
    typer.Option(
        "--resume",
        metavar="RUN_DIR",
        help="Continue a stopped run (killed, Ctrl-C, disk full) with its recorded config: "
        "finished games are kept, the others are played.",
        show_default=False,
    ),
]

ExecutorOption = Annotated[
    str,
    typer.Option(
        "--executor",
        help="Where games are played: local (this process), processes (worker processes "
        "of this machine, see --workers) or ray (Ray tasks; needs pip install "
        "'icl-aif\\[ray]'). Records and summary are the same.",
    ),
]

WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="With --executor processes: how many worker processes; default one per core.",
        show_default=False,
    ),
]

RayActorsOption = Annotated[
    int | None,
    typer.Option(
        "--ray-actors",
        min=1,
        help="With --executor ray: play in this many Ray actors (one CPU each, many games "
        "at once each; suits vendor APIs) instead of one Ray task per game.",
        show_default=False,
    ),
]

RayAddressOption = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="With --executor ray: the cluster to join (auto, or ray://HOST:10001); "
        "default a local Ray instance.",
        show_default=False,
    ),
]
