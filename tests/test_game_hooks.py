"""What the engine does with a game's hooks and the players' switches: invalid moves are asked
again and end the round after ``move_retries``, a scenario drawn per game is played and recorded,
a game's own per-round figures reach the summary, and the rival's persona, the countdown and the
last-turn clause reach the players' prompts."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import Scenario
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import Seat, Turn
from icl_aif.engine.configs import config_from_dict
from icl_aif.engine.context import GameContext
from icl_aif.engine.graphs import build_run_graph
from icl_aif.games.base import Column, Setup
from icl_aif.games.price.game import PriceGame
from icl_aif.games.price.scenario import PriceScenario
from icl_aif.games.registry import GAMES
from icl_aif.records.reader import read_games, read_json, read_jsonl
from tests.conftest import run

HINT = "State your price with a $ sign."


class StrictPrice(PriceGame):
    """The price game, but a line without a dollar sign is not a move; the list price is drawn
    per game (20 to 29) and each round reports how many lines were refused."""

    name = "strict_price"
    columns = (Column("refused", "refused", "count"), Column("dealt", "dealt", "rate"))

    def invalid_move(
        self, scenario: Scenario, side: Seat, text: str, turns: Sequence[Turn]
    ) -> str | None:
        return None if "$" in text else HINT

    def sample_scenario(self, scenario: Scenario, seed: int) -> Scenario:
        assert isinstance(scenario, PriceScenario)
        return scenario.model_copy(update={"list_price": float(20 + seed % 10)})

    def round_metrics(
        self, setup: Setup[Any], games: Sequence[Mapping[str, Any]], number: int
    ) -> dict[str, Any]:
        rounds = [r for g in games for r in g["rounds"] if r["round"] == number]
        dealt = sum(r["outcome"] == "deal" for r in rounds)
        return {
            "refused": sum(r.get("invalid_moves", 0) for r in rounds),
            "dealt": dealt / len(rounds) if rounds else None,
        }


@pytest.fixture(autouse=True)
def strict_price() -> Iterator[None]:
    game = StrictPrice()
    game.origin = __name__
    GAMES[game.name] = game
    try:
        yield
    finally:
        GAMES.pop(game.name, None)


def replayed(seller: list[str], buyer: list[str], **values: Any) -> ExperimentConfig:
    """One round of replayed players in the strict price game."""
    return config_from_dict(
        {
            "name": "hooks",
            "game": "strict_price",
            "runs": 1,
            "rounds": 1,
            "roles": {
                "seller": {"model": "replay:seller", "params": {"replies": seller}},
                "buyer": {"model": "replay:buyer", "params": {"replies": buyer}},
            },
            "feedback": {"source": "none"},
            **values,
        }
    )


def test_an_invalid_move_is_asked_again_with_the_games_message(tmp_path: Path) -> None:
    config = replayed(["eighteen", "How about $18?"], ["Deal at $18."])
    result = run(config, tmp_path / "run")
    (game,) = read_games(result.directory)
    (record,) = game["rounds"]
    assert (record["outcome"], record["terms"], record["invalid_moves"]) == (
        "deal",
        {"price": 18.0},
        1,
    )
    assert [t["text"] for t in record["turns"][3:]] == ["How about $18?", "Deal at $18."]
    seller = [c for c in read_jsonl(result.directory / "calls.jsonl") if c["role"] == "seller"]
    assert len(seller) == 2
    assert seller[1]["messages"][-2:] == [
        {"role": "assistant", "content": "eighteen"},
        {"role": "user", "content": HINT},
    ]


def test_too_many_invalid_moves_end_the_round(tmp_path: Path) -> None:
    config = replayed(["no", "still no"], [], move_retries=1)
    result = run(config, tmp_path / "run")
    (record,) = read_games(result.directory)[0]["rounds"]
    assert (record["outcome"], record["reason"], record["invalid_moves"]) == (
        "no_deal",
        "invalid_moves",
        2,
    )
    last = {"speaker": "seller", "text": "still no", "flags": ["no_price"]}  # no price in it
    assert record["turns"][-1] == last


def test_a_drawn_scenario_is_played_and_recorded_and_the_games_figures_summarised(
    tmp_path: Path,
) -> None:
    config = replayed(["eighteen", "How about $18?"], ["Deal at $18."], runs=3)
    result = run(config, tmp_path / "run")
    games = read_games(result.directory)
    drawn = [g["scenario"]["list_price"] for g in games]
    assert all(20 <= p <= 29 for p in drawn) and len(set(drawn)) > 1
    assert [g["rounds"][0]["turns"][1]["text"] for g in games] == [
        f"Hi, this is a good balloon and its price is ${p:.0f}." for p in drawn
    ]
    summary = read_json(result.directory / "summary.json")
    assert summary["game_columns"] == [
        {"key": "refused", "header": "refused", "kind": "count"},
        {"key": "dealt", "header": "dealt", "kind": "rate"},
    ]
    assert (summary["per_round"][0]["refused"], summary["per_round"][0]["dealt"]) == (3, 1.0)
    markdown = (result.directory / "summary.md").read_text(encoding="utf-8")
    assert "| round | refused | dealt |" in markdown and "| 1 | 3 | 100.0% |" in markdown


def test_the_price_game_draws_nothing_and_records_no_scenario(tmp_path: Path) -> None:
    config = replayed(["$18", "$18"], ["Deal at $18."])
    config = config.model_copy(update={"game": "price", "scenario": PriceScenario()})
    game = read_games(run(config, tmp_path / "run").directory)[0]
    assert "scenario" not in game and "persona" not in game
    assert "invalid_moves" not in game["rounds"][0]


def views(**values: Any) -> tuple[GameContext, dict[str, Any]]:
    """The scripted quickstart's first game with ``values``; its state after one round."""
    config = config_from_dict({"name": "views", "runs": 1, "rounds": 1, **values})
    ctx = GameContext(config=config)
    state = asyncio.run(build_run_graph(ctx.game).ainvoke({}, context=ctx))
    return ctx, state


def test_the_rivals_persona_is_in_its_brief_only(tmp_path: Path) -> None:
    ctx, _ = views(rival_persona="stubborn", improve="seller")
    persona = (PromptLibrary().root / "personas/stubborn.txt").read_text(encoding="utf-8").strip()
    buyer = next(c for c in ctx.calls if c["role"] == "buyer")
    seller = next(c for c in ctx.calls if c["role"] == "seller")
    assert buyer["messages"][0]["content"].endswith(f"\n\n{persona}")
    assert persona not in seller["messages"][0]["content"]
    assert ctx.drawn == {"persona": "stubborn"}


def test_a_random_persona_is_drawn_per_game_and_recorded(tmp_path: Path) -> None:
    config = config_from_dict({"name": "personas", "runs": 12, "rounds": 1})
    config = config.model_copy(update={"rival_persona": "random"})
    games = read_games(run(config, tmp_path / "run").directory)
    names = [g["persona"] for g in games]
    assert set(names) <= {"aggressive", "desperate", "overly_kind", "rude", "stubborn"}
    assert len(set(names)) > 1
    again = read_games(run(config, tmp_path / "again").directory)
    assert [g["persona"] for g in again] == names  # drawn from the game's seed


def test_an_unknown_persona_is_one_line_before_any_game(tmp_path: Path) -> None:
    config = config_from_dict({"name": "personas", "runs": 1, "rounds": 1})
    config = config.model_copy(update={"rival_persona": "grumpy"})
    with pytest.raises(UsageError, match="rival_persona: got 'grumpy'; allowed values: random"):
        run(config, tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_the_countdown_is_in_every_players_view_and_never_on_the_table() -> None:
    ctx, state = views(countdown=True, scenario={"max_exchanges": 4})
    first = next(c for c in ctx.calls if c["role"] == "seller")["messages"][-1]["content"]
    assert first.endswith("\n\n[3 exchanges left in this round, this one included.]")
    turns = state["rounds"][0]["turns"]
    players = [c for c in ctx.calls if c["role"] in ("seller", "buyer")]
    assert {c["role"] for c in players} == {"seller", "buyer"}
    for call in players:  # each line's view counts down from where the round stood
        said = len(call["messages"]) - 1  # the brief, then the round so far
        left = -(-(8 - said) // 2)
        note = f"[{left} exchange{'' if left == 1 else 's'} left in this round, this one included.]"
        assert call["messages"][-1]["content"].endswith(f"\n\n{note}")
    assert not any("left in this round" in t["text"] for t in turns)


def test_the_last_turn_clause_is_in_both_briefs() -> None:
    ctx, _ = views(last_turn_accept=True)
    clause = PromptLibrary().render("clauses/last_turn_accept.txt").strip()
    for role in ("seller", "buyer"):
        call = next(c for c in ctx.calls if c["role"] == role)
        assert call["messages"][0]["content"].endswith(clause)


def test_the_players_switches_are_in_the_manifest(tmp_path: Path) -> None:
    config = config_from_dict(
        {
            "name": "switches",
            "runs": 1,
            "rounds": 1,
            "rival_persona": "rude",
            "countdown": True,
            "last_turn_accept": True,
        }
    )
    manifest = read_json(run(config, tmp_path / "run").directory / "manifest.json")
    assert manifest["players"] == {
        "rival_persona": "rude",
        "countdown": True,
        "last_turn_accept": True,
        "move_retries": 2,
        "moves": "text",
    }


def test_a_persona_sweep_has_one_row_per_persona(tmp_path: Path) -> None:
    config = config_from_dict(
        {"name": "cross", "runs": 3, "rounds": 2, "rival_persona": ["rude", "overly_kind"]}
    )
    summary = run(config, tmp_path / "run").summary
    assert [c["settings"] for c in summary["cells"]] == [
        {"rival_persona": "rude"},
        {"rival_persona": "overly_kind"},
    ]


def test_a_persona_sweep_reads_as_cross_play_one_row_per_persona(tmp_path: Path) -> None:
    from icl_aif.analysis.report import cross_play_rows

    config = config_from_dict(
        {"name": "cross", "runs": 8, "rounds": 2, "rival_persona": ["stubborn", "desperate"]}
    )
    result = run(config, tmp_path / "run")
    headers, body = cross_play_rows(result.summary)
    assert headers[:3] == ["rival_persona", "games", "DR r1"] and headers[-2:] == [
        "price r2",
        "95% CI",
    ]
    assert [row[0] for row in body] == ["stubborn", "desperate"]
    # the scripted rival (the buyer) plays its persona: a desperate one pays more than a stubborn one
    stubborn, desperate = (float(row[3].lstrip("$")) for row in body)
    assert desperate > stubborn
    markdown = (result.directory / "summary.md").read_text(encoding="utf-8")
    assert "## Cross-play: one row per rival" in markdown


def test_the_html_report_shows_the_games_own_figures(tmp_path: Path) -> None:
    from icl_aif.analysis.html_report import write_html_report

    config = replayed(["eighteen", "How about $18?"], ["Deal at $18."], runs=2)
    result = run(config, tmp_path / "run")
    page = write_html_report(result.directory, tmp_path / "page.html")
    text = page.read_text(encoding="utf-8")
    assert "The game&#x27;s own figures" in text or "The game's own figures" in text
    assert '<th class="">refused</th>' in text


def test_the_plots_add_a_figure_of_the_games_own_figures(tmp_path: Path) -> None:
    from icl_aif.analysis.plots import GAME_FIGURES, PLOT_FILES, run_plot_pngs

    config = replayed(["eighteen", "How about $18?"], ["Deal at $18."], runs=2)
    pngs = run_plot_pngs(run(config, tmp_path / "run").directory)
    assert list(pngs) == [*PLOT_FILES, GAME_FIGURES]
    assert pngs[GAME_FIGURES].startswith(b"\x89PNG")
