"""An environment as an MCP server (official `mcp` SDK): tools, the conversation, and a harness-only score.

Agent side (MCP): the spec's tools under their declared names and schemas plus `reply_to_user`, which ends a
turn; the prompt `task` and the resource `coworkenv://conversation` carry the system prompt and the user turns
received so far. Harness side (HTTP only, never MCP): `GET /harness/score` and `POST /harness/reset`, which need
`Authorization: Bearer <token>`; the token reaches the harness out of band (a 0600 file or an environment
variable), so an agent talking MCP can neither see nor call the scorer.
"""

from __future__ import annotations

import errno
import hmac
import socket
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

from coworkenv.serve.episode_host import MESSAGE_META, EpisodeHost

CONVERSATION_URI = "coworkenv://conversation"
TASK_PROMPT = "task"
LOCALHOST = "127.0.0.1"


def build_mcp_server(host: EpisodeHost) -> Server[Any]:
    """The MCP server of one episode host (agent-facing only: no scoring is reachable through it)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        host.start_clock()  # the agent's first request of the episode starts the spec's wall clock, if it has one
        tools = [types.Tool(name=t["function"]["name"], description=t["function"].get("description") or None,
                            input_schema=t["function"]["parameters"]) for t in host.tools()]
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        named = (params.meta or {}).get(MESSAGE_META)  # the model message the client says the call is of
        ok, text = host.call(params.name, params.arguments, None if named is None else str(named))
        return types.CallToolResult(content=[types.TextContent(text=text)], is_error=not ok)

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        prompt = types.Prompt(name=TASK_PROMPT, description="Who you act for and the user's requests so far")
        return types.ListPromptsResult(prompts=[prompt])

    async def get_prompt(ctx: Any, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != TASK_PROMPT:
            raise ValueError(f"unknown prompt {params.name!r}; the server has {TASK_PROMPT!r}")
        host.start_clock()
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
        host.start_clock()
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


class PortUnavailable(OSError):
    """A port this command cannot listen on, with what to do (the message names the option that gave it)."""


def listening_socket(port: int, option: str = "--port") -> socket.socket:
    """A socket bound to 127.0.0.1:PORT, taken before anything is announced or served: a port another program (a
    second `coworkenv serve`, the default 8765 of one still running) listens on is one PortUnavailable naming the
    port and what to do. Binding inside uvicorn reported it after the address was printed as this server's (a
    harness reading it then scored the other server's episode) in uvicorn's log words, or as a traceback of a task
    group with `--harness-port`. SO_REUSEADDR as uvicorn sets it: a port left in TIME_WAIT by a server just stopped
    is taken, one listened on is not."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((LOCALHOST, port))
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise PortUnavailable(exc.errno, f"{option} {port}: {LOCALHOST}:{port} is in use (another program "
                                             "listens there, e.g. another `coworkenv serve`); pass "
                                             f"{option} with a free port, or stop the program holding it") from None
        if exc.errno == errno.EACCES:
            raise PortUnavailable(exc.errno, f"{option} {port}: not allowed to listen on {LOCALHOST}:{port} (ports "
                                             f"below 1024 need privileges); pass {option} with a port above 1023") from None
        raise PortUnavailable(exc.errno, f"{option} {port}: cannot listen on {LOCALHOST}:{port} "
                                         f"({exc.strerror or exc}); pass {option} with another port") from None
    sock.set_inheritable(True)
    return sock


def _uvicorn(app: Any, port: int, lifespan: Literal["on", "off"] = "on") -> uvicorn.Server:
    config = uvicorn.Config(app, host=LOCALHOST, port=port, log_level="warning", lifespan=lifespan)
    return uvicorn.Server(config)


async def serve_http(host: EpisodeHost, port: int, token: str, sock: socket.socket | None = None) -> None:
    """MCP over streamable HTTP at http://127.0.0.1:PORT/mcp, with the harness routes on the same port (on `sock`
    when given: a socket `listening_socket` bound)."""
    server = build_mcp_server(host)
    app = server.streamable_http_app(host=LOCALHOST, custom_starlette_routes=harness_routes(host, token))
    await _uvicorn(app, port).serve(sockets=None if sock is None else [sock])


async def serve_stdio(host: EpisodeHost, harness_port: int | None, token: str,
                      harness_sock: socket.socket | None = None) -> None:
    """MCP over stdio; with `harness_port`, the harness routes listen on 127.0.0.1:PORT meanwhile (on
    `harness_sock` when given)."""
    server = build_mcp_server(host)
    web = None
    if harness_port is not None:
        web = _uvicorn(Starlette(routes=harness_routes(host, token)), harness_port, lifespan="off")
    async with anyio.create_task_group() as group:
        if web is not None:
            group.start_soon(web.serve, None if harness_sock is None else [harness_sock])
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
        if web is not None:
            web.should_exit = True  # the client closed stdio: stop the harness routes too
