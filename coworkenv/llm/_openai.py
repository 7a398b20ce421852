"""OpenAI-compatible HTTP backend (`vllm serve` or any compatible endpoint): async, bounded, retried, cached."""

from __future__ import annotations

import asyncio
import email.utils
import errno
import hashlib
import json  # not orjson: the offline vLLM test imports coworkenv.llm inside the vLLM venv
import logging
import os
import random
import re
import ssl
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import aiohttp
import certifi

from coworkenv.credential_values import (
    LLM_KEY_VARIABLES,
    MIN_SECRET_CHARS,
    credential_problem,
    held_secret_forms,
    remember_credential,
)
from coworkenv.escaping import escape_hidden
from coworkenv.llm._batch import gather_completions, run_sync
from coworkenv.llm._cache import ResponseCache, served_weights_identity, server_identity
from coworkenv.llm._endpoint import (
    DEFAULT_PROBE_TIMEOUT_S,
    chat_url,
    check_endpoint_url,
    display_url,
    models_url,
    probe_endpoint,
)
from coworkenv.llm._tool_calls import parse_tool_calls
from coworkenv.llm._types import LOCAL_EXHAUSTION, LLMError, LLMErrorKind, LLMRequest, LLMResponse, LLMStats
from coworkenv.open_files import open_files_limit
from coworkenv.url_credentials import scrub_credentials, url_credential_forms, url_credentials, url_secrets

logger = logging.getLogger(__name__)

API_KEY_ENV_VARS = LLM_KEY_VARIABLES
_SCHEMA_NAME_CHARS = re.compile(r"[^a-zA-Z0-9_-]+")
# How OpenAI, vLLM and llama.cpp word a 400 for a prompt longer than the model's context.
_CONTEXT_OVERFLOW = re.compile(r"context length|context window|maximum context|exceeds the context|prompt is too long",
                               re.IGNORECASE)


class _Secret:
    """Holds a credential so that reprs, logs and tracebacks of its owner never show it."""

    __slots__ = ("_value",)

    def __init__(self, value: str | None) -> None:
        self._value = value or None

    def reveal(self) -> str | None:
        return self._value

    def __repr__(self) -> str:
        return "<secret>" if self._value else "<no key>"

    __str__ = __repr__


class _Secrets:
    """Holds credentials (longest first) the way `_Secret` holds one: never shown by a repr of their owner."""

    __slots__ = ("_values",)

    def __init__(self, values: Sequence[str]) -> None:
        self._values = tuple(sorted({value for value in values if value}, key=len, reverse=True))

    def reveal(self) -> tuple[str, ...]:
        return self._values

    def __repr__(self) -> str:
        return f"<{len(self._values)} secrets>"

    __str__ = __repr__


class _RetryableError(Exception):
    def __init__(self, kind: LLMErrorKind, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.kind: LLMErrorKind = kind
        self.message = message
        self.retry_after_s = retry_after_s


@dataclass
class _LoopState:
    """The HTTP session of one event loop (aiohttp sessions are bound to the loop that made them).

    One session keeps up to `max_concurrency` keep-alive connections; the semaphore bounds requests in flight.
    aiohttp costs 0.2-0.6 ms of CPU per request where httpx lanes cost 0.9-1.3 ms (bench_llm_throughput.py),
    which decides throughput against a fast server at high concurrency.
    """

    loop: asyncio.AbstractEventLoop
    session: aiohttp.ClientSession
    slots: asyncio.Semaphore
    asking_weights: asyncio.Lock = field(default_factory=asyncio.Lock)  # one `/v1/models` request at a time


@dataclass(frozen=True)
class _HTTPAnswer:
    """Status, headers and body of one HTTP response, read in full."""

    status: int
    headers: Mapping[str, str]  # case-insensitive
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def _parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _token_count(value: Any) -> int:
    # Usage is informational: a server that omits or garbles it must not fail the completion.
    return value if isinstance(value, int) and value >= 0 else 0


def _schema_name(schema: dict[str, Any]) -> str:
    title = schema.get("title")
    name = _SCHEMA_NAME_CHARS.sub("_", title) if isinstance(title, str) else ""
    return (name or "response")[:64]


class OpenAICompatibleBackend:
    """Chat completions over HTTP against an OpenAI-compatible server.

    Concurrency is bounded by a semaphore (`max_concurrency` requests in flight). 429 (honouring
    Retry-After), 5xx, timeouts, connection errors and malformed bodies are retried up to
    `max_retries` times with exponential backoff and jitter; other 4xx fail at once. Successful
    responses are cached on disk under `cache_dir` when given. The API key (argument, else
    $COWORKENV_LLM_API_KEY, else $OPENAI_API_KEY) is sent as a bearer token and shown nowhere else.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        max_concurrency: int = 8,
        max_retries: int = 4,
        timeout_s: float = 60.0,
        backoff_base_s: float = 0.5,
        max_backoff_s: float = 30.0,
        cache_dir: Path | None = None,
        strict_json_schema: bool = True,
        extra_body: dict[str, Any] | None = None,
    ) -> None:
        base_url = check_endpoint_url(base_url)
        if not model:
            raise ValueError("an OpenAI-compatible backend needs a model name (--model or $COWORKENV_LLM_MODEL)")
        if max_concurrency < 1:
            raise ValueError(f"max_concurrency must be >= 1, got {max_concurrency}")
        source = "the api_key argument"
        if api_key is None:
            source, api_key = next(((var, os.environ[var]) for var in API_KEY_ENV_VARS if os.environ.get(var)),
                                   (source, None))
        problem = credential_problem(source, api_key) if api_key else None
        if problem:  # named, never shown: the message must not carry the secret
            raise ValueError(problem)
        self.base_url = display_url(base_url)
        self.model = model
        self.name = f"openai:{model}"
        self.stats = LLMStats()
        self.max_concurrency = max_concurrency
        self.max_retries = max_retries
        self.timeout_s = timeout_s
        self.backoff_base_s = backoff_base_s
        self.max_backoff_s = max_backoff_s
        self.strict_json_schema = strict_json_schema
        self.extra_body = dict(extra_body or {})
        self._api_key = _Secret(api_key)
        self._endpoint = chat_url(base_url)
        # A server may echo the request's path or Authorization header in an error: the URL's secrets too.
        self._url_secrets = url_secrets(base_url)
        # Given on the command line (`--llm URL?api_key=...`) or as an argument, a credential is known to no variable:
        # this process's publish scan and redactions look for it all the same (`held_credentials`).
        if api_key:
            remember_credential(f"the key of the LLM server {self.base_url}", api_key)
        for what, value in url_credentials(base_url).items():
            remember_credential(f"{what} of the LLM server URL {self.base_url}", value)
        # What of this client's own credentials an answer must not carry into the data (see `_without_secrets`).
        self._answer_secrets = _Secrets([secret for secret in (api_key or "", *url_credential_forms(base_url))
                                         if len(secret) >= MIN_SECRET_CHARS])
        self._echo_told = False
        self._cache = ResponseCache(cache_dir) if cache_dir is not None else None
        # The server and its extra fields change the answer, so they are part of the cache identity: keyed by the
        # model's name only, a second server under the same name (vLLM's --served-model-name, a gateway's `default`,
        # another port) got the first one's answers from the cache and was never asked.
        extra = json.dumps(self.extra_body, sort_keys=True)
        self._cache_model = f"{model}@{server_identity(self._endpoint)}"
        if self.extra_body:
            self._cache_model += f"#{hashlib.sha256(extra.encode()).hexdigest()[:16]}"
        # The weights behind the name, as the server's `/v1/models` card says (asked once, when a cache is used): a
        # server restarted on other weights under the same name, URL and port was answered from the earlier
        # weights' entries. None until asked; "" when the server does not say.
        self._models_url = models_url(base_url)
        self._weights: str | None = None
        self._states: dict[int, _LoopState] = {}
        self._rng = random.Random()
        self._ssl_context: ssl.SSLContext | None = None

    def __repr__(self) -> str:
        return (
            f"OpenAICompatibleBackend(base_url={self.base_url!r}, model={self.model!r}, "
            f"api_key={self._api_key!r}, max_concurrency={self.max_concurrency})"
        )

    def _redact(self, text: str) -> str:
        """`text` without the key or the URL's secrets. Whole text first, cut after: a page cut first kept what of an
        echoed key stood before the cut (the key whole no longer matched), and where the cut falls is the request's
        to choose (a judged check's text, echoed before the header, pads it there)."""
        # The redaction the Hub publisher applies too (`scrub_credentials`): every credential this process holds,
        # and any URL's user info and query (a gateway naming its upstream with them, a signed URL).
        return scrub_credentials(text, [self._api_key.reveal() or "", *self._url_secrets, *held_secret_forms()], "***")

    def _without_secrets(self, response: LLMResponse) -> LLMResponse:
        """`response` without this client's key or its URL's credentials, each replaced by `***`: a gateway or a debug
        server that echoes the request into its answer (its path with `?api_key=`, the Authorization header) put the
        key into the spec, trajectory or judgment written from it, where no later process (a publish, a log reader)
        knew it for a secret: it was given on this process's command line only."""
        secrets = self._answer_secrets.reveal()
        if not secrets:
            return response

        def clean(text: str) -> str:
            for secret in secrets:
                text = text.replace(secret, "***")
            return text

        fields = [response.content or "", response.model, *response.tool_call_errors,
                  *(part for call in response.tool_calls for part in (call.id, call.name, call.arguments))]
        if not any(secret in text for text in fields for secret in secrets):
            return response
        if not self._echo_told:  # once per client: every answer of such a server holds it
            self._echo_told = True
            logger.warning("the LLM server %s echoed this client's credential (its key, or the URL's) in an answer; "
                           "replaced by *** in every answer before it is used or cached", self.base_url)
        return replace(
            response,
            content=None if response.content is None else clean(response.content),
            model=clean(response.model),
            tool_call_errors=[clean(error) for error in response.tool_call_errors],
            tool_calls=[replace(call, id=clean(call.id), name=clean(call.name), arguments=clean(call.arguments))
                        for call in response.tool_calls],
        )

    def _loop_state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        # Drop states of loops that were closed (e.g. by an earlier asyncio.run).
        for loop_id in [i for i, s in self._states.items() if s.loop.is_closed()]:
            del self._states[loop_id]
        state = self._states.get(id(loop))
        if state is None or state.loop is not loop:
            state = _LoopState(loop, self._new_session(), asyncio.Semaphore(self.max_concurrency))
            self._states[id(loop)] = state
        return state

    def _new_session(self) -> aiohttp.ClientSession:
        headers = {"Content-Type": "application/json"}
        key = self._api_key.reveal()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        if self._ssl_context is None:
            # One shared context: loading the CA bundle per session costs ~70 ms.
            self._ssl_context = ssl.create_default_context(cafile=certifi.where())
        connector = aiohttp.TCPConnector(limit=self.max_concurrency, ssl=self._ssl_context)
        return aiohttp.ClientSession(headers=headers, connector=connector,
                                     timeout=aiohttp.ClientTimeout(total=self.timeout_s))

    def probe(self, timeout_s: float = DEFAULT_PROBE_TIMEOUT_S) -> None:
        """Raise LLMError ("unavailable" / "timeout") unless an HTTP server answers at the base URL."""
        probe_endpoint(self.base_url, timeout_s)

    async def aclose(self) -> None:
        """Close the HTTP connections this backend opened on the running event loop."""
        state = self._states.pop(id(asyncio.get_running_loop()), None)
        if state is not None:
            await state.session.close()

    def request_payload(self, request: LLMRequest) -> dict[str, Any]:
        """Return the JSON body sent to /v1/chat/completions for `request` (no credentials in it)."""
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": request.messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
        }
        if request.seed is not None:
            payload["seed"] = request.seed
        if request.tools:
            payload["tools"] = request.tools
            payload["tool_choice"] = "auto"
        if request.json_schema is not None:
            payload["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": _schema_name(request.json_schema),
                    "schema": request.json_schema,
                    "strict": self.strict_json_schema,
                },
            }
        payload.update(self.extra_body)
        return payload

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """Answer one request (from the cache when possible) or raise `LLMError` after retries."""
        self.stats.requests += 1
        key = ""
        if self._cache is not None:
            key = request.cache_key(self._cache_model + await self._served_weights())
            hit = self._cache.get(key)
            if hit is not None:
                self.stats.cache_hits += 1
                self.stats.truncated += hit.truncated
                return self._without_secrets(hit)
        try:
            response = self._without_secrets(await self._post_with_retries(self.request_payload(request)))
        except LLMError as exc:
            self.stats.count_failure(exc.kind)
            raise
        self.stats.prompt_tokens += response.prompt_tokens
        self.stats.completion_tokens += response.completion_tokens
        self.stats.truncated += response.truncated
        if self._cache is not None:
            self._cache.put(key, response)
        return response

    async def _served_weights(self) -> str:
        """`served_weights_identity` of this server's `/v1/models` answer, asked once per backend; "" when it does
        not answer in time or says nothing of the weights (the key is then the server's alone)."""
        if self._weights is None:
            state = self._loop_state()
            async with state.asking_weights:
                if self._weights is None:
                    self._weights = await self._ask_weights(state)
        return self._weights

    async def _ask_weights(self, state: _LoopState) -> str:
        try:
            timeout = aiohttp.ClientTimeout(total=min(self.timeout_s, DEFAULT_PROBE_TIMEOUT_S))
            async with state.session.get(self._models_url, timeout=timeout) as http_response:
                if http_response.status != 200:
                    return ""
                listing = json.loads(await http_response.read())
        except (aiohttp.ClientError, OSError, TimeoutError, ValueError):
            return ""
        return served_weights_identity(listing, self.model)

    def complete_batch(self, requests: Sequence[LLMRequest]) -> list[LLMResponse | LLMError]:
        """Answer `requests` concurrently (at most `max_concurrency` in flight), in request order."""

        async def run() -> list[LLMResponse | LLMError]:
            try:
                return await gather_completions(self.complete, requests)
            finally:
                await self.aclose()

        return run_sync(run)

    def _backoff_s(self, attempt: int, retry_after_s: float | None) -> float:
        ceiling = self.backoff_base_s * (2**attempt)
        # "Equal jitter": at least half the exponential step, so retries spread without collapsing to 0.
        delay = ceiling / 2 + self._rng.uniform(0, ceiling / 2)
        if retry_after_s is not None:
            delay = max(delay, retry_after_s)
        return min(delay, self.max_backoff_s)

    async def _post_with_retries(self, payload: dict[str, Any]) -> LLMResponse:
        attempt = 0
        while True:
            state = self._loop_state()
            retry_after_s: float | None = None
            try:
                async with state.slots:
                    self.stats.http_requests += 1
                    async with state.session.post(self._endpoint, data=json.dumps(payload, separators=(",", ":")).encode()) as http_response:
                        answer = _HTTPAnswer(http_response.status, http_response.headers.copy(),
                                             await http_response.read())
                return self._parse_response(answer)
            except _RetryableError as exc:
                kind, message, retry_after_s = exc.kind, exc.message, exc.retry_after_s
            except TimeoutError as exc:  # aiohttp's connect/read timeouts are TimeoutErrors too
                kind, message = "timeout", f"no answer within {self.timeout_s:g}s ({type(exc).__name__})"
            except aiohttp.ClientPayloadError as exc:
                kind, message = "malformed", f"undecodable response body ({exc})"
            except (aiohttp.ClientError, OSError) as exc:  # connection refused/reset, protocol errors, ...
                kind, message = "unavailable", f"connection failed ({type(exc).__name__}: {exc})"
                if getattr(getattr(exc, "os_error", exc), "errno", None) in (errno.EMFILE, errno.ENFILE):
                    # This process, not the server, ran out: each request in flight holds a socket.
                    message += (f" {LOCAL_EXHAUSTION} no file descriptor left (`ulimit -n` is {open_files_limit()}); "
                                "lower the concurrency or raise the limit")
            message = self._redact(message)
            if attempt >= self.max_retries:
                raise LLMError(
                    kind,
                    f"{self.base_url} model {self.model!r}: {message}; gave up after {attempt + 1} attempts "
                    + ("" if LOCAL_EXHAUSTION in message else "(raise max_retries/timeout_s or check the server)"),
                )
            delay = self._backoff_s(attempt, retry_after_s)
            self.stats.count_retry(kind)
            attempt += 1
            logger.info(
                "LLM request to %s failed (%s: %s); retry %d/%d in %.2fs",
                self.base_url, kind, message, attempt, self.max_retries, delay,
            )
            await asyncio.sleep(delay)

    def _parse_response(self, http_response: _HTTPAnswer) -> LLMResponse:
        status = http_response.status
        if not 200 <= status < 300:
            self.stats.count_http_status(status)
        if status == 429:
            raise _RetryableError(
                "rate_limited", "HTTP 429 rate limited", _parse_retry_after(http_response.headers.get("retry-after"))
            )
        if status >= 500:
            # The body is the server's (a proxy's page, or a server echoing the request: text the sandboxed code wrote),
            # and it goes into the retry log: redacted, and its line breaks and terminal codes escaped.
            body = escape_hidden(self._redact(http_response.text)[:300])
            raise _RetryableError("server_error", f"HTTP {status}: {body}")
        if status >= 300:
            detail = self._redact(http_response.text)[:500]
            if status == 400 and _CONTEXT_OVERFLOW.search(detail):
                raise LLMError("context_length", f"{self.base_url} model {self.model!r}: the conversation does not "
                                                 f"fit the model's context (HTTP 400: {detail})")
            raise LLMError(
                "client_error",
                f"{self.base_url} rejected the request for model {self.model!r} with HTTP {status}: {detail} "
                "(not retried: fix the request, model name or key)",
            )
        try:
            body = json.loads(http_response.body)
            choice = body["choices"][0]
            message = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise _RetryableError(
                "malformed", f"unreadable response body ({type(exc).__name__}): {self._redact(http_response.text)[:200]!r}"
            ) from None
        if not isinstance(message, dict):
            raise _RetryableError("malformed", "response choice has no message object")
        content = message.get("content")
        text, calls, errors = parse_tool_calls(content if isinstance(content, str) else None, message.get("tool_calls"))
        usage = body.get("usage")
        usage = usage if isinstance(usage, dict) else {}
        return LLMResponse(
            content=text,
            tool_calls=calls,
            prompt_tokens=_token_count(usage.get("prompt_tokens")),
            completion_tokens=_token_count(usage.get("completion_tokens")),
            finish_reason=choice.get("finish_reason"),
            cached=False,
            model=str(body.get("model") or self.model),
            tool_call_errors=errors,
        )
