"""``icl-aif moderator-eval`` with every mode, ``--write-failures`` and ``icl-aif moderator-add``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.games.price.judge.evaluation import load_labelled
from icl_aif.games.price.judge.examples import add_examples
from icl_aif.games.price.judge.hybrid import rules_reading
from tests.conftest import ROOT

CLI = Path(sys.executable).parent / "icl-aif"
LABELLED = ROOT / "tests" / "data" / "moderator_windows.jsonl"
EXAMPLES = ROOT / "prompts" / "price" / "moderator" / "examples.jsonl"


def icl_aif(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(CLI), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={"PATH": "/usr/bin:/bin", "COLUMNS": "120"},
    )


def window(*lines: str, first: str = "seller") -> list[dict[str, str]]:
    other = "buyer" if first == "seller" else "seller"
    return [{"speaker": first if i % 2 == 0 else other, "text": t} for i, t in enumerate(lines)]


def labelled(
    turns: list[dict[str, str]], label: str, price: float | None = None, **extra: Any
) -> str:
    return json.dumps({"turns": turns, "label": label, "price": price, **extra}) + "\n"


SMALL = [
    labelled(window("It's $30.", "Would you take $22?"), "ongoing", id="a"),
    labelled(window("$26 is my last price.", "Deal."), "deal", 26, id="b"),
    labelled(
        window("$26 is my last price.", "I'm ending the negotiation here."), "no_deal", id="c"
    ),
    labelled(
        window("$12 max.", "Sorry, $12 is too low. I'll keep it.", first="buyer"), "no_deal", id="d"
    ),
    labelled(window("I can do $18.", "No, too much. How about $14?"), "ongoing", id="e"),
    labelled(window("$16 is fine.", "Great, $16 it is!", first="buyer"), "deal", 16, id="f"),
    labelled(
        window("How about $15?", "Okay, but only if you pay cash. Deal?", first="buyer"),
        "ongoing",
        id="g",
    ),
]


def test_rules_mode_still_reaches_95_percent() -> None:
    result = icl_aif("moderator-eval", str(LABELLED), "--moderator", "rules")
    assert result.returncode == 0, result.stderr
    accuracy = next(ln for ln in result.stdout.splitlines() if ln.startswith("Label accuracy"))
    assert float(accuracy.split()[-1]) >= 0.95
    assert "Confusion" in result.stdout and "Model calls" not in result.stdout


def test_hybrid_with_the_local_model_runs_offline(tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text("".join(SMALL))
    ambiguous = sum(
        1 for item in load_labelled(small) if rules_reading(list(item.turns))[1] is not None
    )
    assert 0 < ambiguous < len(SMALL)
    failures = tmp_path / "failures.jsonl"
    result = icl_aif(
        "moderator-eval", str(small), "--moderator", "hybrid", "--model", "local:",
        "--write-failures", str(failures),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    out = result.stdout
    for text in ("Label accuracy", "precision", "recall", "Confusion", "Price accuracy"):
        assert text in out
    assert f"Windows sent to the model: {ambiguous} of {len(SMALL)}" in out
    saved = len(SMALL) - ambiguous
    assert f"Calls saved versus llm (one call a window): {saved}" in out
    assert "schema" in out  # llama.cpp's grammar holds SmolLM2 to the JSON schema
    for line in failures.read_text().splitlines():
        record = json.loads(line)
        assert {"turns", "label", "price", "predicted"} <= record.keys()
        assert record["predicted"]["decided_by"] in ("rules", "llm")


def test_bad_moderator_options_are_one_line_errors(tmp_path: Path) -> None:
    for args, message in (
        (["--moderator", "gpt"], "allowed values: rules, llm, hybrid"),
        (["--moderator", "llm"], "needs --model"),
        (["--moderator", "llm", "--model", "nope:x"], "unknown provider 'nope'"),
    ):
        result = icl_aif("moderator-eval", str(LABELLED), *args)
        assert result.returncode == 2, (args, result.stdout)
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_write_failures_then_add_them_as_examples(tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text("".join(SMALL))
    failures = tmp_path / "failures.jsonl"
    result = icl_aif("moderator-eval", str(small), "--write-failures", str(failures))
    assert result.returncode == 0, result.stderr
    (failure,) = [json.loads(line) for line in failures.read_text().splitlines()]
    assert failure["id"] == "c" and failure["label"] == "no_deal"  # the gold answer
    assert failure["predicted"] == {
        "label": "ongoing",
        "price": None,
        "reason": None,
        "decided_by": None,
        "parse": None,
    }
    target = tmp_path / "examples.jsonl"
    target.write_text(EXAMPLES.read_text())
    before = len(target.read_text().splitlines())
    added = icl_aif("moderator-add", str(failures), "--to", str(target))
    assert added.returncode == 0, added.stderr
    assert "1 example(s) added" in added.stdout
    lines = target.read_text().splitlines()
    assert len(lines) == before + 1
    assert "predicted" not in json.loads(lines[-1])  # the moderator's answer is not kept
    again = icl_aif("moderator-add", str(failures), "--to", str(target))
    assert "0 example(s) added" in again.stdout and "1 duplicate(s) skipped" in again.stdout
    assert len(target.read_text().splitlines()) == before + 1


def test_moderator_add_validates_every_line_before_writing(tmp_path: Path) -> None:
    target = tmp_path / "examples.jsonl"
    target.write_text(labelled(window("$20.", "Deal."), "deal", 20))
    bad = tmp_path / "bad.jsonl"
    bad.write_text(labelled(window("$9.", "OK."), "deal", 9) + '{"turns": [], "label": "deal"}\n')
    with pytest.raises(UsageError, match=r"bad.jsonl:2: \"turns\" must be a non-empty list"):
        add_examples(bad, target)
    assert len(target.read_text().splitlines()) == 1  # nothing appended
    result = icl_aif("moderator-add", str(bad), "--to", str(target))
    assert result.returncode == 2 and "bad.jsonl:2" in result.stderr


def test_moderator_add_refuses_contradicting_duplicates(tmp_path: Path) -> None:
    target = tmp_path / "examples.jsonl"
    target.write_text(labelled(window("$20.", "Deal."), "deal", 20, id="x1"))
    same = tmp_path / "same.jsonl"
    same.write_text(
        labelled(window("$20.", "  deal. "), "deal", 20.0)  # spacing and case do not matter
        + labelled(window("$18.", "Fine."), "deal", 18)
        + labelled(window("$18.", "Fine."), "deal", 18)  # a duplicate inside the file
    )
    result = add_examples(same, target)
    assert (result.added, result.duplicates) == (1, 2)
    contradicting = tmp_path / "contra.jsonl"
    contradicting.write_text(labelled(window("$20.", "Deal."), "ongoing"))
    with pytest.raises(UsageError, match="answers ongoing instead of deal \\$20"):
        add_examples(contradicting, target)


def test_the_shipped_examples_are_valid_and_not_from_the_evaluation_sets() -> None:
    from icl_aif.games.price.judge.examples import overlap

    examples = load_labelled(EXAMPLES)
    assert 12 <= len(examples) <= 30
    assert {e.label for e in examples} == {"ongoing", "deal", "no_deal"}
    assert all(isinstance(e.extra.get("reason"), str) for e in examples)
    for name in ("moderator_windows.jsonl", "moderator_heldout.jsonl"):
        assert overlap(load_labelled(ROOT / "tests" / "data" / name), examples) == 0
