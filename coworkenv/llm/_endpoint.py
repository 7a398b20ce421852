"""The URL of an OpenAI-compatible server: checked before use, shown without secrets, probed for a listener."""

from __future__ import annotations

import re
from urllib.parse import urlsplit, urlunsplit

import httpx

from coworkenv.llm._types import LLMError

DEFAULT_PROBE_TIMEOUT_S = 5.0
_EXAMPLE = "e.g. http://127.0.0.1:8000/v1"


class EndpointURLError(ValueError):
    """A server URL that cannot be used as given (scheme, host or port)."""


_USER_INFO = re.compile(r"[^/\s]*@")


def display_url(url: str) -> str:
    """Return `url` without user info, query or fragment: safe to put in logs and errors."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:  # an out-of-range port: show it as written, still without user info
        port_text = parts.netloc.rpartition("@")[2].rpartition(":")[2]
        netloc = f"{host}:{port_text}"
    else:
        netloc = f"{host}:{port}" if port is not None else host
    # Without a scheme urlsplit finds no user info ("user:pw@host/v1"): drop anything up to an '@' all the same.
    return _USER_INFO.sub("", urlunsplit((parts.scheme, netloc, parts.path, "", "")))


def check_endpoint_url(url: str) -> str:
    """Return `url` stripped of surrounding blanks; raise EndpointURLError naming what is wrong and an example."""
    url = url.strip()
    try:
        parts = urlsplit(url)
        shown = display_url(url)
    except ValueError as exc:  # e.g. an unclosed IPv6 bracket
        raise EndpointURLError(f"LLM server URL is not a URL ({exc}): {_EXAMPLE}") from None
    if any(ch.isspace() for ch in url):
        raise EndpointURLError(f"LLM server URL {shown!r} contains a blank: {_EXAMPLE}")
    if parts.scheme not in ("http", "https"):
        scheme = f"scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        raise EndpointURLError(f"LLM server URL {shown!r} has {scheme}: use http:// or https://, {_EXAMPLE}")
    if not parts.hostname:
        raise EndpointURLError(f"LLM server URL {shown!r} has no host name: {_EXAMPLE}")
    try:
        port = parts.port
    except ValueError:
        port_text = parts.netloc.rpartition("@")[2].rpartition(":")[2]
        raise EndpointURLError(
            f"LLM server URL {shown!r} has port {port_text!r}: a port is a number from 1 to 65535, {_EXAMPLE}"
        ) from None
    if port == 0:
        raise EndpointURLError(f"LLM server URL {shown!r} has port 0: a port is a number from 1 to 65535, {_EXAMPLE}")
    return url


def chat_url(base_url: str) -> str:
    """The chat completions URL of `base_url` (`.../v1/chat/completions`, or `base_url` when it is one), its query
    kept (Azure's `?api-version=`, a gateway's `?api_key=`): appended to the whole text, the path went into the query
    and every request went to `/v1?api-version=...v1/chat/completions`."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    if not path.endswith("/chat/completions"):
        path = f"{path if path.endswith('/v1') else path + '/v1'}/chat/completions"
    return urlunsplit(parts._replace(path=path))


def models_url(base_url: str) -> str:
    """The `/v1/models` URL beside the chat endpoint of `base_url`, its query kept."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    for tail in ("/chat/completions", "/completions"):
        path = path.removesuffix(tail)
    if not path.endswith("/v1"):
        path = f"{path}/v1"
    return urlunsplit(parts._replace(path=f"{path}/models"))


def probe_endpoint(base_url: str, timeout_s: float = DEFAULT_PROBE_TIMEOUT_S) -> None:
    """Check that an HTTP server answers at `base_url` (GET /v1/models; any HTTP status counts as an answer).

    Raises LLMError "unavailable" when nothing listens there (or TLS fails), "timeout" when the server accepts
    the connection but sends nothing within `timeout_s`. Takes milliseconds against a live server.
    """
    shown = display_url(base_url)
    try:
        with httpx.Client(timeout=httpx.Timeout(timeout_s)) as client:
            client.get(models_url(base_url))
    except httpx.ConnectError as exc:
        reason = _reason(exc)
        if reason in _DNS_FAILURES:
            raise LLMError("unavailable", f"cannot resolve the host of {shown} ({reason}); fix --llm") from None
        if "ssl" in str(exc).lower() or "certificate" in reason:
            raise LLMError("unavailable", f"TLS handshake with {shown} failed ({reason}); is the server plain "
                                          "http:// rather than https://, or is its certificate untrusted?") from None
        raise LLMError("unavailable", f"nothing listens at {shown} ({reason}); start the server "
                                      "(e.g. `vllm serve MODEL --port 8000`) or fix --llm") from None
    except httpx.TimeoutException:
        raise LLMError("timeout", f"{shown} accepted the connection but sent no answer within {timeout_s:g}s; "
                                  "is it an OpenAI-compatible server, and is it still loading?") from None
    except (httpx.HTTPError, httpx.InvalidURL) as exc:
        raise LLMError("unavailable", f"cannot talk to {shown}: {type(exc).__name__}: {_reason(exc)}") from None


_DNS_FAILURES = ("name or service not known", "no address associated", "temporary failure in name resolution",
                 "nodename nor servname provided")


def _reason(exc: Exception) -> str:
    text = str(exc)
    for known in ("connection refused", *_DNS_FAILURES, "network is unreachable", "certificate verify failed",
                  "wrong version number"):
        if known in text.lower():
            return known
    return text or type(exc).__name__


def server_label(backend: object) -> str:
    """How messages name the server of a backend: its URL and model, else the backend's name."""
    url = getattr(backend, "base_url", None)
    model = getattr(backend, "model", None)
    if url:
        return f"{display_url(str(url))} (model {model!r})" if model else display_url(str(url))
    return str(getattr(backend, "name", type(backend).__name__))
