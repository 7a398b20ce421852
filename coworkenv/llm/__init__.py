"""LLM backends behind one interface: OpenAI-compatible HTTP, vLLM offline engine, or none.

`backend_from_config(url, model)` picks one; every backend has `name`, `stats`, `async complete()`
and `complete_batch()`. `check_endpoint_url` and `probe_endpoint` catch a bad or dead server URL up front;
error kinds in `INFRASTRUCTURE_ERROR_KINDS` are the server's failures, "truncated" is the model's. Tool calls are parsed by `parse_tool_calls` (native first, hermes text as
fallback). Credentials never reach logs, errors, reprs, stats, cache files or cache keys.
"""

from coworkenv.llm._batch import run_sync
from coworkenv.llm._config import MODEL_ENV_VAR, URL_ENV_VAR, backend_from_config
from coworkenv.llm._endpoint import (
    DEFAULT_PROBE_TIMEOUT_S,
    EndpointURLError,
    check_endpoint_url,
    display_url,
    probe_endpoint,
    server_label,
)
from coworkenv.llm._none import NoLLMBackend
from coworkenv.llm._openai import API_KEY_ENV_VARS, OpenAICompatibleBackend
from coworkenv.llm._tool_calls import parse_tool_calls
from coworkenv.llm._types import (
    INFRASTRUCTURE_ERROR_KINDS,
    LLM_ERROR_KINDS,
    LOCAL_EXHAUSTION,
    MODEL_ERROR_KINDS,
    LLMBackend,
    LLMError,
    LLMErrorKind,
    LLMRequest,
    LLMResponse,
    LLMStats,
    ToolCall,
    is_infrastructure_error,
)
from coworkenv.llm._vllm_offline import VLLMOfflineBackend

__all__ = [
    "API_KEY_ENV_VARS",
    "DEFAULT_PROBE_TIMEOUT_S",
    "INFRASTRUCTURE_ERROR_KINDS",
    "LLM_ERROR_KINDS",
    "LOCAL_EXHAUSTION",
    "MODEL_ENV_VAR",
    "MODEL_ERROR_KINDS",
    "URL_ENV_VAR",
    "EndpointURLError",
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
    "check_endpoint_url",
    "display_url",
    "is_infrastructure_error",
    "parse_tool_calls",
    "probe_endpoint",
    "run_sync",
    "server_label",
]
