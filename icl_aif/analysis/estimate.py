"""What an experiment will send before it is run: calls, tokens and cost per role.

The estimate is a simulation, offline and free. It plays a sample of the experiment's games (game
indices spread evenly over ``runs``, each the same game the run would play) through the real
protocol and graphs, with every model that would reach a vendor replaced by a stand-in simulator
(the players: ``scripted:linear``; critic: ``scripted:critic``). Models that run in process
(``scripted:``, ``replay:``, ``local:``) play themselves. Nothing is written and nothing is sent, so
no API key and no vendor extra is needed.

From the sample's recorded calls it counts per role the calls, input tokens and output tokens: the
usage a call reported when it reported one (local models, the replay fake), else characters / 4
(:func:`icl_aif.models.limits.tokens_in`) of the messages sent and of the reply. Per-game means are scaled
to ``runs``. ``icl-aif run`` also sends one short probe per vendor model before the first game: it is
its own line. Cost follows :mod:`icl_aif.models.pricing` (the config's ``prices`` first); a model with no
price has an unknown cost, listed, never counted as zero.

What it cannot know: how long a language model's replies are. Stand-in simulators write short
lines; language models often write longer ones, which raises output tokens and, since every later
call resends the history, input tokens too. The notes of an :class:`Estimate` say so with the reply
lengths measured in the sample.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rich import box
from rich.table import Table

from icl_aif.analysis.metrics import bootstrap_ci
from icl_aif.analysis.report import usd
from icl_aif.config.experiment import Cell, ExperimentConfig
from icl_aif.config.offline import stand_in
from icl_aif.config.settings import RoleConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.seeds import derive_seed
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.arms import play_branched_game
from icl_aif.engine.context import GameContext, judge_for
from icl_aif.models.limits import estimate_tokens, tokens_in
from icl_aif.models.pricing import check_budget_prices, cost_usd, price_of, priced_roles
from icl_aif.models.registry import is_offline, split_model_string
from icl_aif.models.usage import in_role_order, role_order
from icl_aif.run.play import play_game
from icl_aif.run.preflight import PROBE, PROBE_MAX_TOKENS

DEFAULT_SAMPLE = 10
# The probe ``icl-aif run`` sends to each vendor model before the first game: its messages at
# characters / 4, and its whole reply budget.
PREFLIGHT_INPUT_TOKENS = estimate_tokens(PROBE, None)
PREFLIGHT_OUTPUT_TOKENS = PROBE_MAX_TOKENS
PREFLIGHT = "preflight"


@dataclass(frozen=True)
class Line:
    """One row of an estimate: a role's calls over the whole experiment, or one preflight probe."""

    role: str  # a seat, critic, or preflight
    model: str  # the configured provider:model string
    stand_in: str | None  # the simulator that played the role in the sample (vendor models)
    calls: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None  # None when the model has no price


@dataclass(frozen=True)
class Estimate:
    """Predicted calls, tokens and cost of an experiment, and the assumptions behind them."""

    name: str
    runs: int
    rounds: int
    sample: tuple[int, ...]  # the game indices simulated
    lines: tuple[Line, ...]
    calls_per_game: float  # mean over the sample (preflight excluded)
    calls_per_game_ci95: tuple[float, float] | None  # bootstrap CI of that mean
    reply_chars: Mapping[str, float]  # mean reply length per role in the sample
    errored_games: int  # sample games stopped by an error (their calls up to it are counted)
    notes: tuple[str, ...]

    @property
    def calls(self) -> int:
        """All calls, preflight included."""
        return sum(line.calls for line in self.lines)

    @property
    def input_tokens(self) -> int:
        """All input tokens."""
        return sum(line.input_tokens for line in self.lines)

    @property
    def output_tokens(self) -> int:
        """All output tokens."""
        return sum(line.output_tokens for line in self.lines)

    @property
    def known_cost_usd(self) -> float:
        """The sum of the known costs: a lower bound while :attr:`unpriced_models` is not empty."""
        return round(sum(line.cost_usd or 0.0 for line in self.lines), 10)

    @property
    def unpriced_models(self) -> tuple[str, ...]:
        """Models of the estimate that have no price."""
        return tuple(sorted({line.model for line in self.lines if line.cost_usd is None}))


def sample_indices(runs: int, sample: int) -> tuple[int, ...]:
    """``min(sample, runs)`` game indices spread evenly over ``range(runs)``: the middle of each stratum."""
    if sample < 1:
        raise UsageError(f"--sample {sample}: simulate at least one game")
    n = min(sample, runs)
    return tuple((2 * i + 1) * runs // (2 * n) for i in range(n))


def stand_in_config(config: ExperimentConfig) -> tuple[ExperimentConfig, dict[str, str]]:
    """``config`` with every vendor model of a calling role replaced by its stand-in simulator.

    Returns the simulated config (no rate limits: nothing is sent, nothing should wait; no
    response cache: the sample's replies are never stored) and the stand-in per replaced role. Every model string is checked first, so an unknown provider is the
    same one-line error as in ``icl-aif run``.
    """
    replaced: dict[str, str] = {}
    roles: dict[str, RoleConfig] = {}
    for role, model in priced_roles(config).items():
        split_model_string(model)
        if not is_offline(model):
            replaced[role] = stand_in(role)
            roles[role] = _stand_in(config, role)
    update: dict[str, Any] = {
        "roles": config.roles.model_copy(update=roles),
        "rate_limits": {},
        "max_usd": None,
        "person": None,  # a person's lines cost nothing; a simulator plays that side in the sample
        "cache": None,  # the sample's replies are no one's: never stored in the run's cache
    }
    if config.feedback_needs_person:  # typed feedback costs nothing; a fixed line stands in
        update["feedback"] = config.feedback.model_copy(update={"source": "constant"})
    return config.model_copy(update=update), replaced


def _stand_in(config: ExperimentConfig, role: str) -> Any:
    """A role's stand-in settings: a simulator's RoleConfig, or the rules moderator."""
    if role == "moderator":
        return config.roles.moderator.model_copy(update={"mode": stand_in(role)})
    return RoleConfig(model=stand_in(role))


def call_tokens(call: Mapping[str, Any]) -> tuple[int, int]:
    """(input, output) tokens of a recorded call: its reported usage, else characters / 4."""
    usage = call.get("usage")
    if usage:
        return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)
    chars_in = sum(len(m["content"]) for m in call["messages"])
    return tokens_in(chars_in), tokens_in(len(call.get("output") or ""))


async def simulate(
    config: ExperimentConfig, indices: Sequence[int]
) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Play the games ``indices`` of ``config`` in memory: (game record, its calls) per game.

    With ``arms`` a game is its shared rounds and every arm: the record is the first arm's with
    ``status`` error when any arm stopped with an error, and the calls are all of them.
    """
    prompts = PromptLibrary()
    judge = judge_for(config)
    gate = asyncio.Semaphore(config.concurrency)

    async def one(index: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        async with gate:
            if config.arms:
                records, calls = await play_branched_game(config, index, prompts, judge)
                failed = any(r["status"] == "error" for r in records)
                return {**records[0], "status": "error" if failed else "complete"}, calls
            ctx = GameContext(config=config, index=index, prompts=prompts, judge=judge)
            game = await play_game(ctx)
            return game, ctx.calls

    return list(await asyncio.gather(*(one(i) for i in indices)))


async def estimate_usage_async(config: ExperimentConfig, sample: int = DEFAULT_SAMPLE) -> Estimate:
    """The estimate of ``config`` from ``sample`` simulated games (see the module docstring)."""
    indices = sample_indices(config.runs, sample)
    simulated, replaced = stand_in_config(config)
    played = await simulate(simulated, indices)
    models = priced_roles(config)
    n = len(played)

    totals: dict[str, list[int]] = {role: [0, 0, 0] for role in models}
    chars: dict[str, list[int]] = {role: [] for role in models}
    per_game: list[float] = []
    for _, played_calls in played:
        calls = [c for c in played_calls if c["role"] != config.person]  # a person is no call
        per_game.append(float(len(calls)))
        for call in calls:
            row = totals.setdefault(call["role"], [0, 0, 0])
            tokens_in_, tokens_out = call_tokens(call)
            row[0] += 1
            row[1] += tokens_in_
            row[2] += tokens_out
            if call.get("output") is not None:
                chars.setdefault(call["role"], []).append(len(call["output"]))

    scale = config.runs / n
    lines: list[Line] = []
    for role in in_role_order(totals, role_order(config.seats)):
        calls_, input_tokens, output_tokens = (round(v * scale) for v in totals[role])
        if calls_ == 0:
            continue
        model = models.get(role, role)
        lines.append(
            Line(
                role=role,
                model=model,
                stand_in=replaced.get(role),
                calls=calls_,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                cost_usd=_cost(model, input_tokens, output_tokens, config),
            )
        )
    for model in _probed_models(config):
        lines.append(
            Line(
                role=PREFLIGHT,
                model=model,
                stand_in=None,
                calls=1,
                input_tokens=PREFLIGHT_INPUT_TOKENS,
                output_tokens=PREFLIGHT_OUTPUT_TOKENS,
                cost_usd=_cost(model, PREFLIGHT_INPUT_TOKENS, PREFLIGHT_OUTPUT_TOKENS, config),
            )
        )

    ci = bootstrap_ci(per_game, derive_seed(config.seed, "estimate"))
    reply_chars = {role: round(sum(c) / len(c), 1) for role, c in chars.items() if c}
    errored = sum(game["status"] == "error" for game, _ in played)
    result = Estimate(
        name=config.name,
        runs=config.runs,
        rounds=config.rounds,
        sample=indices,
        lines=tuple(lines),
        calls_per_game=round(sum(per_game) / n, 4),
        calls_per_game_ci95=(ci[0], ci[1]) if ci else None,
        reply_chars=reply_chars,
        errored_games=errored,
        notes=(),
    )
    return replace(result, notes=_notes(result, config, replaced))


def estimate_usage(config: ExperimentConfig, sample: int = DEFAULT_SAMPLE) -> Estimate:
    """:func:`estimate_usage_async` from synchronous code (one cell: the config without a sweep)."""
    return asyncio.run(estimate_usage_async(config, sample))


def estimate_cells(
    config: ExperimentConfig, sample: int = DEFAULT_SAMPLE
) -> list[tuple[Cell, Estimate]]:
    """The estimate of every cell of a sweep (one cell without a sweep), ``sample`` games each.

    The experiment's usage is the sum over its cells (:func:`total_line`): the product is
    estimated, not refused. Preflight probes are counted per cell, so a model probed in several
    cells is counted more than once (``icl-aif run`` probes it once: a few tokens).
    """

    from icl_aif.core.templates import PromptLibrary
    from icl_aif.run.checks import check_inputs

    check_inputs(config, PromptLibrary())  # a file the games would fail on: one line, as run says

    async def all_cells() -> list[tuple[Cell, Estimate]]:
        return [(cell, await estimate_usage_async(cell.config, sample)) for cell in config.cells()]

    return asyncio.run(all_cells())


def total_line(estimates: Sequence[Estimate]) -> str:
    """One line summing the cells' estimates: calls, tokens and the known cost."""
    cost = sum(e.known_cost_usd for e in estimates)
    unknown = sorted({m for e in estimates for m in e.unpriced_models})
    line = (
        f"All {len(estimates)} cells: {sum(e.calls for e in estimates):,} calls, "
        f"{sum(e.input_tokens for e in estimates):,} input and "
        f"{sum(e.output_tokens for e in estimates):,} output tokens, {usd(cost)}"
    )
    return line + (f" + unknown ({', '.join(unknown)} unpriced)" if unknown else "")


def _probed_models(config: ExperimentConfig) -> list[str]:
    """The model of every distinct vendor endpoint (model and base_url) the preflight probes."""
    seen: dict[tuple[str, str | None], str] = {}
    for role in priced_roles(config):
        settings = config.roles.of(role)
        if settings.model is not None and not is_offline(settings.model):
            seen.setdefault((settings.model, settings.base_url), settings.model)
    return list(seen.values())


def _cost(
    model: str, input_tokens: int, output_tokens: int, config: ExperimentConfig
) -> float | None:
    """The cost of these tokens at the config's prices, all input uncached; None when unpriced."""
    usage = {"input_tokens": input_tokens, "output_tokens": output_tokens}
    return cost_usd(usage, price_of(model, config.prices))


def _notes(
    result: Estimate, config: ExperimentConfig, replaced: Mapping[str, str]
) -> tuple[str, ...]:
    """The assumptions of an estimate, as sentences for people."""
    n = len(result.sample)
    shown = ", ".join(map(str, result.sample[:12])) + (", ..." if n > 12 else "")
    notes = [f"From {n} simulated games (game indices {shown}) scaled to {result.runs} runs."]
    if config.arms:
        notes.append(
            f"Each game is rounds 1-{config.branch_after} once, then {len(config.arms)} arms "
            f"({', '.join(config.arms)}) to round {config.rounds}: every arm's calls are counted."
        )
    if result.calls_per_game_ci95 is not None:
        low, high = result.calls_per_game_ci95
        notes.append(
            f"Calls per game: {result.calls_per_game:.1f} (95% bootstrap CI {low:.1f}-{high:.1f} "
            f"over the sample), so {low * result.runs:,.0f}-{high * result.runs:,.0f} calls in all."
        )
    if replaced:
        played_by = "; ".join(
            f"{role} ({next(line.model for line in result.lines if line.role == role)}) by "
            f"{stand_in}, mean reply {result.reply_chars.get(role, 0.0):.0f} chars"
            for role, stand_in in replaced.items()
            if any(line.role == role for line in result.lines)
        )
        notes.append(
            f"Vendor models were played by simulators: {played_by}. Language models often write "
            "longer replies: more output tokens and, as every later call resends the history, "
            "more input tokens. Tokens are characters / 4."
        )
    if config.feedback_needs_person:
        notes.append("Typed feedback costs nothing: a fixed line stood in for it in the sample.")
    if config.person is not None:
        notes.append(
            f"The {config.person}'s lines are typed by a person and cost nothing: the configured "
            f"{config.person} model stood in for them in the sample."
        )
    if "moderator" in replaced:
        moderator = config.roles.moderator
        notes.append(
            f"Not counted: the {moderator.mode} moderator's calls to {moderator.model} (the "
            "simulation judged every line by the rules); mode llm makes one call per generated "
            "line, hybrid only on the lines the rules find ambiguous."
        )
    if any(line.role == PREFLIGHT for line in result.lines):
        notes.append(
            f"preflight: the request icl-aif run sends each vendor model before the first game "
            f"(about {PREFLIGHT_INPUT_TOKENS} input tokens, at most {PREFLIGHT_OUTPUT_TOKENS} "
            "output tokens; none with --no-preflight)."
        )
    cached = sorted(
        {
            line.model
            for line in result.lines
            if not is_offline(line.model)
            and (price := price_of(line.model, config.prices)) is not None
            and price.cached_input is not None
            and price.cached_input < price.input
        }
    )
    if cached:
        notes.append(
            f"No prompt-cache discount: all input is priced uncached, an upper bound for "
            f"{', '.join(cached)}, whose repeated history may be billed at the cached rate."
        )
    if result.unpriced_models:
        notes.append(
            f"No price for {', '.join(result.unpriced_models)}: cost unknown, left out of the "
            "total (add it under prices)."
        )
    if result.errored_games:
        notes.append(
            f"{result.errored_games} of {n} simulated games stopped with an error; their calls "
            "up to the error are counted."
        )
    budget = config.max_usd
    try:
        check_budget_prices(config)
    except UsageError as exc:
        notes.append(f"icl-aif run would refuse this config: {exc}.")
    if budget is not None and result.known_cost_usd >= budget:
        per_game = result.known_cost_usd / result.runs
        games = min(result.runs, int(budget / per_game) + 1) if per_game > 0 else result.runs
        notes.append(
            f"max_usd {usd(budget)} is below the estimated cost: the run would stop starting "
            f"games after about {games} of {result.runs} (plus the ones in flight)."
        )
    return tuple(notes)


def estimate_table(result: Estimate) -> Table:
    """The estimate as a table: one row per role and preflight probe, then the total."""
    table = Table(
        title=(
            f"{result.name}: estimated usage of {result.runs} runs x {result.rounds} rounds "
            "(nothing sent)"
        ),
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_footer=True,
    )
    total_cost = usd(result.known_cost_usd) + (" + unknown" if result.unpriced_models else "")
    table.add_column("role", footer="total")
    table.add_column("model", footer="")
    for header, value in (
        ("calls", result.calls),
        ("input tokens", result.input_tokens),
        ("output tokens", result.output_tokens),
    ):
        table.add_column(header, justify="right", footer=f"{value:,}")
    table.add_column("cost (USD)", justify="right", footer=total_cost)
    for line in result.lines:
        model = line.model + (f" (as {line.stand_in})" if line.stand_in else "")
        table.add_row(
            line.role,
            model,
            f"{line.calls:,}",
            f"{line.input_tokens:,}",
            f"{line.output_tokens:,}",
            "unknown" if line.cost_usd is None else usd(line.cost_usd),
        )
    return table
