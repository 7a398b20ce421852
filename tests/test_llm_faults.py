"""OpenAICompatibleBackend against the loopback fault-injecting server: retries, cache, secrecy, concurrency."""

from __future__ import annotations

import asyncio
import http.server
import json
import logging
import os
import signal
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from coworkenv.llm import LLMError, LLMRequest, LLMResponse, OpenAICompatibleBackend
from tests.support.fake_openai_server import FakeOpenAIServer, start_server_process
from tests.support.vllm_cpu import free_port

pytestmark = pytest.mark.timeout(120)

FAULT_TO_KIND = {"429": "rate_limited", "500": "server_error", "hang": "timeout", "malformed": "malformed"}
FAKE_KEY = "sk-test-SECRET-4f9a2b7c"


def _request(i: int, **kwargs: Any) -> LLMRequest:
    return LLMRequest(messages=[{"role": "user", "content": f"request number {i}"}], **kwargs)


def _backend(server: FakeOpenAIServer, **kwargs: Any) -> OpenAICompatibleBackend:
    options: dict[str, Any] = {"api_key": "", "backoff_base_s": 0.01, "timeout_s": 2.0, "max_retries": 4}
    options.update(kwargs)
    return OpenAICompatibleBackend(server.url, "fake-model", **options)


@pytest.mark.parametrize("fault", ["429", "500", "malformed", "hang"])
def test_each_fault_kind_is_retried_until_success(fault: str) -> None:
    with FakeOpenAIServer(schedule=[fault, fault, "ok"], hang_s=10) as server:
        backend = _backend(server, timeout_s=0.3)
        (result,) = backend.complete_batch([_request(1)])
        stats = server.stats()
    assert isinstance(result, LLMResponse), result
    assert json.loads(result.content or "")["echo"] == "request number 1"
    assert stats["requests"] == 3 and stats["outcomes"][fault] == 2 and stats["outcomes"]["ok"] == 1
    assert backend.stats.retries == 2
    assert backend.stats.retry_reasons == {FAULT_TO_KIND[fault]: 2}
    assert backend.stats.failures == {}
    assert backend.stats.http_requests == 3 and backend.stats.requests == 1


def test_backoff_grows_exponentially() -> None:
    with FakeOpenAIServer(schedule=["500", "500", "500", "ok"]) as server:
        backend = _backend(server, backoff_base_s=0.1)
        started = time.monotonic()
        (result,) = backend.complete_batch([_request(1)])
        elapsed = time.monotonic() - started
    assert isinstance(result, LLMResponse)
    # Equal jitter: attempt k waits in [base*2^k/2, base*2^k], so 0.35 s <= total <= 0.7 s (+ overhead).
    assert 0.35 <= elapsed < 1.5, elapsed


def test_retry_after_header_is_honoured() -> None:
    with FakeOpenAIServer(schedule=["429", "ok"], retry_after_s=0.6) as server:
        backend = _backend(server, backoff_base_s=0.001)
        started = time.monotonic()
        (result,) = backend.complete_batch([_request(1)])
        elapsed = time.monotonic() - started
    assert isinstance(result, LLMResponse)
    assert elapsed >= 0.6


def test_gives_up_after_max_retries_with_an_actionable_error() -> None:
    with FakeOpenAIServer(fault_rate=1.0, fault_kinds=("500",)) as server:
        backend = _backend(server, max_retries=2)
        (result,) = backend.complete_batch([_request(1)])
        assert server.stats()["requests"] == 3
    assert isinstance(result, LLMError) and result.kind == "server_error"
    assert "gave up after 3 attempts" in str(result) and server.url.split("//")[1] in str(result)
    assert backend.stats.failures == {"server_error": 1} and backend.stats.retries == 2


def test_client_errors_are_not_retried() -> None:
    with FakeOpenAIServer(schedule=["400", "ok"]) as server:
        backend = _backend(server)
        (result,) = backend.complete_batch([_request(1)])
        assert server.stats()["requests"] == 1
    assert isinstance(result, LLMError) and result.kind == "client_error"
    assert "HTTP 400" in str(result) and "not retried" in str(result)
    assert backend.stats.retries == 0 and backend.stats.failures == {"client_error": 1}


def test_unreachable_server_is_unavailable() -> None:
    backend = OpenAICompatibleBackend(f"http://127.0.0.1:{free_port()}", "m", api_key="",
                                      max_retries=1, backoff_base_s=0.01)
    (result,) = backend.complete_batch([_request(1)])
    assert isinstance(result, LLMError) and result.kind == "unavailable"
    assert backend.stats.retry_reasons == {"unavailable": 1}


def test_thirty_percent_faults_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    requests = [_request(i) for i in range(40)]
    with FakeOpenAIServer(fault_rate=0.3, seed=7, hang_s=10) as server:
        backend = _backend(server, max_concurrency=8, max_retries=8, timeout_s=0.5, cache_dir=tmp_path)
        results = backend.complete_batch(requests)
        stats = server.stats()
    assert all(isinstance(r, LLMResponse) for r in results), [r for r in results if isinstance(r, LLMError)]
    echoes = [json.loads(r.content or "")["echo"] for r in results if isinstance(r, LLMResponse)]
    assert echoes == [f"request number {i}" for i in range(40)]  # each answer in its own slot
    faults = {kind: stats["outcomes"][fault] for fault, kind in FAULT_TO_KIND.items() if stats["outcomes"][fault]}
    assert stats["outcomes"]["ok"] == 40  # exactly one successful answer per request
    assert sum(faults.values()) >= 5  # the run really met faults
    assert backend.stats.retry_reasons == faults
    assert backend.stats.http_requests == stats["requests"] == 40 + backend.stats.retries
    assert backend.stats.failures == {}


def test_rerun_is_served_from_cache_without_http(tmp_path: Path) -> None:
    requests = [_request(i, seed=i) for i in range(12)]
    with FakeOpenAIServer(fault_rate=0.3, seed=3, fault_kinds=("429", "500", "malformed")) as server:
        first = _backend(server, cache_dir=tmp_path, max_retries=8)
        first_results = first.complete_batch(requests)
        paid = server.stats()["requests"]
        second = _backend(server, cache_dir=tmp_path)
        second_results = second.complete_batch(requests)
        assert server.stats()["requests"] == paid  # zero new HTTP requests
    assert all(isinstance(r, LLMResponse) and not r.cached for r in first_results)
    assert all(isinstance(r, LLMResponse) and r.cached for r in second_results)
    assert [r.content for r in second_results if isinstance(r, LLMResponse)] == [
        r.content for r in first_results if isinstance(r, LLMResponse)]
    assert second.stats.cache_hits == 12 and second.stats.http_requests == 0
    assert second.stats.prompt_tokens == 0  # cached answers cost nothing this run
    assert first.stats.prompt_tokens > 0


def test_api_key_never_leaks(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeOpenAIServer(schedule=["500", "ok", "400"], echo_auth_in_errors=True) as server:
        backend = OpenAICompatibleBackend(server.url, "fake-model", api_key=FAKE_KEY, cache_dir=tmp_path,
                                          backoff_base_s=0.01)
        ok, bad = backend.complete_batch([_request(1)]), backend.complete_batch([_request(2)])
        assert server.stats()["auth_headers_seen"] == 3  # the key was sent
    assert isinstance(ok[0], LLMResponse) and isinstance(bad[0], LLMError)
    assert "Authorization header was" in str(bad[0])  # the server echoed it; we redacted it
    cache_text = "".join(p.read_text() for p in tmp_path.rglob("*.json"))
    surfaces = {
        "repr": repr(backend),
        "vars": repr(vars(backend)),
        "error": f"{bad[0]} {bad[0]!r} {bad[0].args}",
        "stats": json.dumps(backend.stats.as_dict()),
        "logs": caplog.text,
        "cache files": cache_text,
        "cache key": _request(1).cache_key(backend.model),
        "payload": json.dumps(backend.request_payload(_request(1))),
    }
    for where, text in surfaces.items():
        assert FAKE_KEY not in text, f"API key leaked in {where}"
    assert cache_text  # the cache was written, so the check above looked at something


def test_api_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COWORKENV_LLM_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeOpenAIServer() as server:
        OpenAICompatibleBackend(server.url, "m").complete_batch([_request(1)])
        assert server.stats()["auth_headers_seen"] == 0
        monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
        OpenAICompatibleBackend(server.url, "m").complete_batch([_request(1)])
        assert server.stats()["auth_headers_seen"] == 1


def test_concurrency_is_bounded() -> None:
    with FakeOpenAIServer(delay_s=0.1) as server:
        backend = _backend(server, max_concurrency=4)
        started = time.monotonic()
        results = backend.complete_batch([_request(i) for i in range(24)])
        elapsed = time.monotonic() - started
        stats = server.stats()
    assert all(isinstance(r, LLMResponse) for r in results)
    assert stats["max_in_flight"] == 4  # reached, never exceeded
    assert elapsed >= 24 / 4 * 0.1


def test_complete_batch_works_inside_a_running_event_loop() -> None:
    with FakeOpenAIServer() as server:
        backend = _backend(server)

        async def caller() -> list[LLMResponse | LLMError]:
            single = await backend.complete(_request(0))
            assert isinstance(single, LLMResponse)
            return backend.complete_batch([_request(1), _request(2)])

        results = asyncio.run(caller())
    assert all(isinstance(r, LLMResponse) for r in results)


def test_structured_output_and_tools_are_sent_openai_style() -> None:
    schema = {"title": "Env Spec!", "type": "object", "properties": {"n": {"type": "integer"}}}
    tools = [{"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {"q": {"type": "string"}}}}}]
    with FakeOpenAIServer() as server:
        backend = _backend(server)
        payload = backend.request_payload(_request(1, json_schema=schema, seed=5))
        structured, with_tools = backend.complete_batch([_request(1, json_schema=schema), _request(2, tools=tools)])
    assert payload["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "Env_Spec_", "schema": schema, "strict": True}}
    assert payload["seed"] == 5
    assert isinstance(structured, LLMResponse) and isinstance(json.loads(structured.content or "")["n"], int)
    assert isinstance(with_tools, LLMResponse) and with_tools.finish_reason == "tool_calls"
    assert with_tools.tool_calls[0].name == "lookup" and "q" in json.loads(with_tools.tool_calls[0].arguments)
    assert with_tools.prompt_tokens > 0 and with_tools.completion_tokens > 0


def test_server_process_with_script_and_faults(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [
        {"match": "write a spec", "json": {"spec": "broken"}, "times": 1},
        {"match": "write a spec", "json": {"spec": "fixed"}},
        {"match": ["lookup", "weather"], "tool_calls": [{"name": "lookup", "arguments": {"q": "weather"}}]},
    ]}))
    process, url = start_server_process(["--fault-rate", "0.3", "--seed", "3", "--script", str(script),
                                         "--fault-kinds", "429,500,malformed"])
    try:
        backend = OpenAICompatibleBackend(url, "m", api_key="", backoff_base_s=0.01, max_retries=8)
        spec_request = LLMRequest(messages=[{"role": "user", "content": "please write a spec"}])
        first = backend.complete_batch([spec_request])[0]
        second = backend.complete_batch([LLMRequest(messages=spec_request.messages, seed=1)])[0]
        tool = backend.complete_batch([LLMRequest(messages=[{"role": "user", "content": "lookup the weather"}])])[0]
        unmatched = backend.complete_batch([_request(9)])[0]
        with urllib.request.urlopen(f"{url}/stats") as reply:
            stats = json.load(reply)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=10)
    assert isinstance(first, LLMResponse) and json.loads(first.content or "") == {"spec": "broken"}
    assert isinstance(second, LLMResponse) and json.loads(second.content or "") == {"spec": "fixed"}
    assert isinstance(tool, LLMResponse) and tool.tool_calls[0].name == "lookup"
    assert isinstance(unmatched, LLMError) and "no scripted response matches" in str(unmatched)
    assert stats["outcomes"]["ok"] == 3 and stats["requests"] == backend.stats.http_requests


def test_damaged_cache_entry_is_paid_again_and_rewritten(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        _backend(server, cache_dir=tmp_path).complete_batch([_request(1)])
        (entry,) = list(tmp_path.rglob("*.json"))
        entry.write_text('{"content": "half a wri')
        backend = _backend(server, cache_dir=tmp_path)
        (result,) = backend.complete_batch([_request(1)])
        assert server.stats()["requests"] == 2
    assert isinstance(result, LLMResponse) and not result.cached
    assert backend.stats.cache_hits == 0
    assert json.loads(entry.read_text())["content"] == result.content
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]  # no temp files left behind


@pytest.mark.parametrize(("url", "says"), [
    ("http://127.0.0.1:99999/v1", "port '99999'"),
    ("http://127.0.0.1:0/v1", "port 0"),
    ("ftp://127.0.0.1:8000/v1", "scheme 'ftp'"),
    ("127.0.0.1:8000", "unknown LLM endpoint"),
    ("https://user:pw@/v1", "no host name"),
])
def test_bad_urls_are_refused_up_front_without_secrets(url: str, says: str) -> None:
    from coworkenv.llm import backend_from_config

    with pytest.raises(ValueError, match=says) as caught:
        backend_from_config(url, "m")
    assert "pw" not in str(caught.value)


def test_probe_names_a_dead_or_silent_server_quickly() -> None:
    import socket

    dead = OpenAICompatibleBackend(f"http://127.0.0.1:{free_port()}/v1", "m", api_key="")
    with pytest.raises(LLMError, match=r"nothing listens at http://127\.0\.0\.1") as refused:
        dead.probe(1.0)
    assert refused.value.kind == "unavailable"
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(4)
        silent = OpenAICompatibleBackend(f"http://127.0.0.1:{sock.getsockname()[1]}/v1", "m", api_key="")
        started = time.perf_counter()
        with pytest.raises(LLMError, match=r"accepted the connection but sent no answer within 0\.3s") as quiet:
            silent.probe(0.3)
        assert quiet.value.kind == "timeout" and time.perf_counter() - started < 5
    with FakeOpenAIServer(fault_rate=1.0, fault_kinds=("500",)) as server:
        _backend(server).probe(1.0)  # any HTTP answer means a server is there; its faults show per request


def test_every_attempt_outcome_and_truncation_is_counted() -> None:
    def cut_off(body: dict[str, Any]) -> dict[str, Any]:
        return {"content": "half an ans", "finish_reason": "length"}

    with FakeOpenAIServer(schedule=["429", "500", "ok", "400"], responder=cut_off) as server:
        backend = _backend(server, max_concurrency=1)
        first, second = backend.complete_batch([_request(1)]) + backend.complete_batch([_request(2)])
    assert isinstance(first, LLMResponse) and first.truncated and isinstance(second, LLMError)
    stats = backend.stats
    assert stats.http_status == {"400": 1, "429": 1, "500": 1} and stats.truncated == 1
    assert stats.retry_reasons == {"rate_limited": 1, "server_error": 1} and stats.failures == {"client_error": 1}
    assert stats.answered == 1 and stats.infrastructure_failures == 1
    assert "2 requests, 1 answered, 2 retries (rate_limited 1, server_error 1), failed client_error 1" in stats.summary()


def test_a_prompt_over_the_context_is_the_models_limit_not_the_servers() -> None:
    from coworkenv.llm import is_infrastructure_error

    def too_long(body: dict[str, Any]) -> dict[str, Any]:
        raise LookupError("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens")

    with FakeOpenAIServer(responder=too_long) as server:
        (result,) = _backend(server).complete_batch([_request(1)])
    assert isinstance(result, LLMError) and result.kind == "context_length"
    assert not is_infrastructure_error(result.kind) and is_infrastructure_error("client_error")


def test_probe_tells_dns_and_tls_failures_from_a_dead_port() -> None:
    from coworkenv.llm import check_endpoint_url, probe_endpoint

    with pytest.raises(LLMError, match=r"cannot resolve the host of http://no-such-host\.invalid/v1"):
        probe_endpoint("http://no-such-host.invalid/v1", 2.0)
    with FakeOpenAIServer() as server, pytest.raises(LLMError, match=r"TLS handshake with https://127\.0\.0\.1:\d+ "
                                                                     r"failed .* plain http://"):
        probe_endpoint(server.url.replace("http://", "https://"), 2.0)
    for url, says in (("http://[::1/v1", "not a URL"), ("http://ho st/v1", "contains a blank"),
                      ("http://localhost:abc/v1", "port 'abc'")):
        with pytest.raises(ValueError, match=says):
            check_endpoint_url(url)


class _EchoingProxy(http.server.BaseHTTPRequestHandler):
    """A stand-in for a gateway that answers 500 with a page quoting the request's text, as written (a debug page)."""

    status = 500

    def do_POST(self) -> None:
        asked = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["messages"][-1]["content"]
        page = f"upstream failed for: {asked} (Authorization: {self.headers['Authorization']})".encode()
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args: Any) -> None:
        pass


def _asked_of(proxy: type[_EchoingProxy], content: str) -> LLMResponse | LLMError:
    """The answer to one request with `content` from a gateway `proxy` that echoes it (one retry, no waiting)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), proxy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        backend = OpenAICompatibleBackend(f"http://127.0.0.1:{server.server_address[1]}/v1", "m", api_key=FAKE_KEY,
                                          backoff_base_s=0.01, timeout_s=5.0, max_retries=1)
        [answer] = backend.complete_batch([LLMRequest(messages=[{"role": "user", "content": content}])])
    finally:
        server.shutdown()
        server.server_close()
    return answer


def test_a_5xx_page_echoing_the_request_reaches_the_retry_log_escaped_and_redacted(
        caplog: pytest.LogCaptureFixture) -> None:
    # What the request says is not the host's: a judged check's code writes it. Its line break and terminal code
    # must not forge a log line, and the key the page echoes must not be logged.
    caplog.set_level(logging.INFO)
    answer = _asked_of(_EchoingProxy, "x\n2026-01-01 ERROR forged line \x1b[2J")
    assert isinstance(answer, LLMError) and answer.kind == "server_error"
    retries = [r.getMessage() for r in caplog.records if "retry" in r.getMessage()]
    assert retries, "the 500 was retried, and the retry logged"
    for line in [*retries, str(answer)]:
        assert "\n" not in line and "\x1b" not in line and FAKE_KEY not in line, line
        assert "forged line" in line  # the page is still shown, escaped


class _EchoingRejection(_EchoingProxy):
    """The same gateway answering 400 (not retried), its page quoted in the error up to its first 500 characters."""

    status = 400


@pytest.mark.parametrize(("proxy", "cut"), [(_EchoingProxy, 300), (_EchoingRejection, 500)], ids=["500", "400"])
def test_a_page_cut_where_the_echoed_key_straddles_the_cut_shows_none_of_it(
        proxy: type[_EchoingProxy], cut: int, caplog: pytest.LogCaptureFixture) -> None:
    # The request's length is the sandboxed check's to choose: padded so that the cut falls four characters before
    # the end of the echoed key, a page redacted after the cut kept all but those four (the key whole no longer
    # matched), in the retry log and in the error a judge logs.
    caplog.set_level(logging.INFO)
    padding = cut + 4 - len(FAKE_KEY) - len("upstream failed for: ") - len(" (Authorization: Bearer ")
    answer = _asked_of(proxy, "x" * padding)
    assert isinstance(answer, LLMError)
    for line in [*(r.getMessage() for r in caplog.records), str(answer)]:
        assert FAKE_KEY[:8] not in line, line
