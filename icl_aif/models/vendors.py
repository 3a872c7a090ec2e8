"""Vendor backends through their official LangChain integrations, imported only when used.

Each builder maps a :class:`ModelRequest` onto the integration's constructor. SDK retries are turned
off: retries, rate limits and call recording are done once, around every model, in
:mod:`icl_aif.models.calls`.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

from langchain_core.language_models import BaseChatModel

from icl_aif.core.errors import UsageError
from icl_aif.models.base import ModelRequest
from icl_aif.models.keys import api_key

# Sampling temperatures of the paper (Fu et al. 2023), used when a role sets none.
DEFAULT_TEMPERATURE = {"openai": 1.0, "anthropic": 1.0, "cohere": 0.75, "ai21": 0.7}
DEFAULT_MAX_TOKENS = 512  # the paper's code


def require(module: str, extra: str, spec: str) -> ModuleType:
    """Import an integration, or say which extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise UsageError(
            f"model {spec!r} needs the {extra} extra: pip install 'icl-aif[{extra}]'"
        ) from None


def decoding(request: ModelRequest) -> dict[str, Any]:
    """Temperature and max tokens with the provider's defaults filled in."""
    temperature = request.temperature
    if temperature is None:
        temperature = DEFAULT_TEMPERATURE.get(request.provider)
    return {"temperature": temperature, "max_tokens": request.max_tokens or DEFAULT_MAX_TOKENS}


def build_openai(request: ModelRequest) -> BaseChatModel:
    """``openai:MODEL``; with ``base_url``, any OpenAI-compatible server (vLLM, Ollama, llama.cpp)."""
    module = require("langchain_openai", "openai", request.spec)
    compatible = request.base_url is not None
    key = api_key("OPENAI_API_KEY", request.spec, required=not compatible) or "not-needed"
    settings = decoding(request)
    params = dict(request.params)
    extra_body = dict(params.pop("extra_body", None) or {})
    if compatible:
        # ChatOpenAI sends max_completion_tokens, which servers other than OpenAI ignore.
        extra_body.setdefault("max_tokens", settings["max_tokens"])
    model: BaseChatModel = module.ChatOpenAI(
        model=request.name,
        api_key=key,
        base_url=request.base_url,
        temperature=settings["temperature"],
        max_tokens=settings["max_tokens"],
        top_p=request.top_p,
        seed=request.sampling_seed,
        timeout=request.timeout,
        max_retries=0,
        extra_body=extra_body or None,
        stream_usage=False,
        **params,
    )
    return model


def build_anthropic(request: ModelRequest) -> BaseChatModel:
    """``anthropic:MODEL``; prompt caching of the growing prefix unless ``params.prompt_cache`` is false.

    See :mod:`icl_aif.models.anthropic_cache`.
    """
    require("langchain_anthropic", "anthropic", request.spec)
    from icl_aif.models.anthropic_cache import PrefixCachingChatAnthropic

    key = api_key("ANTHROPIC_API_KEY", request.spec)
    settings = decoding(request)
    params = dict(request.params)
    prompt_cache = params.pop("prompt_cache", True)
    if not isinstance(prompt_cache, bool):
        raise ValueError(f"params.prompt_cache must be true or false, got {prompt_cache!r}")
    optional = {"base_url": request.base_url} if request.base_url else {}
    return PrefixCachingChatAnthropic(
        model=request.name,
        api_key=key,
        temperature=settings["temperature"],
        max_tokens=settings["max_tokens"],
        top_p=request.top_p,
        timeout=request.timeout,
        max_retries=0,
        prompt_cache=prompt_cache,
        **optional,
        **params,
    )
