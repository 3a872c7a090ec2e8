"""The commands that list what is installed and check it: ``models``, ``games`` and
``check-model``."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer
from rich.table import Table

from icl_aif.cli.output import console
from icl_aif.config.settings import ModeratorConfig
from icl_aif.core.errors import UsageError


def models() -> None:
    """List the providers (ours, installed plugins') and example model strings."""
    from icl_aif.models.registry import PROVIDERS, langchain_only, load_plugins

    failures = load_plugins()
    table = Table(title="Model providers (roles take provider:model)")
    table.add_column("provider")
    table.add_column("model strings")
    table.add_column("what it is")
    for provider in PROVIDERS.values():
        table.add_row(provider.name, "\n".join(provider.examples), provider.description)
    table.add_row(
        "any other",
        "PROVIDER:MODEL",
        "LangChain's init_chat_model, once the provider's integration package is installed "
        "(a missing one is named): " + ", ".join(langchain_only()) + ".",
    )
    console.print(table)
    for line in failures:
        console.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)


def games() -> None:
    """List the bargaining games (ours, installed plugins'): judges, simulators, the terms of an
    agreement and the scenario's fields with their defaults."""
    from icl_aif.games.registry import load_plugins, registered_games

    failures = load_plugins()
    for game in registered_games().values():
        console.print(_game_table(game))
    for line in failures:
        console.print(line, style="yellow", markup=False, highlight=False, soft_wrap=True)


def _game_table(game: Any) -> Table:
    """One game of ``icl-aif games``: a row per trait (plain text, no markup)."""
    from rich.text import Text

    table = Table(title=f"{game.name}: {game.title}", show_header=False, title_justify="left")
    table.add_column("trait", style="bold")
    table.add_column("value")
    rows = {
        "config": f"game: {game.name}",
        "source": game.source,
        "module": getattr(game, "origin", type(game).__module__),
        "judges": ", ".join(game.judges),
        "simulators": ", ".join(f"scripted:{kind}" for kind in game.simulators),
        "terms": "\n".join(
            f"{name}: {_type_name(field.annotation)}"
            for name, field in game.terms_model.model_fields.items()
        ),
        "scenario": _scenario_defaults(game.scenario_model),
    }
    for trait, value in rows.items():
        table.add_row(trait, Text(value))
    return table


def _type_name(annotation: Any) -> str:
    """``float``, ``float | None``, ``Literal['a', 'b']``: a field's type as written."""
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _scenario_defaults(model: Any) -> str:
    """``field: default`` a line, the game's own fields first (the openers one a line, indented),
    as in an experiment file."""
    from pydantic import ValidationError

    from icl_aif.config.settings import Scenario

    try:
        values = model().model_dump(mode="json")
    except ValidationError as exc:
        return f"(no default scenario: {exc.errors()[0]['msg']})"
    shared = [name for name in values if name in Scenario.model_fields]
    lines = []
    for name in [*(n for n in values if n not in shared), *shared]:
        value = values[name]
        if name == "openers":
            lines.append("openers:")
            lines.extend(f"  {o['speaker']}: {o['text']}" for o in value)
        else:
            lines.append(f"{name}: {'null' if value is None else value}")
    return "\n".join(lines)


def check_model(
    model: Annotated[str, typer.Argument(help="provider:model, e.g. openai:gpt-4o-mini")],
    base_url: Annotated[
        str | None, typer.Option(help="Another endpoint, e.g. an OpenAI-compatible server.")
    ] = None,
    max_tokens: Annotated[int, typer.Option(help="Reply budget in tokens.")] = 16,
    timeout: Annotated[float, typer.Option(help="Seconds before the request is abandoned.")] = 30,
    prompt: Annotated[
        str | None, typer.Option(help="The user message (default: asks for the word OK).")
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", help="A provider parameter KEY=VALUE, as roles.<role>.params."),
    ] = None,
) -> None:
    """Send one short request to a model and show the reply, latency and usage."""
    from icl_aif.config.files import apply_overrides
    from icl_aif.engine.configs import config_from_dict
    from icl_aif.engine.protocol import Message
    from icl_aif.run.preflight import PROBE, probe

    experiment = config_from_dict({}, source="check-model")  # the default game's seats
    role = "critic" if model == "scripted:critic" else experiment.seats.ids[0]
    settings = {"model": model, "base_url": base_url, "timeout": timeout}
    data = apply_overrides(
        {"roles": {role: settings}, "retry": {"attempts": 1}},
        [f"roles.{role}.params.{item}" for item in param or []],
    )
    experiment = config_from_dict(data, source="check-model")
    role_config = experiment.roles.of(role)
    assert not isinstance(role_config, ModeratorConfig)
    messages = PROBE if prompt is None else (PROBE[0], Message(role="user", content=prompt))
    result = asyncio.run(
        probe(experiment, role, role_config, messages=messages, max_tokens=max_tokens)
    )
    if result.output is None:
        raise UsageError(f"{model}: the request failed: {result.error}")
    table = Table(show_header=False, box=None)
    usage = result.usage
    table.add_row("model", model + (f" at {base_url}" if base_url else ""))
    table.add_row("reply", result.output or "(empty)")
    table.add_row("latency", f"{result.latency_s:.2f} s")
    table.add_row(
        "usage",
        (
            f"{usage['input_tokens']} input ({usage['cached_input_tokens']} cached), "
            f"{usage['output_tokens']} output tokens"
            if usage
            else "not reported"
        ),
    )
    cost = result.cost_usd
    table.add_row("cost", "unknown (no price)" if cost is None else f"${cost:.6f}")
    console.print(table)
