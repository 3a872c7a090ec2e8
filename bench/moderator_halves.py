"""The rules moderator on the two halves of a labelled dialog file, and how far a model fallback
on the windows the hybrid router flags could take it.

The dialogs are split by the parity of ``int(sha256(id), 16)`` (``id`` encoded as UTF-8): even is
half A, odd is half B. Issue 24 read only half A's mistakes while writing rules; half B is the
honest estimate. For each half this prints, as ``icl-aif moderator-eval --dialogs`` would, the
outcome and price accuracy and the mistakes by kind, then two figures about the hybrid router
(:func:`icl_aif.games.price.judge.hybrid.ambiguity`):

- ``flagged``: the windows the router would send to a model, of all the windows judged;
- ``oracle``: the accuracies if every flagged window were answered by a judge that knows the
  dialog's label. On a flagged window of a deal dialog it calls a deal at the labelled price when
  the rules already bind that price or the price is written in the window (``--oracle window``,
  the default) or in its last turn (``--oracle last-turn``), and ``ongoing`` otherwise; on a no-deal
  dialog it keeps the rules' ``no_deal`` and answers ``ongoing`` for anything else. Confident
  windows keep the rules' verdict. ``window`` is generous (a deal may be called at the first
  mention of its price, which the score does not punish); ``last-turn`` is stricter and misses
  acceptances that repeat no price. Neither is a model's result: they say how much of what the
  rules miss lies where the router would ask one.

    python bench/moderator_halves.py ../shared/data/craigslistbargain_dev.jsonl
    python bench/moderator_halves.py DIALOGS.jsonl --write-halves out/  # out/half_{a,b}.jsonl

``--write-halves`` writes the two halves as they are read, so that a model fallback can be measured
on half B with ``icl-aif moderator-eval out/half_b.jsonl --dialogs --mode hybrid --model ...``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from icl_aif.games.price.judge.dialogs import Dialog, load_dialogs, replay, score_dialogs
from icl_aif.games.price.judge.hybrid import rules_reading
from icl_aif.games.price.judge.rules import PriceRulesJudge

_NUMBER_RE = re.compile(r"\d[\d,]*(?:\.\d+)?")
_TOLERANCE = 0.005


def half_of(dialog_id: str) -> str:
    """``"a"`` when ``int(sha256(id), 16)`` is even, ``"b"`` when it is odd."""
    return "ab"[int(hashlib.sha256(dialog_id.encode()).hexdigest(), 16) % 2]


def _same(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) < _TOLERANCE


def _named(texts: Sequence[str], price: float | None) -> bool:
    return price is not None and any(
        _same(float(n.replace(",", "")), price) for t in texts for n in _NUMBER_RE.findall(t)
    )


@dataclass
class RouterFigures:
    """Windows judged and flagged, and what the label-knowing judge on the flagged ones reaches."""

    judged: int = 0
    flagged: int = 0
    outcome_right: int = 0
    price_right: int = 0
    deals: int = 0


def _oracle(dialog: Dialog, window: int, last_turn_only: bool, figures: RouterFigures) -> None:
    info: Mapping[str, Any] | None = dialog.judge_info()
    state, price = "no_deal", None
    for end in range(dialog.openers + 1, len(dialog.turns) + 1):
        shown = list(dialog.turns[:end][-window:])
        verdict, why = rules_reading(shown, None if info is None else dict(info))
        figures.judged += 1
        said, found = verdict.state, verdict.price
        if why is not None:
            figures.flagged += 1
            texts = [shown[-1]["text"]] if last_turn_only else [t["text"] for t in shown]
            if dialog.label == "no_deal":
                said = "no_deal" if said == "no_deal" else "ongoing"
            elif (said == "deal" and _same(found, dialog.price)) or _named(texts, dialog.price):
                said, found = "deal", dialog.price
            else:
                said = "ongoing"
        if said in ("deal", "no_deal"):
            state, price = said, found if said == "deal" else None
            break
    figures.outcome_right += state == dialog.label
    if dialog.label == "deal":
        figures.deals += 1
        figures.price_right += state == "deal" and (
            _same(price, dialog.price) or (dialog.price is None and price is None)
        )


def _write(path: Path, dialogs: Sequence[Dialog]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for d in dialogs:
            line: dict[str, Any] = {"id": d.id, "turns": [dict(t) for t in d.turns]}
            line |= {"label": d.label, "price": d.price, "openers": d.openers}
            if d.scenario is not None:
                line["scenario"] = dict(d.scenario)
            out.write(json.dumps(line, ensure_ascii=False) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dialogs", help="labelled dialogs with ids, JSON Lines (--dialogs format)")
    parser.add_argument("--window", type=int, default=4, help="turns the moderator sees")
    parser.add_argument("--oracle", choices=("window", "last-turn"), default="window")
    parser.add_argument(
        "--write-halves", metavar="DIR", help="write DIR/half_a.jsonl, half_b.jsonl"
    )
    args = parser.parse_args()
    dialogs = load_dialogs(args.dialogs)
    if any(d.id is None for d in dialogs):
        parser.error(f"{args.dialogs}: every dialog needs an 'id' to be split into halves")
    halves: dict[str, list[Dialog]] = {"a": [], "b": []}
    for d in dialogs:
        halves[half_of(str(d.id))].append(d)
    if args.write_halves:
        folder = Path(args.write_halves)
        folder.mkdir(parents=True, exist_ok=True)
        for name, part in halves.items():
            _write(folder / f"half_{name}.jsonl", part)
    judge = PriceRulesJudge()
    for name, part in halves.items():
        report = score_dialogs([replay(judge, d, args.window) for d in part], args.window)
        kinds = ", ".join(f"{k} {v}" for k, v in report.kinds.items())
        figures = RouterFigures()
        for d in part:
            _oracle(d, args.window, args.oracle == "last-turn", figures)
        print(
            f"half {name.upper()} ({report.n}): outcome {report.outcome_accuracy:.3f}  "
            f"price {report.price_accuracy:.3f}  | {kinds}\n"
            f"  router: {figures.flagged} of {figures.judged} windows flagged; "
            f"oracle ({args.oracle}) on them: outcome {figures.outcome_right / len(part):.3f}  "
            f"price {figures.price_right / max(1, figures.deals):.3f}"
        )


if __name__ == "__main__":
    main()
