"""The ICL-AIF protocol: who sees what, and when. Pure functions on plain data.

This module is the only place that turns rounds, feedback and outcomes into the messages a role
receives; tests pin it by the exact message lists. Messages are plain dicts ``{"role", "content"}``
with roles ``system``, ``user`` and ``assistant``.

- A player sees its own lines as ``assistant`` and the other side's as ``user``.
- The improved player keeps everything: its brief, every past round (the rival's closing line
  included), the feedback turn after each round and its acknowledgement, then the current round.
- The rival sees its brief and the current round only: it starts fresh every round.
- The critic sees the improved player's record with true speaker labels; feedback appears as feedback.
- The moderator sees the last ``window`` turns of the current round, labelled by speaker.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, TypedDict

from icl_aif.config import Anchor, ExperimentConfig, ScenarioConfig
from icl_aif.templates import PromptLibrary
from icl_aif.transcript import Outcome, Speaker, Turn, format_money

MessageRole = Literal["system", "user", "assistant"]


class Message(TypedDict):
    """One chat message as plain data."""

    role: MessageRole
    content: str


class RoundRecord(TypedDict, total=False):
    """Everything about one finished round, as stored in ``games.jsonl``."""

    round: int
    turns: list[Turn]
    outcome: Outcome
    price: float | None
    reason: str | None
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
    """The last ``size`` turns of the current round."""
    return list(turns[-size:])


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
    carried = [*history, *turns_as_messages(side, record["turns"])]
    if record.get("instruction"):
        carried.append(Message(role="user", content=record["instruction"]))  # type: ignore[typeddict-item]
    if record.get("acknowledgement"):
        carried.append(Message(role="assistant", content=record["acknowledgement"]))  # type: ignore[typeddict-item]
    return carried


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
    constraints = prompts.render("critic/constraints.txt", **values)
    system = prompts.render("critic/system.txt", **values, constraints=constraints)
    request = prompts.render(
        "critic/request.txt", **values, transcript=critic_transcript(config, rounds)
    )
    return [Message(role="system", content=system), Message(role="user", content=request)]


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
