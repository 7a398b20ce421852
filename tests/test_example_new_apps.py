"""The restock example (declared tools over the inventory and todo apps, injected errors): it passes the strict
gates, the oracle scores 1.0 and noop 0.0 in-process, and `coworkenv serve --mcp` over HTTP scores the same."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import Client
from support.loopback import free_port, wait_listening

from coworkenv import Env
from coworkenv.agents import NoopPolicy, OraclePolicy
from coworkenv.examples import load_example
from coworkenv.rollout import run_episode
from coworkenv.serve.reference_client import play_noop, play_reference
from coworkenv.validate import validate_spec

EXAMPLE = "restock_store_declared_tools"
ROOT = Path(__file__).resolve().parents[1]


def test_spec_uses_two_new_apps_through_renamed_converting_tools_and_passes_strict_gates() -> None:
    spec = load_example(EXAMPLE)
    assert {d.bind.op.split("_")[0] for d in spec.tool_decls} == {"inventory", "todo"}
    assert spec.faults is not None and not spec.tools  # every tool the agent sees is a declared one
    result = validate_spec(spec)
    assert result.passed, result.report()
    assert result.findings == [] and result.spec is not None and result.spec.id == spec.id  # nothing trimmed


def test_oracle_retries_injected_errors_and_scores_one_noop_scores_zero() -> None:
    spec = load_example(EXAMPLE)
    env = Env(spec)
    oracle = run_episode(env, OraclePolicy(spec)).result
    assert oracle.score == 1.0 and oracle.passed, [c for c in oracle.checks if not c.passed]
    failed = [e for e in env.audit if not e.ok]
    assert failed, "the fault plan injected no error: the oracle never had to retry"
    assert {e.op for e in env.audit} >= {"inventory_transfer", "todo_complete_task"}  # bound ops are audited
    noop = run_episode(Env(spec), NoopPolicy()).result
    assert noop.score == 0.0 and not noop.passed


def test_mcp_over_http_scores_as_in_process(tmp_path: Path) -> None:
    port = free_port()
    token_file = tmp_path / "token"
    env = {k: v for k, v in os.environ.items() if k != "COWORKENV_HARNESS_TOKEN"} | {"PYTHONPATH": str(ROOT)}
    serve = [sys.executable, "-c", "from coworkenv.cli import app; app()", "serve", EXAMPLE, "--mcp",
             "--transport", "http", "--port", str(port), "--token-file", str(token_file)]
    proc = subprocess.Popen(serve, env=env, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    spec = load_example(EXAMPLE)
    try:
        wait_listening(port, proc)
        headers = {"Authorization": f"Bearer {token_file.read_text()}"}

        def score() -> dict[str, Any]:
            reply = httpx.get(f"http://127.0.0.1:{port}/harness/score", headers=headers, timeout=10)
            assert reply.status_code == 200, reply.text
            return dict(reply.json())

        async def episode(oracle: bool) -> tuple[list[str], int]:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                names = [t.name for t in (await client.list_tools()).tools]
                calls = await play_reference(client, spec) if oracle else 0
                if not oracle:
                    await play_noop(client, spec)
                return names, calls

        names, calls = anyio.run(episode, True)
        oracle = score()
        reset = httpx.post(f"http://127.0.0.1:{port}/harness/reset", headers=headers, timeout=10)
        assert reset.status_code == 200
        anyio.run(episode, False)
        noop = score()
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    assert {"shop_transfer_stock", "todoist_set_status"} <= set(names) and "inventory_transfer" not in names
    assert oracle["score"] == 1.0 and oracle["done"] is True
    assert calls > 5 and oracle["faults"]["failing"] >= 1  # the injected 500s/429s were retried
    local = run_episode(Env(spec), NoopPolicy()).result
    assert noop["score"] == local.score == 0.0
    assert [c["passed"] for c in noop["checks"]] == [c.passed for c in local.checks]
