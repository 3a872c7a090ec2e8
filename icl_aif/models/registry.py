"""The backend registry: ``provider:model`` strings to LangChain chat models.

A provider name is looked up, in this order, among ours (:mod:`icl_aif.models.builtin`), those of
installed plugins, and LangChain's ``init_chat_model`` providers
(:mod:`icl_aif.models.langchain_fallback`). Plugins are packages that declare an entry point in
the ``icl_aif.providers`` group naming a module (or an object in it) whose builders register with
:func:`icl_aif.models.providers.provider`; they are imported on the first lookup of a name that
is not ours. Vendor SDKs are imported lazily, so the core package imports with no extra installed.
"""

from __future__ import annotations

from langchain_core.language_models import BaseChatModel

import icl_aif.models.builtin  # noqa: F401  (registers our providers)
from icl_aif.core.errors import UsageError
from icl_aif.models.base import ModelRequest
from icl_aif.models.providers import ENTRY_POINT_GROUP, PROVIDERS, Provider, RetryRule, provider
from icl_aif.models.retries import is_retryable

__all__ = [
    "ENTRY_POINT_GROUP",
    "PROVIDERS",
    "Provider",
    "build_request",
    "find_provider",
    "forget_plugins",
    "is_offline",
    "langchain_only",
    "load_plugins",
    "model_string_problem",
    "provider",
    "provider_problem",
    "retry_rule",
    "split_model_string",
    "unwrap",
]


_langchain_cache: dict[str, Provider] = {}


def load_plugins() -> list[str]:
    """Import every ``icl_aif.providers`` entry point once; one line per plugin that failed."""
    return PROVIDERS.load_plugins()


def forget_plugins() -> None:
    """Unregister plugins' providers and load them again on the next lookup (for tests)."""
    PROVIDERS.forget_plugins()
    _langchain_cache.clear()


def find_provider(name: str) -> Provider | None:
    """The provider called ``name``: ours, then a plugin's, then LangChain's; None if unknown."""
    return PROVIDERS.find(name) or _langchain_provider(name)


def _langchain_provider(name: str) -> Provider | None:
    """A provider served by LangChain's ``init_chat_model``, if it knows ``name``."""
    from icl_aif.models.langchain_fallback import (
        build_langchain,
        langchain_providers,
        pip_package,
    )

    cached = _langchain_cache.get(name)
    if cached is not None or name not in langchain_providers():
        return cached
    _, class_name = langchain_providers()[name]
    made = _langchain_cache[name] = Provider(
        name=name,
        description=f"LangChain's {class_name} through init_chat_model ({pip_package(name)}).",
        examples=(f"{name}:MODEL",),
        builder=build_langchain,
        origin="langchain",
    )
    return made


def langchain_only() -> list[str]:
    """LangChain's ``init_chat_model`` providers that are neither ours nor a plugin's."""
    from icl_aif.models.langchain_fallback import langchain_providers

    return [name for name in sorted(langchain_providers()) if name not in PROVIDERS]


def provider_problem(name: str) -> str | None:
    """Why ``name`` is not a known provider (ours, a plugin's or LangChain's), or None."""
    if find_provider(name) is not None:
        return None
    failures = load_plugins()
    problem = (
        f"unknown provider {name!r}; known providers: {', '.join(PROVIDERS)}; "
        f"or one of LangChain's: {', '.join(langchain_only())}"
    )
    return "; ".join([problem, *failures])


def unwrap(spec: str) -> str:
    """The model a ``chaos:`` string wraps (recursively); any other string as it is."""
    while spec.startswith("chaos:"):
        spec = spec[len("chaos:") :].partition("?")[0]
    return spec


def retry_rule(spec: str) -> RetryRule:
    """The retry rule of the model ``spec``'s provider; for ``chaos:`` strings, the chaos rule
    or the wrapped model's."""
    outer = find_provider(spec.partition(":")[0])
    inner = find_provider(unwrap(spec).partition(":")[0])
    if outer is None or inner is None:
        found = outer or inner
        return found.should_retry if found is not None else is_retryable
    if inner is outer:
        return outer.should_retry
    first, second = outer.should_retry, inner.should_retry
    return lambda exc: first(exc) or second(exc)


def is_offline(spec: str) -> bool:
    """True for a model that runs in this process (simulators, the replay fake, local GGUF models),
    also inside a ``chaos:`` wrapper."""
    found = find_provider(unwrap(spec).partition(":")[0])
    return found is not None and found.offline


def model_string_problem(spec: str) -> str | None:
    """Why ``spec`` is not a usable ``provider:model`` string (no provider, an unknown one, no
    model id where the provider has no default), or None; ``chaos:`` strings are checked down to
    the model they wrap. Providers are ours, installed plugins' and LangChain's."""
    inner = unwrap(spec)
    name, sep, model = inner.partition(":")
    shown = repr(spec) if inner == spec else f"{spec!r} (wrapping {inner!r})"
    if not sep or not name:
        return (
            f"model {shown}: write provider:model, e.g. scripted:linear "
            f"(providers: {', '.join(PROVIDERS)})"
        )
    found = find_provider(name)
    if found is None:
        return f"model {shown}: {provider_problem(name)}"
    if not model.strip() and not found.default_model:
        example = found.examples[0]
        return f"model {shown}: no model id after {name + ':'!r}; write e.g. {example}"
    return None


def split_model_string(spec: str) -> tuple[str, str]:
    """``"scripted:boulware"`` -> (``"scripted"``, ``"boulware"``); the string must pass
    :func:`model_string_problem`."""
    problem = model_string_problem(spec)
    if problem:
        raise UsageError(problem)
    name, _, model = spec.partition(":")
    return name, model


def build_request(request: ModelRequest, where: str = "model") -> BaseChatModel:
    """Build ``request``'s model with its provider; a bad setting is a :class:`UsageError`
    naming ``where`` (``roles.seller.model``)."""
    found = find_provider(request.provider)
    if found is None:
        raise UsageError(model_string_problem(request.spec) or f"model {request.spec!r}: unknown")
    try:
        return found.build(request)
    except UsageError:
        raise
    except (ValueError, TypeError) as exc:
        raise UsageError(f"{where} {request.spec!r}: {exc}") from None
