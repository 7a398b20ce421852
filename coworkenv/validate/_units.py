"""Quantities the reference states in another unit than its source gives them: the config the reference read holds
`cache_ttl_s: 900` or `timeout_ms: 600`, a key that names its unit, and the writer's message or reply says `15
minutes` or `0.6 s`. Nobody asked for another unit; an agent that copies the value as the config gives it (`900`,
`cache_ttl_s=900`) is as right, and a check that wants the writer's conversion fails it (`unit_pinned`).

Sources: the numbers the reference's read calls were shown under a key ending in a time unit (`_ms`, `_s`, `_sec`,
`_seconds`, `_min`, `_minutes`, `_h`, `_hours`), in the turns so far. Each reply, and each free-text argument of a
write (one with a space in it), that states such a quantity in another time unit (`15 minutes`, `15 min`, `0.25 h`,
`an hour`, `fifteen minutes`) is replayed with it written as the source gives it, in the source's unit (`900 s`).
Sizes (`_kb`, `_mb`) are not read: a kilobyte is 1000 or 1024 bytes, as the writer pleases.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.checks.results import AuditEntry
from coworkenv.spec import EnvSpec
from coworkenv.validate._user_formats import _IN_WORDS, UserFormatted, _in_words, rewritten
from coworkenv.validate.mutations import is_write

# Milliseconds per unit, by the unit's spellings (in a key's suffix and in prose).
_MS = {"ms": 1, "millisecond": 1, "milliseconds": 1, "msec": 1, "s": 1000, "sec": 1000, "secs": 1000,
       "second": 1000, "seconds": 1000, "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000,
       "h": 3_600_000, "hr": 3_600_000, "hrs": 3_600_000, "hour": 3_600_000, "hours": 3_600_000}
_KEY = re.compile(r"^[a-z][a-z0-9_]*_(ms|s|sec|seconds|min|minutes|h|hours)$")
_SHORT = {1: "ms", 1000: "s", 60_000: "min", 3_600_000: "h"}
_QUANTITY = re.compile(
    r"(?<![\w.,])(?:(?P<n>\d+(?:\.\d+)?)|(?P<w>" + _IN_WORDS + r")|(?P<a>an|one))(?:\s*|-)"
    r"(?P<u>milliseconds?|msec|ms|seconds?|secs?|sec|s|minutes?|mins?|min|hours?|hrs?|hr|h)(?![\w'\u2019])",
    re.IGNORECASE)


def _sources(results: Iterable[Any]) -> dict[int, tuple[float, int]]:
    """{quantity in ms: (value as shown, ms per its unit)} of every number shown under a key naming a time unit."""
    out: dict[int, tuple[float, int]] = {}
    stack = list(results)
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                m = _KEY.match(key) if isinstance(key, str) else None
                if m and isinstance(item, int | float) and not isinstance(item, bool) and item > 0:
                    out.setdefault(round(item * _MS[m.group(1)]), (item, _MS[m.group(1)]))
                else:
                    stack.append(item)
        elif isinstance(value, list):
            stack += value
    return out


def as_source_unit(text: str, sources: dict[int, tuple[float, int]]) -> str | None:
    """`text` with each quantity a source gives in another unit written in the source's (`15 minutes` -> `900 s`);
    None where there is none."""
    out, at = [], 0
    for m in _QUANTITY.finditer(text):
        unit = _MS[m.group("u").lower()]
        if m.group("a") is not None and unit != 3_600_000:
            continue  # "an hour" only; "a second" is not a quantity anyone states
        number = float(m.group("n")) if m.group("n") else (_in_words(m.group("w")) if m.group("w") else 1)
        found = sources.get(round(number * unit))
        if found is None or found[1] == unit:
            continue
        out += [text[at:m.start()], f"{found[0]:g} {_SHORT[found[1]]}"]
        at = m.end()
    return None if not out else "".join(out) + text[at:]


def converted_units(spec: EnvSpec, audit: list[AuditEntry]) -> Iterator[UserFormatted]:
    """One replay per reply or free-text write of the reference stating a quantity its reads so far were shown in
    another unit, written in that unit (`audit`: the reference episode's)."""
    shown = [(e.turn, e.result) for e in audit if e.ok and e.tool in TOOLS and not is_write(e.tool)]
    if not any(_sources([r]) for _, r in shown):
        return
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        sources = _sources(r for turn_of, r in shown if turn_of <= t)
        if not sources:
            continue

        def rewrite(value: str, reply: bool, sources: dict[int, tuple[float, int]] = sources) -> str | None:
            if not reply and " " not in value.strip():
                return None
            return as_source_unit(value, sources)
        for s in range(len(turn.steps)):
            found = rewritten(spec, t, s, rewrite, "the reply of turn {t} with the source's unit, {new!r}",
                              "{tool} with the source's unit, {shown}")
            if found is not None:
                yield found
