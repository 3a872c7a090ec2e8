"""How much the rules moderator's figures depend on how people type: the same dialogs, replayed
line by line (as ``icl-aif moderator-eval --dialogs``), once as written and once per surface
change made to every line:

- ``no_dollar``: "$150" written "150";
- ``no_stops``: full stops and exclamation marks at the end of sentences dropped (run-on lines);
- ``no_commas``: commas dropped;
- ``no_apostrophes``: "I'll" written "Ill", "that's" "thats";
- ``lower``: everything in lower case;
- ``dollars_after``: "$150" written "150 dollars";
- ``thousands_k``: "$1,500" written "1.5k";
- ``dollar_sign_after``: "$150" written "150$";
- ``bucks``: "$150" written "150 bucks";
- ``chat_short``: "you", "your", "are", "and", "okay", "thanks", "please", "with", "because" and
  "tomorrow" written "u", "ur", "r", "n", "k", "thx", "pls", "w/", "bc" and "tmrw";
- ``ellipses``: a full stop written "...";
- ``loud``: "!" and "?" written "!!!" and "???";
- ``yeah_okay``: "ok" written "okay" and "yes" "yeah";
- ``swapped_letters``: in about a third of the words of five letters or more, two neighbouring
  letters swapped ("sounds" written "sonuds"), the same slips on every run;
- ``split_turns``: a turn of several sentences sent as two messages, its first sentence and the
  rest (the moderator's window then holds fewer exchanges).

Each change keeps what the dialog means, so a moderator that reads meaning keeps its figures; a
drop shows phrasing the rules only read in one spelling. Prints one line per variant:
outcome and price accuracy, and the dialogs whose verdict went from right to wrong (``lost``)
or the other way (``gained``) against the dialogs as written.

    python bench/moderator_surface.py DIALOGS.jsonl [--window 4]

Run it on dialogs you may read (a development half), not on a held-out set.
"""

from __future__ import annotations

import argparse
import random
import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from icl_aif.core.transcript import Turn
from icl_aif.games.price.judge.dialogs import Dialog, load_dialogs, replay, score_dialogs
from icl_aif.games.price.judge.rules import PriceRulesJudge

_SHORT = {
    "you": "u",
    "your": "ur",
    "are": "r",
    "and": "n",
    "okay": "k",
    "thanks": "thx",
    "please": "pls",
    "with": "w/",
    "because": "bc",
    "tomorrow": "tmrw",
}
_SWAP_SHARE = 0.35
_LONG_WORD_RE = re.compile(r"[A-Za-z]{5,}")


def _swap_letters(text: str) -> str:
    """``text`` with two neighbouring letters swapped in about a third of its long words, seeded
    by the text so that every run makes the same slips."""
    rng = random.Random(text)

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        if rng.random() >= _SWAP_SHARE:
            return word
        i = rng.randrange(1, len(word) - 2)
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]

    return _LONG_WORD_RE.sub(swap, text)


VARIANTS: dict[str, Callable[[str], str]] = {
    "as_written": lambda text: text,
    "no_dollar": lambda text: re.sub(r"\$\s?(?=\d)", "", text),
    "no_stops": lambda text: re.sub(r"[.!]+(?=\s|$)", "", text),
    "no_commas": lambda text: text.replace(",", ""),
    "no_apostrophes": lambda text: re.sub(r"['’]", "", text),
    "lower": str.lower,
    "dollars_after": lambda text: re.sub(r"\$\s?(\d[\d,]*(?:\.\d+)?)", r"\1 dollars", text),
    "thousands_k": lambda text: re.sub(
        r"\$?(\d{1,3}),?(\d)00\b(?!\.\d)",
        lambda m: f"{m.group(1)}.{m.group(2)}k".replace(".0k", "k"),
        text,
    ),
    "dollar_sign_after": lambda text: re.sub(r"\$\s?(\d[\d,]*(?:\.\d+)?)", r"\1$", text),
    "bucks": lambda text: re.sub(r"\$\s?(\d[\d,]*(?:\.\d+)?)", r"\1 bucks", text),
    "chat_short": lambda text: re.sub(
        r"\b(you|your|are|and|okay|thanks|please|with|because|tomorrow)\b",
        lambda m: _SHORT[m.group(1).lower()],
        text,
        flags=re.I,
    ),
    "ellipses": lambda text: re.sub(r"\.(?=\s|$)", "...", text),
    "loud": lambda text: re.sub(r"([!?])(?=\s|$)", r"\1\1\1", text),
    "yeah_okay": lambda text: re.sub(
        r"\b(ok|yes)\b",
        lambda m: {"ok": "okay", "yes": "yeah"}[m.group(1).lower()],
        text,
        flags=re.I,
    ),
    "swapped_letters": _swap_letters,
}
SPLIT_TURNS = "split_turns"
_FIRST_SENTENCE_RE = re.compile(r"^(.+?[.!?])\s+(\S.*)$", re.S)


def _changed(dialog: Dialog, change: Callable[[str], str]) -> Dialog:
    turns = tuple({**turn, "text": change(turn["text"])} for turn in dialog.turns)
    return replace(dialog, turns=turns)  # type: ignore[arg-type]


def _split(dialog: Dialog) -> Dialog:
    """Each turn of two sentences or more sent as two messages by the same speaker."""
    turns: list[Turn] = []
    for turn in dialog.turns:
        parts = _FIRST_SENTENCE_RE.match(turn["text"].strip())
        if parts is None:
            turns.append(turn)
        else:
            turns += [{**turn, "text": parts.group(1)}, {**turn, "text": parts.group(2)}]
    return replace(dialog, turns=tuple(turns))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dialogs", help="labelled dialogs, JSON Lines (moderator-eval --dialogs)")
    parser.add_argument("--window", type=int, default=4, help="turns the moderator sees")
    args = parser.parse_args()
    dialogs = load_dialogs(args.dialogs)
    judge = PriceRulesJudge()
    baseline: list[bool] = []
    variants: dict[str, Callable[[Dialog], Dialog]] = {
        name: partial(_changed, change=change) for name, change in VARIANTS.items()
    }
    variants[SPLIT_TURNS] = _split
    for name, vary in variants.items():
        replays = [replay(judge, vary(d), args.window) for d in dialogs]
        report = score_dialogs(replays, args.window)
        right = [r.correct for r in replays]
        baseline = baseline or right
        lost = sum(b and not r for b, r in zip(baseline, right, strict=True))
        gained = sum(r and not b for b, r in zip(baseline, right, strict=True))
        print(
            f"{name:18} outcome {report.outcome_accuracy:.3f}  "
            f"price {report.price_accuracy:.3f}  lost {lost}  gained {gained}"
        )


if __name__ == "__main__":
    main()
