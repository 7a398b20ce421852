"""The wire types of the LLM interface: requests, responses, errors, stats and the backend protocol."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

# Bumped when the cache key or cached payload layout changes, so old cache entries are ignored.
CACHE_FORMAT_VERSION = 1

LLMErrorKind = Literal[
    "rate_limited", "server_error", "timeout", "malformed", "unavailable", "client_error", "truncated",
    "context_length",
]
LLM_ERROR_KINDS: tuple[LLMErrorKind, ...] = (
    "rate_limited",
    "server_error",
    "timeout",
    "malformed",
    "unavailable",
    "client_error",
    "truncated",
    "context_length",
)
# Failures of the server or the way to it (HTTP 429/4xx/5xx, timeouts, refused connections, unreadable bodies):
# infrastructure, counted apart from what the model answered. "truncated" (a reply cut off at max_tokens) and
# "context_length" (the conversation outgrew the model's context) are the model's: the server worked.
MODEL_ERROR_KINDS: frozenset[str] = frozenset({"truncated", "context_length"})
INFRASTRUCTURE_ERROR_KINDS: frozenset[str] = frozenset(LLM_ERROR_KINDS) - MODEL_ERROR_KINDS
FINISH_REASON_LENGTH = "length"


def is_infrastructure_error(kind: str) -> bool:
    """True for an error kind that says the LLM server failed, not the model's answer."""
    return kind in INFRASTRUCTURE_ERROR_KINDS


@dataclass(frozen=True)
class LLMRequest:
    """One chat completion request, independent of the backend that serves it.

    `messages` and `tools` follow the OpenAI chat format. `json_schema` asks for output
    constrained to that JSON Schema where the backend supports it.
    """

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    json_schema: dict[str, Any] | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = None

    def cache_key(self, model: str) -> str:
        """Return the sha256 of the canonical JSON of this request and `model` (never a credential)."""
        payload = {
            "v": CACHE_FORMAT_VERSION,
            "model": model,
            "messages": self.messages,
            "tools": self.tools,
            "json_schema": self.json_schema,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
        }
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ToolCall:
    """A function call the model asked for; `arguments` is the raw JSON string."""

    id: str
    name: str
    arguments: str

    def to_openai(self) -> dict[str, Any]:
        """Return this call in the OpenAI assistant-message `tool_calls` form."""
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class LLMResponse:
    """One completion. `cached` is True when it came from the on-disk cache instead of the model."""

    content: str | None
    tool_calls: list[ToolCall]
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str | None
    cached: bool
    model: str
    # Text-form tool calls that could not be parsed; the agent loop reports them as tool errors.
    tool_call_errors: list[str] = field(default_factory=list)

    @property
    def truncated(self) -> bool:
        """True when the reply was cut off at `max_tokens` (finish_reason "length")."""
        return self.finish_reason == FINISH_REASON_LENGTH

    def json_content(self) -> Any:
        """Return `content` decoded as JSON; raise `ValueError` if it is missing or not JSON.

        Raw control characters inside strings are accepted: JSON-schema constrained decoders
        (vLLM's xgrammar) emit them, and rejecting an otherwise schema-valid answer gains nothing.
        """
        if self.content is None:
            raise ValueError(f"response from {self.model!r} has no content (finish_reason={self.finish_reason!r})")
        return json.loads(self.content, strict=False)

    def to_json_dict(self) -> dict[str, Any]:
        """Return a JSON-serialisable dict of this response (the cache payload)."""
        return asdict(self)

    @classmethod
    def from_json_dict(cls, data: dict[str, Any], *, cached: bool) -> LLMResponse:
        """Rebuild a response from `to_json_dict` output, setting `cached`."""
        return cls(
            content=data["content"],
            tool_calls=[ToolCall(**call) for call in data["tool_calls"]],
            prompt_tokens=int(data["prompt_tokens"]),
            completion_tokens=int(data["completion_tokens"]),
            finish_reason=data["finish_reason"],
            cached=cached,
            model=data["model"],
            tool_call_errors=list(data.get("tool_call_errors", [])),
        )


# Said in an error when this process, not the server, ran out of something (file descriptors): the advice to check
# the server is then left out.
LOCAL_EXHAUSTION = "on this side:"


class LLMError(Exception):
    """A request that could not be answered; `kind` says why (see `LLM_ERROR_KINDS`)."""

    def __init__(self, kind: LLMErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: LLMErrorKind = kind
        self.message = message

    def __str__(self) -> str:
        return f"[{self.kind}] {self.message}"

    def __repr__(self) -> str:
        return f"LLMError(kind={self.kind!r}, message={self.message!r})"


@dataclass
class LLMStats:
    """Counters of one backend instance; tokens count only what was paid for (not cache hits)."""

    requests: int = 0
    cache_hits: int = 0
    http_requests: int = 0
    retries: int = 0
    # Why each retry happened, by error kind (a retried attempt is not a failure).
    retry_reasons: dict[str, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    # Non-2xx HTTP statuses seen, per attempt (retried or final): "429", "500", "400", ...
    http_status: dict[str, int] = field(default_factory=dict)
    # Answers cut off at max_tokens (finish_reason "length"); they are answers, so not in `failures`.
    truncated: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def count_failure(self, kind: str) -> None:
        """Add one final (non-retried) failure of `kind`."""
        self.failures[kind] = self.failures.get(kind, 0) + 1

    def count_retry(self, kind: str) -> None:
        """Add one retried attempt that failed with `kind`."""
        self.retries += 1
        self.retry_reasons[kind] = self.retry_reasons.get(kind, 0) + 1

    def count_http_status(self, status: int) -> None:
        """Add one attempt answered with the non-2xx HTTP `status`."""
        key = str(status)
        self.http_status[key] = self.http_status.get(key, 0) + 1

    @property
    def infrastructure_failures(self) -> int:
        """Requests that failed for the server's sake after their retries."""
        return sum(n for kind, n in self.failures.items() if is_infrastructure_error(kind))

    @property
    def answered(self) -> int:
        """Requests that got an answer (from the model or the cache)."""
        return self.requests - sum(self.failures.values())

    def summary(self) -> str:
        """One line: requests, answered, retries (why), final failures (by kind), truncated answers."""
        def kinds(counts: dict[str, int]) -> str:
            return ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))

        parts = [f"{self.requests} requests", f"{self.answered} answered"]
        if self.cache_hits:
            parts.append(f"{self.cache_hits} from cache")
        parts.append(f"{self.retries} retries" + (f" ({kinds(self.retry_reasons)})" if self.retries else ""))
        if self.failures:
            parts.append(f"failed {kinds(self.failures)}")
        if self.http_status:
            parts.append(f"HTTP {kinds(self.http_status)}")
        parts.append(f"{self.truncated} truncated")
        return ", ".join(parts)

    def as_dict(self) -> dict[str, Any]:
        """Return the counters as a plain JSON-serialisable dict."""
        data = asdict(self)
        data["failures"] = dict(sorted(self.failures.items()))
        data["retry_reasons"] = dict(sorted(self.retry_reasons.items()))
        data["http_status"] = dict(sorted(self.http_status.items()))
        data["answered"] = self.answered
        data["infrastructure_failures"] = self.infrastructure_failures
        return data


@runtime_checkable
class LLMBackend(Protocol):
    """The one interface every LLM backend implements."""

    name: str
    stats: LLMStats

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request or raise `LLMError`."""
        ...

    def complete_batch(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        """Answer many requests concurrently; the result list is in request order."""
        ...
