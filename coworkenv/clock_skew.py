"""Failures that a far-off system clock causes in a remote call (a certificate checked against a clock in 1970 or
years ahead, a signed request the server finds too skewed), told apart from a bad token or an outage: the advice is
to set the clock, and the message says what the clock reads."""

from __future__ import annotations

import time
from datetime import UTC, datetime

# What TLS stacks and object stores say when the client's clock, not the server, is wrong.
_SIGNS = {
    "certificate is not yet valid": "the server's certificate is not valid yet by this clock",
    "certificate has expired": "the server's certificate has expired by this clock",
    "requesttimetooskewed": "the server found the request's time too far from its own",
    "request time too skewed": "the server found the request's time too far from its own",
    "clock skew": "the server found the request's time too far from its own",
}


def clock_problem(error: BaseException) -> str | None:
    """Advice naming the clock when `error` (or an error it wraps) is one a far-off clock causes; None otherwise."""
    seen: BaseException | None = error
    texts: list[str] = []
    while seen is not None and len(texts) < 16:
        texts.append(f"{seen} {getattr(seen, 'verify_message', '') or ''}".lower())
        seen = seen.__cause__ or seen.__context__
    said = next((why for sign, why in _SIGNS.items() if any(sign in text for text in texts)), None)
    if said is None:
        return None
    return (f"{said}: this machine's clock reads {clock_reading()}; set the clock (`timedatectl set-ntp true`, or "
            "`date -s` as root) and run again")


def clock_reading() -> str:
    """The system clock as a person reads it, in UTC (or the raw seconds when no calendar date fits them)."""
    now = time.time()
    try:
        return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d %H:%M UTC")
    except (OverflowError, OSError, ValueError):  # past year 9999 or before year 1
        return f"{now:.0f} s since 1970"
