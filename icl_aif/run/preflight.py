"""Checks before any game: every role's model builds, and every vendor model answers one request.

Building game 0's context catches an unknown provider, a missing extra, a missing key (the error
names the variable) and a template that does not render. Then each distinct vendor model (not a
simulator, the replay fake or a local model) gets one short request, so that a rejected key, an
unknown model id or an unreachable server stops the experiment before its first game. The probe
asks for a handful of tokens; its reply, usage and cost go into ``manifest.json``. With binding
moves (``moves: structured``) each player's vendor model is also asked for one move
(:func:`probe_moves`): a model that gives none in any form is refused before any game.
``icl-aif check-model`` sends the same request for one model.
"""

from __future__ import annotations

import logging
import shlex
from typing import Any

from icl_aif.config.experiment import ExperimentConfig
from icl_aif.config.settings import RoleConfig
from icl_aif.core.errors import UsageError
from icl_aif.core.redaction import public_url
from icl_aif.core.templates import PromptLibrary
from icl_aif.engine import protocol
from icl_aif.engine.context import GameContext, build_model
from icl_aif.engine.move_asker import MoveReply
from icl_aif.engine.protocol import Message
from icl_aif.models.calls import CallResult, ModelCallError, invoke
from icl_aif.models.registry import is_offline

logger = logging.getLogger(__name__)

PROBE_MAX_TOKENS = 16
PROBE: tuple[Message, ...] = (
    Message(role="system", content="This is a connection check before an experiment."),
    Message(role="user", content="Reply with the single word OK."),
)


def _spent_roles(config: ExperimentConfig) -> dict[str, RoleConfig]:
    """The model-backed roles this experiment calls, by role name."""
    roles = config.model_roles()
    if config.roles.moderator.uses_model:  # llm, hybrid: its model is probed like the others
        roles["moderator"] = config.roles.moderator.role_config()
    return roles


async def probe(
    config: ExperimentConfig,
    role: str,
    role_config: RoleConfig,
    *,
    messages: tuple[Message, ...] = PROBE,
    max_tokens: int = PROBE_MAX_TOKENS,
) -> CallResult:
    """Send one short request to ``role_config``'s model (with the config's retries and limits)."""
    settings = role_config.model_copy(update={"max_tokens": max_tokens})
    model = build_model(config, role, settings, seed=0)
    result, _ = await invoke(model, role_config.model, messages, config, max_tokens=max_tokens)
    return result


def check_model_hint(role: str, role_config: RoleConfig) -> str:
    """The ``icl-aif check-model`` command that sends the probe to the same server as the role:
    with its ``--base-url`` (else the key would go to the vendor's default endpoint) and
    ``--timeout``. Parameter values are left out (they may hold credentials): the hint names the
    ``--param`` keys to add."""
    words = ["icl-aif", "check-model", role_config.model]
    if role_config.base_url:
        words += ["--base-url", public_url(role_config.base_url)]
    words += ["--timeout", f"{role_config.timeout:g}"]
    command = shlex.join(words)
    if role_config.params:
        keys = ", ".join(sorted(role_config.params))
        command += f" with --param KEY=VALUE for roles.{role}.params ({keys})"
    return command


async def preflight(
    config: ExperimentConfig, prompts: PromptLibrary, *, send: bool = True
) -> list[dict[str, Any]]:
    """Fail with one line before any game if a role cannot be played; the probes' records.

    With ``send`` false only the offline checks run (models build, keys are set). With
    ``moves: structured`` each player's vendor model is also asked for one move
    (:func:`probe_moves`).
    """
    ctx = GameContext(config=config, index=0, prompts=prompts)
    if not send:
        return []
    records: list[dict[str, Any]] = []
    seen: set[tuple[str, str | None]] = set()
    for role, role_config in _spent_roles(config).items():
        key = (role_config.model, role_config.base_url)
        if is_offline(role_config.model) or key in seen:
            continue
        seen.add(key)
        result = await probe(config, role, role_config)
        if result.output is None:
            raise UsageError(
                f"roles.{role}.model {role_config.model!r} failed its preflight request "
                f"({result.error}); no game was played ({check_model_hint(role, role_config)} "
                f"tells more; --no-preflight skips this check)"
            )
        logger.info("preflight: %s answered in %.2f s", role_config.model, result.latency_s)
        records.append({"role": role, "model": role_config.model, **result.record()})
    if config.moves == "structured":
        records.extend(await probe_moves(ctx))
    return records


MOVE_PROMPT = "It is your turn: say your line and make your move."
"""The user's line of a move probe whose table ends with the player's own line."""


async def probe_moves(ctx: GameContext) -> list[dict[str, Any]]:
    """Ask each player's vendor model (not a simulator, the replay fake or a local model) for one
    binding move, on game 0's opening lines, down the forms of :mod:`icl_aif.engine.move_asker`;
    refuse the run in one line when no form gave a move (no tool call, JSON-schema reply or
    fenced JSON block): every round would end for want of a move. Returns the calls' records."""
    config = ctx.config
    seen: set[tuple[str, str | None]] = set()
    for side, role_config in config.model_roles().items():
        if side not in config.seats:
            continue
        key = (role_config.model, role_config.base_url)
        if is_offline(role_config.model) or key in seen:
            continue
        seen.add(key)
        reply = await _ask_move(ctx, side)
        if reply.data is None:
            said = reply.message.strip().replace("\n", " ")
            said = f"; it said {said[:60]!r}" if said else ""
            raise UsageError(
                f"roles.{side}.model {role_config.model!r} made no binding move in its "
                f"preflight request (no tool call, JSON-schema reply or fenced JSON block came "
                f"back{said}); play it with moves: text (--set moves=text) or choose a model "
                "with tool calling; --no-preflight skips this check"
            )
        logger.info("preflight: %s made a move (%s)", role_config.model, reply.path)
    return [{"probe": "move", **call} for call in ctx.calls]


async def _ask_move(ctx: GameContext, side: str) -> MoveReply:
    """``side``'s move on the round's opening lines (its own trailing lines left out)."""
    turns = ctx.game.opening_turns(ctx.setup.scenario)
    while turns and turns[-1]["speaker"] == side:
        turns = turns[:-1]
    messages = protocol.rival_view(ctx.prompts, ctx.config, side, turns)
    if messages[-1]["role"] != "user":
        messages.append(Message(role="user", content=MOVE_PROMPT))
    try:
        return await ctx.call_move(side, 0, messages)
    except ModelCallError as exc:
        raise UsageError(
            f"roles.{side}.model {ctx.model_ids[side]!r} failed its preflight move request "
            f"({exc.error}); no game was played (--no-preflight skips this check)"
        ) from None
