"""Any other chat model LangChain supports, through ``langchain.chat_models.init_chat_model``.

A ``provider:model`` string whose provider is neither ours nor a plugin's, but one of LangChain's
(``mistralai:``, ``groq:``, ``google_genai:``, ``bedrock:``, ``deepseek:`` ...), is built here once
its integration package is installed; a missing one is a one-line error naming the pip package.
The model then goes through the same call path as ours (limits, retries, cost, records).

The role's settings become the integration's constructor arguments where its class has a field
for them (names and aliases): ``temperature`` (the integration's default when unset),
``max_tokens`` (512 when unset, as for our vendors), ``top_p``, ``seed``, ``timeout``,
``base_url``, and ``max_retries=0`` (retries happen once, around every model, in
:mod:`icl_aif.models.calls`). ``params`` are passed as they are, last. A setting the user gave that the
class has no field for is an error rather than a silent drop.
"""

from __future__ import annotations

import importlib
import importlib.util
from functools import cache
from typing import Any

from langchain_core.language_models import BaseChatModel
from pydantic import ValidationError

from icl_aif.core.errors import UsageError
from icl_aif.models.base import ModelRequest
from icl_aif.models.vendors import DEFAULT_MAX_TOKENS

# Our setting -> the constructor argument names integrations use for it, most common first.
_NAMES: dict[str, tuple[str, ...]] = {
    "temperature": ("temperature",),
    "max_tokens": ("max_tokens", "max_output_tokens", "max_new_tokens", "num_predict"),
    "top_p": ("top_p",),
    "seed": ("seed", "random_seed"),
    "timeout": ("timeout", "request_timeout", "default_request_timeout"),
    "base_url": ("base_url", "api_base", "endpoint", "endpoint_url"),
    "max_retries": ("max_retries",),
}
# Settings with a default of ours: left out, not refused, when the class has no field for them.
_OPTIONAL = frozenset({"timeout", "max_retries"})


@cache
def langchain_providers() -> dict[str, tuple[str, str]]:
    """The providers ``init_chat_model`` knows: name -> (module, chat model class name)."""
    from langchain.chat_models import base

    table: dict[str, tuple[Any, ...]] = getattr(base, "_BUILTIN_PROVIDERS", {})
    return {name: (str(entry[0]), str(entry[1])) for name, entry in table.items()}


def pip_package(provider: str) -> str:
    """The pip package of LangChain's integration for ``provider`` (``langchain-mistralai``)."""
    module, _ = langchain_providers()[provider]
    return module.split(".", 1)[0].replace("_", "-")


def build_langchain(request: ModelRequest) -> BaseChatModel:
    """The chat model for ``request`` from ``init_chat_model``, with the role's settings."""
    from langchain.chat_models import init_chat_model

    model_class = _chat_model_class(request)
    kwargs = _settings(request, model_class)
    try:
        model = init_chat_model(request.name, model_provider=request.provider, **kwargs)
    except ValidationError as exc:
        reasons = "; ".join(
            str(e["msg"]).removeprefix("Value error, ") for e in exc.errors(include_url=False)
        )
        raise UsageError(
            f"model {request.spec!r}: LangChain's {model_class.__name__} refused its settings: "
            f"{reasons}"
        ) from None
    assert isinstance(model, BaseChatModel)
    return model


def _chat_model_class(request: ModelRequest) -> type[BaseChatModel]:
    """Import the integration's chat model class, or say which package to install."""
    module_name, class_name = langchain_providers()[request.provider]
    package = pip_package(request.provider)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if importlib.util.find_spec(module_name.split(".", 1)[0]) is None:
            raise UsageError(
                f"model {request.spec!r} needs LangChain's {request.provider} integration: "
                f"pip install {package}"
            ) from None
        raise UsageError(f"model {request.spec!r}: {package} does not import: {exc}") from None
    model_class: type[BaseChatModel] = getattr(module, class_name)
    return model_class


@cache
def _accepted(model_class: type[BaseChatModel]) -> frozenset[str]:
    """The constructor argument names of a chat model class: its fields and their aliases."""
    names: set[str] = set()
    for name, field in model_class.model_fields.items():
        names.add(name)
        for alias in (field.alias, field.validation_alias):
            if isinstance(alias, str):
                names.add(alias)
    return frozenset(names)


def _settings(request: ModelRequest, model_class: type[BaseChatModel]) -> dict[str, Any]:
    """Our settings under the argument names ``model_class`` takes, then ``params``."""
    wanted: dict[str, Any] = {
        "temperature": request.temperature,
        "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS,
        "top_p": request.top_p,
        "seed": request.sampling_seed,
        "timeout": request.timeout,
        "base_url": request.base_url,
        "max_retries": 0,
    }
    given_by_user = {"temperature", "top_p", "seed", "base_url"}
    if request.max_tokens is not None:
        given_by_user.add("max_tokens")
    accepted = _accepted(model_class)
    kwargs: dict[str, Any] = {}
    for setting, value in wanted.items():
        if value is None:
            continue
        name = next((n for n in _NAMES[setting] if n in accepted), None)
        if name is not None:
            kwargs[name] = value
        elif setting in given_by_user and setting not in _OPTIONAL:
            raise UsageError(
                f"model {request.spec!r}: LangChain's {model_class.__name__} has no {setting} "
                f"setting; remove it, or pass the argument it uses under params"
            )
    return {**kwargs, **request.params}
