"""The ICL-AIF protocol: who sees what, and when. Pure functions on plain data.

This module is the only place that turns rounds, feedback and outcomes into the messages a role
receives; tests pin it by the exact message lists. Messages are plain dicts ``{"role", "content"}``
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

from collections.abc import Sequence
from typing import Any, TypedDict

from icl_aif.config import Anchor, ContextMode, CriticConstraint, ExperimentConfig, ScenarioConfig
from icl_aif.errors import UsageError
from icl_aif.templates import PromptLibrary, render_strict
from icl_aif.transcript import Message as Message  # one chat message; defined with the core types
from icl_aif.transcript import Outcome, Speaker, Turn, format_money


class RoundRecord(TypedDict, total=False):
    """Everything about one finished round, as stored in ``games.jsonl``."""

    round: int
    turns: list[Turn]
    outcome: Outcome
    price: float | None
    reason: str | None
    truncated: bool  # only on a round the exchange cap ended (docs/records.md)
    decided_by: str | None  # how the last verdict was reached: rules or llm (docs/records.md)
    parse: str | None
    feedback: str | None
    feedback_source: str | None
    suggestions: list[str]
    instruction: str | None
    acknowledgement: str | None


# --- the scenario as the prompts see it -------------------------------------------------------


def scenario_values(scenario: ScenarioConfig) -> dict[str, Any]:
    """Template values for a scenario; prices come formatted (``$20``)."""
    return {
        "item": scenario.item,
        "list_price": format_money(scenario.list_price),
        "buyer_open": format_money(scenario.buyer_open),
        "seller_cost": format_money(scenario.seller_cost),
        "buyer_budget": (
            format_money(scenario.buyer_budget) if scenario.buyer_budget is not None else ""
        ),
    }


def opening_turns(scenario: ScenarioConfig) -> list[Turn]:
    """The scripted lines that open every round."""
    values = scenario_values(scenario)
    return [Turn(speaker=o.speaker, text=o.text.format_map(values)) for o in scenario.openers]


def player_brief(prompts: PromptLibrary, scenario: ScenarioConfig, side: Speaker) -> str:
    """The system prompt of the seller or the buyer."""
    values = scenario_values(scenario)
    if side == "buyer":
        budget_template = (
            "players/budget.txt" if scenario.buyer_budget is not None else "players/no_budget.txt"
        )
        values["budget"] = prompts.render(budget_template, **values)
    return prompts.render(f"players/{side}.txt", **values)


# --- player views ---------------------------------------------------------------------------


def turns_as_messages(side: Speaker, turns: Sequence[Turn]) -> list[Message]:
    """A round from ``side``'s seat: its own lines as assistant, the other side's as user."""
    return [
        Message(role="assistant" if t["speaker"] == side else "user", content=t["text"])
        for t in turns
    ]


def initial_history(
    prompts: PromptLibrary, scenario: ScenarioConfig, side: Speaker
) -> list[Message]:
    """The improved player's history before round 1: its brief only."""
    return [Message(role="system", content=player_brief(prompts, scenario, side))]


def improved_view(
    history: Sequence[Message], side: Speaker, turns: Sequence[Turn]
) -> list[Message]:
    """What the improved player receives: its whole carried history, then the current round."""
    return [*history, *turns_as_messages(side, turns)]


def rival_view(
    prompts: PromptLibrary, scenario: ScenarioConfig, side: Speaker, turns: Sequence[Turn]
) -> list[Message]:
    """What the rival receives: its brief and the current round, nothing from earlier rounds."""
    return [
        Message(role="system", content=player_brief(prompts, scenario, side)),
        *turns_as_messages(side, turns),
    ]


def moderator_window(turns: Sequence[Turn], size: int) -> list[Turn]:
    """The last ``size`` turns of the current round: who said what (a turn's flags stay out)."""
    return [Turn(speaker=t["speaker"], text=t["text"]) for t in turns[-size:]]


# --- between rounds -------------------------------------------------------------------------


def anchor_price(
    rounds: Sequence[RoundRecord], anchor: Anchor, improve: Speaker
) -> tuple[float, int] | None:
    """The price the next round should beat and the round it came from, or None if there is none."""
    if not rounds:
        return None
    if anchor == "previous":
        candidates = [rounds[-1]]
    elif anchor == "first":
        candidates = [rounds[0]]
    else:
        candidates = list(rounds)
    deals: list[tuple[float, int]] = []
    for record in candidates:
        price = record.get("price")
        if record.get("outcome") == "deal" and price is not None:
            deals.append((float(price), record["round"]))
    if not deals:
        return None
    # the best price for the improved side; the earliest round among equal prices
    sign = 1.0 if improve == "seller" else -1.0
    return max(deals, key=lambda d: (sign * d[0], -d[1]))


def _trade_words(side: Speaker) -> dict[str, str]:
    if side == "seller":
        return {"trade": "sell", "traded": "sold", "direction": "more"}
    return {"trade": "buy", "traded": "bought", "direction": "less"}


def no_deal_reason(record: RoundRecord, max_exchanges: int) -> str:
    """A plain sentence fragment for why a round had no deal."""
    reason = record.get("reason") or "unknown"
    last = record["turns"][-1]["speaker"] if record.get("turns") else "a side"
    texts = {
        "walk_away": f"the {last} walked away",
        "refusal": f"the {last} refused to go on",
        "cap": f"the round reached its limit of {max_exchanges} exchanges",
    }
    return texts.get(reason, reason.replace("_", " "))


def outcome_sentence(record: RoundRecord, max_exchanges: int) -> str:
    """``deal at $15`` or ``no deal: the buyer walked away``, for transcripts shown to the critic."""
    if record.get("outcome") == "deal":
        price = record.get("price")
        return f"deal at {format_money(price)}" if price is not None else "deal at an unclear price"
    if record.get("outcome") == "error":
        return f"stopped by an error ({record.get('reason')})"
    return f"no deal: {no_deal_reason(record, max_exchanges)}"


def next_round_instruction(
    prompts: PromptLibrary,
    config: ExperimentConfig,
    rounds: Sequence[RoundRecord],
    feedback: str | None,
) -> str:
    """The user turn the improved player receives after a round: result, feedback and next goal."""
    side = config.improve
    last = rounds[-1]
    words = {**_trade_words(side), **scenario_values(config.scenario)}
    if last.get("outcome") == "deal" and last.get("price") is not None:
        result = prompts.render("round/result_deal.txt", **words, price=format_money(last["price"]))  # type: ignore[arg-type]
    else:
        reason = no_deal_reason(last, config.scenario.max_exchanges)
        result = prompts.render("round/result_no_deal.txt", reason=reason)
    next_round = last["round"] + 1
    anchor = anchor_price(rounds, config.anchor, side)
    if anchor is None:
        goal = prompts.render("round/goal_no_anchor.txt", next_round=next_round)
    else:
        price, number = anchor
        goal = prompts.render(
            "round/goal_anchor.txt",
            **words,
            next_round=next_round,
            anchor=format_money(price),
            anchor_label=_anchor_label(config.anchor, number),
        )
    block = prompts.render("round/feedback.txt", feedback=feedback) if feedback else ""
    text = prompts.render(
        "round/next_round.txt", round=last["round"], result=result, feedback=block, goal=goal
    )
    return _collapse_blank_lines(text)


def scripted_acknowledgement(
    prompts: PromptLibrary, config: ExperimentConfig, rounds: Sequence[RoundRecord]
) -> str:
    """The improved player's scripted reply to the feedback turn."""
    words = _trade_words(config.improve)
    anchor = anchor_price(rounds, config.anchor, config.improve)
    if anchor is None:
        aim = prompts.render("round/aim_no_anchor.txt")
    else:
        aim = prompts.render("round/aim_anchor.txt", **words, anchor=format_money(anchor[0]))
    return prompts.render("round/acknowledgement.txt", next_round=rounds[-1]["round"] + 1, aim=aim)


def carry_round(history: Sequence[Message], side: Speaker, record: RoundRecord) -> list[Message]:
    """The improved player's history after a round: the round, the feedback turn, the acknowledgement."""
    return [*history, *turns_as_messages(side, record["turns"]), *feedback_turns(record)]


def feedback_turns(record: RoundRecord) -> list[Message]:
    """The feedback turn after a round (the instruction) and the acknowledgement, as messages."""
    turns: list[Message] = []
    if record.get("instruction"):
        turns.append(Message(role="user", content=record["instruction"]))  # type: ignore[typeddict-item]
    if record.get("acknowledgement"):
        turns.append(Message(role="assistant", content=record["acknowledgement"]))  # type: ignore[typeddict-item]
    return turns


def carried_history(
    brief: Sequence[Message],
    side: Speaker,
    rounds: Sequence[RoundRecord],
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


def _anchor_label(anchor: Anchor, number: int) -> str:
    if anchor == "best":
        return f"your best round so far (round {number})"
    return f"round {number}"


def _collapse_blank_lines(text: str) -> str:
    lines = text.splitlines()
    out: list[str] = []
    for line in lines:
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line)
    return "\n".join(out).strip()


# --- the critic -----------------------------------------------------------------------------


def critic_transcript(config: ExperimentConfig, rounds: Sequence[RoundRecord]) -> str:
    """The improved player's record with true speaker labels, outcomes and feedback marked as such."""
    side = config.improve
    blocks: list[str] = []
    for record in rounds:
        lines = [f"Round {record['round']}"]
        lines += [f"{t['speaker']}: {t['text']}" for t in record["turns"]]
        lines.append(f"Outcome: {outcome_sentence(record, config.scenario.max_exchanges)}.")
        if record.get("feedback"):
            lines.append(f"Feedback the {side} received after round {record['round']}:")
            lines.append(str(record["feedback"]))
        if record.get("acknowledgement"):
            lines.append(f"{side} (replying to the feedback): {record['acknowledgement']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def critic_constraints(
    prompts: PromptLibrary, names: Sequence[CriticConstraint], values: dict[str, Any]
) -> str:
    """The critic's constraints that are on, one a line, in the order of ``critic/constraints.txt``.

    The file holds one ``NAME: TEXT`` a line (``#`` comments and blank lines skipped).
    """
    source = "critic/constraints.txt"
    texts: dict[str, str] = {}
    for raw in prompts.text(source).splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, text = line.partition(":")
        if not sep or not text.strip():
            raise UsageError(f"{source}: expected NAME: TEXT lines, got {line!r}")
        texts[name.strip()] = text.strip()
    missing = [n for n in names if n not in texts]
    if missing:
        raise UsageError(f"{source}: no text for constraint(s) {', '.join(missing)}")
    wanted = set(names)
    return "\n".join(
        render_strict(text, values, source=f"{source} ({name})")
        for name, text in texts.items()
        if name in wanted
    )


def critic_messages(
    prompts: PromptLibrary, config: ExperimentConfig, rounds: Sequence[RoundRecord]
) -> list[Message]:
    """What the critic receives after a round."""
    side = config.improve
    values = {
        "role": side,
        "item": config.scenario.item,
        "suggestions": config.feedback.suggestions,
        "goal": "sell at a higher price" if side == "seller" else "buy at a lower price",
    }
    constraints = critic_constraints(prompts, config.feedback.constraints, values)
    system = prompts.render("critic/system.txt", **values, constraints=constraints)
    request = prompts.render(
        "critic/request.txt", **values, transcript=critic_transcript(config, rounds)
    )
    return [Message(role="system", content=system), Message(role="user", content=request)]


def human_feedback_request(
    config: ExperimentConfig, rounds: Sequence[RoundRecord]
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
    side: Speaker,
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
        "brief": player_brief(prompts, config.scenario, side),
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
