"""The node functions that the graphs wire together.

Nodes read plain state, ask :mod:`icl_aif.engine.protocol` what each role sees, call models through
:meth:`icl_aif.engine.context.GameContext.call_model`, and return plain updates. They never import a
vendor SDK.
Every node and router is a coroutine: LangGraph runs plain functions of an async graph in a
thread pool, which costs more than the work they do.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from functools import cache
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from icl_aif.core.transcript import Seat, Seats, Turn, with_move_note
from icl_aif.engine import protocol
from icl_aif.engine.configs import CHECKS
from icl_aif.engine.context import GameContext
from icl_aif.engine.feedback.sources import give_feedback
from icl_aif.engine.protocol import Message, PlayedRound, RefusedLine
from icl_aif.engine.replies import screened_turn
from icl_aif.engine.state import RoundState, RunState
from icl_aif.games import moves
from icl_aif.games.base import Game
from icl_aif.models.calls import ModelCallError

logger = logging.getLogger(__name__)


@cache
def studio_context() -> GameContext:
    """The context used when a graph runs without one: game 0 of the scripted defaults."""
    return GameContext(checks=CHECKS)


def context_of(context: GameContext | None) -> GameContext:
    """The runtime context, or the studio default when none was given."""
    return context if isinstance(context, GameContext) else studio_context()


# --- one round ----------------------------------------------------------------------------

NextTurn = str
"""Where a round goes after the openers or the moderator: a seat's node (its id), or the end of
the round (``__end__``). The round graph declares the destinations of its game's seats."""


async def open_round(state: RoundState, runtime: Runtime[GameContext]) -> Command[NextTurn]:
    """Put the scripted opening lines on the table; the other side of the last opener speaks."""
    ctx = context_of(runtime.context)
    update = {"turns": ctx.game.opening_turns(ctx.setup.scenario), "status": "ongoing"}
    return routed(state, update, ctx.game.seats)


def speaker_node(side: Seat) -> Any:
    """The node in which ``side`` says its next line."""

    async def speak(state: RoundState, runtime: Runtime[GameContext]) -> dict[str, Any]:
        ctx = context_of(runtime.context)
        config = ctx.config
        turns = state.get("turns", [])
        if side == config.person:  # pause for the person's line; no model call is made
            shown = protocol.person_prompt(
                ctx.prompts, config, side, state["round"], state.get("history", []), turns
            )
            return {"turns": [_table_turn(ctx, side, str(interrupt(shown) or ""))]}
        if side == config.improve:
            messages = protocol.improved_view(state.get("history", []), side, turns)
        else:
            messages = protocol.rival_view(ctx.prompts, config, side, turns)
        messages = protocol.with_countdown(ctx.prompts, config, messages, turns)
        refused: list[RefusedLine] = []
        try:
            while True:
                turn, problem = await _attempt(ctx, side, state["round"], messages, turns)
                if problem is None:
                    break
                refused.append(await _refused_line(ctx, state["round"], turns, turn, problem))
                if len(refused) > config.move_retries:  # the round ends: the last try stands
                    return {
                        "turns": [turn],
                        "invalid_moves": len(refused),
                        "refused": refused,
                        "status": "no_deal",
                        "reason": "invalid_moves",
                    }
                messages = [  # the player sees its try and why it is not a move, and tries again
                    *messages,
                    Message(role="assistant", content=with_move_note(turn)),
                    Message(role="user", content=problem.why),
                ]
        except ModelCallError as exc:
            return {
                "status": None,
                "error": str(exc),
                "invalid_moves": len(refused),
                "refused": refused,
            }
        return {"turns": [turn], "invalid_moves": len(refused), "refused": refused}

    speak.__name__ = f"speak_{side}"
    return speak


NO_MOVE = (
    "Your reply made no move. Say your line and make your move (talk, offer, accept, reject "
    "or walk_away) again."
)
"""What a player is told when its reply held no readable move (``moves: structured``)."""


@dataclass(frozen=True)
class Refusal:
    """Why a try is not a valid move: its :data:`~icl_aif.engine.protocol.REFUSALS` kind and what the
    player is told."""

    kind: str
    why: str


async def _attempt(
    ctx: GameContext, side: Seat, number: int, messages: list[Message], turns: list[Turn]
) -> tuple[Turn, Refusal | None]:
    """One try of ``side``'s line: the turn as the table sees it, and why it is not a valid move
    (None when it is). With ``moves: structured`` the turn carries its binding move, checked by
    the game's rules; otherwise the game checks the text (:meth:`Game.invalid_move`)."""
    config = ctx.config
    game = ctx.game
    if config.moves == "text":
        turn = _table_turn(ctx, side, await ctx.call_model(side, number, messages))
        problem = game.invalid_move(config.scenario, side, turn["text"], turns)
        return turn, None if problem is None else Refusal("refused", problem)
    reply = await ctx.call_move(side, number, messages)
    turn = _table_turn(ctx, side, reply.message)
    if reply.data is None:
        return turn, Refusal("no_move", NO_MOVE)
    read = moves.read_move(game, config.scenario, side, reply.data)
    if isinstance(read, str):
        return turn, Refusal("unreadable", read)
    move = read[1]
    turn["move"] = move.to_dict(reply.path)
    if move.kind == "accept":
        problem = moves.accept_problem(game, ctx.opening_moves, side, turns)
        return turn, None if problem is None else Refusal("refused", problem)
    return turn, None


async def _refused_line(
    ctx: GameContext, number: int, turns: list[Turn], turn: Turn, refusal: Refusal
) -> RefusedLine:
    """A refused try as the round records it. With ``moves: structured`` the judge also reads
    it in its window, as if it were on the table: the moves say the round goes on (the line made
    no valid move), so a judge that reads an agreement or an end in it disagrees
    (``moves_disagree``)."""
    refused = RefusedLine(
        speaker=turn["speaker"],
        text=turn["text"],
        at=len(turns),
        kind=refusal.kind,
        why=refusal.why,
    )
    if "move" in turn:
        refused["move"] = turn["move"]
    if ctx.config.moves != "structured":
        return refused
    window = protocol.judge_window([*turns, turn], ctx.config.roles.moderator.window)
    calls: list[dict[str, Any]] = []
    try:
        verdict = await ctx.judge.aclassify(window, ctx.scenario_info, calls)
    except ModelCallError as exc:  # the cross-check failed; the round goes on without it
        logger.warning(
            "game %s round %s: judging a refused line failed: %s", ctx.game_id, number, exc
        )
        return refused
    finally:
        ctx.calls.extend({"game_id": ctx.game_id, "round": number, **c} for c in calls)
    terms = verdict.terms if verdict.state == "deal" else None
    refused["text_verdict"] = {"state": verdict.state, "terms": terms, "reason": verdict.reason}
    if verdict.state != "ongoing":
        refused["moves_disagree"] = True
    return refused


def _table_turn(ctx: GameContext, side: Seat, text: str) -> Turn:
    """``side``'s reply as the rival and the moderator see it, flagged (``icl_aif.engine.replies``;
    a line that states no terms with the game's silent flag)."""
    rival = ctx.game.rival_labels(side)
    max_chars = ctx.config.scenario.max_reply_chars
    return screened_turn(side, text, rival, max_chars=max_chars, silent=ctx.silent_lines)


async def moderate(state: RoundState, runtime: Runtime[GameContext]) -> Command[NextTurn]:
    """Judge the round after the last utterance and send it to the next speaker or its end
    (:func:`routed`)."""
    return routed(state, await _judge(state, runtime), context_of(runtime.context).game.seats)


async def _judge(state: RoundState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """The moderator's update: reaching the cap is no deal, never a deal, and the round is
    marked ``truncated`` (the cap ended it, not the players). With ``moves: structured`` the
    moves decide (:func:`icl_aif.games.moves.resolve`) and the moderator's reading of the
    window is a cross-check: a disagreement is noted for the turn."""
    if state.get("error"):  # the speaker's model failed: the round ends with that error
        return {}
    if state.get("reason") == "invalid_moves":  # the speaker's invalid tries ended the round
        return {}
    ctx = context_of(runtime.context)
    turns = state["turns"]
    window = protocol.judge_window(turns, ctx.config.roles.moderator.window)
    calls: list[dict[str, Any]] = []
    try:
        verdict = await ctx.judge.aclassify(window, ctx.scenario_info, calls)
    except ModelCallError as exc:
        return {"status": None, "error": str(exc)}
    finally:  # a model-backed moderator's calls, failed ones included, belong to this game
        ctx.calls.extend({"game_id": ctx.game_id, "round": state["round"], **c} for c in calls)
    terms = verdict.terms if verdict.state == "deal" else None
    update: dict[str, Any] = {"decided_by": verdict.decided_by or ctx.judge.name}
    update["parse"] = verdict.parse
    status, reason = verdict.state, verdict.reason
    if ctx.config.moves == "structured":
        resolved = moves.resolve(ctx.game, ctx.config.scenario, ctx.opening_moves, turns)
        if moves.disagreement(resolved, verdict.state, terms):
            text_verdict = {"state": verdict.state, "terms": terms, "reason": verdict.reason}
            update["disagreements"] = [{"turn": len(turns) - 1, "text_verdict": text_verdict}]
        status, terms, reason = resolved.state, resolved.terms, resolved.reason
        update.update(decided_by="moves", parse=None)
    if status != "ongoing":
        return {"status": status, "terms": terms, "reason": reason, **update}
    if len(turns) >= 2 * ctx.config.scenario.max_exchanges:  # truncated: no deal, reason cap
        return {"status": "no_deal", "terms": None, "reason": "cap", "truncated": True, **update}
    return {"status": "ongoing", **update}


def routed(state: RoundState, update: dict[str, Any], seats: Seats) -> Command[NextTurn]:
    """``update``, and where the round goes once it is applied: while the round is ongoing,
    the other side of the last line speaks; otherwise the round ends.

    The openers and the moderator route the round themselves (a ``Command``) rather than
    through a conditional edge: an edge's router reads the state again after every step and is
    a traced run of its own, which cost about 0.2 ms a model call (bench/graph_overhead.py).
    """
    status = update["status"] if "status" in update else state.get("status")
    if status != "ongoing":
        return Command(update=update, goto="__end__")  # END
    last = (update.get("turns") or state["turns"])[-1]  # the turns after the update
    return Command(update=update, goto=seats.other(last["speaker"]))


def round_record(state: RoundState, game: Game[Any, Any]) -> PlayedRound:
    """The finished round as it is stored: the outcome, the game's terms (and the fields the game
    keeps beside them, the price game's ``price``); ``truncated`` only on a round the cap ended."""
    error = state.get("error")
    terms = None if error else state.get("terms")
    record = PlayedRound(
        round=state["round"],
        turns=list(state.get("turns", [])),
        outcome="error" if error else state["status"],  # type: ignore[typeddict-item]
        terms=terms,
        reason=error or state.get("reason"),
        # how the last verdict was reached; null for a round stopped by an error
        decided_by=None if error else state.get("decided_by"),
        parse=None if error else state.get("parse"),
    )
    record.update(game.record_fields(terms))  # type: ignore[typeddict-item]
    if state.get("truncated") and not error:
        record["truncated"] = True
    if state.get("invalid_moves"):
        record["invalid_moves"] = state["invalid_moves"]
    refused = state.get("refused") or []
    if refused:  # every try refused as a move, and why
        record["refused"] = list(refused)
    disagreements = state.get("disagreements") or []
    if disagreements:  # moves: structured; the turns the moderator read otherwise
        turns = record["turns"]
        for noted in disagreements:
            index = noted["turn"]
            flagged = Turn(**turns[index])  # type: ignore[typeddict-item]
            flagged["flags"] = [*flagged.get("flags", []), "moves_disagree"]
            flagged["text_verdict"] = noted["text_verdict"]
            turns[index] = flagged
    disagreeing = len(disagreements) + sum(bool(r.get("moves_disagree")) for r in refused)
    if disagreeing:  # the refused lines the judge read as an agreement or an end included
        record["disagreements"] = disagreeing
    return record


# --- one run: rounds with feedback in between ------------------------------------------------


async def start_run(state: RunState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """The improved player's history starts with its brief."""
    ctx = context_of(runtime.context)
    if state.get("history"):
        return {}
    side = ctx.config.improve
    return {
        "history": protocol.initial_history(ctx.prompts, ctx.config, side),
        "rounds": [],
        "error": None,
    }


def play_round_node(round_graph: Any) -> Any:
    """The node that plays the next round through the round graph."""

    async def play_round(
        state: RunState, runtime: Runtime[GameContext], config: RunnableConfig
    ) -> dict[str, Any]:
        rounds = state.get("rounds", [])
        result = await round_graph.ainvoke(
            {"round": len(rounds) + 1, "history": state["history"], "turns": []},
            config=config,
            context=runtime.context,
        )
        record = round_record(result, context_of(runtime.context).game)
        update: dict[str, Any] = {"rounds": [*rounds, record]}
        if record["outcome"] == "error":
            update["error"] = record["reason"]
        return update

    return play_round


async def route_after_start(state: RunState, runtime: Runtime[GameContext]) -> str:
    """A new run plays round 1. A run resumed from a plain state (a paired arm, which starts from
    the shared rounds) first gives the feedback on its last round when that has none yet."""
    rounds = state.get("rounds") or []
    if state.get("error"):
        return END
    if rounds and "instruction" not in rounds[-1]:
        return await route_after_round(state, runtime)
    return "play_round"


async def route_after_round(state: RunState, runtime: Runtime[GameContext]) -> str:
    """Feedback follows every round but the last; an error ends the run."""
    ctx = context_of(runtime.context)
    if state.get("error") or len(state["rounds"]) >= ctx.config.rounds:
        return END
    return "feedback"


async def feedback(state: RunState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Feedback on the improved player's last round, from the configured source."""
    ctx = context_of(runtime.context)
    rounds = state["rounds"]
    try:
        given = await give_feedback(ctx, rounds)
    except ModelCallError as exc:
        return {"error": str(exc)}
    last = PlayedRound(
        **rounds[-1],
        feedback=given.text,
        feedback_source=given.source,
        suggestions=given.suggestions,
    )
    return {"rounds": [*rounds[:-1], last]}


async def route_after_feedback(state: RunState) -> str:
    """An error in the feedback step ends the run."""
    return END if state.get("error") else "next_round"


async def next_round(state: RunState, runtime: Runtime[GameContext]) -> dict[str, Any]:
    """Tell the improved player the result, the feedback and the goal; take its acknowledgement."""
    ctx = context_of(runtime.context)
    config = ctx.config
    rounds = state["rounds"]
    last = rounds[-1]
    feedback = last.get("feedback")
    instruction = ctx.game.next_round_instruction(ctx.prompts, ctx.setup, rounds, feedback)
    if config.acknowledgement == "generated":
        asked: list[Message] = [
            *protocol.improved_view(state["history"], config.improve, last["turns"]),
            Message(role="user", content=instruction),
        ]
        try:
            acknowledgement = await ctx.call_model(config.improve, last["round"], asked)
        except ModelCallError as exc:
            return {"error": str(exc)}
    else:
        acknowledgement = ctx.game.scripted_acknowledgement(ctx.prompts, ctx.setup, rounds)
    record = PlayedRound(**last, instruction=instruction, acknowledgement=acknowledgement)
    played = [*rounds[:-1], record]
    brief = protocol.initial_history(ctx.prompts, config, config.improve)
    history = protocol.carried_history(
        brief, config.improve, played, config.context, config.last_rounds
    )
    return {"rounds": played, "history": history}


async def route_after_next_round(state: RunState) -> str:
    """Back to the table, unless the acknowledgement failed."""
    return END if state.get("error") else "play_round"
