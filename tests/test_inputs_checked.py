"""Every file and value a run reads is checked before the preflight and before any game.

Each bad input gets one line on stderr, exit code 2, no traceback and no run directory. The
configs that name a vendor model give it no key: were a check to come after the preflight, the
missing key would be reported instead of the bad input.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import tracemalloc
from pathlib import Path

import pytest

from icl_aif.analysis.experiment import run_experiment
from icl_aif.cli.app import main
from icl_aif.core.templates import default_prompts_dir
from icl_aif.records.reader import read_games, read_json
from tests.conftest import QUICKSTART, quickstart

VENDOR_SELLER = "roles.seller.model=openai:gpt-4o-mini"  # no OPENAI_API_KEY in the tests


def cli(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str | Path
) -> tuple[int, str, str]:
    """``icl-aif ARGS`` in this process: exit code, stdout, stderr."""
    monkeypatch.setattr(sys, "argv", ["icl-aif", *map(str, args)])
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(SystemExit) as stopped:
        main()
    out, err = capsys.readouterr()
    code = stopped.value.code
    return (code if isinstance(code, int) else 1), out, err


def refused(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    *args: str | Path,
) -> str:
    """Run ``icl-aif run ARGS --out DIR``; assert one line, exit 2, no directory; the line."""
    out = tmp_path / "run"
    code, stdout, stderr = cli(monkeypatch, capsys, "run", *args, "--out", out)
    assert code == 2, stdout + stderr
    assert len(stderr.strip().splitlines()) == 1, stderr
    assert "Traceback" not in stdout + stderr
    assert not out.exists(), "a refused run leaves no run directory"
    return stderr.strip()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --- files a game reads -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pool_text", "message"),
    [
        (None, "feedback.pool: no such file"),
        ("", "holds no suggestions"),
        ("   \n\t\n  \n", "holds no suggestions"),
        ("# only a comment\n", "holds no suggestions"),
        ("Ask for more.\nHold firm.\n", "feedback.suggestions is 3 but the pool"),
    ],
    ids=["missing", "empty", "whitespace", "comments", "too-few-lines"],
)
def test_a_bad_feedback_pool_is_refused_before_the_preflight(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    pool_text: str | None,
    message: str,
) -> None:
    pool = tmp_path / "pool.txt"
    if pool_text is not None:
        write(pool, pool_text)
    line = refused(
        monkeypatch,
        capsys,
        tmp_path,
        QUICKSTART,
        "--set",
        "feedback.source=human_pool",
        "--set",
        f"feedback.pool={pool}",
        "--set",
        VENDOR_SELLER,
    )
    assert message in line


def test_a_pool_read_only_by_an_arm_is_checked_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = refused(
        monkeypatch,
        capsys,
        tmp_path,
        QUICKSTART,
        "--set",
        "arms=[ai,human_pool]",
        "--set",
        f"feedback.pool={tmp_path / 'absent.txt'}",
    )
    assert "feedback.pool: no such file" in line


@pytest.fixture
def prompts_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the shipped prompts that the run reads instead of them."""
    copy = tmp_path / "prompts"
    shutil.copytree(default_prompts_dir(), copy)
    monkeypatch.setattr("icl_aif.core.templates.default_prompts_dir", lambda: copy)
    return copy


@pytest.mark.parametrize(
    "template",
    [
        "price/round/goal_anchor.txt",
        "price/round/result_no_deal.txt",
        "price/critic/request.txt",
        "price/players/buyer.txt",
    ],
)
def test_a_missing_prompt_template_is_refused_before_any_game(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    prompts_copy: Path,
    template: str,
) -> None:
    (prompts_copy / template).unlink()
    line = refused(monkeypatch, capsys, tmp_path, QUICKSTART, "--set", VENDOR_SELLER)
    assert f"prompt template {prompts_copy / template} is missing" in line


def test_a_template_that_does_not_render_is_refused(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    prompts_copy: Path,
) -> None:
    feedback = prompts_copy / "price" / "round" / "feedback.txt"
    write(feedback, feedback.read_text(encoding="utf-8") + "\nAim for {targett}.\n")
    line = refused(monkeypatch, capsys, tmp_path, QUICKSTART, "--set", VENDOR_SELLER)
    assert "price/round/feedback.txt: no value for placeholder(s) targett" in line


def test_a_one_round_run_does_not_read_the_next_round_templates(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    prompts_copy: Path,
) -> None:
    (prompts_copy / "price" / "round" / "goal_anchor.txt").unlink()
    code, _, stderr = cli(
        monkeypatch, capsys, "run", QUICKSTART, "--set", "rounds=1", "--set", "runs=2",
        "--out", tmp_path / "run",
    )  # fmt: skip
    assert code == 0, stderr
    assert len(read_games(tmp_path / "run")) == 2


def test_an_opener_with_an_unknown_placeholder_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = refused(
        monkeypatch,
        capsys,
        tmp_path,
        QUICKSTART,
        "--set",
        "scenario.openers=[{speaker: buyer, text: 'Hi, is the {itme} for sale?'}]",
    )
    assert "scenario.openers[1]: no value for placeholder(s) itme" in line


def test_missing_moderator_examples_are_refused_before_the_preflight(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = refused(
        monkeypatch,
        capsys,
        tmp_path,
        QUICKSTART,
        "--set",
        "roles.moderator={mode: llm, model: 'openai:gpt-4o-mini'}",
        "--set",
        f"roles.moderator.examples={tmp_path / 'none.jsonl'}",
    )
    assert "roles.moderator.examples: cannot read" in line


# --- values -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("override", "message"),
    [
        (
            "scenario.list_price=.inf",
            "field 'scenario.list_price': Input should be a finite number",
        ),
        (
            "scenario.seller_cost=.nan",
            "field 'scenario.seller_cost': Input should be a finite number",
        ),
        ("metrics.no_deal_value=-.inf", "field 'metrics.no_deal_value': Input should be a finite"),
        ("scenario.item=''", "field 'scenario.item': name the item that is sold"),
        ("scenario.item='   '", "field 'scenario.item': name the item that is sold"),
        ("scenario.seller_cost=25", "seller_cost 25 is above list_price 20: the seller would lose"),
        ("scenario.buyer_budget=9", "buyer_budget 9 is below buyer_open 10"),
        (
            "roles.seller.model=openai:",
            "no model id after 'openai:'; write e.g. openai:gpt-4o-mini",
        ),
        ("roles.buyer.model=chaos:anthropic:?error_rate=0.5", "no model id after 'anthropic:'"),
        ("roles.critic.model=cohere: ", "no model id after 'cohere:'"),
    ],
)
def test_a_bad_value_is_refused_at_config_time(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    override: str,
    message: str,
) -> None:
    line = refused(monkeypatch, capsys, tmp_path, QUICKSTART, "--set", override)
    assert message in line


def test_the_bundled_local_model_needs_no_model_id() -> None:
    assert quickstart("roles.seller.model=local:").roles.seller.model == "local:"


def test_an_empty_config_file_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for text in ("", "\n# nothing set yet\n"):
        config = write(tmp_path / "empty.yaml", text)
        line = refused(monkeypatch, capsys, tmp_path, config)
        assert f"{config}: the file is empty" in line


def test_a_key_written_twice_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = write(
        tmp_path / "twice.yaml",
        "name: twice\nruns: 3\nscenario:\n  item: kite\n  list_price: 30\n  item: drum\n",
    )
    line = refused(monkeypatch, capsys, tmp_path, config)
    assert f"{config}: line 6: key 'item' is written twice (lines 4 and 6); keep one" in line
    flow = write(tmp_path / "flow.yaml", "name: flow\nroles: {seller: {model: a:b, model: c:d}}\n")
    assert "key 'model' is written twice" in refused(monkeypatch, capsys, tmp_path, flow)


def test_the_same_key_in_two_sections_is_fine(tmp_path: Path) -> None:
    from icl_aif.engine.configs import load_config

    config = write(
        tmp_path / "ok.yaml",
        "name: ok\nroles:\n  seller: {model: 'scripted:linear'}\n  buyer: {model: 'scripted:boulware'}\n",
    )
    assert load_config(config).roles.buyer.model == "scripted:boulware"


# --- games are made lazily ----------------------------------------------------------------------


def test_a_billion_runs_start_at_once_with_flat_memory(tmp_path: Path) -> None:
    """Queuing every game up front would take tens of GB here; games are made as workers ask."""
    config = quickstart("runs=1000000000", "rounds=1", "concurrency=4")
    directory = tmp_path / "run"
    recorded = 0

    async def play_some() -> None:
        task = asyncio.current_task()
        assert task is not None

        def progress(count: int) -> None:
            nonlocal recorded
            recorded += count
            if recorded >= 40:
                task.cancel()

        await run_experiment(config, directory, progress=progress)

    tracemalloc.start()
    try:
        with pytest.raises(asyncio.CancelledError):
            asyncio.run(play_some())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    assert len(read_games(directory)) >= 40
    assert read_json(directory / "manifest.json")["status"] == "interrupted"


def test_estimate_refuses_a_missing_pool_as_run_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, stderr = cli(
        monkeypatch, capsys, "estimate", QUICKSTART, "--set", "feedback.source=human_pool",
        "--set", f"feedback.pool={tmp_path / 'absent.txt'}",
    )  # fmt: skip
    assert code == 2
    assert stderr.strip().startswith("error: feedback.pool: no such file")
