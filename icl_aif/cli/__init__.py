"""The command line (``icl-aif``): typer commands, the price game's own commands, and the
terminal's output and prompts for human critics."""

from icl_aif.cli.app import main

__all__ = ["main"]
