"""Every file and value a run will read, checked before the preflight and before any game.

Config values are checked when the config is loaded (:mod:`icl_aif.config`). What a game reads
from disk while it plays (prompt templates, the feedback pool, a model moderator's few-shot
examples) is checked here, by rendering each template the experiment's cells will render with the
cell's own values, on made-up rounds that take every branch (a deal, a no deal, with and without
an anchor price). A problem is one :class:`~icl_aif.errors.UsageError` line, raised before the run
directory exists, so that nothing is spent on games that would fail at their first feedback step.
"""

from __future__ import annotations

from icl_aif.config import ExperimentConfig
from icl_aif.feedback_sources import find_source
from icl_aif.protocol import (
    RoundRecord,
    critic_messages,
    next_round_instruction,
    player_brief,
    scenario_values,
    scripted_acknowledgement,
)
from icl_aif.templates import PromptLibrary, render_strict

__all__ = ["check_inputs"]


def check_inputs(config: ExperimentConfig, prompts: PromptLibrary) -> None:
    """Fail in one line if a game of ``config`` (any cell, any arm) would fail on a file it reads
    or a template that does not render; return quietly otherwise."""
    for cell in config.cells():
        _check_cell(cell.config, prompts)


def _check_cell(config: ExperimentConfig, prompts: PromptLibrary) -> None:
    scenario = config.scenario
    values = scenario_values(scenario)
    for number, opener in enumerate(scenario.openers, start=1):
        render_strict(opener.text, values, source=f"scenario.openers[{number}]")
    for side in ("seller", "buyer"):
        player_brief(prompts, scenario, side)
    sources = [found for name in config.sources() if (found := find_source(name)) is not None]
    if config.rounds > 1 or config.arms:
        for rounds in _sample_histories(config):
            next_round_instruction(prompts, config, rounds, "1. A suggestion.")
            next_round_instruction(prompts, config, rounds, None)
            if config.acknowledgement == "scripted":
                scripted_acknowledgement(prompts, config, rounds)
            if any(source.calls_critic for source in sources):
                critic_messages(prompts, config, rounds)
    for source in sources:  # the files a source reads (the human pool)
        if source.check is not None:
            source.check(config, prompts)
    if config.roles.moderator.uses_model:
        _check_moderator_prompts(config, prompts)


def _sample_histories(config: ExperimentConfig) -> list[list[RoundRecord]]:
    """Made-up finished rounds that take every branch of the next-round templates: a deal (an
    anchor price), a no deal after it, and a no deal alone (no anchor)."""
    scenario = config.scenario
    turns = [{"speaker": o.speaker, "text": o.text} for o in scenario.openers]
    deal = RoundRecord(round=1, turns=turns, outcome="deal", price=scenario.list_price)  # type: ignore[typeddict-item]
    no_deal = RoundRecord(round=1, turns=turns, outcome="no_deal", price=None, reason="cap")  # type: ignore[typeddict-item]
    later = RoundRecord(**{**no_deal, "round": 2})
    return [[deal], [deal, later], [no_deal]]


def _check_moderator_prompts(config: ExperimentConfig, prompts: PromptLibrary) -> None:
    """A model moderator's system prompts and few-shot examples load and render."""
    from icl_aif.moderator.llm import FENCED, SYSTEM, load_examples, window_text

    prompts.render(SYSTEM)
    prompts.render(FENCED)
    for example in load_examples(prompts, config.roles.moderator.examples):
        window_text(prompts, example.turns, example.scenario)
    opener = config.scenario.openers[0]
    window_text(prompts, [{"speaker": opener.speaker, "text": opener.text}], None)
