"""Typed, versioned run records: one pydantic model per kind of line (schema in docs/records.md).

```python
from icl_aif.records import GameRecord, read_jsonl

for line in read_jsonl(path / "games.jsonl"):
    game = GameRecord.model_validate(line)
    terms = [r.terms for r in game.rounds if r.outcome == "deal"]
```

The models are the shape of ``games.jsonl`` lines (:class:`GameRecord`, its rounds
:class:`RoundRecord` and their turns :class:`TurnRecord`), ``calls.jsonl`` lines
(:class:`CallRecord`) and ``manifest.json`` (:class:`ManifestRecord`).
:func:`icl_aif.records.writer.encode_game` (run wherever a game is played) is the one place that turns a
game's records into lines: it validates each one against its model and writes it with
:func:`game_line` / :func:`call_line`, so the field order of a model is the key order of a line.
Keys a record does not have stay absent (``cell`` without a sweep, ``arm`` without arms,
``feedback`` after the last round, ``truncated`` on a round the cap did not end); keys the models
do not know are kept, after the known ones.

Versions. Every line and the manifest carry ``format_version`` (:data:`FORMAT_VERSION`); records
written before it existed have none and are version 0, read as they are (a round with reason
``cap`` counts as truncated: :func:`is_truncated`). A record of a newer version than this package
knows is refused in one line by :func:`check_format_version`: upgrade icl-aif to read it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from icl_aif.core.errors import UsageError
from icl_aif.core.record_upgrade import upgrade_prompts

__all__ = [
    "FORMAT1_MEASURE",
    "FORMAT_VERSION",
    "CallRecord",
    "ChatMessage",
    "GameRecord",
    "ManifestRecord",
    "RefusedLineRecord",
    "RoundRecord",
    "SilentLines",
    "TurnRecord",
    "UsageRecord",
    "call_line",
    "call_problem",
    "check_format_version",
    "failed_to_move",
    "format_version_of",
    "game_line",
    "game_problem",
    "game_record",
    "is_truncated",
    "manifest_text",
    "prompts_of",
    "upgrade_game",
]

FORMAT_VERSION = 4
"""The version of the run records this package writes (0: records without ``format_version``).

1: ``format_version`` on every line and in the manifest; ``truncated`` on a round the exchange cap
ended (``outcome`` stays ``no_deal``, ``reason`` stays ``cap``).
2: ``terms`` on every round (the game's terms of an agreement, null without one); the manifest
names the ``game``. Records of formats 0 and 1 are all of the price game: their terms are
``{"price": price}`` on a deal (:func:`upgrade_game`).
3: each game's own seat ids (Deal or No Deal's ``alice`` and ``bob``) where every game wrote
``seller`` and ``buyer`` (speakers, roles, ``improve``, ``models``, seat-named keys of scenarios
and terms).
4: a generated line that states no terms carries the game's silent flag in its ``flags``
(``no_price`` in the price game, ``no_offer`` in the splits: :class:`SilentLines`), recorded
when it was said, so that no reader parses a transcript to count such lines.
:func:`icl_aif.records.reader.upgraded` reads every earlier format as this one."""

FORMAT1_MEASURE: dict[str, Any] = {"name": "price", "label": "deal price", "money": True}
"""``summary.json``'s ``measure`` of a run of format 0 or 1 (all of the price game), which
summaries did not name before format 2."""


@dataclass(frozen=True)
class SilentLines:
    """How a game flags a generated line that states no terms (format 4 records it as the line
    is said; an older line gets it on read where the game is known, :func:`icl_aif.records.reader.upgraded`).

    ``flag`` is the game's name for such a line (:attr:`icl_aif.games.base.Measure.silent_flag`),
    ``states`` says whether a line states terms, and the first ``openers`` lines of a round (the
    scripted openers, said by no one) are never flagged. An empty line (flag ``empty``) is not
    flagged either: it said nothing at all.
    """

    flag: str
    states: Callable[[str], bool]
    openers: int = 0

    def flags(self, flags: list[str], text: str) -> list[str]:
        """``flags`` of a generated line saying ``text``, with :attr:`flag` when it is due."""
        if self.flag in flags or "empty" in flags or self.states(text):
            return flags
        return [*flags, self.flag]

    def marked_game(self, record: dict[str, Any]) -> dict[str, Any]:
        """A ``games.jsonl`` record with :attr:`flag` on each generated line due one."""
        return {**record, "rounds": [self._marked_round(r) for r in record.get("rounds", [])]}

    def _marked_round(self, record: dict[str, Any]) -> dict[str, Any]:
        turns = list(record.get("turns", []))
        for index in range(self.openers, len(turns)):
            turn = turns[index]
            flags = self.flags(list(turn.get("flags", ())), str(turn.get("text", "")))
            if flags != turn.get("flags", []):
                turns[index] = {**turn, "flags": flags}
        return {**record, "turns": turns}


class _Record(BaseModel):
    """A record: unknown keys are kept (a newer minor addition), known ones are typed."""

    model_config = ConfigDict(extra="allow")


class TurnRecord(_Record):
    """One line of a round as said at the table."""

    speaker: str
    """The seat that said it (one of the game's seat ids)."""
    text: str
    """What was said, after the screen of bad replies."""
    flags: list[str] = []
    """What the screen did or noticed (``empty``, ``truncated``, ...); absent when none."""


class RefusedLineRecord(_Record):
    """A try refused as a move (``games.jsonl`` round ``refused``): the player was asked again,
    or, after ``move_retries`` more tries, the round ended (reason ``invalid_moves``)."""

    speaker: str
    text: str
    """The line as the table would have shown it."""
    at: int
    """The index of the turn it tried to be: the number of turns on the table then."""
    kind: Literal["no_move", "unreadable", "refused"]
    """``no_move``: no move could be read from the reply; ``unreadable``: move arguments that do
    not fit the move; ``refused``: a move the game's rules refuse (or, with ``moves: text``, a
    line the game refuses)."""
    why: str
    """What the player was told."""
    move: dict[str, Any] | None = None
    """The move as read, when one was (a refused accept, say)."""
    text_verdict: dict[str, Any] | None = None
    """``moves: structured``: the judge's reading of the line in its window."""
    moves_disagree: bool = False
    """That reading was an agreement or an end, where the moves say the round goes on."""


class RoundRecord(_Record):
    """One finished round of a game (``games.jsonl`` ``rounds``). In graph state a round is plain
    data, :class:`icl_aif.engine.protocol.RoundRecord`; this model is its shape on disk."""

    round: int
    turns: list[TurnRecord]
    outcome: Literal["deal", "no_deal", "error"]
    terms: dict[str, Any] | None = None
    """The game's terms of an agreement (the price game's ``{"price": 15.0}``); null without one."""
    price: float | None = None
    """The price game only: the deal price, as records before ``terms`` had it."""
    reason: str | None = None
    truncated: bool = False
    """True when the exchange cap ended the round (``no_deal``, reason ``cap``); absent otherwise."""
    invalid_moves: int = 0
    """Lines the game refused as invalid moves (each asked again); absent when none. A round
    that ran out of tries ends ``no_deal`` with reason ``invalid_moves`` (:func:`failed_to_move`):
    no side agreed or refused, so it is counted apart, like an error."""
    decided_by: str | None = None
    parse: str | None = None
    feedback: str | None = None
    feedback_source: str | None = None
    suggestions: list[str] = []
    annotator: str | None = None
    """Feedback a person wrote on a web page (``icl-aif serve``): who; absent otherwise."""
    shown_at: str | None = None
    """... when the round's record was shown to them (UTC, ISO 8601); absent otherwise."""
    submitted_at: str | None = None
    """... when they submitted the feedback (UTC, ISO 8601); absent otherwise."""
    instruction: str | None = None
    acknowledgement: str | None = None
    shared: bool | None = None
    """Paired arms only: the round was played once for every arm."""
    refused: list[RefusedLineRecord] = []
    """The tries refused as moves (``invalid_moves`` of them), each with why; absent when none."""
    disagreements: int = 0
    """``moves: structured``: lines the judge read otherwise than the moves (refused lines it
    read as an agreement or an end included); absent when none."""


class GameRecord(_Record):
    """One ``games.jsonl`` line: a run of the multi-round game (one per arm with paired arms)."""

    game_id: str
    cell: str | None = None
    seed: int
    scenario: dict[str, Any] | None = None
    """The scenario this game played when its game draws one per game; absent otherwise."""
    persona: str | None = None
    """The rival's persona (``rival_persona``); absent without one."""
    arm: str | None = None
    arm_seed: int | None = None
    branch_after: int | None = None
    status: Literal["complete", "error"]
    error: str | None = None
    rounds: list[RoundRecord]
    started_at: str
    finished_at: str
    format_version: int = 0


class ChatMessage(_Record):
    """One message a model received."""

    role: Literal["system", "user", "assistant"]
    content: str


class UsageRecord(_Record):
    """Token usage as a backend reported it (``input_tokens`` includes the cached ones)."""

    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0


class CallRecord(_Record):
    """One ``calls.jsonl`` line: a model call of a game (the keys of
    :meth:`icl_aif.models.calls.CallResult.record` after who made it and what it was sent)."""

    game_id: str
    cell: str | None = None
    round: int
    role: str
    model: str
    messages: list[ChatMessage]
    output: str | None = None
    usage: UsageRecord | None = None
    error: str | None = None
    attempts: int = 1
    cost_usd: float | None = None
    latency_s: float = 0.0
    limit_wait_s: float = 0.0
    method: str | None = None
    """Moderator calls only: how the answer was asked for."""
    parse: str | None = None
    """Moderator calls only: what read the reply."""
    arm: str | None = None
    cache: str | None = None
    """With a response cache (``cache`` in the config): ``hit`` or ``miss``; absent otherwise."""
    format_version: int = 0


class ManifestRecord(_Record):
    """``manifest.json``: how the numbers were made. Nested objects are plain data; the keys that
    only some runs have (``cells``, ``arms``, ``offline``, ``resumed_at``, ...) are kept as
    they are."""

    format_version: int = 0
    name: str
    game: str = "price"
    """The game played (format 2; runs written before it are of the price game)."""
    icl_aif_version: str | None = None
    versions: dict[str, str | None] = {}
    git: dict[str, Any] = {}
    platform: str | None = None
    config_file: str | None = None
    overrides: list[str] = []
    seed: int | None = None
    runs: int | None = None
    rounds: int | None = None
    improve: str | None = None
    models: dict[str, str | None] = {}
    feedback: dict[str, Any] = {}
    context: dict[str, Any] = {}
    person: str | None = None
    players: dict[str, Any] = {}
    """``rival_persona``, ``countdown``, ``last_turn_accept``, ``move_retries`` (format 2),
    ``moves`` (text or structured; runs before it played text)."""
    prompts: dict[str, str] = {}
    started_at: str | None = None
    finished_at: str | None = None
    status: str | None = None


def format_version_of(record: dict[str, Any]) -> int:
    """The ``format_version`` of a record read from disk (0 when it has none)."""
    version = record.get("format_version", 0)
    return version if isinstance(version, int) else 0


def check_format_version(record: dict[str, Any], where: object) -> int:
    """The record's format version, or a one-line :class:`UsageError` naming ``where`` when it is
    newer than this package reads."""
    version = format_version_of(record)
    if version > FORMAT_VERSION:
        raise UsageError(
            f"{where}: written with record format_version {version}; this icl-aif reads up to "
            f"{FORMAT_VERSION}: upgrade icl-aif (pip install -U icl-aif)"
        )
    return version


_TYPE_NAMES: dict[type, str] = {
    str: "a string",
    int: "an integer",
    list: "a list",
    dict: "an object",
}
_GAME_KEYS: dict[str, type] = {"game_id": str, "status": str, "rounds": list}
_ROUND_KEYS: dict[str, type] = {"round": int, "outcome": str, "turns": list}
_TURN_KEYS: dict[str, type] = {"speaker": str, "text": str}
_CALL_KEYS: dict[str, type] = {"game_id": str, "round": int, "role": str, "model": str}
_MESSAGE_KEYS: dict[str, type] = {"role": str, "content": str}
_NULLABLE_OBJECTS = ("terms", "usage", "scenario")
"""Keys that, when present, hold an object or null (readers call ``.get`` on them)."""


def game_problem(record: dict[str, Any]) -> str | None:
    """What keeps the object of a ``games.jsonl`` line from being read as a game, or None.

    A light check of the keys every reader uses as they are (``game_id``, ``status``,
    ``rounds``; each round's ``round``, ``outcome``, ``turns``; each turn's ``speaker`` and
    ``text``), cheap on big files; :class:`GameRecord` is the whole shape."""
    problem = _keys_problem(record, _GAME_KEYS, "")
    for number, round_record in enumerate(record["rounds"] if problem is None else ()):
        where = f"rounds[{number}]"
        problem = _keys_problem(round_record, _ROUND_KEYS, where)
        for index, turn in enumerate(round_record["turns"] if problem is None else ()):
            problem = _keys_problem(turn, _TURN_KEYS, f"{where}.turns[{index}]")
            if problem is not None:
                break
        if problem is not None:
            break
    return None if problem is None else f"not a game record: {problem}"


def call_problem(record: dict[str, Any]) -> str | None:
    """What keeps the object of a ``calls.jsonl`` line from being read as a model call, or None:
    a light check, cheap on files of hundreds of MB (``game_id``, ``round``, ``role``,
    ``model``; ``messages`` a list whose first message has ``role`` and ``content``; ``usage``
    an object or null); :class:`CallRecord` is the whole shape."""
    problem = _keys_problem(record, _CALL_KEYS, "")
    if problem is None:
        messages = record.get("messages")
        if messages is not None and not isinstance(messages, list):
            problem = "messages is not a list"
        elif messages:  # readers take the first one (the brief), or count them
            problem = _keys_problem(messages[0], _MESSAGE_KEYS, "messages[0]")
    return None if problem is None else f"not a call record: {problem}"


def _keys_problem(value: object, keys: dict[str, type], where: str) -> str | None:
    """The first of ``keys`` that ``value`` lacks or holds with another type (``where`` names
    ``value`` in the record), or None."""
    if not isinstance(value, dict):
        return f"{where} is not an object"
    prefix = f"{where}." if where else ""
    for key, kind in keys.items():
        if key not in value:
            return f"no {prefix}{key}"
        if not isinstance(value[key], kind):
            return f"{prefix}{key} is not {_TYPE_NAMES[kind]}"
    for key in _NULLABLE_OBJECTS:
        if value.get(key) is not None and not isinstance(value[key], dict):
            return f"{prefix}{key} is not an object"
    return None


def prompts_of(manifest: dict[str, Any]) -> dict[str, str]:
    """A manifest's ``prompts`` (path -> SHA-256) under today's paths: before format 2 the price
    game's templates lay in ``prompts/`` itself, since then in ``prompts/price/``; before format
    3 the templates of the other games' seats were named and worded for seller and buyer
    (:func:`~icl_aif.core.record_upgrade.upgrade_prompts`)."""
    prompts: dict[str, str] = dict(manifest.get("prompts") or {})
    version = format_version_of(manifest)
    if version < 2:
        prompts = {
            f"prompts/price/{path.removeprefix('prompts/')}"
            if path.startswith("prompts/")
            else path: h
            for path, h in prompts.items()
        }
    return upgrade_prompts(prompts) if version < 3 else prompts


def is_truncated(round_record: dict[str, Any]) -> bool:
    """True when the exchange cap ended the round: ``truncated`` (format 1), or a ``no_deal``
    with reason ``cap`` (how format 0 recorded it)."""
    if round_record.get("truncated"):
        return True
    return round_record.get("outcome") == "no_deal" and round_record.get("reason") == "cap"


def failed_to_move(round_record: Mapping[str, Any]) -> bool:
    """True when the round ended because a side made no valid move within its tries (``no_deal``
    with reason ``invalid_moves``): neither an agreement nor a refusal, counted apart like an
    error and left out of deal rates and measures."""
    return (
        round_record.get("outcome") == "no_deal" and round_record.get("reason") == "invalid_moves"
    )


def _dump(record: BaseModel) -> str:
    """One compact JSON line of ``record``: the keys it was given, in its model's field order."""
    return record.model_dump_json(exclude_unset=True) + "\n"


def game_line(record: dict[str, Any]) -> str:
    """The ``games.jsonl`` line of ``record``, validated against :class:`GameRecord` and stamped
    with :data:`FORMAT_VERSION`."""
    return _dump(GameRecord.model_validate({**record, "format_version": FORMAT_VERSION}))


def call_line(record: dict[str, Any]) -> str:
    """The ``calls.jsonl`` line of ``record``, validated against :class:`CallRecord` and stamped
    with :data:`FORMAT_VERSION`."""
    return _dump(CallRecord.model_validate({**record, "format_version": FORMAT_VERSION}))


def manifest_text(manifest: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``manifest.json``'s text and the manifest it holds: ``manifest`` validated against
    :class:`ManifestRecord`, with ``format_version`` (:data:`FORMAT_VERSION`) first."""
    stamped = {"format_version": FORMAT_VERSION, **manifest}
    stamped["format_version"] = FORMAT_VERSION
    ManifestRecord.model_validate(stamped)
    return json.dumps(stamped, indent=2) + "\n", stamped


def game_record(
    *,
    game_id: str,
    seed: int,
    rounds: list[Any],
    error: str | None,
    started_at: str,
    finished_at: str,
    arm: str | None = None,
    arm_seed: int | None = None,
    branch_after: int | None = None,
    drawn: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A game's ``games.jsonl`` record as plain data (:class:`GameRecord`'s keys; the arm keys
    only with ``arm``; ``drawn``: what was drawn for the game, ``scenario`` and ``persona``, only
    when something was): ``status`` is ``error`` when ``error`` is set."""
    record: dict[str, Any] = {"game_id": game_id, "seed": seed, **(drawn or {})}
    if arm is not None:
        record.update(arm=arm, arm_seed=arm_seed, branch_after=branch_after)
    record.update(
        status="error" if error else "complete",
        error=error,
        rounds=rounds,
        started_at=started_at,
        finished_at=finished_at,
    )
    return record


def upgrade_game(record: dict[str, Any]) -> dict[str, Any]:
    """An older ``games.jsonl`` record as the current format writes it (the version is stamped
    by :func:`game_line`): ``truncated`` on the rounds the cap ended (format 0), ``terms`` on every
    round (formats 0 and 1, all of the price game: ``{"price": price}`` on a deal, else null)."""
    return {**record, "rounds": [_upgrade_round(r) for r in record.get("rounds", [])]}


def _upgrade_round(record: dict[str, Any]) -> dict[str, Any]:
    upgraded = dict(record)
    if is_truncated(record) and "truncated" not in record:
        upgraded["truncated"] = True
    if "terms" not in record:
        deal = record.get("outcome") == "deal"
        upgraded["terms"] = {"price": record.get("price")} if deal else None
    return upgraded
