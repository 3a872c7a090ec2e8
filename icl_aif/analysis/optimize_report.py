"""What ``icl-aif optimize`` writes for people: the lineage of the search (``lineage.md``: every
proposal, its parents, its scores, what it changed) and one HTML page with the lineage, the best
instruction and the comparison on held-out scenarios (``report.html``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from icl_aif.analysis.html_report import html_page, html_table
from icl_aif.analysis.optimize_compare import COMPARISON_HEADERS, COMPARISON_LEGEND, comparison_rows
from icl_aif.games.reflector import sentences

__all__ = ["LINEAGE_HEADERS", "lineage_markdown", "lineage_rows", "write_report"]

LINEAGE_HEADERS = (
    "id",
    "step",
    "from",
    "minibatch: parent",
    "child",
    "kept",
    "validation",
    "change",
)


def _change(instruction: str, parent: str) -> str:
    """What a proposal changed: the sentences it added (+) and dropped (-)."""
    new, old = sentences(instruction), sentences(parent)
    added = [f"+ {s}" for s in new if s not in old]
    dropped = [f"- {s}" for s in old if s not in new]
    return " ".join([*added, *dropped]) or "(no change)"


def lineage_rows(proposals: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """One row per proposal (``candidates.jsonl`` lines)."""
    by_id = {p["id"]: p for p in proposals}
    body = []
    for p in proposals:
        parents = p.get("parents") or []
        parent_text = by_id[parents[0]]["instruction"] if parents and parents[0] in by_id else ""
        validation = p.get("validation") or {}
        mean = sum(validation.values()) / len(validation) if validation else None
        scores = p.get("parent_scores") or []
        body.append(
            [
                p["id"],
                f"{p['origin']} {p['iteration']}",
                ", ".join(parents) or "-",
                ", ".join(f"{s:.3f}" for s in scores if s is not None) or "-",
                "-" if p.get("score") is None else f"{p['score']:.3f}",
                "yes" if p.get("kept") else f"no: {p.get('why')}",
                "-" if mean is None else f"{mean:.3f}",
                _change(p.get("instruction") or "", parent_text)
                if p["origin"] != "seed"
                else "(the brief alone)",
            ]
        )
    return body


def _markdown(headers: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    return [
        "| " + " | ".join(headers) + " |",
        "|" + "---|" * len(headers),
        *("| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in body),
    ]


def lineage_markdown(
    name: str, proposals: Sequence[Mapping[str, Any]], best: Mapping[str, Any], stopped: str
) -> str:
    """``lineage.md``: the best instruction, then every proposal."""
    return "\n".join(
        [
            f"# {name}: the search's lineage",
            "",
            f"Best: {best['id']} (mean validation score {best['mean']:.3f}); the search stopped: "
            f"{stopped}.",
            "",
            "```",
            best["instruction"] or "(the brief alone: no instruction beat it)",
            "```",
            "",
            *_markdown(LINEAGE_HEADERS, lineage_rows(proposals)),
            "",
            "minibatch: the mean score of the parent(s) and of the child on the same training "
            "scenarios; validation: the mean score over the validation scenarios of a kept "
            "candidate; change: sentences added (+) and dropped (-) against the first parent.",
            "",
        ]
    )


def write_report(
    path: Path,
    name: str,
    proposals: Sequence[Mapping[str, Any]],
    best: Mapping[str, Any],
    comparison: Mapping[str, Any] | None,
) -> Path:
    """``report.html``: the comparison on held-out scenarios, the best instruction and the
    lineage, one self-contained page."""
    body = f"<h1>{_escape(name)}: icl-aif optimize</h1>"
    if comparison is not None:
        costs = ", ".join(
            f"{arm} ${part['cost_usd']:.4f}" for arm, part in comparison["arms"].items()
        )
        body += (
            "<h2>Held-out comparison</h2>"
            + html_table(COMPARISON_HEADERS, comparison_rows(comparison), left=1)
            + f'<p class="note">{_escape(COMPARISON_LEGEND)} Cost: {_escape(costs)}.</p>'
        )
    body += (
        f"<h2>Best instruction ({_escape(best['id'])})</h2>"
        f"<pre>{_escape(best['instruction'] or '(the brief alone)')}</pre>"
        "<h2>Lineage</h2>" + html_table(LINEAGE_HEADERS, lineage_rows(proposals), left=3)
    )
    path.write_text(html_page(f"{name}: icl-aif optimize", body), encoding="utf-8")
    return path


def _escape(text: Any) -> str:
    return escape(str(text), quote=True)
