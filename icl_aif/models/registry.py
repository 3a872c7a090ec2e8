"""The backend registry: ``provider:model`` strings to LangChain chat models.

Providers are imported lazily, so the core package imports with no vendor SDK installed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from icl_aif.config import ExperimentConfig, RoleConfig
from icl_aif.errors import UsageError
from icl_aif.models.base import ModelRequest
from icl_aif.transcript import Speaker

Builder = Callable[[ModelRequest], BaseChatModel]


@dataclass(frozen=True)
class Provider:
    """One family of backends: how to build it and what to tell users about it."""

    name: str
    description: str
    examples: tuple[str, ...]
    builder: str  # "module:function", imported on first use
    offline: bool = False  # runs in this process: no key, no network, no cost
    default_model: bool = False  # "name:" alone means a model of its own (local: the bundled one)

    def build(self, request: ModelRequest) -> BaseChatModel:
        """Import the provider module and build the model."""
        module_name, _, function = self.builder.partition(":")
        factory: Builder = getattr(importlib.import_module(module_name), function)
        return factory(request)


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider(
            "scripted",
            "Rule-based simulators (not language models): negotiators and a critic.",
            (
                "scripted:boulware",
                "scripted:linear",
                "scripted:conceder",
                "scripted:tit_for_tat",
                "scripted:critic",
            ),
            "icl_aif.models.registry:_build_scripted",
            offline=True,
        ),
        Provider(
            "openai",
            "OpenAI chat models; with base_url, any OpenAI-compatible server. Key: OPENAI_API_KEY.",
            ("openai:gpt-4o-mini", "openai:gpt-4.1", "openai:MODEL + base_url"),
            "icl_aif.models.vendors:build_openai",
        ),
        Provider(
            "anthropic",
            "Anthropic Claude models, prompt caching on (params.prompt_cache: false). Key: ANTHROPIC_API_KEY.",
            ("anthropic:claude-3-5-haiku-latest", "anthropic:claude-sonnet-4-5"),
            "icl_aif.models.vendors:build_anthropic",
        ),
        Provider(
            "cohere",
            "Cohere Command models (v2 chat API). Key: COHERE_API_KEY (or CO_API_KEY).",
            ("cohere:command-r7b-12-2024", "cohere:command-a-03-2025"),
            "icl_aif.models.cohere:build_cohere",
        ),
        Provider(
            "ai21",
            "AI21 Jamba models (chat completions). Key: AI21_API_KEY.",
            ("ai21:jamba-mini", "ai21:jamba-large"),
            "icl_aif.models.ai21:build_ai21",
        ),
        Provider(
            "local",
            "A GGUF model in process via llama.cpp, offline; local: is the bundled SmolLM2-135M.",
            ("local:", "local:/path/to/model.gguf"),
            "icl_aif.models.local:build_local",
            offline=True,
            default_model=True,
        ),
        Provider(
            "chaos",
            "Fault injection around any model, for tests and benchmarks: errors, timeouts, bad "
            "replies, latency (settings after ?).",
            ("chaos:scripted:linear?error_rate=0.2&timeout_rate=0.05&garbage_rate=0.05",),
            "icl_aif.models.chaos:build_chaos",
        ),
        Provider(
            "replay",
            "A fake that answers with params.replies in order (tests and dry runs).",
            ("replay:NAME",),
            "icl_aif.models.replay:build_replay",
            offline=True,
        ),
    )
}


def is_offline(spec: str) -> bool:
    """True for a model that runs in this process (simulators, the replay fake, local GGUF models),
    also inside a ``chaos:`` wrapper."""
    from icl_aif.models.chaos import unwrap

    provider = PROVIDERS.get(unwrap(spec).partition(":")[0])
    return provider is not None and provider.offline


def model_string_problem(spec: str) -> str | None:
    """Why ``spec`` is not a usable ``provider:model`` string (no provider, an unknown one, no
    model id where the provider has no default), or None; ``chaos:`` strings are checked down to
    the model they wrap."""
    from icl_aif.models.chaos import unwrap

    inner = unwrap(spec)
    provider, sep, name = inner.partition(":")
    shown = repr(spec) if inner == spec else f"{spec!r} (wrapping {inner!r})"
    if not sep or not provider:
        return (
            f"model {shown}: write provider:model, e.g. scripted:linear "
            f"(providers: {', '.join(PROVIDERS)})"
        )
    if provider not in PROVIDERS:
        return (
            f"model {shown}: unknown provider {provider!r}; known providers: {', '.join(PROVIDERS)}"
        )
    if not name.strip() and not PROVIDERS[provider].default_model:
        example = PROVIDERS[provider].examples[0]
        return f"model {shown}: no model id after {provider + ':'!r}; write e.g. {example}"
    return None


def split_model_string(spec: str) -> tuple[str, str]:
    """``"scripted:boulware"`` -> (``"scripted"``, ``"boulware"``); the string must pass
    :func:`model_string_problem`."""
    problem = model_string_problem(spec)
    if problem:
        raise UsageError(problem)
    provider, _, name = spec.partition(":")
    return provider, name


def build_model(
    config: ExperimentConfig,
    role: str,
    role_config: RoleConfig | None = None,
    *,
    seed: int,
    stream_seed: int | None = None,
) -> BaseChatModel:
    """The chat model for ``role`` in one game of ``config``.

    ``role_config`` defaults to the config's settings for the role; for the critic these are
    already resolved (without ``roles.critic`` the config gives it the improved player's model,
    or ``scripted:critic`` for a scripted player).
    """
    if role_config is None:
        role_config = getattr(config.roles, role)
        assert isinstance(role_config, RoleConfig), f"{role} has no model settings"
    provider, name = split_model_string(role_config.model)
    side: Speaker = role if role in ("seller", "buyer") else config.improve  # type: ignore[assignment]
    request = ModelRequest(
        spec=role_config.model,
        provider=provider,
        name=name,
        role=role,
        side=side,
        scenario=config.scenario,
        seed=seed,
        stream_seed=stream_seed,
        suggestions=config.feedback.suggestions,
        temperature=role_config.temperature,
        max_tokens=role_config.max_tokens,
        top_p=role_config.top_p,
        sampling_seed=role_config.seed,
        timeout=role_config.timeout,
        base_url=role_config.base_url,
        params=dict(role_config.params),
    )
    try:
        return PROVIDERS[provider].build(request)
    except UsageError:
        raise
    except (ValueError, TypeError) as exc:
        raise UsageError(f"roles.{role}.model {role_config.model!r}: {exc}") from None


def _build_scripted(request: ModelRequest) -> BaseChatModel:
    from icl_aif.models.scripted import build_negotiator
    from icl_aif.models.scripted_critic import build_critic

    if request.role == "moderator":
        raise ValueError("scripted: backends are negotiators and a critic; use mode rules instead")
    if request.role == "critic":
        if request.name != "critic":
            raise ValueError("the scripted critic is scripted:critic")
        return build_critic(request)
    if request.name == "critic":
        raise ValueError(f"scripted:critic plays the critic, not the {request.role}")
    return build_negotiator(request)
