"""LLM backends behind one interface: OpenAI-compatible HTTP, vLLM offline engine, or none.

`backend_from_config(url, model)` picks one; every backend has `name`, `stats`, `async complete()`
and `complete_batch()`. Tool calls are parsed by `parse_tool_calls` (native first, hermes text as
fallback). Credentials never reach logs, errors, reprs, stats, cache files or cache keys.
"""

from coworkenv.llm._config import MODEL_ENV_VAR, URL_ENV_VAR, backend_from_config
from coworkenv.llm._none import NoLLMBackend
from coworkenv.llm._openai import API_KEY_ENV_VARS, OpenAICompatibleBackend
from coworkenv.llm._tool_calls import parse_tool_calls
from coworkenv.llm._types import (
    LLM_ERROR_KINDS,
    LLMBackend,
    LLMError,
    LLMErrorKind,
    LLMRequest,
    LLMResponse,
    LLMStats,
    ToolCall,
)
from coworkenv.llm._vllm_offline import VLLMOfflineBackend

__all__ = [
    "API_KEY_ENV_VARS",
    "LLM_ERROR_KINDS",
    "MODEL_ENV_VAR",
    "URL_ENV_VAR",
    "LLMBackend",
    "LLMError",
    "LLMErrorKind",
    "LLMRequest",
    "LLMResponse",
    "LLMStats",
    "NoLLMBackend",
    "OpenAICompatibleBackend",
    "ToolCall",
    "VLLMOfflineBackend",
    "backend_from_config",
    "parse_tool_calls",
]
