"""``scripted:reflector``: a rule-based reflection model for ``icl-aif optimize`` (a simulator,
not a language model), the same in every game.

It reads the prompts of ``prompts/optimize/``: the current instruction and the feedback between
``<instruction>`` and ``<feedback>`` tags (``reflect.txt``), or two instructions (``merge.txt``).
A reflection keeps the instruction's sentences and adds one sentence of the feedback that the
instruction does not hold yet, drawn from the most frequent ones with the model's seed; now and
then (one time in four, when it holds two or more) it drops a sentence instead, so that a search can also undo a step. A
merge interleaves the two instructions' sentences. Either way the result keeps to the asked
length by dropping its oldest sentences. It shows the optimiser's machinery offline; it knows
nothing of bargaining, and a language model in its place decides for itself.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import PrivateAttr

from icl_aif.models.base import TextReplyModel, message_text

__all__ = ["ScriptedReflector", "instruction_in", "sentences"]

_TAGGED = re.compile(r"<(instruction|feedback)>\s*(.*?)\s*</\1>", re.DOTALL)
_LIMIT = re.compile(r"at most (\d+) characters")
_NUMBERED = re.compile(r"^\s*(?:\d+[.)]|[-*])\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
DROP_CHANCE = 0.25


def sentences(text: str) -> list[str]:
    """The sentences of ``text``, numbering and bullets removed, each ending in a full stop."""
    found = []
    for line in text.splitlines():
        line = _NUMBERED.sub("", line).strip()
        for part in _SENTENCE_END.split(line):
            part = part.strip()
            if part:
                found.append(part if part[-1] in ".!?" else f"{part}.")
    return found


def instruction_in(reply: str) -> str:
    """The instruction of a reflection model's reply: between ``<instruction>`` tags, else the
    whole reply, stripped."""
    match = re.search(r"<instruction>\s*(.*?)\s*</instruction>", reply, re.DOTALL)
    return (match.group(1) if match else reply).strip()


def _fit(parts: Sequence[str], limit: int) -> str:
    """``parts`` joined, the oldest dropped until the text keeps to ``limit`` characters."""
    kept = list(parts)
    while kept and len(" ".join(kept)) > limit:
        kept.pop(0)
    return " ".join(kept)


class ScriptedReflector(TextReplyModel):
    """The scripted reflection model (module doc)."""

    seed: int = 0
    _rng: random.Random = PrivateAttr()

    def model_post_init(self, context: Any, /) -> None:
        """Its random stream, from its seed."""
        self._rng = random.Random(f"scripted:reflector:{self.seed}")

    @property
    def _llm_type(self) -> str:
        return "scripted-reflector"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"seed": self.seed}

    def respond(self, messages: Sequence[BaseMessage]) -> str:
        """A new instruction between ``<instruction>`` tags."""
        prompt = message_text(messages[-1]) if messages else ""
        limit_found = _LIMIT.search(prompt)
        limit = int(limit_found.group(1)) if limit_found else 600
        blocks = _TAGGED.findall(prompt)
        instructions = [text for tag, text in blocks if tag == "instruction"]
        feedback = [text for tag, text in blocks if tag == "feedback"]
        if len(instructions) >= 2 and not feedback:
            first, second = (sentences(text) for text in instructions[:2])
            merged: list[str] = []
            for pair in zip(first, second, strict=False):
                merged += [s for s in pair if s not in merged]
            longer = first if len(first) > len(second) else second
            merged += [s for s in longer[len(merged) // 2 :] if s not in merged]
            return f"<instruction>\n{_fit(merged, limit)}\n</instruction>"
        current = sentences(instructions[0]) if instructions else []
        said = Counter(s for text in feedback for s in sentences(text))
        new = [s for s, _ in said.most_common() if s not in current]
        if current and (not new or (len(current) > 1 and self._rng.random() < DROP_CHANCE)):
            current.pop(self._rng.randrange(len(current)))
        elif new:
            top = said[new[0]]
            current.append(self._rng.choice([s for s in new if said[s] == top]))
        return f"<instruction>\n{_fit(current, limit)}\n</instruction>"
