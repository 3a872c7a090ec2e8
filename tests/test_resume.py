"""Resume after a kill, Ctrl-C and a bad environment (issue 6): nothing lost, nothing twice.

Kills land mid-run because every player call takes 10 ms (``chaos:...?latency=0.01``); the
runs are small so each test takes a few seconds. A resumed run must write the games (and calls)
an uninterrupted run of the same config writes.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.records import layout, writer
from icl_aif.records.reader import read_json, read_jsonl
from icl_aif.records.writer import lock_directory
from icl_aif.run.resume import resume_config
from tests.conftest import (
    QUICKSTART,
    ROOT,
    calls_without_timing,
    cli_env,
    games_without_times,
    quickstart,
    run,
)

CLI = Path(sys.executable).parent / "icl-aif"
SLOW = "chaos:scripted:linear?latency=0.01"
SLOW_RUN = (
    "runs=8",
    "rounds=2",
    "concurrency=2",
    f"roles.seller.model={SLOW}",
    f"roles.buyer.model={SLOW}",
)


def lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.is_file() else 0


def processes_naming(out: Path) -> list[int]:
    """Processes whose command line names ``out`` (a forked worker keeps its driver's)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and str(out).encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:  # gone meanwhile
            continue
    return found


def start_cli(*args: str | Path, stderr: Any = subprocess.PIPE) -> subprocess.Popen[str]:
    """``icl-aif ARGS`` in the background, from the repository root."""
    return subprocess.Popen(
        [str(CLI), *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        text=True,
        env=cli_env(),
        start_new_session=True,  # a process group of its own, as a terminal's foreground job
        # with Ctrl-C's default action, as in a terminal: a shell starts a background job (this
        # suite run with "&") with SIGINT ignored, and the child would inherit that
        preexec_fn=_default_sigint,
    )


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    process = start_cli(*args)
    _, stderr = process.communicate(timeout=120)
    return subprocess.CompletedProcess(process.args, process.returncode, "", stderr)


def start_slow_run(
    out: Path, *overrides: str, options: tuple[str, ...] = ()
) -> subprocess.Popen[str]:
    sets = [item for o in (*SLOW_RUN, *overrides) for item in ("--set", o)]
    return start_cli("run", QUICKSTART, "--out", out, *sets, *options)


def wait_for(moment: Callable[[], bool], process: subprocess.Popen[str]) -> None:
    """Poll until ``moment()``; the run must still be going."""
    deadline = time.monotonic() + 60
    while not moment():
        assert process.poll() is None, f"the run ended first: {process.communicate()[1]}"
        assert time.monotonic() < deadline, "the moment never came"
        time.sleep(0.002)


def resume_in_process(directory: Path) -> None:
    run(resume_config(directory), directory, resume=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The slow run, uninterrupted (results do not depend on the concurrency)."""
    directory = tmp_path_factory.mktemp("reference") / "run"
    run(quickstart(*SLOW_RUN, "concurrency=6"), directory)
    return directory


def assert_same_run(directory: Path, reference: Path, resumes: int = 1) -> None:
    assert games_without_times(directory) == games_without_times(reference)
    assert calls_without_timing(directory) == calls_without_timing(reference)
    manifest = read_json(directory / "manifest.json")
    assert manifest["status"] == "finished"
    assert len(manifest["resumed_at"]) == resumes
    assert (
        read_json(directory / "summary.json")["per_round"]
        == read_json(reference / "summary.json")["per_round"]
    )


@pytest.mark.parametrize(
    ("moment", "overrides"),
    [
        ("right after start", ()),
        ("mid-run", ()),
        ("before the summary", ("concurrency=1",)),  # one game in flight: the last one
    ],
)
def test_sigkill_then_resume_gives_the_uninterrupted_run(
    tmp_path: Path, reference: Path, moment: str, overrides: tuple[str, ...]
) -> None:
    out = tmp_path / "run"
    process = start_slow_run(out, *overrides)
    games = out / "games.jsonl"
    when = {
        "right after start": lambda: (out / "manifest.json").is_file(),
        "mid-run": lambda: lines(games) >= 3,
        "before the summary": lambda: lines(games) >= 7,
    }[moment]
    wait_for(when, process)
    process.kill()
    process.wait(timeout=30)
    assert not (out / "summary.json").exists()
    assert lines(games) < 8
    assert read_json(out / "manifest.json")["status"] == "running"
    resume_in_process(out)
    assert_same_run(out, reference)


@pytest.mark.parametrize(
    "design",
    [
        (),
        ("arms=[ai, none]", "branch_after=1"),
        ("roles.seller.model=[scripted:linear, scripted:boulware]",),
    ],
    ids=["plain", "arms", "sweep"],
)
def test_torn_last_lines_and_calls_of_unfinished_games_are_repaired(
    tmp_path: Path, design: tuple[str, ...]
) -> None:
    config = quickstart("runs=5", "rounds=2", *design)
    complete = run(config, tmp_path / "complete").directory
    out = tmp_path / "run"
    shutil.copytree(complete, out)
    for name in ("summary.json", "summary.md"):
        (out / name).unlink()
    game_lines = (complete / "games.jsonl").read_text().splitlines(keepends=True)
    call_lines = (complete / "calls.jsonl").read_text().splitlines(keepends=True)
    key = lambda line: layout.game_key(json.loads(line))  # noqa: E731
    order = list(dict.fromkeys(key(line) for line in game_lines))
    kept, unfinished, next_game = order[:2], order[2], order[3]
    third = [line for line in game_lines if key(line) == unfinished]
    # the unfinished game: all but its last line (arms), then half of that line, no newline
    torn_games = [line for line in game_lines if key(line) in kept] + third[:-1]
    (out / "games.jsonl").write_text("".join(torn_games) + third[-1][: len(third[-1]) // 2])
    orphans = [line for line in call_lines if key(line) in (*kept, unfinished)]
    first_of_next = next(line for line in call_lines if key(line) == next_game)
    (out / "calls.jsonl").write_text("".join(orphans) + first_of_next[:40])
    resume_in_process(out)
    assert games_without_times(out) == games_without_times(complete)
    assert calls_without_timing(out) == calls_without_timing(complete)
    assert (out / "games.jsonl").read_text().endswith("\n")


@pytest.mark.parametrize(
    "options", [(), ("--executor", "processes", "--workers", "2")], ids=["local", "processes"]
)
def test_ctrl_c_prints_the_resume_command_and_resume_finishes(
    tmp_path: Path, reference: Path, options: tuple[str, ...]
) -> None:
    out = tmp_path / "run"
    process = start_slow_run(out, options=options)
    wait_for(lambda: lines(out / "games.jsonl") >= 2, process)
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert stderr.splitlines() == [f"interrupted; continue with: icl-aif run --resume {out}"]
    assert read_json(out / "manifest.json")["status"] == "interrupted"
    recorded = {g["game_id"] for g in read_jsonl(out / "games.jsonl")}
    assert 2 <= len(recorded) < 8
    # the calls of the recorded games, and none of an abandoned one
    assert sorted(calls_without_timing(out), key=layout.record_order) == [
        c for c in calls_without_timing(reference) if c["game_id"] in recorded
    ]
    assert not processes_naming(out)  # no worker left behind
    resumed = cli("run", "--resume", out)
    assert resumed.returncode == 0, resumed.stderr
    assert_same_run(out, reference)


def test_sigkill_of_a_run_with_workers_then_resume_at_another_concurrency(
    tmp_path: Path, reference: Path
) -> None:
    out = tmp_path / "run"
    process = start_slow_run(out, options=("--executor", "processes", "--workers", "2"))
    wait_for(lambda: lines(out / "games.jsonl") >= 3, process)
    assert len(processes_naming(out)) == 3  # the driver and its two workers
    process.kill()
    process.wait(timeout=30)
    deadline = time.monotonic() + 30
    while processes_naming(out):  # the workers see their pipe close and leave
        assert time.monotonic() < deadline, "worker processes outlived their driver"
        time.sleep(0.05)
    # concurrency is the one setting a resume may change: no game depends on it
    resumed = cli("run", "--resume", out, "--set", "concurrency=3")
    assert resumed.returncode == 0, resumed.stderr
    assert_same_run(out, reference)
    assert "concurrency: 2" in (out / "config.yaml").read_text()  # the first run's config


def test_a_second_process_is_refused_and_a_killed_ones_lock_is_not(tmp_path: Path) -> None:
    out = tmp_path / "run"
    # a run that lasts (a second a call): it holds the lock while the second process tries
    slow = "chaos:scripted:linear?latency=1"
    process = start_slow_run(out, f"roles.seller.model={slow}", f"roles.buyer.model={slow}")
    wait_for(lambda: (out / "manifest.json").is_file(), process)
    second = cli("run", "--resume", out)
    assert second.returncode == 2
    assert second.stderr.splitlines() == [
        f"error: {out} is in use by another icl-aif process (pid {process.pid}); "
        "wait for it to end, or choose another --out directory"
    ]
    process.kill()
    process.wait(timeout=30)
    assert (out / ".lock").is_file()  # left behind by the killed process, and no obstacle:
    os.close(lock_directory(out))  # (the SIGKILL tests above resume through such locks)


def test_a_locked_directory_is_refused_in_process(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    held = lock_directory(out)
    try:
        with pytest.raises(UsageError, match="is in use by another icl-aif process"):
            run(quickstart("runs=2", "rounds=1"), out)
    finally:
        os.close(held)
    run(quickstart("runs=2", "rounds=1"), out)  # released: the run goes ahead


def test_resume_with_another_config_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(quickstart("runs=3", "rounds=2"), out, overrides=["runs=3", "rounds=2"])
    # the same experiment however it is spelled: the manifest's overrides apply to the file
    assert resume_config(out) == resume_config(out, QUICKSTART)
    assert resume_config(out, QUICKSTART, ["runs=3"]) == resume_config(out, None, ["rounds=2"])
    with pytest.raises(UsageError, match=r"another config \(seed: 7 there, 8 here\)"):
        resume_config(out, QUICKSTART, ["seed=8"])
    with pytest.raises(UsageError, match=r"another config \(roles.buyer.model: "):
        resume_config(out, None, ["roles.buyer.model=scripted:boulware"])
    other = tmp_path / "other.yaml"
    other.write_text(QUICKSTART.read_text().replace("item: balloon", "item: bike"))
    refused = cli("run", other, "--resume", out)
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        f"error: {out} holds a run of another config (scenario.item: 'balloon' there, 'bike' "
        f"here); resume it as it is with: icl-aif run --resume {out}"
    ]
    assert read_json(out / "manifest.json")["status"] == "finished"  # untouched


def test_resume_refuses_changed_prompts_and_records_new_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool = tmp_path / "pool.txt"
    pool.write_text((ROOT / "prompts" / "price" / "feedback" / "seller_pool.txt").read_text())
    out = tmp_path / "run"
    config = quickstart("runs=3", "rounds=2", "feedback.source=human_pool", f"feedback.pool={pool}")
    run(config, out)
    pool.write_text(pool.read_text() + "Ask for a bigger discount.\n")
    refused = cli("run", "--resume", out)
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        f"error: {out}: {pool} changed since the run started; its games used the old text: "
        "restore it to resume, or start a new run"
    ]
    pool.write_text((ROOT / "prompts" / "price" / "feedback" / "seller_pool.txt").read_text())
    versions = {**writer.package_versions(), "langgraph": "0.0.1"}
    monkeypatch.setattr("icl_aif.run.runner.package_versions", lambda: versions)
    resume_in_process(out)
    (entry,) = read_json(out / "manifest.json")["resumed_with"]
    assert entry["versions"] == {"langgraph": [writer.package_versions()["langgraph"], "0.0.1"]}


def main_cli(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, list[str]]:
    """``icl-aif ARGS`` in this process (so the test can patch it): exit code, stderr lines."""
    from icl_aif.cli import app as cli_module

    argv = ["icl-aif", *map(str, args)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "argv", argv)
        with pytest.raises(SystemExit) as exit_:
            cli_module.main()
    return int(exit_.value.code or 0), capsys.readouterr().err.splitlines()


def no_preflight(*_: Any, **__: Any) -> Any:
    raise AssertionError("the preflight ran before the directory was checked")


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (
            OSError(errno.ENOSPC, "No space left on device"),
            "error: no space left on the disk of {out}: free some space and run again",
        ),
        (
            PermissionError(errno.EACCES, "Permission denied"),
            "error: cannot write to {out}: Permission denied; choose another --out directory",
        ),
    ],
    ids=["disk full", "permission"],
)
def test_a_bad_directory_is_one_line_before_anything_is_spent(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    error: OSError,
    line: str,
) -> None:
    def failing(fd: int, text: str) -> None:
        raise error

    monkeypatch.setattr(writer, "_append", failing)
    monkeypatch.setattr("icl_aif.run.runner.preflight", no_preflight)
    out = tmp_path / "run"
    code, stderr = main_cli(capsys, "run", QUICKSTART, "--out", out, "--set", "runs=2")
    assert (code, stderr) == (2, [line.format(out=out)])
    assert not (out / "games.jsonl").exists()


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="needs a read-only /sys")
def test_an_unwritable_directory_is_one_line_even_for_root(tmp_path: Path) -> None:
    out = Path("/sys/icl-aif-test/run")  # sysfs refuses new directories, to root too
    result = cli("run", QUICKSTART, "--out", out, "--set", "runs=2")
    assert result.returncode == 2
    (only,) = result.stderr.splitlines()
    assert only.startswith(f"error: cannot write to {out}: ")
    assert only.endswith("; choose another --out directory")


def test_a_full_disk_mid_run_stops_in_one_line_and_resumes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    reference: Path,
) -> None:
    real_append = writer._append
    appends = 0

    def fills_up(fd: int, text: str) -> None:
        """The write check, three games and the calls of a fourth fit; then half its line."""
        nonlocal appends
        appends += 1
        if appends <= 1 + 2 * 3 + 1:
            return real_append(fd, text)
        real_append(fd, text[: len(text) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(writer, "_append", fills_up)
    out = tmp_path / "run"
    sets = [item for o in SLOW_RUN for item in ("--set", o)]
    code, stderr = main_cli(capsys, "run", QUICKSTART, "--out", out, *sets)
    assert (code, stderr) == (
        2,
        [
            f"error: no space left on the disk of {out}: the run stopped with 3 of 8 games "
            f"recorded; fix it, then continue with: icl-aif run --resume {out}"
        ],
    )
    assert read_json(out / "manifest.json")["status"] == "interrupted"
    assert not (out / "games.jsonl").read_text().endswith("\n")  # a torn line was left
    monkeypatch.setattr(writer, "_append", real_append)  # space freed
    code, _ = main_cli(capsys, "run", "--resume", out)
    assert code == 0
    assert_same_run(out, reference)


def test_an_interrupt_outside_the_games_still_marks_the_run_interrupted(tmp_path: Path) -> None:
    """SIGTERM with Ctrl-C ignored (a background job) raises KeyboardInterrupt wherever the
    event loop is, here while the summary is computed: the manifest must not stay "running"."""
    from icl_aif.analysis.summary import summarize_run

    def interrupted(*args: Any) -> Any:
        raise KeyboardInterrupt

    out = tmp_path / "run"
    config = quickstart("runs=2", "rounds=1")
    with pytest.raises(KeyboardInterrupt):
        run(config, out, summarize=interrupted)
    assert read_json(out / "manifest.json")["status"] == "interrupted"
    assert lines(out / "games.jsonl") == 2
    run(resume_config(out), out, resume=True, summarize=summarize_run)
    assert read_json(out / "manifest.json")["status"] == "finished"
