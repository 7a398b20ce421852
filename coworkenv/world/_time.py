"""World-clock time: UTC seconds, ISO-8601 strings at the wire. Nothing here reads the wall clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


@lru_cache(maxsize=8192)  # pure, and called for every event and log line a tool looks at
def parse_time(value: str) -> int:
    """Parse an ISO-8601 time (with `Z` or an offset) into UTC epoch seconds."""
    try:
        parsed = datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not an ISO-8601 time: {value!r} (expected e.g. 2026-03-02T09:00:00Z)") from exc
    if parsed.tzinfo is None:
        raise ValueError(f"time {value!r} has no time zone; add 'Z' or an offset such as +01:00")
    return int(parsed.timestamp())


def format_time(seconds: int) -> str:
    """UTC epoch seconds as `YYYY-MM-DDTHH:MM:SSZ`."""
    # The clock moves on every call (a cache would miss): the date part is cached, the time of day read from tables.
    days, rest = divmod(int(seconds), 86400)
    minutes, secs = divmod(rest, 60)
    return _utc_date(days) + "T" + _HH_MM[minutes] + _SS[secs] + "Z"


_SS = tuple(f"{s:02d}" for s in range(60))
_HH_MM = tuple(f"{h:02d}:{m:02d}:" for h in range(24) for m in range(60))  # by minute of the day


@lru_cache(maxsize=4096)
def _utc_date(days: int) -> str:
    return (_EPOCH + timedelta(days=days)).strftime("%Y-%m-%d")


def local_time(seconds: int, timezone: str) -> str:
    """Epoch seconds rendered in an IANA time zone, with its offset."""
    return datetime.fromtimestamp(seconds, zone(timezone)).isoformat()


def zone(name: str) -> ZoneInfo:
    """The IANA zone `name`, or a ValueError naming it."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {name!r}; use an IANA name such as Europe/Madrid") from exc
