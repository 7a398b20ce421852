"""Choose a backend from configuration (CLI flags, Dagster resource config) or the environment."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from coworkenv.llm._endpoint import check_endpoint_url, display_url
from coworkenv.llm._none import NoLLMBackend
from coworkenv.llm._openai import OpenAICompatibleBackend
from coworkenv.llm._types import LLMBackend
from coworkenv.llm._vllm_offline import VLLMOfflineBackend

URL_ENV_VAR = "COWORKENV_LLM_URL"
MODEL_ENV_VAR = "COWORKENV_LLM_MODEL"
VLLM_OFFLINE = "vllm-offline"


def backend_from_config(
    url: str | None,
    model: str | None,
    *,
    api_key: str | None = None,
    cache_dir: Path | None = None,
    max_concurrency: int = 8,
    max_retries: int = 4,
    timeout_s: float = 60.0,
    engine_kwargs: dict[str, Any] | None = None,
) -> LLMBackend:
    """Build the backend that `url` names; unset `url`/`model` fall back to $COWORKENV_LLM_URL/_MODEL.

    `None`/"none" -> `NoLLMBackend`; "vllm-offline" -> `VLLMOfflineBackend(model)`; an http(s) URL ->
    `OpenAICompatibleBackend(url, model)` (the key from `api_key` or the environment).
    """
    url = url if url is not None else os.environ.get(URL_ENV_VAR)
    model = model if model is not None else os.environ.get(MODEL_ENV_VAR)
    choice = (url or "none").strip()
    if choice.lower() == "none":
        return NoLLMBackend()
    if choice.lower() == VLLM_OFFLINE:
        return VLLMOfflineBackend(model or "", engine_kwargs=engine_kwargs, cache_dir=cache_dir)
    if choice.startswith(("http://", "https://")):
        return OpenAICompatibleBackend(
            choice,
            model or "",
            api_key,
            max_concurrency=max_concurrency,
            max_retries=max_retries,
            timeout_s=timeout_s,
            cache_dir=cache_dir,
        )
    if "://" in choice:
        check_endpoint_url(choice)  # names the bad scheme
    raise ValueError(
        f"unknown LLM endpoint {display_url(choice)!r} (from --llm or ${URL_ENV_VAR}): use 'none', "
        f"'{VLLM_OFFLINE}' or an http(s):// URL of an OpenAI-compatible server"
    )
