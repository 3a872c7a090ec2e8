"""Every file and value a run will read, checked before the preflight and before any game.

Config values are checked when the config is loaded (:mod:`icl_aif.config.experiment`). What a game reads
from disk while it plays (prompt templates, the feedback pool, a model moderator's few-shot
examples) is checked here, by rendering each template the experiment's cells will render with the
cell's own values, on made-up rounds that take every branch (a deal, a no deal, with and without
an anchor price, in the price game). A problem is one :class:`~icl_aif.core.errors.UsageError` line, raised before the run
directory exists, so that nothing is spent on games that would fail at their first feedback step.
"""

from __future__ import annotations

from icl_aif.config.experiment import RANDOM_PERSONA, ExperimentConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.templates import PromptLibrary, render_strict
from icl_aif.engine.feedback.registry import find_source
from icl_aif.engine.protocol import check_persona, persona_names, player_brief
from icl_aif.games.moves import TOOL_NAME
from icl_aif.games.registry import game_of
from icl_aif.models.cache import check_cache

__all__ = ["check_inputs"]


def check_inputs(config: ExperimentConfig, prompts: PromptLibrary) -> None:
    """Fail in one line if a game of ``config`` (any cell, any arm) would fail on a file it reads
    or a template that does not render, or on its response cache (``cache``); return quietly
    otherwise."""
    for cell in config.cells():
        _check_cell(cell.config, prompts)
    if config.cache is not None:  # a cache that cannot be read or written: before any game
        check_cache(config.cache)


def _check_cell(config: ExperimentConfig, prompts: PromptLibrary) -> None:
    game = game_of(config)
    game.check_config(config)  # what the game cannot play (a known type's seat, ...)
    check_persona(prompts, config.rival_persona)
    if config.rival_persona is not None:  # the rival's brief with its persona renders
        names = persona_names(prompts) if config.rival_persona == RANDOM_PERSONA else []
        for name in names or [config.rival_persona]:
            player_brief(prompts, config.model_copy(update={"rival_persona": name}), config.rival)
    for seat, name in config.personas.items():  # a persona per seat (a tournament's players)
        check_persona(prompts, name, f"personas.{seat}")
        player_brief(prompts, config, seat)
    if config.instructions:
        for seat in config.instructions:
            player_brief(prompts, config, seat)
    if config.optimize is not None:  # icl-aif optimize's reflection and merge prompts
        values = {"seat": config.improve, "game": config.game, "max_chars": 100}
        prompts.render(
            "optimize/reflect.txt",
            **values,
            instruction="",
            games=1,
            score="0",
            source="ai",
            feedback="",
        )
        prompts.render("optimize/merge.txt", **values, first="", second="")
    if config.last_turn_accept:
        prompts.render("clauses/last_turn_accept.txt")
    if config.countdown:
        prompts.render("clauses/countdown.txt", left=2, s="s")
    if config.moves == "structured":
        if config.person is not None:
            raise UsageError(
                "moves: structured: a person's typed line makes no move; play with moves: text"
            )
        if game.offer_model is None:
            raise UsageError(
                f"moves: structured: the {config.game} game has no binding moves yet; "
                "use moves: text"
            )
        prompts.render("clauses/moves.txt")
        prompts.render("clauses/moves_fenced.txt", tool=TOOL_NAME)
    values = game.opener_values(config.scenario)
    for number, opener in enumerate(config.scenario.openers, start=1):
        render_strict(opener.text, values, source=f"scenario.openers[{number}]")
    sources = [found for name in config.sources() if (found := find_source(name)) is not None]
    critic = any(source.calls_critic for source in sources)
    game.check_templates(prompts, config, critic=critic)  # briefs, between rounds, judge
    for source in sources:  # the files a source reads (the human pool)
        if source.check is not None:
            source.check(config, prompts)
