"""A person at a real (pseudo-)terminal: icl-aif run with human feedback, and icl-aif play."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from icl_aif.records.reader import read_games, read_json, read_jsonl
from tests.conftest import CLI, QUICKSTART, ROOT, cli_env

pexpect = pytest.importorskip("pexpect")

ENV = cli_env(TERM="dumb")
SELLER_WALKS = (
    "roles.seller.model=replay:seller",
    "roles.seller.params={replies: ['How about $18?', 'My price is still $18.', "
    "'That is too low, so I am walking away. No deal.']}",
)


def spawn(*args: str | Path) -> pexpect.spawn:
    child = pexpect.spawn(
        str(CLI),
        [str(a) for a in args],
        cwd=str(ROOT),
        env=ENV,
        encoding="utf-8",
        timeout=60,
        dimensions=(50, 100),
    )
    return child


def test_run_with_human_feedback_at_the_terminal(tmp_path: Path) -> None:
    out = tmp_path / "run"
    child = spawn(
        "run", QUICKSTART, "--out", out, *("--set", "runs=2", "--set", "rounds=2"),
        *("--set", "concurrency=2", "--set", "feedback.source=human"),
    )  # fmt: skip
    seen = []
    for _ in range(2):  # one pause per game after round 1, one at a time
        child.expect(r"Game (g0000[01]) after round 1: the seller's record")
        seen.append(child.match.group(1))
        child.expect("Outcome: ")  # the transcript the critic would read, outcome included
        child.expect(
            "Type your feedback for the seller: 3 suggestions, one a line. An empty line ends it"
        )
        child.expect("> ")
        child.sendline("Hold firm after your first counter.")
        child.expect("> ")
        child.sendline("Stress the quality of the balloon.")
        child.expect("> ")
        child.sendline("")
        child.expect(r"Feedback recorded \(2 line\(s\)\)\.")
    child.expect(f"Run written to {out}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert sorted(seen) == ["g00000", "g00001"]
    games = read_games(out)
    assert [g["status"] for g in games] == ["complete", "complete"]
    for game in games:
        first = game["rounds"][0]
        assert first["feedback_source"] == "human"
        assert first["feedback"] == (
            "Hold firm after your first counter.\nStress the quality of the balloon."
        )
        assert first["suggestions"] == [
            "Hold firm after your first counter.",
            "Stress the quality of the balloon.",
        ]
        assert "Stress the quality of the balloon." in first["instruction"]
    assert read_json(out / "summary.json")["per_round"][1]["games"] == 2


def test_play_as_the_buyer_until_the_round_ends(tmp_path: Path) -> None:
    out = tmp_path / "play"
    child = spawn(
        "play", "--as", "buyer", QUICKSTART, "--out", out,
        *(item for pair in (("--set", s) for s in SELLER_WALKS) for item in pair),
    )  # fmt: skip
    child.expect("You are the buyer")
    child.expect("You are the buyer in a bargaining game over a balloon.")
    child.expect("round 1 of 1")
    child.expect("seller: Hi, this is a good balloon and its price is \\$20.")
    child.expect(r"seller: How about \$18\?")
    child.expect(r"you \(buyer\): ")
    child.sendline("")  # an empty line is not a turn
    child.expect("Type a line")
    child.expect(r"you \(buyer\): ")
    child.sendline("Would you take $11?")
    child.expect(r"seller: My price is still \$18\.")
    child.expect(r"you \(buyer\): ")
    child.sendline("I can do $12.")
    child.expect("seller: That is too low, so I am walking away. No deal.")
    child.expect(r"Round 1: no deal \(walk_away\)")
    child.expect(f"Run written to {out}")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    for name in ("config.yaml", "manifest.json", "games.jsonl", "calls.jsonl", "summary.json"):
        assert (out / name).is_file()
    (game,) = read_games(out)
    (record,) = game["rounds"]
    assert (record["outcome"], record["reason"]) == ("no_deal", "walk_away")
    assert record["turns"][3:] == [
        {"speaker": "seller", "text": "How about $18?"},
        {"speaker": "buyer", "text": "Would you take $11?"},  # what the person typed
        {"speaker": "seller", "text": "My price is still $18."},
        {"speaker": "buyer", "text": "I can do $12."},
        {
            "speaker": "seller",
            "text": "That is too low, so I am walking away. No deal.",
            "flags": ["no_price"],  # the price game's, for information
        },
    ]
    calls = list(read_jsonl(out / "calls.jsonl"))
    assert [c["role"] for c in calls] == ["seller"] * 3  # the person's lines are no model calls
    manifest = read_json(out / "manifest.json")
    assert manifest["person"] == "buyer"
    assert manifest["models"]["buyer"] == "person"
    assert manifest["rounds"] == 1 and manifest["runs"] == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("run", QUICKSTART, "--set", "feedback.source=human"),
            "error: feedback.source human needs a person: use icl-aif run in a terminal, or "
            "icl-aif serve for critics on a web page",
        ),
        (
            ("play", "--as", "buyer", QUICKSTART),
            "error: person: buyer needs a person at the terminal: use icl-aif play in a terminal",
        ),
        (
            ("play", "--as", "critic", QUICKSTART),
            "error: --as 'critic': allowed values: seller or buyer",
        ),
        (
            ("play", "--as", "seller", QUICKSTART, "--set", "acknowledgement=generated"),
            "acknowledgement: generated needs a model for the improved side, and a person plays it",
        ),
    ],
)
def test_without_a_terminal_it_is_one_line_and_exit_2(
    args: tuple[str | Path, ...], message: str
) -> None:
    result = subprocess.run(
        [str(CLI), *map(str, args)],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=ENV,
    )
    assert result.returncode == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
