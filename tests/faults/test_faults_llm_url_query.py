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

SECRET = "hunter2-do-not-log"
REQUEST = LLMRequest(messages=[{"role": "user", "content": "hi"}])

class _Handler(BaseHTTPRequestHandler):
    """Answers a chat completion (status 200) or refuses with the server's status, quoting the request line and its
    Authorization header; records every request's path and query."""

    server: _Server

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server.paths.append(self.path)
        if self.server.status == 200:
            payload: dict[str, Any] = {"choices": [{"message": {"role": "assistant", "content": "done"},
                                                    "finish_reason": "stop"}]}
        else:
            said = f"cannot serve {self.command} {self.path} (Authorization: {self.headers.get('Authorization')})"
            payload = {"error": {"message": said}}
        self.send_json(self.server.status, payload)

    def send_json(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    status = 200

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.paths: list[str] = []

    @property
    def base(self) -> str:
        return f"127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def server() -> Iterator[_Server]:
    server = _Server()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


# URL tail -> the path and query a request must reach
QUERIES = {
    "azure-api-version": ("/v1?api-version=2024-02-01", "/v1/chat/completions?api-version=2024-02-01"),
    "gateway-api-key": (f"/v1?api_key={SECRET}", f"/v1/chat/completions?api_key={SECRET}"),
    "trailing-slash-then-query": ("/v1/?api-version=2024-02-01", "/v1/chat/completions?api-version=2024-02-01"),
    "the-full-endpoint-with-a-query": ("/openai/deployments/gpt/chat/completions?api-version=2024-02-01",
                                       "/openai/deployments/gpt/chat/completions?api-version=2024-02-01"),
    "no-v1-in-the-path": (f"?key={SECRET}", f"/v1/chat/completions?key={SECRET}"),
    "two-parameters": (f"/v1?api-version=2024-02-01&api_key={SECRET}",
                       f"/v1/chat/completions?api-version=2024-02-01&api_key={SECRET}"),
}


@pytest.mark.parametrize("query", sorted(QUERIES))
def test_an_llm_url_with_a_query_string_reaches_the_chat_endpoint(server: _Server, query: str) -> None:
    tail, reached = QUERIES[query]
    backend = OpenAICompatibleBackend(f"http://{server.base}{tail}", "fake-model", max_retries=0)
    (answer,) = backend.complete_batch([REQUEST])
    assert isinstance(answer, LLMResponse) and answer.content == "done", answer
    assert server.paths == [reached]
    assert SECRET not in repr(backend)


ENCODED = "hunter2%2Bkey%2F1"  # `hunter2+key/1`, percent-encoded as a URL carries it
CREDENTIALS = {
    "a-key-in-the-query": (f"/v1?api_key={SECRET}", [SECRET]),
    "a-percent-encoded-key-in-the-query": (f"/v1?api_key={ENCODED}", [ENCODED, "hunter2+key/1"]),
    "a-password-sent-as-basic-auth": ("/v1", [SECRET, base64.b64encode(f"admin:{SECRET}".encode()).decode()]),
}


@pytest.mark.parametrize("status", [403, 502])
@pytest.mark.parametrize("credential", sorted(CREDENTIALS))
def test_a_credential_of_the_url_echoed_by_the_server_is_in_no_error_or_log_line(
        server: _Server, caplog: pytest.LogCaptureFixture, credential: str, status: int) -> None:
    server.status = status
    tail, secrets = CREDENTIALS[credential]
    url = f"http://admin:{SECRET}@{server.base}{tail}" if "basic" in credential else f"http://{server.base}{tail}"
    backend = OpenAICompatibleBackend(url, "fake-model", max_retries=1, backoff_base_s=0.01, max_backoff_s=0.01)
    with caplog.at_level(logging.INFO):
        (answer,) = backend.complete_batch([REQUEST])
    assert isinstance(answer, LLMError) and str(status) in str(answer), answer
    assert "cannot serve POST" in str(answer) or status >= 500, answer  # what the server said is still there
    shown = str(answer) + "\n" + caplog.text
    assert server.paths and all("hunter2" in path or "basic" in credential for path in server.paths)  # it was sent
    for secret in [*secrets, "hunter2"]:  # in any spelling
        assert secret not in shown, shown
