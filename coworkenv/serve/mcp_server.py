"""An environment as an MCP server (official `mcp` SDK): tools, the conversation, and a harness-only score.

Agent side (MCP): the spec's tools under their declared names and schemas plus `reply_to_user`, which ends a
turn; the prompt `task` and the resource `coworkenv://conversation` carry the system prompt and the user turns
received so far. Harness side (HTTP only, never MCP): `GET /harness/score` and `POST /harness/reset`, which need
`Authorization: Bearer <token>`; the token reaches the harness out of band (a 0600 file or an environment
variable), so an agent talking MCP can neither see nor call the scorer.
"""

from __future__ import annotations

import hmac
from typing import Any, Literal

import anyio
import mcp_types as types
import orjson
import uvicorn
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from coworkenv.serve.episode_host import EpisodeHost

CONVERSATION_URI = "coworkenv://conversation"
TASK_PROMPT = "task"
LOCALHOST = "127.0.0.1"


def build_mcp_server(host: EpisodeHost) -> Server[Any]:
    """The MCP server of one episode host (agent-facing only: no scoring is reachable through it)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        tools = [types.Tool(name=t["function"]["name"], description=t["function"].get("description") or None,
                            input_schema=t["function"]["parameters"]) for t in host.tools()]
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        ok, text = host.call(params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=not ok)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        prompt = types.Prompt(name=TASK_PROMPT, description="Who you act for and the user's requests so far")
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != TASK_PROMPT:
            raise ValueError(f"unknown prompt {params.name!r}; the server has {TASK_PROMPT!r}")
        texts = [host.system_prompt(), *host.user_turns()]
        messages = [types.PromptMessage(role="user", content=types.TextContent(text=t)) for t in texts]
        return types.GetPromptResult(description="The task", messages=messages)

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        resource = types.Resource(uri=CONVERSATION_URI, name="conversation", mime_type="application/json",
                                  description="System prompt and the user turns received so far")
        return types.ListResourcesResult(resources=[resource])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        if str(params.uri) != CONVERSATION_URI:
            raise ValueError(f"unknown resource {params.uri!r}; the server has {CONVERSATION_URI}")
        text = orjson.dumps({"system": host.system_prompt(), "user_turns": host.user_turns()}).decode()
        contents = types.TextResourceContents(uri=CONVERSATION_URI, mime_type="application/json", text=text)
        return types.ReadResourceResult(contents=[contents])

    return Server(
        "coworkenv", version="1", instructions=host.system_prompt(),
        on_list_tools=list_tools, on_call_tool=call_tool, on_list_prompts=list_prompts, on_get_prompt=get_prompt,
        on_list_resources=list_resources, on_read_resource=read_resource,
    )


def harness_routes(host: EpisodeHost, token: str) -> list[Route]:
    """HTTP routes only the harness can use: the score and a reset, behind a bearer token."""
    if len(token) < 16:
        raise ValueError("the harness token must have at least 16 characters")

    def authorized(request: Request) -> bool:
        given = request.headers.get("authorization", "")
        return hmac.compare_digest(given.encode(), f"Bearer {token}".encode())

    async def score(request: Request) -> Response:
        if not authorized(request):
            return JSONResponse({"error": "harness token required"}, status_code=401)
        return JSONResponse(host.result())

    async def reset(request: Request) -> Response:
        if not authorized(request):
            return JSONResponse({"error": "harness token required"}, status_code=401)
        host.reset()
        return JSONResponse({"status": "reset", "env_id": host.spec.id})

    return [Route("/harness/score", score, methods=["GET"]), Route("/harness/reset", reset, methods=["POST"])]


def _uvicorn(app: Any, port: int, lifespan: Literal["on", "off"] = "on") -> uvicorn.Server:
    config = uvicorn.Config(app, host=LOCALHOST, port=port, log_level="warning", lifespan=lifespan)
    return uvicorn.Server(config)


async def serve_http(host: EpisodeHost, port: int, token: str) -> None:
    """MCP over streamable HTTP at http://127.0.0.1:PORT/mcp, with the harness routes on the same port."""
    server = build_mcp_server(host)
    app = server.streamable_http_app(host=LOCALHOST, custom_starlette_routes=harness_routes(host, token))
    await _uvicorn(app, port).serve()


async def serve_stdio(host: EpisodeHost, harness_port: int | None, token: str) -> None:
    """MCP over stdio; with `harness_port`, the harness routes listen on 127.0.0.1:PORT meanwhile."""
    server = build_mcp_server(host)
    web = None
    if harness_port is not None:
        web = _uvicorn(Starlette(routes=harness_routes(host, token)), harness_port, lifespan="off")
    async with anyio.create_task_group() as group:
        if web is not None:
            group.start_soon(web.serve)
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
        if web is not None:
            web.should_exit = True  # the client closed stdio: stop the harness routes too
