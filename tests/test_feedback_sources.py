"""Open feedback source registry: ours register with a decorator, a test or another package (an
entry point) adds its own, and a game, a paired arm and the config's checks use it by name.

The plugin is a real package made in a temporary directory (a module and its ``.dist-info`` with
an ``entry_points.txt``) put on ``sys.path``. What a source says is checked where it matters: in
the improved player's next prompt (``calls.jsonl``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine.context import GameContext
from icl_aif.engine.feedback import registry as feedback_sources
from icl_aif.engine.feedback.registry import FEEDBACK_SOURCES, Feedback, feedback_source
from icl_aif.engine.protocol import PlayedRound
from icl_aif.games.registry import game_of
from icl_aif.records.reader import read_games, read_jsonl
from tests.conftest import make_package, quickstart, run

OURS = ["ai", "human", "human_pool", "constant", "none"]

PLUGIN_MODULE = '''
"""A feedback source package of someone else's: a line naming the round and its outcome."""

from icl_aif.engine.feedback.registry import Feedback, feedback_source


@feedback_source("coach")
async def coach(ctx, rounds):
    last = rounds[-1]
    line = f"Coach after round {last['round']} ({last['outcome']}): open at the list price."
    return Feedback("coach", line, [line])
'''


def mine_line(rounds: Sequence[PlayedRound]) -> str:
    last = rounds[-1]
    return f"Mine after round {last['round']} ({last['outcome']}): hold at $19 and smile."


@pytest.fixture
def mine() -> Iterator[None]:
    """The source ``mine``, registered by this module for one test."""

    @feedback_source("mine")
    async def give(ctx: GameContext, rounds: Sequence[PlayedRound]) -> Feedback:
        line = mine_line(rounds)
        return Feedback("mine", line, [line])

    yield
    del FEEDBACK_SOURCES["mine"]


@pytest.fixture
def clean_plugins() -> Iterator[None]:
    """Plugins are loaded afresh in the test and unregistered after it."""
    feedback_sources.forget_plugins()
    yield
    feedback_sources.forget_plugins()
    for name in ("icl_aif_source_demo", "icl_aif_source_broken"):
        sys.modules.pop(name, None)


@pytest.fixture
def coach(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_plugins: None) -> Path:
    """The demo plugin package, declaring ``coach`` in ``icl_aif.feedback_sources``."""
    root = tmp_path / "site"
    root.mkdir()
    make_package(
        root,
        "icl_aif_source_demo",
        PLUGIN_MODULE,
        {"coach": "icl_aif_source_demo"},
        group=feedback_sources.ENTRY_POINT_GROUP,
    )
    monkeypatch.syspath_prepend(str(root))
    return root


def improved_prompts_after_feedback(directory: Path, source: str) -> list[tuple[str, str]]:
    """For every game: (the feedback round 1 recorded, the instruction that opened round 2 in the
    improved seller's first round-2 call), each checked against the protocol's rendering."""
    config = quickstart("rounds=2")
    calls = list(read_jsonl(directory / "calls.jsonl"))
    seen = []
    for game in read_games(directory):
        first = game["rounds"][0]
        assert first["feedback_source"] == source
        (call, *_) = [
            c
            for c in calls
            if c["game_id"] == game["game_id"] and c["role"] == "seller" and c["round"] == 2
        ]
        game = game_of(config)
        setup = game.setup(config)
        expected = game.next_round_instruction(PromptLibrary(), setup, [first], first["feedback"])
        contents = [m["content"] for m in call["messages"] if m["role"] == "user"]
        assert expected in contents, (expected, contents)
        seen.append((first["feedback"], expected))
    return seen


def test_our_sources_register_through_the_decorator_in_order() -> None:
    assert list(FEEDBACK_SOURCES)[: len(OURS)] == OURS
    assert {FEEDBACK_SOURCES[name].origin for name in OURS} == {"icl_aif.engine.feedback.sources"}
    assert [n for n in OURS if FEEDBACK_SOURCES[n].needs_person] == ["human"]
    assert [n for n in OURS if not FEEDBACK_SOURCES[n].may_be_arm] == ["human"]
    assert [n for n in OURS if FEEDBACK_SOURCES[n].calls_critic] == ["ai"]
    assert [n for n in OURS if FEEDBACK_SOURCES[n].check is not None] == ["human_pool"]


def test_a_name_taken_by_another_module_is_refused() -> None:
    async def give(ctx: Any, rounds: Any) -> Feedback:
        raise AssertionError("never called")

    with pytest.raises(ValueError, match="feedback source 'ai' is registered already by icl_aif"):
        feedback_source("ai")(give)
    assert FEEDBACK_SOURCES["ai"].origin == "icl_aif.engine.feedback.sources"
    with pytest.raises(ValueError, match="cannot be an arm"):
        feedback_source("typed", needs_person=True, may_be_arm=True)


def test_a_registered_source_reaches_the_improved_players_next_prompt(
    mine: None, tmp_path: Path
) -> None:
    config = quickstart("runs=2", "rounds=2", "concurrency=2", "feedback.source=mine")
    assert not config.needs_person and "critic" not in config.model_roles()
    directory = run(config, tmp_path / "run").directory
    seen = improved_prompts_after_feedback(directory, "mine")
    assert len(seen) == 2
    for text, instruction in seen:
        assert text == "Mine after round 1 (deal): hold at $19 and smile." or text.startswith(
            "Mine after round 1 (no_deal)"
        )
        assert text in instruction
    assert not any(c["role"] == "critic" for c in read_jsonl(directory / "calls.jsonl"))


def test_a_plugin_source_plays_through_its_entry_point(coach: Path, tmp_path: Path) -> None:
    assert "coach" not in FEEDBACK_SOURCES  # loaded on the first lookup of a name not registered
    config = quickstart("runs=2", "rounds=2", "concurrency=2", "feedback.source=coach")
    assert FEEDBACK_SOURCES["coach"].origin == "icl_aif_source_demo"
    directory = run(config, tmp_path / "run").directory
    seen = improved_prompts_after_feedback(directory, "coach")
    assert len(seen) == 2
    assert all(text.startswith("Coach after round 1 (") for text, _ in seen)
    assert all(text in instruction for text, instruction in seen)


def test_a_plugin_source_can_be_an_arm(coach: Path, tmp_path: Path) -> None:
    config = quickstart("runs=2", "rounds=3", "concurrency=2", "arms=[none, coach]")
    directory = run(config, tmp_path / "run").directory
    games = read_games(directory)
    assert sorted(g["arm"] for g in games) == ["coach", "coach", "none", "none"]
    for game in games:
        second = game["rounds"][1]  # the first round after the branch: the arm's feedback
        assert second["feedback_source"] == game["arm"]
        if game["arm"] == "coach":
            assert second["feedback"].startswith("Coach after round 2 (")
        else:
            assert second.get("feedback") is None


def test_an_unknown_source_is_one_line_at_load_listing_the_known_ones() -> None:
    with pytest.raises(UsageError) as caught:
        quickstart("feedback.source=coach")
    text = str(caught.value)
    assert "\n" not in text
    assert text.endswith(
        "field 'feedback.source': got 'coach'; allowed values: "
        "'ai', 'human', 'human_pool', 'constant' or 'none'"
    )
    with pytest.raises(UsageError, match=r"field 'arms\.1': got 'coach'; allowed values: 'ai', "):
        quickstart("arms=[none, coach]")


def test_a_plugin_that_fails_to_import_is_one_line_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clean_plugins: None
) -> None:
    root = tmp_path / "site"
    root.mkdir()
    make_package(
        root,
        "icl_aif_source_broken",
        "import nowhere_to_be_found\n",
        {"broken": "icl_aif_source_broken"},
        group=feedback_sources.ENTRY_POINT_GROUP,
    )
    monkeypatch.syspath_prepend(str(root))
    with pytest.raises(UsageError) as caught:
        quickstart("feedback.source=broken")
    text = str(caught.value)
    assert "\n" not in text and "got 'broken'; allowed values: 'ai'" in text
    assert text.endswith(
        "feedback source plugin 'broken' (icl-aif-source-broken 0.1) failed to load: "
        "ModuleNotFoundError: No module named 'nowhere_to_be_found'; fix or uninstall it"
    )
    assert quickstart("feedback.source=none").feedback.source == "none"  # ours still work
