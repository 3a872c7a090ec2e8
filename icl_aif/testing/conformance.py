"""The conformance check every game passes (PettingZoo's ``api_test`` for bargaining games).

:func:`check_game` plays a game's own simulators against each other offline and raises
:class:`AssertionError` naming the game and the first property it breaks:

- ``scenario``: the default scenario survives YAML, alone and inside a run's ``config.yaml``;
- ``openers``: the game declares two seats, the opening lines render, each said by one of them, and every template
  a game of two rounds may render (briefs, between rounds, the critic's prompt) renders;
- ``judge``: the rules judge binds every agreement the game's simulators word
  (:meth:`~icl_aif.games.base.Game.agreement_examples`) with the terms they agreed;
- ``simulators``: every player simulator, against itself and in one mixed pair, finishes its
  rounds without an error, and some round ends in an agreement;
- ``payoffs``: every side's payoff of those rounds is a finite number within the game's bounds
  for an agreement, and its walk-away value without one; an agreement's terms fit the game's
  terms model;
- ``determinism``: one seed plays the same games at concurrency 1 and 8.

The static properties run first, then the ones that play. The check is synchronous: call it from
a test, not from inside a running event loop. With pytest, the ``game_conformance`` fixture of
the ``icl_aif`` plugin runs it in the test's ``tmp_path`` (see docs/testing.md).
"""

from __future__ import annotations

import asyncio
import math
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from icl_aif.config.checks import ConfigChecks
from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.files import config_to_yaml
from icl_aif.config.settings import Scenario
from icl_aif.core.templates import PromptLibrary, render_strict
from icl_aif.core.transcript import Seat, Seats, Turn
from icl_aif.engine.configs import CHECKS, config_from_dict, load_config
from icl_aif.engine.protocol import judge_window
from icl_aif.games.base import Game
from icl_aif.games.registry import get_game
from icl_aif.records.layout import CONFIG
from icl_aif.records.layout import GAMES as GAMES_FILE
from icl_aif.records.reader import read_jsonl
from icl_aif.testing.runs import Played, play

__all__ = ["PROPERTIES", "TIMING_KEYS", "check_game"]

PROPERTIES: dict[str, str] = {
    "scenario": "the default scenario round-trips through YAML",
    "openers": "the openers and templates render",
    "judge": "the rules judge binds its own simulators' agreements",
    "simulators": "the simulators finish their rounds",
    "payoffs": "the payoffs are within bounds",
    "determinism": "one seed gives the same games at concurrency 1 and 8",
}
"""Each property's name (in every failure message) and what it says, in the order checked."""

TIMING_KEYS = frozenset({"started_at", "finished_at", "resumed_at", "latency_s", "limit_wait_s"})
"""Record keys that measure time: left out when two runs' games are compared."""

ROUNDS = {"self": 2, "mixed": 3}
"""Rounds per game of a simulator against itself, and of the mixed pair (two feedback steps,
the one that ``determinism`` plays again)."""

TERMS_TOLERANCE = 1e-9
"""How far a bound number of the judge may lie from the agreed one."""


T = TypeVar("T")


class _Failed(Exception):
    """A property failed; :func:`check_game` turns it into the AssertionError."""


def _fail(detail: str) -> NoReturn:
    raise _Failed(detail)


@dataclass
class _Played:
    """The games the ``simulators`` property played, for ``payoffs`` and ``determinism``."""

    runs: list[tuple[str, ExperimentConfig, Played]]


def check_game(game: str | Game[Any, Any], tmp_path: Path, *, seed: int = 0, runs: int = 6) -> None:
    """Check that ``game`` (a registered name, or a :class:`Game` instance) keeps the interface's
    promises: raise :class:`AssertionError` naming the game and the first failed property
    (:data:`PROPERTIES`), return None when all hold.

    The run directories go into a new directory under ``tmp_path``; ``runs`` games of
    :data:`ROUNDS` rounds are played per simulator pair, from ``seed``. A game instance that is
    not registered is played as it is: its configs are validated with checks that know it
    (:func:`checks_for`), and the engine plays the game object its configs carry; the registry is
    not touched.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError("check_game plays games itself: call it outside a running event loop")
    found = get_game(game) if isinstance(game, str) else game
    name = found.name
    directory = Path(tempfile.mkdtemp(prefix=f"conformance-{name}-", dir=tmp_path))
    scenario = _run_property(name, "scenario", lambda: check_scenario(found, directory))
    _run_property(name, "openers", lambda: check_openers(found, scenario))
    _run_property(name, "judge", lambda: check_judge(found, scenario, seed))
    played = _run_property(
        name,
        "simulators",
        lambda: check_simulators(found, scenario, directory, seed=seed, runs=runs),
    )
    _run_property(name, "payoffs", lambda: check_payoffs(found, scenario, played))
    _run_property(
        name, "determinism", lambda: check_determinism(found, scenario, directory, played)
    )


def _run_property(name: str, key: str, check: Callable[[], T]) -> T:
    """``check()``, its failure (or an error the game raised) as the check's AssertionError."""
    where = f"game {name!r} fails {key} ({PROPERTIES[key]})"
    try:
        return check()
    except _Failed as exc:
        raise AssertionError(f"{where}: {exc}") from None
    except Exception as exc:
        raise AssertionError(f"{where}: {type(exc).__name__}: {exc}") from exc


# --- scenario ---------------------------------------------------------------------------


def check_scenario(game: Game[Any, Any], directory: Path) -> Scenario:
    """The default scenario, once it has survived ``yaml.safe_dump``/``safe_load`` alone and
    inside a config written as a run directory's ``config.yaml``."""
    model = game.scenario_model
    try:
        scenario: Scenario = model()
    except ValidationError as exc:
        _fail(f"{model.__name__}() fails: give every field a default ({_first_error(exc)})")
    text = yaml.safe_dump(scenario.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
    back = model.model_validate(yaml.safe_load(text))
    if back != scenario:
        _fail(f"{model.__name__} read back from YAML differs: {_model_diff(scenario, back)}")

    config = config_from_dict({"game": game.name}, checks=checks_for(game))
    if type(config.scenario) is not model:
        _fail(
            f"ExperimentConfig(game={game.name!r}).scenario is a "
            f"{type(config.scenario).__name__}, not the game's {model.__name__}()"
        )
    if config.scenario != scenario:
        _fail(
            f"ExperimentConfig(game={game.name!r}).scenario is not {model.__name__}(): "
            f"{_model_diff(scenario, config.scenario)}"
        )
    path = directory / CONFIG
    path.write_text(config_to_yaml(config), encoding="utf-8")
    loaded = load_config(path, checks=checks_for(game))
    if loaded.game != game.name or loaded.scenario != config.scenario:
        _fail(
            f"{CONFIG} read back has game {loaded.game!r} and scenario {_short(loaded.scenario)}; "
            f"written: game {game.name!r}, scenario {_short(config.scenario)}"
        )
    return scenario


# --- openers and templates --------------------------------------------------------------


def check_openers(game: Game[Any, Any], scenario: Scenario) -> None:
    """The game declares two seats; the opening turns are some, each said by one of them with no
    placeholder left,
    the scenario's openers render with :meth:`Game.opener_values`, and every template a game of
    two rounds renders (either side improved, the critic called) renders."""
    seats = getattr(game, "seats", None)
    if not isinstance(seats, Seats):
        _fail(f"seats is {seats!r}, not a Seats (the game's two seat ids and names)")
    turns = game.opening_turns(scenario)
    if not turns:
        _fail("opening_turns() returned no turn")
    for number, turn in enumerate(turns, start=1):
        if turn.get("speaker") not in game.seats:
            _fail(
                f"opening turn {number} is said by {turn.get('speaker')!r}, not a seat of the "
                f"game ({game.seats.listed()})"
            )
        text = turn.get("text")
        if not isinstance(text, str) or not text.strip():
            _fail(f"opening turn {number} has no text: {text!r}")
        if "{" in text or "}" in text:
            _fail(f"opening turn {number} keeps a placeholder: {text!r}")
    values = game.opener_values(scenario)
    for number, opener in enumerate(scenario.openers, start=1):
        render_strict(opener.text, values, source=f"scenario.openers[{number}]")
    for improve in game.seats:
        config = _config(game, scenario, rounds=2, improve=improve)
        game.check_templates(PromptLibrary(), config, critic=True)


# --- the judge --------------------------------------------------------------------------


def check_judge(game: Game[Any, Any], scenario: Scenario, seed: int) -> None:
    """The rules judge, on the window the engine would show it after each example's last line
    (the openers, then the example), says ``deal`` with the example's terms."""
    if "rules" not in game.judges:
        _fail(f"judges {game.judges} has no rules judge, which the check plays with")
    examples = game.agreement_examples(scenario, seed)
    if not examples:
        _fail(f"agreement_examples(scenario, {seed}) is empty")
    config = _config(game, scenario)
    judge = game.build_judge(config, PromptLibrary(), _no_model)
    info = game.judge_info(scenario)
    opening = game.opening_turns(scenario)
    for number, (turns, terms) in enumerate(examples, start=1):
        _check_terms(game, terms, f"example {number}'s terms")
        window = judge_window([*opening, *turns], config.roles.moderator.window)
        calls: list[dict[str, Any]] = []
        verdict = asyncio.run(judge.aclassify(window, info, calls))
        if verdict.state != "deal" or not _same_terms(verdict.terms, terms):
            said = verdict.state + (f" ({verdict.reason})" if verdict.reason else "")
            if verdict.terms is not None:
                said += f" with terms {verdict.terms}"
            _fail(
                f"example {number} {_lines(turns)}: the rules judge says {said}; expected deal "
                f"with terms {terms}"
            )
        if calls:
            _fail(f"example {number}: the rules judge recorded {len(calls)} model call(s)")


def _no_model(role_config: Any) -> Any:
    raise AssertionError("the rules judge asked for a model")


def _same_terms(got: Any, expected: Any) -> bool:
    """Equal terms, numbers within :data:`TERMS_TOLERANCE`."""
    if isinstance(got, Mapping) and isinstance(expected, Mapping):
        return got.keys() == expected.keys() and all(
            _same_terms(got[key], expected[key]) for key in expected
        )
    if isinstance(got, list | tuple) and isinstance(expected, list | tuple):
        return len(got) == len(expected) and all(map(_same_terms, got, expected))
    if _is_number(got) and _is_number(expected):
        return math.isclose(got, expected, rel_tol=0.0, abs_tol=TERMS_TOLERANCE)
    return bool(got == expected)


# --- the simulators ---------------------------------------------------------------------


def check_simulators(
    game: Game[Any, Any], scenario: Scenario, directory: Path, *, seed: int, runs: int
) -> _Played:
    """Each player simulator against itself (the first seat improved), then the first against
    the last (the second seat improved), ``runs`` games each of :data:`ROUNDS` rounds, with the scripted
    critic's feedback: every game completes every round in ``deal`` or ``no_deal``, and some
    round of all of them ends in a deal."""
    if "critic" not in game.simulators:
        _fail(f"simulators {game.simulators} has no critic (scripted:critic)")
    kinds = [k for k in game.simulators if k != "critic" and k not in game.typed_simulators]
    if not kinds:
        _fail(f"simulators {game.simulators} has no player simulator")
    first, second = game.seats.ids
    pairs: list[tuple[str, str, Seat, int]] = [
        (kind, kind, first, ROUNDS["self"]) for kind in kinds
    ]
    pairs.append((kinds[0], kinds[-1], second, ROUNDS["mixed"]))
    played = _Played(runs=[])
    for one, other, improve, rounds in pairs:
        label = f"scripted:{one} ({first}) v scripted:{other} ({second})"
        config = _config(
            game,
            scenario,
            players=(one, other),
            improve=improve,
            seed=seed,
            runs=runs,
            rounds=rounds,
            concurrency=1,
        )
        folder = f"{one}-{other}-{improve}"
        result = play(config, directory / folder)
        _check_finished(result, config, label)
        played.runs.append((label, config, result))
    deals = {
        label: sum(r["outcome"] == "deal" for g in result.games for r in g["rounds"])
        for label, _, result in played.runs
    }
    if not any(deals.values()):
        _fail(f"no round ended in a deal ({runs} games per pair): {deals}")
    return played


def _check_finished(result: Played, config: ExperimentConfig, label: str) -> None:
    if len(result.games) != config.runs:
        _fail(f"{label}: {len(result.games)} games recorded of {config.runs}")
    for game in result.games:
        where = f"{label}, game {game['game_id']}"
        if game["status"] != "complete":
            _fail(f"{where}: status {game['status']}: {game.get('error')}")
        rounds = game["rounds"]
        if len(rounds) != config.rounds:
            _fail(f"{where}: {len(rounds)} rounds of {config.rounds}")
        for record in rounds:
            if record["outcome"] not in ("deal", "no_deal"):
                _fail(
                    f"{where}, round {record['round']}: outcome {record['outcome']!r} "
                    f"({record.get('reason')})"
                )


# --- payoffs ----------------------------------------------------------------------------


def check_payoffs(game: Game[Any, Any], scenario: Scenario, played: _Played) -> None:
    """Each side's payoff of every round played, in the scenario its game played (drawn per game
    by some games: :meth:`Game.game_scenario`): a finite number within
    :meth:`Game.payoff_bounds` after a deal (whose terms fit :attr:`Game.terms_model`), the
    side's :meth:`Game.walk_away` value without one."""
    _limits(game, scenario)
    for label, config, result in played.runs:
        for record_of_game in result.games:
            own = game.game_scenario(game.scenario_of(config), record_of_game)
            bounds, walk_away = _limits(game, own)
            for record in record_of_game["rounds"]:
                where = f"{label}, game {record_of_game['game_id']}, round {record['round']}"
                deal = record["outcome"] == "deal"
                if deal:
                    _check_terms(game, record.get("terms"), f"{where}: terms")
                for side in game.seats:
                    payoff = game.payoff(own, side, record)
                    if payoff is None or not _is_finite(payoff):
                        _fail(f"{where} ({record['outcome']}): the {side}'s payoff is {payoff!r}")
                    if deal:
                        low, high = bounds[side]
                        slack = TERMS_TOLERANCE * max(1.0, abs(low), abs(high))
                        if not low - slack <= payoff <= high + slack:
                            _fail(
                                f"{where}: the {side}'s payoff {payoff!r} of a deal with terms "
                                f"{record.get('terms')} is outside payoff_bounds ({low!r}, {high!r})"
                            )
                    elif not math.isclose(payoff, walk_away[side], abs_tol=TERMS_TOLERANCE):
                        _fail(
                            f"{where} (no_deal, {record.get('reason')}): the {side}'s payoff "
                            f"{payoff!r} is not its walk_away value {walk_away[side]!r}"
                        )


def _limits(
    game: Game[Any, Any], scenario: Scenario
) -> tuple[dict[Seat, tuple[float, float]], dict[Seat, float]]:
    """Each side's payoff bounds and walk-away value in ``scenario``, checked finite."""
    bounds: dict[Seat, tuple[float, float]] = {}
    walk_away: dict[Seat, float] = {}
    for side in game.seats:
        low, high = game.payoff_bounds(scenario, side)
        if not (_is_finite(low) and _is_finite(high) and low <= high):
            _fail(f"payoff_bounds(scenario, {side!r}) is ({low!r}, {high!r})")
        bounds[side] = (low, high)
        value = game.walk_away(scenario, side)
        if not _is_finite(value):
            _fail(f"walk_away(scenario, {side!r}) is {value!r}")
        walk_away[side] = value
    return bounds, walk_away


def _check_terms(game: Game[Any, Any], terms: Any, what: str) -> None:
    if not isinstance(terms, Mapping):
        _fail(f"{what} is {terms!r}, not a mapping")
    try:
        game.terms_model.model_validate(terms)
    except ValidationError as exc:
        _fail(f"{what} {dict(terms)} do not fit {game.terms_model.__name__}: {_first_error(exc)}")


# --- determinism ------------------------------------------------------------------------


def check_determinism(
    game: Game[Any, Any], scenario: Scenario, directory: Path, played: _Played
) -> None:
    """The mixed pair's games, played again from the same seed at concurrency 8, are the games
    it played at concurrency 1, line for line, times left out."""
    label, config, first = played.runs[-1]
    again = config.model_copy(update={"concurrency": 8})
    result = play(again, directory / "concurrency-8")
    one = _games_without_times(first.directory)
    eight = _games_without_times(result.directory)
    if len(one) != len(eight):
        _fail(f"{label}: {len(one)} games at concurrency 1, {len(eight)} at concurrency 8")
    for line, (a, b) in enumerate(zip(one, eight, strict=True), start=1):
        if a != b:
            _fail(
                f"{label}: line {line} of {GAMES_FILE} ({a.get('game_id')}) differs at "
                f"concurrency 8: {_first_difference(a, b)}"
            )


def _games_without_times(directory: Path) -> list[Any]:
    return [_without_times(game) for game in read_jsonl(directory / GAMES_FILE)]


def _without_times(data: Any) -> Any:
    if isinstance(data, dict):
        return {k: _without_times(v) for k, v in data.items() if k not in TIMING_KEYS}
    if isinstance(data, list):
        return [_without_times(v) for v in data]
    return data


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two plain-data values first differ, as ``path: a != b``."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            if a.get(key, _MISSING) != b.get(key, _MISSING):
                return _first_difference(
                    a.get(key, _MISSING), b.get(key, _MISSING), f"{path}.{key}"
                )
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}[{index}]")
    return f"{path.lstrip('.') or '(record)'}: {_short(a)} != {_short(b)}"


_MISSING = "(missing)"


# --- helpers ----------------------------------------------------------------------------


def _config(
    game: Game[Any, Any],
    scenario: Scenario,
    *,
    players: tuple[str, str] = ("linear", "linear"),
    improve: Seat | None = None,
    seed: int = 0,
    runs: int = 1,
    rounds: int = 1,
    concurrency: int = 1,
) -> ExperimentConfig:
    """An offline experiment of ``game``: scripted players (``players``: the simulators of the
    first and the second seat), the scripted critic's feedback, the rules judge, no waits
    between retries; ``improve``: the improved seat (default: the first)."""
    data = {
        "name": f"conformance-{game.name}",
        "game": game.name,
        "scenario": scenario,
        "seed": seed,
        "runs": runs,
        "rounds": rounds,
        "concurrency": concurrency,
        "improve": improve or game.seats.ids[0],
        "roles": {
            **{
                seat: {"model": f"scripted:{kind}"}
                for seat, kind in zip(game.seats, players, strict=True)
            },
            "critic": {"model": "scripted:critic"},
            "moderator": {"mode": "rules"},
        },
        "feedback": {"source": "ai"},
        "retry": {"attempts": 1, "initial_wait": 0.0, "max_wait": 0.0},
    }
    source = f"the conformance check's config of {game.name!r}"
    return config_from_dict(data, source=source, checks=checks_for(game))


def checks_for(game: Game[Any, Any]) -> ConfigChecks:
    """The package's config checks, with ``game`` found by its name (registered or not)."""
    return CHECKS.with_game(game)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_finite(value: Any) -> bool:
    return _is_number(value) and math.isfinite(value)


def _lines(turns: Sequence[Turn]) -> str:
    return " / ".join(f"{t['speaker']}: {t['text']!r}" for t in turns)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or "(top level)"
    return f"{field}: {error['msg']}"


def _model_diff(a: BaseModel, b: BaseModel) -> str:
    fields = [
        f"{name}: {getattr(a, name)!r} != {getattr(b, name)!r}"
        for name in type(a).model_fields
        if getattr(a, name) != getattr(b, name, _MISSING)
    ]
    return "; ".join(fields) or f"{type(b).__name__} != {type(a).__name__}"


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value.model_dump(mode="json") if isinstance(value, BaseModel) else value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
