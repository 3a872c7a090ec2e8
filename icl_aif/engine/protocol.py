"""The ICL-AIF protocol: who sees what, and when. Pure functions on plain data.

This module decides which messages each role receives and in what order; the game words them
(briefs, openers, the result and goal after a round, the critic's prompts: :mod:`icl_aif.games`),
and the game is the one the config carries (resolved once, when the config was validated:
:func:`icl_aif.games.registry.game_of`).
Tests pin it by the exact message lists. Messages are plain dicts ``{"role", "content"}``
with roles ``system``, ``user`` and ``assistant``.

- A player sees its own lines as ``assistant`` and the other side's as ``user``.
- The improved player keeps everything: its brief, every past round (the rival's closing line
  included), the feedback turn after each round and its acknowledgement, then the current round.
  ``context`` can shorten what it carries (:func:`carried_history`): only the last
  ``last_rounds`` rounds with their feedback turns, or only the feedback turns.
- The rival sees its brief and the current round only: it starts fresh every round.
- The critic sees the improved player's record with true speaker labels; feedback appears as feedback.
- The moderator sees the last ``window`` turns of the current round, labelled by speaker.
- A person who plays a side sees its brief, the round so far and, on the improved side, the
  feedback turn before the round (:func:`person_prompt`); a person who writes the feedback sees
  the critic's transcript (:func:`human_feedback_request`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypedDict

from icl_aif.config.experiment import RANDOM_PERSONA, ExperimentConfig
from icl_aif.config.settings import ContextMode
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary
from icl_aif.core.transcript import (
    Message as Message,  # one chat message; defined with the core types
)
from icl_aif.core.transcript import Outcome, Seat, Turn
from icl_aif.games.base import turns_as_messages
from icl_aif.games.registry import game_of

REFUSALS: dict[str, str] = {
    "no_move": "no move could be read from the reply (no tool call, JSON reply or fenced block)",
    "unreadable": "the move's arguments did not fit the move",
    "refused": "the game's rules refused the move",
}
"""Why a try was refused as a move (a :class:`RefusedLine`'s ``kind``), in words."""


class RefusedLine(TypedDict, total=False):
    """A try refused as a move (the player was asked again, or the round ended): ``games.jsonl``
    ``refused``."""

    speaker: Seat
    text: str  # the line as the table would have shown it
    at: int  # the index of the turn it tried to be (the turns on the table then)
    kind: str  # a key of REFUSALS
    why: str  # what the player was told
    move: dict[str, Any]  # the move as read, when one was (a refused accept, say)
    text_verdict: dict[str, Any]  # moves: structured: the judge's reading of it in its window
    moves_disagree: bool  # that reading was an agreement or an end: the moves say the round goes on


class PlayedRound(TypedDict, total=False):
    """One finished round as the graph's state carries it: a plain dict, written to ``games.jsonl``
    as it is and read back as :class:`icl_aif.records.RoundRecord`, the round's one record type
    (its fields and their meaning are documented there)."""

    round: int
    turns: list[Turn]
    outcome: Outcome
    terms: dict[str, Any] | None  # the game's terms of an agreement; None without one
    price: float | None  # the price game's deal price, kept beside terms (records before terms)
    reason: str | None
    truncated: bool  # only on a round the exchange cap ended (docs/records.md)
    invalid_moves: int  # lines the game refused as moves, retried; only when some were
    refused: list[RefusedLine]  # those lines, and why; only when some were
    disagreements: int  # moves: structured; lines the moderator read otherwise than the moves
    decided_by: str | None  # how the last verdict was reached: rules or llm (docs/records.md)
    parse: str | None
    feedback: str | None
    feedback_source: str | None
    suggestions: list[str]
    instruction: str | None
    acknowledgement: str | None


# --- player views ---------------------------------------------------------------------------


PERSONAS = "personas"
"""The folder of persona texts under ``prompts/``: one ``NAME.txt`` per persona."""


def persona_names(prompts: PromptLibrary) -> list[str]:
    """The personas a rival may play (``prompts/personas/*.txt``), sorted; an error when none."""
    folder = prompts.root / PERSONAS
    names = sorted(p.stem for p in folder.glob("*.txt")) if folder.is_dir() else []
    if not names:
        raise UsageError(f"rival_persona: {folder} holds no persona (NAME.txt files)")
    return names


def check_persona(prompts: PromptLibrary, name: str | None, key: str = "rival_persona") -> None:
    """Fail in one line unless ``name`` (at config key ``key``) is none, a persona file or, for
    ``rival_persona``, random."""
    if name is None:
        return
    names = persona_names(prompts)
    allowed_names = [RANDOM_PERSONA, *names] if key == "rival_persona" else names
    if name not in allowed_names:
        raise UsageError(f"{key}: got {name!r}; allowed values: {', '.join(allowed_names)}")


def player_brief(prompts: PromptLibrary, config: ExperimentConfig, side: Seat) -> str:
    """The system prompt of seat ``side``: the game's brief, then the seat's persona
    (``personas``, ``rival_persona``: ``prompts/personas/NAME.txt``), its standing instruction
    (``instructions``: ``prompts/clauses/instruction.txt``), the last-turn clause
    (``last_turn_accept``: ``prompts/clauses/last_turn_accept.txt``) and the rules of binding
    moves (``moves: structured``: ``prompts/clauses/moves.txt``) when they are on."""
    parts = [game_of(config).brief(prompts, config.scenario, side)]
    persona = config.persona_of(side)
    if persona is not None:
        parts.append(prompts.text(f"{PERSONAS}/{persona}.txt").strip())
    instruction = config.instruction_of(side)
    if instruction is not None:
        parts.append(prompts.render("clauses/instruction.txt", instruction=instruction).strip())
    if config.last_turn_accept:
        parts.append(prompts.render("clauses/last_turn_accept.txt").strip())
    if config.moves == "structured":
        parts.append(prompts.render("clauses/moves.txt").strip())
    return "\n\n".join(parts)


def with_countdown(
    prompts: PromptLibrary,
    config: ExperimentConfig,
    messages: Sequence[Message],
    turns: Sequence[Turn],
) -> list[Message]:
    """``messages`` with the countdown (``countdown``: ``prompts/clauses/countdown.txt``, the
    exchanges left before the cap) after the last one, the other side's line; unchanged when
    the countdown is off. The note is in the player's view only, never on the table."""
    if not config.countdown or not messages:
        return list(messages)
    left = max(1, math.ceil((2 * config.scenario.max_exchanges - len(turns)) / 2))
    note = prompts.render("clauses/countdown.txt", left=left, s="" if left == 1 else "s")
    last = messages[-1]
    return [
        *messages[:-1],
        Message(role=last["role"], content=f"{last['content']}\n\n{note.strip()}"),
    ]


def initial_history(prompts: PromptLibrary, config: ExperimentConfig, side: Seat) -> list[Message]:
    """The improved player's history before round 1: its brief only."""
    return [Message(role="system", content=player_brief(prompts, config, side))]


def improved_view(history: Sequence[Message], side: Seat, turns: Sequence[Turn]) -> list[Message]:
    """What the improved player receives: its whole carried history, then the current round."""
    return [*history, *turns_as_messages(side, turns)]


def rival_view(
    prompts: PromptLibrary, config: ExperimentConfig, side: Seat, turns: Sequence[Turn]
) -> list[Message]:
    """What the rival receives: its brief and the current round, nothing from earlier rounds."""
    return [
        Message(role="system", content=player_brief(prompts, config, side)),
        *turns_as_messages(side, turns),
    ]


def judge_window(turns: Sequence[Turn], size: int) -> list[Turn]:
    """The last ``size`` turns of the current round: who said what (a turn's flags stay out)."""
    return [Turn(speaker=t["speaker"], text=t["text"]) for t in turns[-size:]]


# --- between rounds -------------------------------------------------------------------------


def carry_round(history: Sequence[Message], side: Seat, record: PlayedRound) -> list[Message]:
    """The improved player's history after a round: the round, the feedback turn, the acknowledgement."""
    return [*history, *turns_as_messages(side, record["turns"]), *feedback_turns(record)]


def feedback_turns(record: PlayedRound) -> list[Message]:
    """The feedback turn after a round (the instruction) and the acknowledgement, as messages."""
    turns: list[Message] = []
    if record.get("instruction"):
        turns.append(Message(role="user", content=record["instruction"]))  # type: ignore[typeddict-item]
    if record.get("acknowledgement"):
        turns.append(Message(role="assistant", content=record["acknowledgement"]))  # type: ignore[typeddict-item]
    return turns


def carried_history(
    brief: Sequence[Message],
    side: Seat,
    rounds: Sequence[PlayedRound],
    mode: ContextMode = "all",
    last_rounds: int = 1,
) -> list[Message]:
    """What the improved player carries into the next round, after its ``brief``.

    - ``all`` (the paper): every past round, each followed by its feedback turn and acknowledgement.
      Each round's history extends the previous one, the prefix that prompt caching relies on.
    - ``last_rounds``: the same for the ``last_rounds`` most recent rounds only.
    - ``feedback_only``: the feedback turns and acknowledgements of every past round, no transcripts.

    The two shortened modes drop old messages from the front, so the prompt prefix changes from
    one round to the next and provider prompt caching no longer applies across rounds.
    """
    history = list(brief)
    if mode == "feedback_only":
        for record in rounds:
            history += feedback_turns(record)
        return history
    kept = rounds[-last_rounds:] if mode == "last_rounds" else rounds
    for record in kept:
        history = carry_round(history, side, record)
    return history


# --- the critic -----------------------------------------------------------------------------


def critic_transcript(config: ExperimentConfig, rounds: Sequence[PlayedRound]) -> str:
    """The improved player's record with true speaker labels, outcomes and feedback marked as such."""
    game, side = game_of(config), config.improve
    blocks: list[str] = []
    for record in rounds:
        lines = [f"Round {record['round']}"]
        lines += [f"{t['speaker']}: {t['text']}" for t in record["turns"]]
        lines.append(f"Outcome: {game.outcome_sentence(record, config.scenario)}.")
        if record.get("feedback"):
            lines.append(f"Feedback the {side} received after round {record['round']}:")
            lines.append(str(record["feedback"]))
        if record.get("acknowledgement"):
            lines.append(f"{side} (replying to the feedback): {record['acknowledgement']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def critic_messages(
    prompts: PromptLibrary, config: ExperimentConfig, rounds: Sequence[PlayedRound]
) -> list[Message]:
    """What the critic receives after a round: the game's prompts around the improved player's
    record (:func:`critic_transcript`)."""
    game = game_of(config)
    return game.critic_messages(prompts, game.setup(config), critic_transcript(config, rounds))


def human_feedback_request(
    config: ExperimentConfig, rounds: Sequence[PlayedRound]
) -> dict[str, Any]:
    """What a person writing the feedback is shown (plain data, the payload of the pause).

    ``kind`` is ``feedback``; ``transcript`` is exactly what the critic would read.
    """
    return {
        "kind": "feedback",
        "round": rounds[-1]["round"],
        "side": config.improve,
        "suggestions": config.feedback.suggestions,
        "transcript": critic_transcript(config, rounds),
    }


def human_suggestions(text: str) -> list[str]:
    """The suggestions in a person's feedback: its non-empty lines."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def person_prompt(
    prompts: PromptLibrary,
    config: ExperimentConfig,
    side: Seat,
    round_number: int,
    history: Sequence[Message],
    turns: Sequence[Turn],
) -> dict[str, Any]:
    """What a person playing ``side`` is shown before each of their lines (plain data).

    ``kind`` is ``turn``; ``brief`` is the side's brief, ``instruction`` the feedback turn the
    improved side received before this round (None for the rival and in round 1), ``turns`` the
    round so far with true speakers.
    """
    instruction = None
    if side == config.improve:  # its carried history ends with the last feedback turn, if any
        users = [m["content"] for m in history if m["role"] == "user"]
        instruction = users[-1] if users else None
    return {
        "kind": "turn",
        "side": side,
        "round": round_number,
        "rounds": config.rounds,
        "brief": player_brief(prompts, config, side),
        "instruction": instruction,
        "turns": [dict(t) for t in turns],
    }


def parse_suggestions(text: str) -> list[str]:
    """Split a critic's reply into its numbered (or bulleted) suggestions."""
    items: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        stripped = line.lstrip("-*• ").strip()
        head, dot, rest = stripped.partition(".")
        if dot and head.isdigit():
            items.append(rest.strip())
        elif stripped != line or not items:
            items.append(stripped)
        else:
            items[-1] = f"{items[-1]} {stripped}"
    return [i for i in items if i]
