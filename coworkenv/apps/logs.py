"""Logs: per-service log streams, written by the simulation and read-only to the agent."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import clamp, dump
from coworkenv.tools import ToolError, Toolkit, read
from coworkenv.world import AppDef, AppState, Record, parse_time

Level = Literal["DEBUG", "INFO", "WARN", "ERROR"]
_RANK = {"DEBUG": 0, "INFO": 1, "WARN": 2, "ERROR": 3}


class LogLine(Record):
    service: str
    ts: str
    level: Level
    request_id: str = ""
    message: str


class LogsState(AppState):
    lines: list[LogLine] = []


class LogsTools(Toolkit):
    app = "logs"

    @read
    def search(
        self, service: str | None = None, min_level: Level | None = None, request_id: str | None = None,
        contains: str | None = None, since: str | None = None, until: str | None = None, limit: int = 50,
    ) -> list[dict[str, Any]]:
        """Search log lines, oldest first.

        Args:
            service: Only this service id.
            min_level: Only lines at this level or above (DEBUG < INFO < WARN < ERROR).
            request_id: Only lines of this request id.
            contains: Only lines whose message contains this text (case-insensitive).
            since: Only lines at or after this ISO-8601 time.
            until: Only lines before this ISO-8601 time.
            limit: Maximum number of lines (the latest ones are kept).
        """
        try:
            lo = parse_time(since) if since else None
            hi = parse_time(until) if until else None
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        rank = _RANK[min_level] if min_level else 0
        needle = contains.lower() if contains else None
        rows = [
            line for line in self.rows("lines")
            if (service is None or line.service == service)
            and _RANK[line.level] >= rank
            and (request_id is None or line.request_id == request_id)
            and (needle is None or needle in line.message.lower())
            and (lo is None or parse_time(line.ts) >= lo)
            and (hi is None or parse_time(line.ts) < hi)
        ]
        rows.sort(key=lambda line: (line.ts, line.id))
        return [dump(line) for line in rows[-clamp(limit):]]

    @read
    def tail(self, service: str, lines: int = 20) -> list[dict[str, Any]]:
        """The latest log lines of a service.

        Args:
            service: Service id.
            lines: How many lines.
        """
        if service not in self.world.table("services", "services"):
            raise ToolError(f"no service {service!r}; use services_list_services")
        return self.search(service=service, limit=lines)


APP = AppDef("logs", LogsState, LogsTools, "service logs (read-only): timestamp, level, request id, message")
