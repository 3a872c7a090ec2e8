"""Our providers, registered with :func:`icl_aif.models.providers.provider`.

Each builder imports its module (and through it the vendor SDK) only when a role uses it, so this
module imports with no extra installed. The order here is the order ``icl-aif models`` lists.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

from icl_aif.models.base import ModelRequest
from icl_aif.models.providers import builder_at, provider
from icl_aif.models.retries import sdk_retry_rule


@provider(
    "openai",
    description=(
        "OpenAI chat models; with base_url, any OpenAI-compatible server. Key: OPENAI_API_KEY."
    ),
    examples=("openai:gpt-4o-mini", "openai:gpt-4.1", "openai:MODEL + base_url"),
    should_retry=sdk_retry_rule("openai"),
)
def openai(request: ModelRequest) -> BaseChatModel:
    """``openai:MODEL`` through langchain-openai."""
    from icl_aif.models.vendors import build_openai

    return build_openai(request)


@provider(
    "anthropic",
    description=(
        "Anthropic Claude models, prompt caching on (params.prompt_cache: false). "
        "Key: ANTHROPIC_API_KEY."
    ),
    examples=("anthropic:claude-3-5-haiku-latest", "anthropic:claude-sonnet-4-5"),
    should_retry=sdk_retry_rule("anthropic"),
)
def anthropic(request: ModelRequest) -> BaseChatModel:
    """``anthropic:MODEL`` through langchain-anthropic."""
    from icl_aif.models.vendors import build_anthropic

    return build_anthropic(request)


@provider(
    "cohere",
    description="Cohere Command models (v2 chat API). Key: COHERE_API_KEY (or CO_API_KEY).",
    examples=("cohere:command-r7b-12-2024", "cohere:command-a-03-2025"),
)
def cohere(request: ModelRequest) -> BaseChatModel:
    """``cohere:MODEL`` through the cohere SDK (its errors carry the HTTP response)."""
    from icl_aif.models.cohere import build_cohere

    return build_cohere(request)


@provider(
    "ai21",
    description="AI21 Jamba models (chat completions). Key: AI21_API_KEY.",
    examples=("ai21:jamba-mini", "ai21:jamba-large"),
)
def ai21(request: ModelRequest) -> BaseChatModel:
    """``ai21:MODEL`` through the ai21 SDK (its errors carry the HTTP response)."""
    from icl_aif.models.ai21 import build_ai21

    return build_ai21(request)


@provider(
    "local",
    description=(
        "A GGUF model in process via llama.cpp, offline; local: is the bundled SmolLM2-135M."
    ),
    examples=("local:", "local:/path/to/model.gguf"),
    offline=True,
    default_model=True,
)
def local(request: ModelRequest) -> BaseChatModel:
    """``local:`` (the bundled model) or ``local:PATH.gguf`` through llama-cpp-python."""
    from icl_aif.models.local import build_local

    return build_local(request)


@provider(
    "chaos",
    description=(
        "Fault injection around any model, for tests and benchmarks: errors, timeouts, bad "
        "replies, latency (settings after ?)."
    ),
    examples=("chaos:scripted:linear?error_rate=0.2&timeout_rate=0.05&garbage_rate=0.05",),
)
def chaos(request: ModelRequest) -> BaseChatModel:
    """``chaos:MODEL?settings`` around any other model string (it imports the registry: reached
    by name)."""
    return builder_at("icl_aif.models.chaos:build_chaos")(request)


@provider(
    "replay",
    description="A fake that answers with params.replies in order (tests and dry runs).",
    examples=("replay:NAME",),
    offline=True,
)
def replay(request: ModelRequest) -> BaseChatModel:
    """``replay:NAME`` with ``params.replies``."""
    from icl_aif.models.replay import build_replay

    return build_replay(request)
