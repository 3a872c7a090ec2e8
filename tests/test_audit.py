"""icl-aif audit: re-judge a finished run's rounds with another judge, list the disputed ones."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from icl_aif.analysis.audit import (
    AUDIT,
    AUDIT_CALLS,
    audit_line,
    audit_rows,
    audit_run,
    dispute_kind,
    replay_round,
    same_terms,
)
from icl_aif.core.errors import UsageError
from icl_aif.core.transcript import Turn, Verdict
from icl_aif.engine.configs import load_config
from icl_aif.records.reader import read_jsonl
from tests.conftest import ROOT, icl_aif, quickstart, run

CLI = Path(sys.executable).parent / "icl-aif"


def fenced(state: str, price: float | None = None, reason: str = "") -> str:
    """A moderator's answer as a replay model gives it (read as a fenced JSON block)."""
    answer = {"state": state, "price": price, "reason": reason}
    return f"```json\n{json.dumps(answer)}\n```"


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small quickstart run (rules judge), shared: tests copy it before changing it."""
    return run(
        quickstart("runs=6", "rounds=2", "concurrency=3"), tmp_path_factory.mktemp("q") / "run"
    ).directory


def copy_run(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(source, target)
    return target


def doctor(directory: Path, change: Callable[[dict[str, Any], dict[str, Any]], bool]) -> None:
    """Rewrite games.jsonl, calling ``change(game, round)`` on every round until it says done."""
    path = directory / "games.jsonl"
    games = list(read_jsonl(path))
    done = False
    for game in games:
        for record in game["rounds"]:
            if not done:
                done = change(game, record)
    assert done, "no round to doctor"
    path.write_text("".join(json.dumps(g) + "\n" for g in games), encoding="utf-8")


# --- the command line ------------------------------------------------------------------------


def test_a_run_audited_by_its_own_judge_has_no_dispute(quick: Path, tmp_path: Path) -> None:
    directory = copy_run(quick, tmp_path)
    result = icl_aif("audit", directory)
    assert result.returncode == 0, result.stderr
    rounds = sum(len(g["rounds"]) for g in read_jsonl(directory / "games.jsonl"))
    assert "recorded deal, audit no_deal" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        f"audit: 0 of {rounds} rounds disputed (0.0%): see {directory / AUDIT}"
    )
    assert (directory / AUDIT).read_text() == ""
    assert not (directory / AUDIT_CALLS).exists()  # a rules judge makes no calls


def test_doctored_rounds_are_disputed_with_their_kind(quick: Path, tmp_path: Path) -> None:
    directory = copy_run(quick, tmp_path)
    doctored: dict[str, tuple[str, int]] = {}

    def change(kind: str, want: str, edit: Callable[[dict[str, Any]], None]) -> None:
        def one(game: dict[str, Any], record: dict[str, Any]) -> bool:
            key = (game["game_id"], record["round"])
            if record["outcome"] != want or key in doctored.values():
                return False
            edit(record)
            doctored[kind] = key
            return True

        doctor(directory, one)

    def other_price(r: dict[str, Any]) -> None:
        r["terms"] = {"price": r["terms"]["price"] + 1}
        r["price"] = r["terms"]["price"]

    def to_no_deal(r: dict[str, Any]) -> None:
        r.update(outcome="no_deal", terms=None, price=None, reason="walk_away")

    def to_deal(r: dict[str, Any]) -> None:
        r.update(outcome="deal", terms={"price": 13.0}, price=13.0, reason="acceptance")

    change("terms", "deal", other_price)
    change("no_deal_to_deal", "deal", to_no_deal)
    change("deal_to_no_deal", "no_deal", to_deal)
    change("deal_to_ongoing", "deal", lambda r: r["turns"].pop())  # the acceptance is gone
    result = icl_aif("audit", directory, "--out", tmp_path / "disputes.jsonl")
    assert result.returncode == 0, result.stderr
    disputes = list(read_jsonl(tmp_path / "disputes.jsonl"))
    found = {d["kind"]: (d["game_id"], d["round"]) for d in disputes}
    assert found == doctored and len(disputes) == 4
    by_kind = {d["kind"]: d for d in disputes}
    terms = by_kind["terms"]
    assert terms["audit_terms"]["price"] == terms["recorded_terms"]["price"] - 1
    assert terms["audit_line"] == terms["lines"]  # decided on the last line, as recorded
    assert terms["audit_window"] == [
        {"speaker": t["speaker"], "text": t["text"]} for t in terms["turns"][-4:]
    ]
    assert terms["audit_decided_by"] == "rules"
    ongoing = by_kind["deal_to_ongoing"]
    assert (ongoing["audit_outcome"], ongoing["audit_line"]) == ("ongoing", None)
    assert by_kind["deal_to_no_deal"]["audit_outcome"] == "no_deal"
    last = result.stdout.splitlines()[-1]
    assert last.startswith("audit: 4 of ") and last.endswith(f"see {tmp_path / 'disputes.jsonl'}")
    assert "  same outcome, other terms" in result.stdout


def test_a_pie_split_run_audits_with_its_rules_judge(tmp_path: Path) -> None:
    config = load_config(ROOT / "experiments" / "pie_split.yaml", ["runs=3", "rounds=2"])
    directory = run(config, tmp_path / "run").directory
    result = audit_run(directory)
    assert (result.audited, result.disputed, result.agreements) == (6, 0, 6)
    llm = icl_aif("audit", directory, "--moderator", "llm", "--model", "replay:judge")
    assert llm.returncode == 2 and llm.stdout == ""
    assert llm.stderr.splitlines() == [
        "error: --moderator llm: game 'pie_split' has no llm judge; allowed values: rules"
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("nosuch",), "error: nosuch: no such run directory"),
        (("tests",), "error: tests: no games.jsonl here; is this a run directory?"),
        (("RUN", "--moderator", "oracle"), "error: --moderator 'oracle': allowed values: rules"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(quick: Path, args: tuple[str, ...], message: str) -> None:
    result = icl_aif("audit", *(quick if a == "RUN" else a for a in args))
    assert result.returncode == 2, result.stdout
    assert result.stdout == "" and "Traceback" not in result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(message)


# --- a model judge ---------------------------------------------------------------------------


def replay_run(tmp_path: Path) -> Path:
    """One game of one round, judged by rules; its moderator settings name a replay model (the
    audit's llm judge) whose answers the tests give."""
    config = quickstart(
        "runs=1",
        "rounds=1",
        "concurrency=1",
        "feedback.source=none",
        "roles.moderator.model=replay:judge",
        f"roles.moderator.params={json.dumps({'replies': [fenced('deal', 15, 'accepts')]})}",
    )
    return run(config, tmp_path / "run").directory


def test_an_llm_audit_disputes_what_its_answers_say(tmp_path: Path) -> None:
    directory = replay_run(tmp_path)
    (game,) = read_jsonl(directory / "games.jsonl")
    (recorded,) = game["rounds"]
    assert recorded["outcome"] == "no_deal"  # the rules saw the buyer pass
    result = icl_aif("audit", directory, "--moderator", "llm")  # the run's model and replies
    assert result.returncode == 0, result.stderr
    (dispute,) = read_jsonl(directory / AUDIT)
    assert dispute["kind"] == "no_deal_to_deal"
    assert (dispute["audit_outcome"], dispute["audit_terms"]) == ("deal", {"price": 15.0})
    assert (dispute["audit_decided_by"], dispute["audit_parse"]) == ("llm", "fenced")
    assert dispute["audit_line"] == 4  # the first line past the three openers
    (call,) = read_jsonl(directory / AUDIT_CALLS)
    assert (call["game_id"], call["round"], call["role"], call["model"]) == (
        "g00000",
        1,
        "moderator",
        "replay:judge",
    )
    assert "by the llm (replay:judge) judge" in result.stdout
    assert result.stdout.splitlines()[-1] == (
        f"audit: 1 of 1 rounds disputed (100.0%): see {directory / AUDIT}; "
        f"1 judge call(s) in {directory / AUDIT_CALLS}"
    )


def test_an_llm_audit_that_agrees_and_one_whose_model_fails(tmp_path: Path) -> None:
    directory = replay_run(tmp_path)
    replies = [fenced("ongoing"), fenced("no_deal", reason="walk_away")]
    agreed = audit_run(directory, "llm", params={"replies": replies})
    assert (agreed.audited, agreed.agreements, agreed.disputed, agreed.calls) == (1, 1, 0, 2)
    assert list(read_jsonl(directory / AUDIT)) == []
    one = {"replies": [fenced("ongoing")]}  # the second window's call fails
    failed = audit_run(directory, "llm", params=one, out=tmp_path / "a.jsonl")
    assert (failed.errors, failed.disputed, failed.calls) == (1, 0, 2)
    (row,) = read_jsonl(tmp_path / "a.jsonl")
    assert row["kind"] == "audit_error" and "replay model" in row["audit_reason"]
    assert "1 not judged: a model call failed" in audit_line(failed)
    assert ("not judged (model call failed)", "1", "100.0%") in audit_rows(failed)


# --- paired arms and the replay rules ----------------------------------------------------------


def test_shared_rounds_of_paired_arms_are_audited_once(tmp_path: Path) -> None:
    config = quickstart("runs=3", "rounds=3", "arms=[ai,none]", "branch_after=1")
    directory = run(config, tmp_path / "run").directory
    lines = list(read_jsonl(directory / "games.jsonl"))
    shared = {(g["game_id"], r["round"]) for g in lines for r in g["rounds"] if r["shared"]}
    own = sum(1 for g in lines for r in g["rounds"] if not r["shared"])
    assert shared and own
    result = audit_run(directory)
    assert (result.audited, result.disputed) == (len(shared) + own, 0)

    def change(game: dict[str, Any], record: dict[str, Any]) -> bool:
        if not record["shared"] or record["outcome"] != "deal":
            return False
        for line in lines:  # the same round in every arm's line
            if line["game_id"] == game["game_id"]:
                line["rounds"][record["round"] - 1]["terms"] = {"price": 99.0}
        return True

    for game in lines:
        if any(change(game, r) for r in game["rounds"]):
            break
    (directory / "games.jsonl").write_text("".join(json.dumps(g) + "\n" for g in lines))
    (dispute,) = audit_run(directory).disputes
    assert dispute["arm"] is None and dispute["kind"] == "terms"


class Scripted:
    """A judge that answers from a list and records the windows it read."""

    name = "scripted"

    def __init__(self, *states: str) -> None:
        self.states = list(states)
        self.windows: list[list[Turn]] = []

    async def aclassify(
        self,
        window: list[Turn],
        scenario: dict[str, Any] | None = None,
        calls: list[dict[str, Any]] | None = None,
    ) -> Verdict:
        self.windows.append(window)
        state = self.states.pop(0) if self.states else "ongoing"
        return Verdict(state, {"price": 1.0} if state == "deal" else None)  # type: ignore[arg-type]


TURNS: list[Turn] = [
    {"speaker": "seller" if i % 2 else "buyer", "text": f"line {i + 1}"} for i in range(8)
]


def replay(judge: Scripted, **options: Any) -> Any:
    settings: dict[str, Any] = {"openers": 2, "window": 3, "info": None, "cap": 20, **options}
    return asyncio.run(replay_round(judge, TURNS, **settings))


def test_the_replay_judges_every_line_past_the_openers_and_stops_at_the_first_verdict() -> None:
    judge = Scripted("ongoing", "ongoing", "deal")
    replayed = replay(judge)
    assert (replayed.outcome, replayed.line, replayed.terms) == ("deal", 5, {"price": 1.0})
    assert [[t["text"] for t in w] for w in judge.windows] == [
        ["line 1", "line 2", "line 3"],
        ["line 2", "line 3", "line 4"],
        ["line 3", "line 4", "line 5"],
    ]
    assert replayed.window == judge.windows[-1] and replayed.decided_by == "scripted"


def test_a_round_never_ended_is_ongoing_unless_the_game_ended_it() -> None:
    assert replay(Scripted()).outcome == "ongoing"
    capped = replay(Scripted(), ended_by="cap")
    assert (capped.outcome, capped.reason, capped.line) == ("no_deal", "cap", None)
    at_cap = Scripted()
    assert replay(at_cap, cap=6).reason == "cap" and len(at_cap.windows) == 4
    invalid = Scripted()
    assert replay(invalid, ended_by="invalid_moves").reason == "invalid_moves"
    assert invalid.windows[-1][-1]["text"] == "line 7"  # the invalid last try is never judged


def test_kinds_and_terms() -> None:
    assert dispute_kind("deal", {"price": 15}, "deal", {"price": 15.0}) is None
    assert dispute_kind("deal", {"price": 15}, "deal", {"price": 16}) == "terms"
    assert dispute_kind("deal", {"price": 15}, "ongoing", None) == "deal_to_ongoing"
    assert dispute_kind("no_deal", None, "deal", {"price": 1}) == "no_deal_to_deal"
    assert dispute_kind("no_deal", None, "no_deal", None) is None
    assert same_terms({"a": [1, 2.0]}, {"a": [1.0, 2]}) and not same_terms({"a": 1}, {"a": None})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"mode": "hybrid"}, "--moderator hybrid needs --model provider:model"),
        ({"window": 0}, "audit judge: window: Input should be greater than or equal to 1"),
        ({"mode": "llm", "model": "nosuch:model"}, "unknown provider 'nosuch'"),
    ],
)
def test_bad_judge_settings_are_usage_errors(
    quick: Path, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(UsageError, match=message):
        audit_run(quick, out=Path("/nonexistent/never-written.jsonl"), **options)
