"""The commands that read run directories: ``report``, ``compare``, ``rank``, ``export``, ``audit``, and
``estimate`` (an offline cost estimate that plays the games with simulators)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, cast

import typer
from rich.table import Table

from icl_aif.cli.options import SetOption
from icl_aif.cli.output import (
    console,
    print_failures,
    print_skipped,
    print_tables,
    print_uncut,
    print_usage,
    write_plots,
)
from icl_aif.cli.terminal import progress_bar
from icl_aif.engine.configs import load_config


def report(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    plots: Annotated[
        bool, typer.Option("--plots", help="Also write the figures into RUN_DIR/plots/.")
    ] = False,
    html: Annotated[
        bool, typer.Option("--html", help="Also write one self-contained HTML page.")
    ] = False,
    out: Annotated[
        Path | None, typer.Option(help="Where --html writes (default RUN_DIR/report.html).")
    ] = None,
    transcripts: Annotated[
        int, typer.Option(help="Games whose transcripts --html shows (0: every game).")
    ] = 200,
) -> None:
    """Print the per-round table of a finished run from disk; --plots and --html write figures.

    A run with failed games ends with the line that counts them, as icl-aif run does; the exit
    code stays 0 (the report was made). Damaged lines of games.jsonl are warned of and counted
    (the tables are summary.json's, computed when the run finished).
    """
    from icl_aif.records.layout import GAMES
    from icl_aif.records.reader import SkippedLines, count_records, read_manifest, read_summary

    summary = read_summary(run_dir)
    manifest = read_manifest(run_dir)  # a newer record format: one line saying to upgrade
    skipped = SkippedLines()
    if (run_dir / GAMES).is_file():  # the games the tables count: their damaged lines are said
        count_records(run_dir / GAMES, skipped, "game")
    print_tables(summary, manifest["name"])
    print_usage(summary)
    if plots:
        write_plots(run_dir)
    if html:
        from icl_aif.analysis.html_report import write_html_report

        page = write_html_report(run_dir, out, max_transcripts=transcripts, skipped=skipped)
        console.print(f"HTML report written to {page}", markup=False, soft_wrap=True)
    print_skipped(skipped)
    print_failures(summary)


def compare(
    run_a: Annotated[Path, typer.Argument(help="Run directory A (the baseline).")],
    run_b: Annotated[Path, typer.Argument(help="Run directory B.")],
    arm: Annotated[
        str | None,
        typer.Option(help="The feedback arm to compare, for runs with arms.", show_default=False),
    ] = None,
    cell: Annotated[
        str | None,
        typer.Option(help="The sweep cell to compare, for runs with cells.", show_default=False),
    ] = None,
) -> None:
    """Per-round deal rate and price of two runs side by side, with deltas B - A and 95% CIs.

    A run with feedback arms or sweep cells is compared through one of them (--arm, --cell)."""
    from rich import box

    from icl_aif.analysis.compare import (
        compare_headers,
        compare_legend,
        compare_runs,
        compared_measure,
        comparison_rows,
    )

    chosen = "".join(f"  {k}: {v}" for k, v in (("arm", arm), ("cell", cell)) if v is not None)
    table = Table(
        title=f"A: {run_a}  B: {run_b}{chosen}",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    from icl_aif.records.reader import SkippedLines

    measure = compared_measure(run_a, run_b)  # the game's per-round figure: price, payoff, ...
    skipped = SkippedLines()
    compared = compare_runs(run_a, run_b, arm=arm, cell=cell, skipped=skipped)
    for header in compare_headers(measure):
        table.add_column(header, justify="right", no_wrap=True)
    for row in comparison_rows(compared, measure):
        table.add_row(*row)
    print_uncut(table)
    console.print(compare_legend(measure), style="dim", markup=False, highlight=False)
    print_skipped(skipped)


def rank(
    run_dir: Annotated[Path, typer.Argument(help="A tournament's run directory.")],
    resamples: Annotated[
        int, typer.Option(min=100, max=100_000, help="Bootstrap resamples of the intervals.")
    ] = 1000,
    seed: Annotated[
        int | None,
        typer.Option(
            help="The bootstrap's seed (default: the run's bootstrap seed).", show_default=False
        ),
    ] = None,
) -> None:
    """Rank the players of a tournament run: skills per seat with the seat's advantage taken out,
    and regrets in the meta-game's maximum-entropy equilibrium, each with a 95% interval.

    Writes RUN_DIR/ranking.json, the Ranking section of summary.md and plots/ranking.png (and
    report --html shows them). The model and its assumptions: docs/tournaments.md."""
    from rich import box

    from icl_aif.analysis.tournament import RANKING, advantage_line, rank_run, ranking_table
    from icl_aif.records.reader import SkippedLines

    skipped = SkippedLines()
    entry, _, games = rank_run(run_dir, resamples=resamples, seed=seed, skipped=skipped)
    table = Table(
        title=f"{games.config.name}: {entry['games']} games, {entry['pairings']} pairings",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    headers, rows = ranking_table(entry)
    for header in headers:
        table.add_column(header, justify="left" if header == "player" else "right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    print_uncut(table)
    console.print(
        f"{advantage_line(entry)} 95% intervals: {entry['bootstrap']['resamples']} "
        "cluster-bootstrap resamples (games within each pairing).",
        style="dim",
        markup=False,
        highlight=False,
    )
    if entry["games_left_out"]:
        console.print(
            f"{entry['games_left_out']} games left out: no round ended in a scored agreement or "
            "no deal.",
            style="yellow",
            markup=False,
        )
    console.print(f"Ranking written to {run_dir / RANKING}", markup=False, soft_wrap=True)
    print_skipped(skipped)


def plan(
    run_dir: Annotated[
        Path | None,
        typer.Argument(help="A pilot run (optional with --sd).", show_default=False),
    ] = None,
    design: Annotated[
        str,
        typer.Option(
            help="rounds: round 1 against the last, paired within runs; arms: two feedback arms "
            "of the same runs; runs: two independent runs, by the mean over their rounds."
        ),
    ] = "rounds",
    difference: Annotated[
        float | None,
        typer.Option(help="The difference in the game's score to detect.", show_default=False),
    ] = None,
    runs: Annotated[
        int | None,
        typer.Option(help="Runs to judge: the least difference they detect.", show_default=False),
    ] = None,
    alpha: Annotated[float, typer.Option(help="The test's two-sided level.")] = 0.05,
    power: Annotated[float, typer.Option(help="The chance to detect the difference.")] = 0.8,
    sd: Annotated[
        float | None,
        typer.Option(
            help="Without a pilot: the spread of one condition's score (paired designs: with "
            "--correlation; runs: of one round's score, with --icc and --rounds).",
            show_default=False,
        ),
    ] = None,
    correlation: Annotated[
        float, typer.Option(help="Without a pilot: the two conditions' correlation (paired).")
    ] = 0.0,
    icc: Annotated[
        float, typer.Option(help="Without a pilot: the rounds' intraclass correlation (runs).")
    ] = 0.0,
    rounds: Annotated[int, typer.Option(help="Without a pilot: rounds a run (runs).")] = 1,
    cell: Annotated[
        str | None, typer.Option(help="The cell of a pilot with cells.", show_default=False)
    ] = None,
    arms: Annotated[
        str | None,
        typer.Option(
            help="Two arms of the pilot, A,B (default: its first two).", show_default=False
        ),
    ] = None,
) -> None:
    """How many runs a claim needs, and the least difference some runs detect.

    From a pilot run (the spread of its paired differences, or of its rounds and their
    intraclass correlation) or from stated figures (--sd, --correlation, --icc). The model and
    its assumptions: docs/tournaments.md#how-many-games-a-claim-needs."""
    import math

    from icl_aif.analysis.planning import Design, pilot_of_run
    from icl_aif.analysis.planning import plan as make_plan
    from icl_aif.core.errors import UsageError

    if design not in ("rounds", "arms", "runs"):
        raise UsageError(f"--design: got {design!r}; allowed values: rounds, arms, runs")
    chosen_arms = None
    if arms is not None:
        parts = [a.strip() for a in arms.split(",")]
        if len(parts) != 2 or not all(parts):
            raise UsageError("--arms: name two arms, A,B (e.g. ai,none)")
        chosen_arms = (parts[0], parts[1])
    if run_dir is not None:
        pilot = pilot_of_run(run_dir, cast(Design, design), chosen_arms, cell)
        spread, intraclass, per_run = pilot.sd or 0.0, pilot.icc, pilot.rounds
        source = f"from a pilot of {pilot.runs} runs ({run_dir})"
    elif sd is None:
        raise UsageError("give a pilot run, or the spread to plan with: --sd (see --help)")
    else:
        pilot = None
        paired = design != "runs"
        spread = sd * math.sqrt(max(0.0, 2 * (1 - correlation))) if paired else sd
        intraclass, per_run = (None, rounds) if paired else (icc, rounds)
        source = "from the stated figures"
    made = make_plan(
        cast(Design, design),
        sd=spread,
        icc=intraclass,
        rounds=per_run,
        difference=difference,
        runs=runs,
        alpha=alpha,
        power=power,
        pilot=pilot,
    )
    what = {
        "rounds": "round 1 against the last round, paired within runs",
        "arms": "two feedback arms of the same runs, paired",
        "runs": "two independent sets of runs, by their mean score over the rounds",
    }[design]
    lines = [f"Design: {what}; two-sided alpha {alpha:g}, power {power:.0%}."]
    if design == "runs":
        lines.append(
            f"Spread {source}: sd of a round's score {made.sd:.4g}, intraclass correlation "
            f"{made.icc or 0.0:.3f} over {made.rounds} rounds a run."
        )
    else:
        observed = (
            f"; the pilot's mean difference {made.observed:+.4g}"
            if made.observed is not None
            else ""
        )
        lines.append(f"Spread {source}: sd of the per-run differences {made.sd:.4g}{observed}.")
    per = " per condition" if design == "runs" else ""
    if made.runs_needed is not None:
        lines.append(f"To detect a difference of {difference:g}: {made.runs_needed:,} runs{per}.")
    if made.detectable is not None:
        lines.append(
            f"With {runs:,} runs{per}: the least detectable difference is {made.detectable:.4g}."
        )
    if made.runs_needed is not None:
        lines.append(
            f"Price it: icl-aif estimate CONFIG --set runs={made.runs_needed} (the game's score: "
            "the measure of a deal, the no-deal value otherwise)."
        )
    for line in lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


def export(
    run_dir: Annotated[Path, typer.Argument(help="A run directory.")],
    format_: Annotated[
        str, typer.Option("--format", help="chat (fine-tuning JSONL) or preference (pairs).")
    ] = "chat",
    filter_: Annotated[
        str, typer.Option("--filter", help="chat: all, deals or above_mean (docs/records.md).")
    ] = "all",
    side: Annotated[
        str | None, typer.Option(help="One of the game's seats (default: the improved one).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Output JSONL (default RUN_DIR/export/<format>-<side>-<filter>.jsonl)."),
    ] = None,
) -> None:
    """Write training data from a run: chat transcripts or preference pairs from feedback arms."""
    from icl_aif.analysis.export import export_run
    from icl_aif.records.reader import SkippedLines

    skipped = SkippedLines()
    target, count = export_run(run_dir, out, fmt=format_, keep=filter_, side=side, skipped=skipped)
    console.print(f"{count} line(s) written to {target}", markup=False, soft_wrap=True)
    print_skipped(skipped)


def audit(
    run_dir: Annotated[Path, typer.Argument(help="A finished run directory.")],
    moderator: Annotated[
        str, typer.Option(help="The audit judge: rules, llm or hybrid (the game's judges).")
    ] = "rules",
    model: Annotated[
        str | None,
        typer.Option(help="provider:model of an llm or hybrid judge (default: the run's)."),
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="Another endpoint, e.g. an OpenAI-compatible server.")
    ] = None,
    window: Annotated[
        int | None,
        typer.Option(help="Turns the judge reads (default: the run's roles.moderator.window)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="The disputed rounds, JSONL (default RUN_DIR/audit.jsonl).")
    ] = None,
) -> None:
    """Re-judge every recorded round with another judge and list where it disagrees.

    Nothing is played: each round's lines are judged again as the game judged them. A model
    judge's calls go to RUN_DIR/audit_calls.jsonl.
    """
    from icl_aif.analysis.audit import audit_line, audit_rows, plan_audit, run_audit
    from icl_aif.records.reader import SkippedLines

    skipped = SkippedLines()
    plan = plan_audit(
        run_dir, moderator, model=model, base_url=base_url, window=window, out=out, skipped=skipped
    )
    with progress_bar(console, transient=True) as bar:
        task = bar.add_task(f"audit ({moderator})", total=plan.size)
        result = run_audit(plan, progress=lambda n: bar.advance(task, n))
    judge = moderator if result.model is None else f"{moderator} ({result.model})"
    table = Table(title=f"audit of {run_dir} by the {judge} judge")
    for header in ("", "rounds", "share"):
        table.add_column(header, justify="left" if not header else "right", no_wrap=True)
    for row in audit_rows(result):
        table.add_row(*row)
    print_uncut(table)
    console.print(audit_line(result), markup=False, highlight=False, soft_wrap=True)
    print_skipped(skipped)


def estimate(
    config: Annotated[Path, typer.Argument(help="Experiment YAML file.")],
    set_: SetOption = None,
    sample: Annotated[int, typer.Option(help="Games to simulate, spread over the runs.")] = 10,
) -> None:
    """Predict calls, tokens and cost per role by simulating a sample of games (nothing is sent)."""
    from icl_aif.analysis.estimate import estimate_cells, estimate_table, total_line
    from icl_aif.cli.designs import given_or_shipped

    experiment = load_config(given_or_shipped(config), list(set_ or []))
    results = estimate_cells(experiment, sample)
    for cell, result in results:
        if cell.id is not None:
            shown = ", ".join(f"{k}={v}" for k, v in cell.settings.items())
            console.print(f"Cell {cell.id}: {shown}", markup=False, highlight=False)
        console.print(estimate_table(result))
        for note in result.notes:
            console.print(note, style="dim", markup=False, highlight=False)
    if len(results) > 1:
        console.print(total_line([r for _, r in results]), markup=False, highlight=False)
