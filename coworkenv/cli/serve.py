"""`coworkenv serve SPEC --mcp`: one environment as an MCP server for any harness (stdio or HTTP on 127.0.0.1)."""

from __future__ import annotations

import os
import secrets
import socket
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from coworkenv.atomic import atomic_write_bytes
from coworkenv.commands import error_line
from coworkenv.limits import MAX_STEPS

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
        help=f"Write the harness token here (mode 0600), or serve the token a file there holds; default: read it "
             f"from ${TOKEN_ENV}.")] = None,
    max_steps: Annotated[int, typer.Option(min=1, max=MAX_STEPS, help="Agent steps before the episode is cut off.")] = 200,
) -> None:
    """Serve one environment so an external agent can act in it; the harness reads the score over HTTP."""
    import anyio  # the MCP SDK and the server: imported when a server starts, not by every `coworkenv` command

    from coworkenv.examples import resolve_spec
    from coworkenv.loading import SpecError
    from coworkenv.serve import EpisodeHost, serve_http, serve_stdio
    from coworkenv.serve.mcp_server import PortUnavailable, listening_socket

    if not mcp:
        _fail("choose a protocol: --mcp")
    try:
        host = EpisodeHost(resolve_spec(spec), max_steps=max_steps)
    except (SpecError, ValueError) as exc:
        _fail(exc.line if isinstance(exc, SpecError) else str(exc))
        return
    sock: socket.socket | None = None
    try:  # before the token file is written or the address announced: a port in use serves nothing
        if transport is Transport.http:
            sock = listening_socket(port)
        elif harness_port is not None:
            sock = listening_socket(harness_port, "--harness-port")
    except PortUnavailable as exc:
        _fail(str(exc.strerror))
        return
    token = os.environ.get(TOKEN_ENV) or secrets.token_urlsafe(24)
    if token_file is not None:
        held = _token_held(token_file)  # refuses a file that holds anything else: it was overwritten
        if held is not None and TOKEN_ENV not in os.environ:
            token = held  # a token file of an earlier run (or the harness's own): its token is served again
        elif held is not None and held != token:
            _fail(f"--token-file {token_file} holds another token than ${TOKEN_ENV}; serve would replace it: remove "
                  f"the file, pass another path, or unset ${TOKEN_ENV} to serve the token the file holds")
        if held is None:
            atomic_write_bytes(token_file, token.encode(), private=True)  # 0600: the token is a secret
    elif TOKEN_ENV not in os.environ and (transport is Transport.http or harness_port is not None):
        _fail(f"the harness needs the scoring token: pass --token-file or set ${TOKEN_ENV}")
    if transport is Transport.http:
        typer.echo(f"MCP: http://127.0.0.1:{port}/mcp  harness: http://127.0.0.1:{port}/harness/score", err=True)
        anyio.run(serve_http, host, port, token, sock)
    else:
        anyio.run(serve_stdio, host, harness_port, token, sock)


def _fail(message: str) -> None:
    typer.echo(error_line(f"{message}"), err=True)
    raise typer.Exit(USAGE_ERROR)


_TOKEN_FILE_MAX = 4096  # bytes: a token is one short line


def _token_held(path: Path) -> str | None:
    """The token an existing `--token-file` holds, None when there is no file or it is empty; exits 2 when it holds
    something else.

    On main the option wrote over whatever the path named: a `.env` file, a spec, the user's notes, a harness's own
    token file were replaced by a new random token without a word."""
    if not path.exists() and not path.is_symlink():
        return None
    if not path.is_file():
        _fail(f"--token-file {path} is not a file; pass the path of a file (it is created when missing)")
    try:
        with path.open("rb") as handle:
            data = handle.read(_TOKEN_FILE_MAX + 1)
    except OSError as exc:
        _fail(f"--token-file {path}: cannot read it ({exc.strerror}); pass another path")
        return None
    if not data.strip():
        return None
    text = data.decode("ascii", "replace")
    line = text[:-1] if text.endswith("\n") else text
    line = line[:-1] if line.endswith("\r") else line
    if len(data) > _TOKEN_FILE_MAX or not line.isprintable() or any(c.isspace() or c == "\ufffd" for c in line):
        lines = data.count(b"\n") + (not data.endswith(b"\n"))
        size = f"over {_TOKEN_FILE_MAX} bytes" if len(data) > _TOKEN_FILE_MAX else f"{len(data)} bytes, {lines} line(s)"
        _fail(f"--token-file {path} exists and does not hold a harness token ({size}); serve would write over it: "
              "pass a path that does not exist, or one holding only a token")
    return line
