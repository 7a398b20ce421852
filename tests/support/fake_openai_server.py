"""A loopback OpenAI-compatible chat server with deterministic fault injection, for tests and benchmarks.

POST /v1/chat/completions answers with a pluggable responder (default: a deterministic echo, a
schema-shaped JSON object, or a tool call), or with an injected fault: 429 (with Retry-After),
500, a hang past the client's timeout, or a malformed JSON body. Which request gets which fault
depends only on the seed and the request counter. GET /stats returns counters (requests, outcomes,
max in flight), GET /health answers ok, POST /reset clears the counters. GET /v1/models lists `models` (model cards, e.g. vLLM's `root`).

In a thread:   `with FakeOpenAIServer(fault_rate=0.3, seed=1) as server: ... server.url, server.stats()`
As a process:  `python -m tests.support.fake_openai_server --port 0 --fault-rate 0.3 --delay-s 0.2 --seed 1`
               prints `FAKE_OPENAI_SERVER_URL=http://127.0.0.1:PORT` once it listens.
A script file (`--script FILE`, JSON) holds canned responses, see `ScriptResponder`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FAULT_KINDS = ("429", "500", "hang", "malformed")
OUTCOMES = ("ok", "400", *FAULT_KINDS)
URL_LINE_PREFIX = "FAKE_OPENAI_SERVER_URL="
# The cards GET /v1/models lists (`models=` another list: what a vLLM server says it serves; None: no such route).
DEFAULT_MODELS: list[dict[str, Any]] = [{"id": "fake-model", "object": "model"}]

# A responder maps a request body to the assistant message: {"content": ..., "tool_calls": [...]}
# and optionally "finish_reason".
Responder = Callable[[dict[str, Any]], dict[str, Any]]


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def example_for_schema(schema: dict[str, Any], tag: str) -> Any:
    """A deterministic instance of a simple JSON Schema (objects, arrays, scalars, enum, const)."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return example_for_schema(schema[key][0], tag)
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props: dict[str, Any] = schema.get("properties", {})
        return {name: example_for_schema(sub, tag) for name, sub in props.items()}
    if kind == "array":
        count = max(1, int(schema.get("minItems", 1)))
        return [example_for_schema(schema.get("items", {"type": "string"}), tag) for _ in range(count)]
    if kind == "string":
        text = f"echo-{tag}"
        return text[: int(schema["maxLength"])] if "maxLength" in schema else text
    if kind == "integer":
        return int(schema.get("minimum", 1))
    if kind == "number":
        return float(schema.get("minimum", 1.0))
    if kind == "boolean":
        return True
    return None


def echo_responder(body: dict[str, Any]) -> dict[str, Any]:
    """Default answer, a pure function of the request: a tool call, a schema instance or an echo."""
    tag = _digest(body.get("messages"))[:12]
    tools = body.get("tools") or []
    if tools:
        function = tools[0].get("function", {})
        arguments = example_for_schema(function.get("parameters", {"type": "object"}), tag)
        call = {"id": f"call_{tag}", "type": "function",
                "function": {"name": function.get("name", "unknown"), "arguments": json.dumps(arguments)}}
        return {"content": None, "tool_calls": [call], "finish_reason": "tool_calls"}
    response_format = body.get("response_format") or {}
    if response_format.get("type") == "json_schema":
        schema = response_format.get("json_schema", {}).get("schema", {})
        return {"content": json.dumps(example_for_schema(schema, tag))}
    last_user = next((m.get("content") for m in reversed(body.get("messages", [])) if m.get("role") == "user"), None)
    return {"content": json.dumps({"echo": last_user, "request": tag})}


class ScriptResponder:
    """Canned responses from a JSON script: `{"responses": [ENTRY, ...], "fallback": "echo" | "error"}`.

    ENTRY: `match` (a string or list of strings that must all occur in the request's message text;
    omitted = matches everything), one of `content` (text), `json` (any value, sent as JSON text)
    or `tool_calls` (`[{"name": ..., "arguments": {...}}]`), optional `finish_reason`, and optional
    `times` (use this entry for that many matching requests, then skip it). The first usable
    matching entry wins. Faults are injected before the responder runs, so retries never consume
    an entry: with sequential requests the script plays out deterministically.
    """

    def __init__(self, script: dict[str, Any]) -> None:
        self.entries: list[dict[str, Any]] = list(script.get("responses", []))
        self.fallback = script.get("fallback", "error")
        self._used = [0] * len(self.entries)
        self._lock = threading.Lock()

    @classmethod
    def from_file(cls, path: Path) -> ScriptResponder:
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        text = "\n".join(str(m.get("content") or "") for m in body.get("messages", []))
        with self._lock:
            for index, entry in enumerate(self.entries):
                match = entry.get("match", [])
                needles = [match] if isinstance(match, str) else list(match)
                times = entry.get("times")
                if all(needle in text for needle in needles) and (times is None or self._used[index] < times):
                    self._used[index] += 1
                    return self._message(entry)
        if self.fallback == "echo":
            return echo_responder(body)
        raise LookupError(f"no scripted response matches this request (message text starts {text[:200]!r})")

    @staticmethod
    def _message(entry: dict[str, Any]) -> dict[str, Any]:
        message: dict[str, Any] = {"content": entry.get("content")}
        if "json" in entry:
            message["content"] = json.dumps(entry["json"])
        if entry.get("tool_calls"):
            message["tool_calls"] = [
                {"id": f"call_{i}_{_digest(call)[:8]}", "type": "function",
                 "function": {"name": call["name"], "arguments": call["arguments"] if isinstance(
                     call.get("arguments"), str) else json.dumps(call.get("arguments", {}))}}
                for i, call in enumerate(entry["tool_calls"])
            ]
        if entry.get("finish_reason"):
            message["finish_reason"] = entry["finish_reason"]
        return message


@dataclass
class FaultPlan:
    """Which outcome request number n gets: `schedule[n]` if given, else a seeded draw at `fault_rate`."""

    fault_rate: float = 0.0
    kinds: tuple[str, ...] = FAULT_KINDS
    seed: int = 0
    schedule: list[str] = field(default_factory=list)

    def outcome(self, counter: int) -> str:
        if counter < len(self.schedule):
            return self.schedule[counter]
        rng = random.Random(f"{self.seed}:{counter}")
        if rng.random() < self.fault_rate:
            return rng.choice(self.kinds)
        return "ok"


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256  # the default backlog of 5 drops connection bursts from concurrent clients

    def __init__(self, address: tuple[str, int], plan: FaultPlan, responder: Responder, *, delay_s: float,
                 hang_s: float, retry_after_s: float, echo_auth_in_errors: bool, verbose: bool,
                 models: list[dict[str, Any]] | None = None) -> None:
        super().__init__(address, _Handler)
        self.models = models
        self.plan = plan
        self.responder = responder
        self.delay_s = delay_s
        self.hang_s = hang_s
        self.retry_after_s = retry_after_s
        self.echo_auth_in_errors = echo_auth_in_errors
        self.verbose = verbose
        self.stopping = threading.Event()
        self.lock = threading.Lock()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.counter = 0
            self.in_flight = 0
            self.max_in_flight = 0
            self.outcomes = dict.fromkeys(OUTCOMES, 0)
            self.auth_headers_seen = 0
            self.log: list[dict[str, Any]] = []

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "requests": self.counter,
                "outcomes": dict(self.outcomes),
                "max_in_flight": self.max_in_flight,
                "in_flight": self.in_flight,
                "auth_headers_seen": self.auth_headers_seen,
                "log": list(self.log),
            }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes; without TCP_NODELAY Nagle + delayed ACK add ~40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self._send_raw(status, data, headers)

    def _send_raw(self, status: int, data: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/health":
            self._send_json(200, {"status": "ok"})
        elif self.path == "/stats":
            self._send_json(200, self.server.stats())
        elif self.path == "/v1/models" and self.server.models is not None:
            self._send_json(200, {"object": "list", "data": self.server.models})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path == "/reset":
            self.server.reset()
            self._send_json(200, {"status": "reset"})
            return
        if self.path.partition("?")[0].rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        server = self.server
        auth = self.headers.get("Authorization")
        with server.lock:
            counter = server.counter
            server.counter += 1
            outcome = server.plan.outcome(counter)
            server.in_flight += 1
            server.max_in_flight = max(server.max_in_flight, server.in_flight)
            server.auth_headers_seen += int(bool(auth))
        body_sha = hashlib.sha256(raw).hexdigest()
        if outcome != "ok":
            # Faults are counted when decided, so a hang shows in /stats while it is still holding.
            self._record(counter, outcome, body_sha)
        # A completion is counted just before its answer is sent, so a client that reads /stats right after
        # its answer sees it.
        self._record_ok = lambda: self._record(counter, "ok", body_sha)
        try:
            answered = self._answer(outcome, raw, auth)
        finally:
            with server.lock:
                server.in_flight -= 1
        if outcome == "ok" and answered != "ok":
            self._record(counter, answered, body_sha)

    def _record(self, counter: int, outcome: str, body_sha: str) -> None:
        with self.server.lock:
            self.server.outcomes[outcome] = self.server.outcomes.get(outcome, 0) + 1
            self.server.log.append({"n": counter, "outcome": outcome, "body_sha": body_sha})

    def _answer(self, outcome: str, raw: bytes, auth: str | None) -> str:
        server = self.server
        if outcome == "429":
            self._send_json(429, {"error": {"message": "rate limited", "type": "rate_limit"}},
                            {"Retry-After": f"{server.retry_after_s:g}"})
        elif outcome == "500":
            self._send_json(500, {"error": {"message": "injected server error"}})
        elif outcome == "hang":
            # Hold the request past the client's timeout, then drop the connection unanswered.
            server.stopping.wait(server.hang_s)
            self.close_connection = True
        elif outcome == "malformed":
            self._send_raw(200, b'{"id": "chatcmpl-malformed", "choices": [{"message": {"content": "tru')
        elif outcome == "400":
            detail = f" (Authorization header was {auth!r})" if server.echo_auth_in_errors else ""
            self._send_json(400, {"error": {"message": f"injected bad request{detail}"}})
        else:
            return self._complete(raw, auth)
        return outcome

    def _complete(self, raw: bytes, auth: str | None) -> str:
        try:
            body = json.loads(raw)
            message = dict(self.server.responder(body))
        except (ValueError, LookupError) as exc:
            detail = f" (Authorization header was {auth!r})" if self.server.echo_auth_in_errors else ""
            self._send_json(400, {"error": {"message": f"{exc}{detail}"}})
            return "400"
        if self.server.delay_s > 0:
            time.sleep(self.server.delay_s)
        finish_reason = message.pop("finish_reason", None) or ("tool_calls" if message.get("tool_calls") else "stop")
        prompt_chars = sum(len(str(m.get("content") or "")) for m in body.get("messages", []))
        completion_chars = len(message.get("content") or "") + len(json.dumps(message.get("tool_calls") or []))
        self._record_ok()
        self._send_json(200, {
            "id": f"chatcmpl-{_digest(body)[:16]}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake-model"),
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": prompt_chars // 4 + 1, "completion_tokens": completion_chars // 4 + 1,
                      "total_tokens": (prompt_chars + completion_chars) // 4 + 2},
        })
        return "ok"


class FakeOpenAIServer:
    """The fake server running in a background thread of this process (a context manager)."""

    def __init__(self, *, fault_rate: float = 0.0, fault_kinds: tuple[str, ...] = FAULT_KINDS, seed: int = 0,
                 schedule: list[str] | None = None, responder: Responder | None = None, delay_s: float = 0.0,
                 hang_s: float = 600.0, retry_after_s: float = 0.0, echo_auth_in_errors: bool = False,
                 port: int = 0, verbose: bool = False, models: list[dict[str, Any]] | None = DEFAULT_MODELS) -> None:
        plan = FaultPlan(fault_rate=fault_rate, kinds=tuple(fault_kinds), seed=seed, schedule=list(schedule or []))
        self._server = _Server(("127.0.0.1", port), plan, responder or echo_responder, delay_s=delay_s,
                               hang_s=hang_s, retry_after_s=retry_after_s,
                               echo_auth_in_errors=echo_auth_in_errors, verbose=verbose, models=models)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> FakeOpenAIServer:
        # A short poll interval makes close() quick (serve_forever checks for shutdown at that rate).
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="fake-openai",
                                        daemon=True)
        self._thread.start()
        return self

    def stats(self) -> dict[str, Any]:
        """Counters: requests, outcomes by kind, max_in_flight, auth_headers_seen and the request log."""
        return self._server.stats()

    def reset(self) -> None:
        self._server.reset()

    def close(self) -> None:
        self._server.stopping.set()  # release hanging handlers
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def start_server_process(args: list[str], timeout_s: float = 20.0) -> tuple[subprocess.Popen[str], str]:
    """Run the server as `python -m tests.support.fake_openai_server ARGS` in its own process group.

    Returns the process and its URL. Stop it with `os.killpg(process.pid, signal.SIGTERM)`.
    """
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.fake_openai_server", "--port", "0", *args],
        stdout=subprocess.PIPE, text=True, start_new_session=True, cwd=Path(__file__).resolve().parents[2],
    )
    assert process.stdout is not None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if line.startswith(URL_LINE_PREFIX):
            return process, line[len(URL_LINE_PREFIX):].strip()
        if not line and process.poll() is not None:
            break
    process.kill()
    raise RuntimeError(f"fake OpenAI server did not start (exit code {process.poll()})")


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: serve until SIGTERM/SIGINT."""
    parser = argparse.ArgumentParser(description="Loopback OpenAI-compatible server with fault injection.")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port (printed on stdout)")
    parser.add_argument("--fault-rate", type=float, default=0.0)
    parser.add_argument("--fault-kinds", default=",".join(FAULT_KINDS), help=f"comma list of {FAULT_KINDS}")
    parser.add_argument("--delay-s", type=float, default=0.0, help="latency of every successful answer")
    parser.add_argument("--hang-s", type=float, default=600.0, help="how long a hang fault holds the request")
    parser.add_argument("--retry-after-s", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--script", type=Path, help="JSON file of canned responses (see ScriptResponder)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    kinds = tuple(k for k in args.fault_kinds.split(",") if k)
    unknown = set(kinds) - set(FAULT_KINDS)
    if unknown:
        parser.error(f"unknown fault kinds {sorted(unknown)}; choose from {FAULT_KINDS}")
    # Many handler threads wake at once under a fixed delay; a short GIL switch interval keeps the
    # last of them from queueing ~5 ms per neighbour, so the server is not the benchmark's bottleneck.
    sys.setswitchinterval(0.0005)
    responder = ScriptResponder.from_file(args.script) if args.script else None
    server = FakeOpenAIServer(fault_rate=args.fault_rate, fault_kinds=kinds, seed=args.seed, responder=responder,
                              delay_s=args.delay_s, hang_s=args.hang_s, retry_after_s=args.retry_after_s,
                              port=args.port, verbose=args.verbose)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    server.start()
    print(f"{URL_LINE_PREFIX}{server.url}", flush=True)
    stop.wait()
    server.close()


if __name__ == "__main__":
    main()
