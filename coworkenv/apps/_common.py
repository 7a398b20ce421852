"""Small shared pieces of the app toolkits."""

from __future__ import annotations

from typing import Any

from coworkenv.tools import ToolError
from coworkenv.world import Record, parse_time

MAX_LIMIT = 200


def matches(query: str | None, *texts: str | None) -> bool:
    """Case-insensitive: every word of `query` occurs in one of `texts`."""
    if not query:
        return True
    haystack = " ".join(t for t in texts if t).lower()
    return all(word in haystack for word in query.lower().split())


def dump(record: Record, *fields: str) -> dict[str, Any]:
    """A record as JSON; only `fields` when given (summaries keep observations short)."""
    data = record.model_dump(mode="json")
    return {k: data[k] for k in fields} if fields else data


def clamp(limit: int) -> int:
    return max(1, min(limit, MAX_LIMIT))


def parse_when(value: str) -> int:
    """An ISO-8601 time argument as UTC seconds, or a ToolError saying how to write it."""
    try:
        return parse_time(value)
    except ValueError as exc:
        raise ToolError(str(exc)) from None
