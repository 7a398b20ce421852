"""`coworkenv serve --mcp`: an episode over MCP (official SDK client, stdio and HTTP) scores as it does in-process."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx
import pytest
from mcp import Client, StdioServerParameters
from support.loopback import free_port, wait_listening

from coworkenv import Env
from coworkenv.agents import NoopPolicy
from coworkenv.examples import load_example
from coworkenv.rollout import run_episode
from coworkenv.serve import EpisodeHost, build_mcp_server
from coworkenv.serve.reference_client import play_noop, play_reference

EXAMPLE = "triage_escalation_declared_tools"
ROOT = Path(__file__).resolve().parents[1]
TOKEN = "test-harness-token-0123456789"
SERVE = [sys.executable, "-c", "from coworkenv.cli import app; app()", "serve", EXAMPLE, "--mcp"]


def _child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "COWORKENV_HARNESS_TOKEN": TOKEN}


def _score(port: int, token: str | None = TOKEN) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.get(f"http://127.0.0.1:{port}/harness/score", headers=headers, timeout=10)


def test_oracle_over_stdio_scores_one_and_only_the_harness_reads_the_score() -> None:
    port = free_port()
    params = StdioServerParameters(command=SERVE[0], args=[*SERVE[1:], "--harness-port", str(port)],
                                   env=_child_env(), cwd=str(ROOT))

    async def episode() -> tuple[list[str], dict[str, object], int, int]:
        async with Client(params) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            calls = await play_reference(client, load_example(EXAMPLE))
            deadline = time.monotonic() + 30
            while True:  # the harness port comes up beside the stdio session
                try:
                    denied = _score(port, token=None).status_code
                    break
                except httpx.ConnectError:
                    assert time.monotonic() < deadline
                    await anyio.sleep(0.2)
            wrong = _score(port, token="x" * 24).status_code
            assert (denied, wrong) == (401, 401)
            return names, _score(port).json(), calls, denied

    names, result, calls, _ = anyio.run(episode)
    assert "gmail_send_message" in names and "mail_send" not in names
    assert "harness" not in " ".join(names) and "score" not in " ".join(names)
    assert result["score"] == 1.0 and result["done"] is True
    assert result["robustness"] == 1.0 and calls > 4  # the injected 429s were retried
    assert result["faults"]["failing"] >= 1  # type: ignore[index]


def test_noop_over_http_scores_as_in_process(tmp_path: Path) -> None:
    port = free_port()
    token_file = tmp_path / "token"
    env = {k: v for k, v in _child_env().items() if k != "COWORKENV_HARNESS_TOKEN"}
    proc = subprocess.Popen([*SERVE, "--transport", "http", "--port", str(port), "--token-file", str(token_file)],
                            env=env, cwd=str(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_listening(port, proc)
        token = token_file.read_text()
        assert token_file.stat().st_mode & 0o077 == 0

        async def episode() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                prompt = await client.get_prompt("task")
                assert "Customers can't pay" in prompt.messages[-1].content.text  # type: ignore[union-attr]
                await play_noop(client, load_example(EXAMPLE))

        anyio.run(episode)
        remote = _score(port, token).json()
        headers = {"Authorization": f"Bearer {token}"}
        refused = httpx.post(f"http://127.0.0.1:{port}/harness/reset", timeout=10)
        reset = httpx.post(f"http://127.0.0.1:{port}/harness/reset", headers=headers, timeout=10)
        assert (refused.status_code, reset.status_code) == (401, 200)
        assert _score(port, token).json()["done"] is False
    finally:
        os.kill(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)
    spec = load_example(EXAMPLE)
    local = run_episode(Env(spec), NoopPolicy()).result
    assert remote["score"] == local.score
    assert [c["passed"] for c in remote["checks"]] == [c.passed for c in local.checks]


def test_follow_up_turns_appear_as_the_episode_progresses() -> None:
    spec = load_example("meeting_reschedule")
    assert spec.multi_turn
    host = EpisodeHost(spec)

    async def episode() -> tuple[int, int, str]:
        async with Client(build_mcp_server(host)) as client:
            before = len((await client.get_prompt("task")).messages)
            reply = await client.call_tool("reply_to_user", {"message": "Okay."})
            after = len((await client.get_prompt("task")).messages)
            return before, after, reply.content[0].text  # type: ignore[union-attr]

    before, after, reply = anyio.run(episode)
    if spec.turns[1].condition.kind == "after_reply":
        assert after == before + 1 and spec.turns[1].content[:20] in reply
    else:
        assert after == before and "over" in reply


def test_a_spec_tool_named_like_the_reply_tool_is_refused() -> None:
    spec = load_example(EXAMPLE)
    decls = [d.model_copy(update={"name": "reply_to_user"}) if d.name == "jira_get_issue" else d
             for d in spec.tool_decls]
    with pytest.raises(ValueError, match="reply_to_user"):
        EpisodeHost(spec.model_copy(update={"tool_decls": decls}))
