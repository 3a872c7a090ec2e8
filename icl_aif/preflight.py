"""Checks before any game: every role's model builds, and every vendor model answers one request.

Building game 0's context catches an unknown provider, a missing extra, a missing key (the error
names the variable) and a template that does not render. Then each distinct vendor model (not a
simulator, the replay fake or a local model) gets one short request, so that a rejected key, an
unknown model id or an unreachable server stops the experiment before its first game. The probe
asks for a handful of tokens; its reply, usage and cost go into ``manifest.json``.
``icl-aif check-model`` sends the same request for one model.
"""

from __future__ import annotations

import logging
import shlex
from typing import Any

from icl_aif.calls import CallResult, invoke
from icl_aif.config import ExperimentConfig, RoleConfig
from icl_aif.context import GameContext, build_model
from icl_aif.errors import UsageError
from icl_aif.models.registry import is_offline
from icl_aif.protocol import Message
from icl_aif.templates import PromptLibrary

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
        words += ["--base-url", role_config.base_url]
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

    With ``send`` false only the offline checks run (models build, keys are set).
    """
    GameContext(config=config, index=0, prompts=prompts)
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
    return records
