"""`coworkenv serve SPEC --mcp`: one environment as an MCP server for any harness (stdio or HTTP on 127.0.0.1)."""

from __future__ import annotations

import os
import secrets
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import anyio
import typer

from coworkenv.atomic import atomic_write_bytes
from coworkenv.commands import error_line
from coworkenv.examples import resolve_spec
from coworkenv.limits import MAX_STEPS
from coworkenv.loading import SpecError
from coworkenv.serve import EpisodeHost, serve_http, serve_stdio

TOKEN_ENV = "COWORKENV_HARNESS_TOKEN"
USAGE_ERROR = 2
# A port past it ended in a traceback from the socket; 0 served on a port the system chose while the command
# printed `:0` as the address.
MAX_PORT = 65_535


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


def serve_command(
    spec: Annotated[str, typer.Argument(help="An example name or a spec JSON path.")],
    mcp: Annotated[bool, typer.Option("--mcp", help="Serve the Model Context Protocol (the only protocol so far).")]
    = False,
    transport: Annotated[Transport, typer.Option(help="stdio (launched by the client) or streamable HTTP.")]
    = Transport.stdio,
    port: Annotated[int, typer.Option(min=1, max=MAX_PORT, help="HTTP port on 127.0.0.1 (transport http).")] = 8765,
    harness_port: Annotated[int | None, typer.Option(
        min=1, max=MAX_PORT, help="With stdio: also serve the harness score routes on 127.0.0.1:PORT.")] = None,
    token_file: Annotated[Path | None, typer.Option(
        help=f"Write the harness token here (mode 0600); default: read it from ${TOKEN_ENV}.")] = None,
    max_steps: Annotated[int, typer.Option(min=1, max=MAX_STEPS, help="Agent steps before the episode is cut off.")] = 200,
) -> None:
    """Serve one environment so an external agent can act in it; the harness reads the score over HTTP."""
    if not mcp:
        _fail("choose a protocol: --mcp")
    try:
        host = EpisodeHost(resolve_spec(spec), max_steps=max_steps)
    except (SpecError, ValueError) as exc:
        _fail(str(exc))
        return
    token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
    if token_file is not None:
        atomic_write_bytes(token_file, token.encode())  # mkstemp: created 0600, renamed into place
    elif TOKEN_ENV not in os.environ and (transport is Transport.http or harness_port is not None):
        _fail(f"the harness needs the scoring token: pass --token-file or set ${TOKEN_ENV}")
    if transport is Transport.http:
        typer.echo(f"MCP: http://127.0.0.1:{port}/mcp  harness: http://127.0.0.1:{port}/harness/score", err=True)
        anyio.run(serve_http, host, port, token)
    else:
        anyio.run(serve_stdio, host, harness_port, token)


def _fail(message: str) -> None:
    typer.echo(error_line(f"{message}"), err=True)
    raise typer.Exit(USAGE_ERROR)
