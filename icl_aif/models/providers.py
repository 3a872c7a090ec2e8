"""How a provider registers: the :class:`Provider` record and the :func:`provider` decorator.

A provider is a function that builds a LangChain chat model from a :class:`ModelRequest`,
decorated with :func:`provider`; the function imports its vendor SDK inside its body, so
registering costs nothing and the core imports with no extra installed::

    from icl_aif.models.base import ModelRequest
    from icl_aif.models.providers import provider

    @provider("echo", description="Repeats the last user message.", examples=("echo:NAME",))
    def echo(request: ModelRequest) -> BaseChatModel:
        from my_package.echo import EchoModel  # imported when a role uses echo:

        return EchoModel(name=request.name)

Our providers register in :mod:`icl_aif.models.builtin`; another package registers its own from a
module named in its ``icl_aif.providers`` entry point (see :mod:`icl_aif.models.registry`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar, cast

from langchain_core.language_models import BaseChatModel

from icl_aif.core.plugins import Registry
from icl_aif.models.base import ModelRequest
from icl_aif.models.retries import is_retryable

Builder = Callable[[ModelRequest], BaseChatModel]
RetryRule = Callable[[BaseException], bool]
BuilderT = TypeVar("BuilderT", bound=Builder)


@dataclass(frozen=True)
class Provider:
    """One family of backends: how to build it, which failures to retry, what to tell users.

    ``offline`` providers run in this process (no key, no network, no cost); a
    ``default_model`` provider accepts ``name:`` alone (``local:``: the bundled model).
    ``retry_rule`` says which failures of its models are worth another try (default:
    :func:`icl_aif.models.retries.is_retryable`). ``origin`` is the module that registered it, or
    ``langchain`` for a provider served by LangChain's ``init_chat_model``.
    """

    name: str
    description: str
    examples: tuple[str, ...]
    builder: Builder
    offline: bool = False
    default_model: bool = False
    retry_rule: RetryRule | None = None
    origin: str = ""

    def build(self, request: ModelRequest) -> BaseChatModel:
        """The chat model for ``request`` (vendor SDKs are imported here, on first use)."""
        return self.builder(request)

    def should_retry(self, exc: BaseException) -> bool:
        """True if a call of this provider's model that raised ``exc`` is worth another try."""
        return (self.retry_rule or is_retryable)(exc)


ENTRY_POINT_GROUP = "icl_aif.providers"
"""The entry point group through which another package adds providers."""

PROVIDERS: Registry[Provider] = Registry("provider", ENTRY_POINT_GROUP)
"""The registered providers by name: ours first, then plugins' as they are loaded."""


def provider(
    name: str,
    *,
    description: str,
    examples: tuple[str, ...],
    offline: bool = False,
    default_model: bool = False,
    should_retry: RetryRule | None = None,
) -> Callable[[BuilderT], BuilderT]:
    """Register the decorated builder as the provider ``name`` (models named ``name:MODEL``).

    The builder takes a :class:`ModelRequest` and returns a LangChain chat model; it should
    import its SDK inside its body. ``should_retry`` overrides the default retry rule. A name
    taken by another module is an error; the same module registering again (a reload)
    replaces its entry.
    """
    if not name or ":" in name or name != name.strip():
        raise ValueError(f"provider name {name!r}: use a non-empty name without ':' or spaces")

    def register(builder: BuilderT) -> BuilderT:
        origin = getattr(builder, "__module__", "") or ""
        entry = Provider(
            name=name,
            description=description,
            examples=examples,
            builder=builder,
            offline=offline,
            default_model=default_model,
            retry_rule=should_retry,
            origin=origin,
        )
        PROVIDERS.add(name, entry)
        return builder

    return register


def builder_at(reference: str) -> Builder:
    """The builder that ``reference`` (``"package.module:function"``) names, imported now.

    Our providers whose module the registry must not import reach it by name: the scripted
    simulators are game code above the model layer, and ``chaos:`` builds the model it wraps
    through the registry.
    """
    module, _, name = reference.partition(":")
    return cast(Builder, getattr(importlib.import_module(module), name))
