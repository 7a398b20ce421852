"""Fault corpus, `coworkenv serve SPEC --mcp` on a port another program listens on: a second `serve` started in
another terminal on the default port 8765 or the port of one still running, `--harness-port` of a stdio server
taken, a program listening on every address (0.0.0.0) of the port, with `--token-file`.

On main the port was bound inside uvicorn, after the command had printed `MCP: http://127.0.0.1:PORT/mcp  harness:
...` as its own address: a harness reading that line went on to score the episode of the server already there (with
a token shared through $COWORKENV_HARNESS_TOKEN it read the other episode's score), while this command ended with
uvicorn's `ERROR: [Errno 98] error while attempting to bind on address ...` (exit 3, no `error:` line); with
`--harness-port` it was a traceback of a task group, and `--token-file` had already written a token for a server
that never served. Now the port is taken before anything is written or announced (`listening_socket`): one `error:`
line names the option, the port and what to do (exit 2). Regression guards: a free port serves and scores, and a
port a server just left in TIME_WAIT is taken again (SO_REUSEADDR, as uvicorn set it).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from coworkenv.examples import resolve_spec
from tests.faults.harness import ROOT

TOKEN = "tok-" + "a1b2c3d4" * 4
SPEC = "incident_rollback"
pytestmark = pytest.mark.timeout(300)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def _listener(port: int, address: str = "127.0.0.1") -> Iterator[None]:
    """Another program listening on PORT (a second terminal's server, a dev server, ...)."""
    sock = socket.socket()
    try:
        sock.bind((address, port))
    except OSError:  # someone else's listener already holds it: the port is just as taken
        sock.close()
        yield
        return
    sock.listen()
    try:
        yield
    finally:
        sock.close()


def _serve(args: list[str], env: dict[str, str] | None = None, *, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tests.faults.child", "--", "serve", SPEC, "--mcp", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "COWORKENV_HARNESS_TOKEN": TOKEN, **(env or {})})


@contextmanager
def _running_server(port: int) -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-m", "tests.faults.child", "--", "serve", SPEC, "--mcp", "--transport",
                             "http", "--port", str(port)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "COWORKENV_HARNESS_TOKEN": TOKEN})
    try:
        _wait_score(port)
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def _wait_score(port: int, seconds: float = 120) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while True:
        try:
            answer = httpx.get(f"http://127.0.0.1:{port}/harness/score", headers={"Authorization": f"Bearer {TOKEN}"},
                               timeout=5)
            answer.raise_for_status()
            return dict(answer.json())
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _refused(result: subprocess.CompletedProcess[str], option: str, port: int) -> None:
    output = result.stdout + result.stderr
    assert result.returncode == 2, output[-3000:]
    assert "Traceback" not in output and "Errno" not in output, output[-3000:]
    errors = [line for line in output.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1, output[-3000:]
    assert f"{option} {port}" in errors[0] and "free port" in errors[0], errors[0]
    assert "MCP: http" not in output, "the address of another program's server was announced as this one's"


CASES = ["http on a port another program listens on", "http on the default port taken",
         "http on the port of a running serve", "http on a port taken on every address",
         "--harness-port another program listens on", "--harness-port of a running serve"]


@pytest.mark.parametrize("case", CASES)
def test_serve_on_a_port_in_use_is_refused_before_anything_is_announced(case: str) -> None:
    port = 8765 if "default port" in case else _free_port()
    option = "--harness-port" if case.startswith("--harness-port") else "--port"
    args = ["--harness-port", str(port)] if option == "--harness-port" else ["--transport", "http"]
    if "default port" not in case and option == "--port":
        args += ["--port", str(port)]
    if "running serve" in case:
        with _running_server(port) as first:
            before = _wait_score(port)
            _refused(_serve(args), option, port)
            assert first.poll() is None and _wait_score(port) == before  # the running one serves on, untouched
        return
    with _listener(port, "0.0.0.0" if "every address" in case else "127.0.0.1"):
        _refused(_serve(args), option, port)


def test_serve_on_a_port_in_use_writes_no_token_file(tmp_path: Path) -> None:
    """`--token-file` naming a file not made yet: main wrote a token into it for a server that never served."""
    port, token_file = _free_port(), tmp_path / "harness.token"
    with _listener(port):
        _refused(_serve(["--transport", "http", "--port", str(port), "--token-file", str(token_file)],
                        env={"COWORKENV_HARNESS_TOKEN": ""}), "--port", port)
    assert not token_file.exists()


@pytest.mark.parametrize("case", ["a free port", "a port a server just left in TIME_WAIT"])
def test_serve_on_a_free_port_serves(case: str) -> None:
    """Regression guards (main served in both): the port the command binds itself is handed to uvicorn."""
    port = _free_port()
    if case != "a free port":  # a connection the server side closed first leaves the port in TIME_WAIT
        with socket.socket() as server:
            server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as a server (uvicorn) sets it
            server.bind(("127.0.0.1", port))
            server.listen()
            client = socket.create_connection(("127.0.0.1", port))
            accepted, _ = server.accept()
            accepted.close()
            time.sleep(0.1)
            client.close()
    with _running_server(port):
        score = _wait_score(port)
    assert score["env_id"] == resolve_spec(SPEC).id and score["steps"] == 0, score
