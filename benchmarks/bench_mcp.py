"""One environment over MCP (stdio and HTTP, official SDK client) against the same episode in process.

Figures: the score of the reference and of a do-nothing agent in process and over each transport (they must be
equal), and the mean wall time of one tool call over each transport (client -> server -> env -> client).

    python benchmarks/bench_mcp.py [--spec triage_escalation_declared_tools] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

import anyio  # noqa: E402
import httpx  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from coworkenv import Env  # noqa: E402
from coworkenv.agents import NoopPolicy, OraclePolicy  # noqa: E402
from coworkenv.examples import resolve_spec  # noqa: E402
from coworkenv.rollout import run_episode  # noqa: E402
from coworkenv.serve.reference_client import play_noop, play_reference  # noqa: E402

SERVE = [sys.executable, "-c", "from coworkenv.cli import app; app()", "serve"]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _score(port: int, token: str) -> float:
    for _ in range(150):
        try:
            r = httpx.get(f"http://127.0.0.1:{port}/harness/score", headers={"Authorization": f"Bearer {token}"})
            return float(r.json()["score"])
        except httpx.ConnectError:
            time.sleep(0.2)
    raise RuntimeError("the harness endpoint did not come up")


def _episode_stdio(spec_name: str, oracle: bool, token: str) -> tuple[float, float, int]:
    port = _port()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "COWORKENV_HARNESS_TOKEN": token}
    params = StdioServerParameters(command=SERVE[0], args=[*SERVE[1:], spec_name, "--mcp", "--harness-port",
                                                           str(port)], env=env, cwd=str(REPO_ROOT))

    async def run() -> tuple[float, float, int]:
        async with Client(params) as client:
            started = time.perf_counter()
            spec = resolve_spec(spec_name)
            calls = await play_reference(client, spec) if oracle else (await play_noop(client, spec), 0)[1]
            elapsed = time.perf_counter() - started
            return _score(port, token), elapsed, calls + len(spec.turns)

    return anyio.run(run)


def _episode_http(spec_name: str, oracle: bool, token: str) -> tuple[float, float, int]:
    port = _port()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "COWORKENV_HARNESS_TOKEN": token}
    proc = subprocess.Popen([*SERVE, spec_name, "--mcp", "--transport", "http", "--port", str(port)], env=env,
                            cwd=str(REPO_ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _score(port, token)  # waits until the server listens

        async def run() -> tuple[float, int]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                started = time.perf_counter()
                spec = resolve_spec(spec_name)
                calls = await play_reference(client, spec) if oracle else (await play_noop(client, spec), 0)[1]
                return time.perf_counter() - started, calls + len(spec.turns)

        elapsed, calls = anyio.run(run)
        return _score(port, token), elapsed, calls
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default="triage_escalation_declared_tools")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    spec = resolve_spec(args.spec)
    token = secrets.token_urlsafe(24)
    out: dict[str, Any] = {"spec": args.spec, "in_process": {
        "oracle": run_episode(Env(spec), OraclePolicy(spec)).result.score,
        "noop": run_episode(Env(spec), NoopPolicy()).result.score}}
    for transport, episode in (("stdio", _episode_stdio), ("http", _episode_http)):
        oracle, elapsed, calls = episode(args.spec, True, token)
        noop, _, _ = episode(args.spec, False, token)
        out[transport] = {"oracle": oracle, "noop": noop, "ms_per_call": round(1000 * elapsed / calls, 2)}
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"spec {args.spec}: in process oracle {out['in_process']['oracle']}, noop {out['in_process']['noop']}")
    for transport in ("stdio", "http"):
        r = out[transport]
        print(f"  over MCP {transport}: oracle {r['oracle']}, noop {r['noop']}, {r['ms_per_call']} ms per call")


if __name__ == "__main__":
    main()
