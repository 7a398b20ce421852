"""Logs: per-service log streams, written by the simulation and read-only to the agent."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import clamp, dump_many
from coworkenv.tools import ToolError, Toolkit, read
from coworkenv.world import AppDef, AppState, Key, Order, Record, Words, format_time, parse_time

Level = Literal["DEBUG", "INFO", "WARN", "ERROR"]
_RANK = {"DEBUG": 0, "INFO": 1, "WARN": 2, "ERROR": 3}
_AT_LEAST = {level: frozenset(k for k, r in _RANK.items() if r >= rank) for level, rank in _RANK.items()}


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
        needle = contains.lower() if contains else None
        table = self.world.table("logs", "lines")
        # Every word of the needle occurs in a matching message: the word index narrows, `where` decides.
        sets = [table.key("request").ids(request_id) if request_id is not None else None]
        order = "ts"
        between: tuple[Any, Any] | None = None
        windowed = lo is not None or hi is not None
        if windowed and table.key("canonical_ts").ids(False):  # some ts written otherwise: bound by parsed time
            sets.append({i for _, i in table.order("time").range(lo, hi)})
            windowed = False
        # Otherwise every ts is written as format_time writes it: string order is time order, the window bounds it.
        start, end = (format_time(lo) if windowed and lo is not None else None,
                      format_time(hi) if windowed and hi is not None else None)
        if service is not None:
            # A service's lines in (ts, id) order are one run of the (service, ts) order: only they are walked.
            order = "service_ts"
            between = ((service,) if start is None else (service, start),
                       (service + "\0",) if end is None else (service, end))
        elif windowed:
            between = (start, end)

        def where(line: LogLine) -> bool:
            return needle is not None and needle in line.message.lower()

        # The level is a membership test the query layer runs in C; every line is at DEBUG or above, so with no
        # level and no text asked, no line is tested (a tail walks in C).
        levels = {"level": _AT_LEAST[min_level]} if min_level and _RANK[min_level] else None
        rows = table.select(order, words=("message", needle), sets=sets, limit=clamp(limit), last=True,
                            where=where if needle is not None else None, between=between, field_in=levels)
        return dump_many(rows)

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


def _epoch(ts: str) -> float:
    """The line's time in epoch seconds, parsed once at write; an unreadable time is never inside a window."""
    try:
        return parse_time(ts)
    except ValueError:
        return float("-inf")


def _canonical(ts: str) -> bool:
    epoch = _epoch(ts)
    return epoch != float("-inf") and format_time(int(epoch)) == ts


APP = AppDef("logs", LogsState, LogsTools, "service logs (read-only): timestamp, level, request id, message", indexes={
    "lines": {
        "message": Words(lambda line: (line.message,)),
        "request": Key(lambda line: line.request_id),
        "canonical_ts": Key(lambda line: _canonical(line.ts)),
        "ts": Order(lambda line: line.ts),
        "service_ts": Order(lambda line: (line.service, line.ts)),
        "time": Order(lambda line: _epoch(line.ts)),
    },
})
