"""Serving one environment to any harness: an MCP server (stdio or streamable HTTP) over an episode host."""

from coworkenv.serve.episode_host import REPLY_TOOL, EpisodeHost
from coworkenv.serve.mcp_server import build_mcp_server, harness_routes, serve_http, serve_stdio

__all__ = ["REPLY_TOOL", "EpisodeHost", "build_mcp_server", "harness_routes", "serve_http", "serve_stdio"]
