"""One self-contained HTML page per run: config and manifest facts, the per-round tables, usage and
cost, the plots (embedded PNG) and browsable transcripts.

No network, no script: CSS is inline, images are ``data:`` URIs, transcripts open with
``<details>``. Every value from the records is escaped with :func:`html.escape`.

The tables and each round's outcome show the game's measure (``summary.json``'s ``measure``; a
summary written before games had measures: the deal price), in dollars when it is money.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from icl_aif.analysis.report import (
    USAGE_COLUMNS,
    MeasureLike,
    cost_line,
    failure_line,
    game_figures,
    has_no_moves,
    legend,
    measure_header,
    no_move_line,
    round_columns,
    rows,
    runs_line,
    summary_measure,
    sweep_game_figures,
    usd,
    value_text,
)
from icl_aif.core.transcript import Seats
from icl_aif.games.base import Game
from icl_aif.games.registry import game_of
from icl_aif.records.schema import failed_to_move

if TYPE_CHECKING:
    from icl_aif.games.base import Measure
    from icl_aif.records.reader import SkippedLines

DEFAULT_MAX_TRANSCRIPTS = 200
"""Games whose transcripts the page shows by default (a few hundred keep it quick to open)."""

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;
 padding:1em 1.5em;color:#1d1d1f;background:#fff}
h1{margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.6em 0}th,td{padding:.25em .7em;text-align:right;
 border-bottom:1px solid #eee}th{background:#f5f5f7}td.l,th.l{text-align:left}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2em 1em}dl.facts dt{font-weight:600}
dl.facts dd{margin:0;word-break:break-all}
.note{color:#666;font-size:.9em}figure{margin:1em 0}figure img{max-width:100%;border:1px solid #eee}
details.game{border:1px solid #ddd;border-radius:6px;margin:.35em 0;padding:.2em .7em}
details.game>summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:.92em}
.round{margin:.6em 0 .9em 0}.round h4{margin:.4em 0}
.before{background:#fff8e6;border-left:3px solid #e0a800;padding:.3em .7em;margin:.3em 0;
 white-space:pre-wrap}
.turn{margin:.15em 0;padding:.15em .6em;border-radius:4px;max-width:80%;white-space:pre-wrap}
.seat1{background:#e8f1fd}.seat2{background:#eef7ec;align-self:flex-end}
.turns{display:flex;flex-direction:column;align-items:flex-start}.who{font-weight:600;font-size:.85em;color:#555}
.opener{opacity:.7}.outcome{font-weight:600}
pre{white-space:pre-wrap;background:#f7f7f7;padding:.5em;font-size:.85em}
"""


def _e(value: Any) -> str:
    return escape("-" if value is None else str(value), quote=True)


def _table(headers: Sequence[str], body: Sequence[Sequence[str]], left: int = 0) -> str:
    """An HTML table; the first ``left`` columns are left-aligned."""
    head = "".join(
        f'<th class="{"l" if i < left else ""}">{_e(h)}</th>' for i, h in enumerate(headers)
    )
    lines = [
        "<tr>"
        + "".join(f'<td class="{"l" if i < left else ""}">{_e(c)}</td>' for i, c in enumerate(row))
        + "</tr>"
        for row in body
    ]
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(lines)}</tbody></table>"


def html_table(headers: Sequence[str], body: Sequence[Sequence[str]], left: int = 0) -> str:
    """An HTML table in the report's style; the first ``left`` columns are left-aligned."""
    return _table(headers, body, left)


def html_page(title: str, body: str) -> str:
    """A self-contained page in the report's style around ``body`` (HTML)."""
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>{body}</body></html>\n"
    )


def _facts(items: Sequence[tuple[str, Any]]) -> str:
    inner = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in items)
    return f'<dl class="facts">{inner}</dl>'


def _run_section(manifest: dict[str, Any], config: dict[str, Any], game: Game[Any, Any]) -> str:
    models = manifest.get("models") or {}
    feedback = manifest.get("feedback") or {}
    git = manifest.get("git") or {}
    facts = [
        ("name", manifest.get("name")),
        ("status", manifest.get("status")),
        ("seed", manifest.get("seed")),
        ("runs x rounds", f"{manifest.get('runs')} x {manifest.get('rounds')}"),
        ("improved player", manifest.get("improve")),
        *((f"model: {role}", model) for role, model in models.items()),
        (
            "feedback",
            f"{feedback.get('source')} ({feedback.get('suggestions')} suggestions; constraints: "
            f"{', '.join(feedback.get('constraints') or []) or 'none'})",
        ),
        ("context", (manifest.get("context") or {}).get("mode")),
        ("anchor", config.get("anchor")),
        ("scenario", game.scenario_text(config.get("scenario") or {})),
        ("config file", manifest.get("config_file")),
        ("overrides", " ".join(manifest.get("overrides") or []) or "none"),
        ("started / finished", f"{manifest.get('started_at')} / {manifest.get('finished_at')}"),
        ("icl-aif", manifest.get("icl_aif_version")),
        (
            "versions",
            ", ".join(f"{k} {v}" for k, v in (manifest.get("versions") or {}).items()),
        ),
        ("git", f"{git.get('commit')}{' (dirty)' if git.get('dirty') else ''}"),
        ("platform", manifest.get("platform")),
    ]
    prompts = manifest.get("prompts") or {}
    prompt_rows = [[path, digest[:16]] for path, digest in sorted(prompts.items())]
    return (
        '<section id="run"><h2>Run</h2>'
        + _facts(facts)
        + f"<details><summary>Prompt hashes ({len(prompt_rows)} files, SHA-256)</summary>"
        + _table(["file", "sha-256 (first 16)"], prompt_rows, left=2)
        + "</details><details><summary>config.yaml (as resolved)</summary><pre>"
        + _e(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
        + "</pre></details></section>"
    )


def _rounds_section(summary: dict[str, Any], measure: MeasureLike) -> str:
    unmoved = has_no_moves(summary)
    columns = round_columns(measure, no_moves=unmoved)
    headers = [h for h, _ in columns]
    effective = summary.get("per_round_effective") or []
    failed = failure_line(summary)
    no_move = no_move_line(summary)
    return (
        '<section id="rounds"><h2>Per round</h2>'
        f"<p>{_e(runs_line(summary))}</p>"
        + (f'<p id="failed">{_e(failed)}</p>' if failed else "")
        + (f'<p id="no-move">{_e(no_move)}</p>' if no_move else "")
        + '<h3>All runs</h3><div id="table-all">'
        + _table(headers, rows(summary.get("per_round") or [], columns, measure))
        + "</div>"
        + f"<h3>Effective runs (every round a deal: {_e(summary.get('effective_runs'))} runs)</h3>"
        + '<div id="table-effective">'
        + _table(headers, rows(effective, columns, measure))
        + f'</div><p class="note">{_e(legend(measure, no_moves=unmoved))}</p>'
        + _game_figures(summary)
        + "</section>"
    )


def _game_figures(summary: dict[str, Any]) -> str:
    """The game's own per-round figures (``game_columns``), each arm's with paired arms, each
    cell's in a sweep; empty for a game without any."""
    parts: list[tuple[str | None, dict[str, Any]]] = (
        [(None, summary)] if "per_round" in summary else []
    )
    parts += [(f"arm {part.get('arm')}", part) for part in summary.get("per_arm") or []]
    html = ""
    for where, part in parts:
        headers, body = game_figures(summary, part.get("per_round") or [])
        if headers:
            shown = f" ({where})" if where is not None else ""
            html += f"<h3>The game's own figures{_e(shown)}</h3>" + _table(headers, body)
    headers, body = sweep_game_figures(summary)
    if headers:
        html += "<h3>The game's own figures, per cell</h3>" + _table(headers, body, left=1)
    return html


def _usage_section(summary: dict[str, Any]) -> str:
    usage = summary.get("usage")
    if not usage:
        return '<section id="usage"><h2>Usage and cost</h2><p>No usage recorded.</p></section>'
    body = [
        [
            role,
            *(
                usd(row[key]) if key == "cost_usd" else f"{row[key]:,}"
                for _, key in USAGE_COLUMNS[1:]
                if key is not None
            ),
        ]
        for role, row in usage["roles"].items()
    ]
    line = cost_line(summary) or f"Total cost: {usd(usage.get('total_cost_usd'))}."
    return (
        '<section id="usage"><h2>Usage and cost</h2>'
        + _table([h for h, _ in USAGE_COLUMNS], body, left=1)
        + f"<p>{_e(line)}</p></section>"
    )


def _plots_section(pngs: dict[str, bytes]) -> str:
    figures = "".join(
        f'<figure><img class="plot" alt="{_e(name)}" '
        f'src="data:image/png;base64,{base64.b64encode(data).decode("ascii")}">'
        f"<figcaption class=note>{_e(name)}</figcaption></figure>"
        for name, data in pngs.items()
    )
    return f'<section id="plots"><h2>Plots</h2>{figures}</section>'


def _ranking_section(ranking: dict[str, Any] | None, png: bytes | None) -> str:
    """A tournament's ranking (``ranking.json`` from ``icl-aif rank``), with its figure; nothing
    for a run without one."""
    if ranking is None:
        return ""
    from icl_aif.analysis.tournament import advantage_line, ranking_table

    headers, rows = ranking_table(ranking)
    figure = (
        f'<figure><img class="plot" alt="ranking" '
        f'src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}"></figure>'
        if png
        else ""
    )
    note = (
        f"{advantage_line(ranking)} 95% intervals: {ranking['bootstrap']['resamples']} "
        "cluster-bootstrap resamples (games within each pairing); "
        f"{ranking['games']} games in {ranking['pairings']} pairings."
    )
    return (
        f'<section id="ranking"><h2>Ranking</h2>{_table(headers, rows, left=2)}'
        f"<p class=note>{_e(note)}</p>{figure}</section>"
    )


def _outcome(record: dict[str, Any], measure: Measure) -> str:
    if record["outcome"] == "deal":
        value = measure.of(record)
        if value is None:
            return f"deal (no {measure_header(measure)})"
        shown = value_text(float(value), measure)
        return f"deal {shown}" if measure.money else f"deal ({measure_header(measure)} {shown})"
    if failed_to_move(record):
        return "no valid move (round ended: counted apart)"
    if record["outcome"] == "no_deal":
        return f"no deal ({record.get('reason') or 'unknown'})"
    return f"error ({record.get('reason') or ''})"


def _refused(record: dict[str, Any]) -> str:
    """The round's tries refused as moves, each with why (and the judge's reading of it, when it
    read an agreement or an end); empty without any."""
    from icl_aif.engine.protocol import REFUSALS

    items = []
    for line in record.get("refused") or []:
        verdict = line.get("text_verdict") or {}
        read = f" · the judge read {verdict.get('state')}" if line.get("moves_disagree") else ""
        items.append(
            f"<li>{_e(line.get('speaker'))}: {_e(line.get('text'))} "
            f'<span class="note">({_e(REFUSALS.get(str(line.get("kind")), line.get("kind")))}'
            f"{_e(read)})</span></li>"
        )
    if not items:
        return ""
    return f'<p class="note">Refused as moves:</p><ul class="refused">{"".join(items)}</ul>'


def _before(previous: dict[str, Any]) -> str:
    """The feedback turn the improved player got after ``previous``, shown before the next round."""
    parts = [f"Feedback ({_e(previous.get('feedback_source'))}): {_e(previous.get('feedback'))}"]
    if previous.get("instruction"):
        parts.append(f"Instruction: {_e(previous['instruction'])}")
    if previous.get("acknowledgement"):
        parts.append(f"Acknowledgement: {_e(previous['acknowledgement'])}")
    return '<div class="before">' + "\n".join(parts) + "</div>"


def _game(game: dict[str, Any], improve: str, openers: int, measure: Measure, seats: Seats) -> str:
    outcomes = " · ".join(f"R{r['round']} {_outcome(r, measure)}" for r in game["rounds"])
    status = "" if game.get("status") == "complete" else f" · {game.get('status')}"
    parts = []
    previous: dict[str, Any] | None = None
    for record in game["rounds"]:
        turns = "".join(
            _turn(t, i < openers, improve, seats) for i, t in enumerate(record["turns"])
        )
        parts.append(
            f'<div class="round"><h4>Round {_e(record["round"])}</h4>'
            + (_before(previous) if previous is not None else "")
            + f'<div class="turns">{turns}</div>'
            + _refused(record)
            + f'<p class="outcome">{_e(_outcome(record, measure))}'
            + f" · decided by {_e(record.get('decided_by'))}</p></div>"
        )
        previous = record
    error = f"<p>Error: {_e(game['error'])}</p>" if game.get("error") else ""
    name = "/".join(str(game[k]) for k in ("cell", "game_id", "arm") if game.get(k) is not None)
    return (
        f'<details class="game" id="{_e(name)}"><summary>{_e(name)} · '
        f"{_e(outcomes)}{_e(status)}</summary>{error}{''.join(parts)}</details>"
    )


def _turn(turn: Mapping[str, Any], opener: bool, improve: str, seats: Seats) -> str:
    """One line of a transcript: the seat that said it (by name), its text; coloured by seat
    (``seat1``, ``seat2``)."""
    speaker = str(turn["speaker"])
    known = speaker in seats
    kind = f"seat{seats.index(speaker) + 1}" if known else "seat"
    who = seats.name(speaker) if known else speaker
    return (
        f'<div class="turn {kind}{" opener" if opener else ""}">'
        f'<span class="who">{_e(who)}{" (improved)" if speaker == improve else ""}'
        f"</span>\n{_e(turn['text'])}</div>"
    )


def _transcripts_section(
    games: Sequence[dict[str, Any]],
    improve: str,
    openers: int,
    limit: int,
    measure: Measure,
    seats: Seats,
) -> str:
    shown = games if limit <= 0 else games[:limit]
    note = (
        f"All {len(games)} games."
        if len(shown) == len(games)
        else f"The first {len(shown)} of {len(games)} games (icl-aif report --html "
        "--transcripts 0 shows all; every game is in games.jsonl)."
    )
    return (
        '<section id="transcripts"><h2>Transcripts</h2>'
        f'<p class="note">{_e(note)} Open a game to read its rounds; before each round after the '
        "first, the feedback, instruction and acknowledgement the improved player received.</p>"
        + "".join(_game(g, improve, openers, measure, seats) for g in shown)
        + "</section>"
    )


def render_html(
    *,
    manifest: dict[str, Any],
    summary: dict[str, Any],
    config: dict[str, Any],
    games: Sequence[dict[str, Any]],
    pngs: dict[str, bytes],
    game: Game[Any, Any],
    measure: Measure,
    max_transcripts: int = DEFAULT_MAX_TRANSCRIPTS,
    damaged: Sequence[str] = (),
    ranking: dict[str, Any] | None = None,
    ranking_png: bytes | None = None,
) -> str:
    """The whole page as a string (``max_transcripts`` <= 0 shows every game). ``game``: the
    run's (its seats name the lines, it words the scenario); ``measure``: the game's, which reads
    each round's outcome; the tables name the summary's. ``damaged``: what was skipped of each
    damaged record file (:meth:`icl_aif.records.reader.SkippedLines.messages`), shown under the title.
    ``ranking``: a tournament's ``ranking.json`` (and its figure), shown after the rounds."""
    improve = str(summary.get("improve") or manifest.get("improve") or game.seats.ids[0])
    openers = len((config.get("scenario") or {}).get("openers") or []) or 3
    title = f"{manifest.get('name', 'run')} ({improve} improved)"
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{_e(title)}</h1>"
        '<p class="note">icl-aif run report: <a href="#run">run</a> · <a href="#rounds">per round</a>'
        ' · <a href="#usage">usage</a> · <a href="#plots">plots</a> · '
        '<a href="#transcripts">transcripts</a></p>'
        + "".join(f'<p class="damaged">{_e(line)}</p>' for line in damaged)
        + _run_section(manifest, config, game)
        + _rounds_section(summary, summary_measure(summary, measure))
        + _ranking_section(ranking, ranking_png)
        + _usage_section(summary)
        + _plots_section(pngs)
        + _transcripts_section(games, improve, openers, max_transcripts, measure, game.seats)
        + "</body></html>\n"
    )


def write_html_report(
    directory: Path,
    out: Path | None = None,
    *,
    max_transcripts: int = DEFAULT_MAX_TRANSCRIPTS,
    skipped: SkippedLines | None = None,
) -> Path:
    """Write the HTML report of the run in ``directory`` (default ``<directory>/report.html``).
    Damaged lines of ``games.jsonl`` are skipped, counted on the page and noted in ``skipped``."""
    from icl_aif.analysis.frames import run_config, run_measure
    from icl_aif.analysis.plots import run_plot_pngs
    from icl_aif.core.errors import UsageError
    from icl_aif.records.reader import (
        SkippedLines,
        read_games,
        read_manifest,
        read_run_config_data,
        read_summary,
    )

    manifest = read_manifest(directory)  # a newer record format: one line, before anything else
    summary = read_summary(directory)
    config_of_run = run_config(directory)
    config = read_run_config_data(directory)  # in the game's seats, as every reader
    skipped = skipped if skipped is not None else SkippedLines()
    games = read_games(directory, skipped)
    ranked = directory / "ranking.json"  # icl-aif rank's, for a tournament
    ranking = json.loads(ranked.read_text(encoding="utf-8")) if ranked.is_file() else None
    figure = directory / "plots" / "ranking.png"
    page = render_html(
        manifest=manifest,
        summary=summary,
        config=config,
        games=games,
        pngs=run_plot_pngs(directory),
        max_transcripts=max_transcripts,
        game=game_of(config_of_run),
        measure=run_measure(config_of_run),
        damaged=skipped.messages(),
        ranking=ranking,
        ranking_png=figure.read_bytes() if ranking is not None and figure.is_file() else None,
    )
    target = out or directory / "report.html"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror}") from None
    return target
