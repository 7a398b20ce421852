"""Fault corpus, an LLM server URL (COWORKENV_LLM_URL, `--llm`) with a query string, as Azure OpenAI
(`?api-version=2024-02-01`) and key-in-URL gateways (`?api_key=...`) give them, and a server that echoes the request
back in its error reply (the path, the Authorization header: proxies' error pages, debug servers).

Every request reaches the chat endpoint with the query kept, and no error line or log line holds what the URL carries
to let one in: a query value, the password, the Basic-auth header made of them. Measured on `main` before the fix:
the endpoint was the URL's text with `/v1/chat/completions` appended, so the path went into the query and every
request went to `/v1` (HTTP 404 from any server); an echoed path or header put the key or the password (base64) into
the LLMError and the retry log.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from coworkenv.llm import LLMError, LLMRequest, LLMResponse, OpenAICompatibleBackend
from tests.support.fake_openai_server import FakeOpenAIServer

SECRET = "hunter2-do-not-log"
REQUEST = LLMRequest(messages=[{"role": "user", "content": "hi"}])

QUERIES = {
    "azure-api-version": "/v1?api-version=2024-02-01",
    "gateway-api-key": f"/v1?api_key={SECRET}",
    "trailing-slash-then-query": "/v1/?api-version=2024-02-01",
    "the-full-endpoint-with-a-query": "/v1/chat/completions?api-version=2024-02-01",
    "no-v1-in-the-path": f"?key={SECRET}",
    "two-parameters": f"/v1?api-version=2024-02-01&api_key={SECRET}",
}


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_an_llm_url_with_a_query_string_reaches_the_chat_endpoint(query: str) -> None:
    with FakeOpenAIServer() as server:
        backend = OpenAICompatibleBackend(server.url + QUERIES[query], "fake-model", max_retries=0)
        (answer,) = backend.complete_batch([REQUEST])
    assert isinstance(answer, LLMResponse), answer
    assert SECRET not in repr(backend)


class _Echo(BaseHTTPRequestHandler):
    """Refuses every request with the status set on the server, quoting the request line and its Authorization."""

    server: _EchoServer

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        said = f"cannot serve {self.command} {self.path} (Authorization: {self.headers.get('Authorization')})"
        data = json.dumps({"error": {"message": said}}).encode()
        self.send_response(self.server.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _EchoServer(ThreadingHTTPServer):
    status = 403


@pytest.fixture
def echo() -> Iterator[_EchoServer]:
    server = _EchoServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


ENCODED = "hunter2%2Bkey%2F1"  # `hunter2+key/1`, percent-encoded as a URL carries it
CREDENTIALS = {
    "a-key-in-the-query": (f"/v1?api_key={SECRET}", [SECRET]),
    "a-percent-encoded-key-in-the-query": (f"/v1?api_key={ENCODED}", [ENCODED, "hunter2+key/1"]),
    "a-password-sent-as-basic-auth": ("/v1", [SECRET, base64.b64encode(f"admin:{SECRET}".encode()).decode()]),
}


@pytest.mark.parametrize("status", [403, 502])
@pytest.mark.parametrize("credential", sorted(CREDENTIALS))
def test_a_credential_of_the_url_echoed_by_the_server_is_in_no_error_or_log_line(
        echo: _EchoServer, caplog: pytest.LogCaptureFixture, credential: str, status: int) -> None:
    echo.status = status
    tail, secrets = CREDENTIALS[credential]
    host = f"127.0.0.1:{echo.server_address[1]}"
    url = f"http://admin:{SECRET}@{host}{tail}" if "basic" in credential else f"http://{host}{tail}"
    backend = OpenAICompatibleBackend(url, "fake-model", max_retries=1, backoff_base_s=0.01, max_backoff_s=0.01)
    with caplog.at_level(logging.INFO):
        (answer,) = backend.complete_batch([REQUEST])
    assert isinstance(answer, LLMError) and str(status) in str(answer), answer
    assert "cannot serve POST" in str(answer) or status >= 500, answer  # what the server said is still there
    shown = str(answer) + "\n" + caplog.text
    for secret in secrets:
        assert secret not in shown, shown
