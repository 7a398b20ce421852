"""Plays a spec's reference solution (or nothing) through an MCP client, as an external agent would."""

from __future__ import annotations

from typing import Any, Protocol

import orjson

from coworkenv.agents import turn_actions
from coworkenv.serve.episode_host import REPLY_TOOL
from coworkenv.spec import EnvSpec

RETRYABLE_STATUS = frozenset({429, 500, 502, 503, 504})


class ToolCaller(Protocol):
    """The part of an MCP client the players need (`mcp.Client` fits)."""

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> Any: ...


def transient(result: Any) -> bool:
    """Whether a tool result is a transient service error worth retrying (HTTP-like status or cut response)."""
    if not result.is_error or not result.content:
        return False
    try:
        body = orjson.loads(result.content[0].text)
    except (orjson.JSONDecodeError, AttributeError):
        return False
    return isinstance(body, dict) and (body.get("status") in RETRYABLE_STATUS or "partial" in body)


async def play_reference(client: ToolCaller, spec: EnvSpec, max_retries: int = 5) -> int:
    """Make the reference's calls and replies over MCP, retrying transient errors; returns the calls made."""
    calls = 0
    for turn in spec.reference:
        for action in turn_actions(turn.steps):
            if not action.tool_calls:
                await client.call_tool(REPLY_TOOL, {"message": action.content or "Done."})
                continue
            request = action.tool_calls[0]
            arguments = request.arguments if isinstance(request.arguments, dict) else orjson.loads(request.arguments)
            for _ in range(max_retries + 1):
                calls += 1
                if not transient(await client.call_tool(request.name, arguments)):
                    break
    return calls


async def play_noop(client: ToolCaller, spec: EnvSpec) -> None:
    """Answer every user turn without touching a tool."""
    for _ in spec.turns:
        await client.call_tool(REPLY_TOOL, {"message": "Okay."})
