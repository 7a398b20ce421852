"""Quantities the reference states in another unit than its source gives them: the config the reference read holds
`cache_ttl_s: 900`, `timeout_ms: 600`, `rate_limit_rps: 40` or `threshold_pct: 85`, a key that names its unit, and
the writer's message or reply says `15 minutes`, `15m`, `a quarter of an hour`, `0.6 s`, `2,400 requests per minute`
or `0.85`. Nobody asked for another unit; an agent that copies the value as the config gives it (`900`,
`cache_ttl_s=900`, `40 rps`, `85%`) is as right, and a check that wants the writer's conversion fails it
(`unit_pinned`).

Sources: the numbers the reference's read calls were shown under a key ending in a unit, in the turns so far: a time
unit (`_ms`, `_s`, `_sec`, `_seconds`, `_min`, `_minutes`, `_h`, `_hours`, `_d`, `_days`), a rate (`_rps`, `_qps`:
per second; `_rpm`: per minute; `_rph`: per hour) or a share (`_pct`, `_percent`). Each reply, and each free-text
argument of a write (one with a space in it), that states such a quantity in another unit of its kind is replayed
with it written as the source gives it, in the source's unit (`900 s`, `40 rps`, `85%`). Read in prose: a time as
digits or words and a unit (`15 minutes`, `15 min`, `15m`, `0.25 h`, `1½ s`, `fifteen minutes`, `an hour`), or an idiom
(`half an hour`, `a quarter of an hour`, `quarter-hour`, `half-hour`, `three quarters of an hour`, `an hour and a half`, `two and a half
minutes`, `half a second`); a rate as a number of requests (calls, queries, events) per second, minute or hour
(`2,400 requests per minute`, `2400 req/min`, `2,400/min`, `2400 rpm`); a share as a fraction (`0.85`), for a
`_pct` source only, or with its unit as a word (`85 percent`, `eighty-five percent`, `85 pct`: replayed as `85%`). A data size (`_bytes`, `_kb`, `_kib`, `_mb`, `_mib`, `_gb`, `_gib`) as a number and a unit
(`0.5 MB`, `2 MiB`, `1.5 GB`, `524,288 bytes`, `512 KiB`, `megabytes`): a kilobyte is 1000 or 1024 bytes as the writer
pleases, so a size is the source's where either reading makes it so (`max_body_kb: 512` is `0.5 MB`, `524,288 bytes`
and `512,000 bytes`), and it is replayed as the source gives it (`512 KB`) where its unit is another, `KiB` for `KB`
included.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from coworkenv.checks.results import AuditEntry
from coworkenv.spec import EnvSpec
from coworkenv.validate._mentions import _IN_WORDS, _in_words
from coworkenv.validate._user_formats import UserFormatted, rewritten
from coworkenv.validate.mutations import shown_op

# Milliseconds per unit, by the unit's spellings (in a key's suffix and in prose).
_MS = {"ms": 1, "millisecond": 1, "milliseconds": 1, "msec": 1, "s": 1000, "sec": 1000, "secs": 1000,
       "second": 1000, "seconds": 1000, "min": 60_000, "mins": 60_000, "minute": 60_000, "minutes": 60_000,
       "h": 3_600_000, "hr": 3_600_000, "hrs": 3_600_000, "hour": 3_600_000, "hours": 3_600_000,
       "d": 86_400_000, "day": 86_400_000, "days": 86_400_000}
# A quantity's kind and its size in the kind's base unit: time in ms, rates in events per hour, shares in basis
# points; the factor (base units per the unit stated) tells a unit from another of its kind.
_RATE = {"rps": 3600, "qps": 3600, "rpm": 60, "rph": 1, "s": 3600, "sec": 3600, "second": 3600, "min": 60,
         "minute": 60, "h": 1, "hr": 1, "hour": 1}
_KEY = re.compile(r"^[a-z][a-z0-9_]*_(ms|s|sec|seconds|min|minutes|h|hours|d|days|rps|qps|rpm|rph|pct|percent|"
                  r"bytes|kb|kib|mb|mib|gb|gib)$")
# Data sizes: each unit's own factor in bytes (a unit tells itself from another by it), and every size in bytes it
# can mean (a decimal unit is also read as the binary one of its name: a writer's `MB` is often 2**20 bytes).
_BYTES = {"bytes": 1, "byte": 1, "b": 1, "kb": 1000, "kilobytes": 1000, "kilobyte": 1000, "kib": 1024,
          "mb": 10**6, "megabytes": 10**6, "megabyte": 10**6, "mib": 2**20, "gb": 10**9, "gigabytes": 10**9,
          "gigabyte": 10**9, "gib": 2**30}
_READINGS = {1000: (1000, 1024), 10**6: (10**6, 2**20), 10**9: (10**9, 2**30)}
_SHORT = {("t", 1): "ms", ("t", 1000): "s", ("t", 60_000): "min", ("t", 3_600_000): "h", ("t", 86_400_000): "d",
          ("r", 3600): "rps", ("r", 60): "rpm", ("r", 1): "rph", ("p", 100): "%", ("b", 1): "bytes",
          ("b", 1000): "KB", ("b", 1024): "KiB", ("b", 10**6): "MB", ("b", 2**20): "MiB", ("b", 10**9): "GB",
          ("b", 2**30): "GiB"}
Kind = tuple[str, int]  # (kind, size in its base unit)
_NUMBER = r"(?:\d+(?:\.\d+)?|" + _IN_WORDS + r")"
_QUANTITY = re.compile(
    r"(?<![\w.,])(?:(?P<n>\d*½|\d+(?:\.\d+)?)|(?P<w>" + _IN_WORDS + r")|(?P<a>an|one))(?:\s*|-)"
    r"(?P<u>milliseconds?|msec|ms|seconds?|secs?|sec|s|minutes?|mins?|min|hours?|hrs?|hr|h|days?|d)(?![\w'\u2019])"
    # 15m: minutes only where the m follows the digits (15 m is a length)
    r"|(?<![\w.,])(?P<cm>\d+(?:\.\d+)?)m(?![\w'\u2019/])"
    # two and a half minutes, an hour and a half, half an hour, half a second
    r"|(?<![\w.,])(?P<ha>" + _NUMBER + r")\s+and\s+a\s+half\s+(?P<hu>seconds?|minutes?|hours?|days?)(?!\w)"
    r"|(?<![\w.,])(?:an?|one)\s+(?P<au>second|minute|hour|day)\s+and\s+a\s+half(?!\w)"
    r"|(?<![\w.,])half\s+an?\s+(?P<hf>second|minute|hour|day)(?!\w)|(?<![\w.,])(?:an?\s+)?half[\s-](?P<ah>hour|day)(?!\w)"
    r"|(?<![\w.,])(?:an?\s+)?(?P<q>(?:three[\s-])?quarters?)(?:\s+of\s+an|-)?\s*hour(?!\w)"
    # 2,400 requests per minute, 2400 req/min, 2,400/min, 2400 rpm
    r"|(?<![\w.,])(?P<rn>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?:(?:(?:requests?|reqs?|calls?|queries|events|hits)"
    r"(?:\s*/\s*|\s+(?:per|an?|each)\s+))|/\s*)(?P<ru>second|sec|s|minute|min|hour|hr|h)(?!\w)"
    r"|(?<![\w.,])(?P<rn2>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<ru2>rps|qps|rpm|rph)(?!\w)"
    # a data size: 0.5 MB, 2 MiB, 524,288 bytes, 1.5 gigabytes
    r"|(?<![\w.,])(?P<sn>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\s*(?P<su>bytes?|[kmg]i?b|(?:kilo|mega|giga)bytes?)(?![\w'\u2019])"
    # a share with its unit as a word: 85 percent, 85 per cent, 85-percent, eighty-five percent, 85 pct (a _pct source's own unit)
    r"|(?<![\w.,])(?P<pn>\d+(?:\.\d+)?|" + _IN_WORDS + r")(?:\s*|-)(?:percent|per\s+cent|pct)(?![\w'\u2019])"
    # a share as a fraction: 0.85 (for a _pct source only)
    r"|(?<![\w.,%])(?P<f>0?\.\d{1,4})(?![\w.,%])",
    re.IGNORECASE)


def _sources(results: Iterable[Any]) -> dict[Kind, tuple[float, int]]:
    """{quantity (kind, size in the kind's base unit): (value as shown, base units per its unit)} of every number
    shown under a key naming a unit."""
    out: dict[Kind, tuple[float, int]] = {}
    stack = list(results)
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                m = _KEY.match(key) if isinstance(key, str) else None
                if m and isinstance(item, int | float) and not isinstance(item, bool) and item > 0:
                    unit = m.group(1)
                    if unit in _BYTES:
                        for size in _READINGS.get(_BYTES[unit], (_BYTES[unit],)):
                            out.setdefault(("b", round(item * size)), (item, _BYTES[unit]))
                        continue
                    kind, factor = (("r", _RATE[unit]) if unit in ("rps", "qps", "rpm", "rph") else
                                    ("p", 100) if unit in ("pct", "percent") else ("t", _MS[unit]))
                    out.setdefault((kind, round(item * factor)), (item, factor))
                else:
                    stack.append(item)
        elif isinstance(value, list):
            stack += value
    return out


def _digits(written: str) -> float:
    """A number in digits, a half written `½` (`1½`, `½`)."""
    return float(written[:-1] or 0) + 0.5 if written.endswith("½") else float(written)


def _number(written: str) -> float:
    return _digits(written) if written[0].isdigit() or written[0] == "½" else float(_in_words(written))


def _stated(m: re.Match[str]) -> tuple[str, float, int] | None:
    """(kind, number, base units per its unit) of a quantity `_QUANTITY` matched, or None where it is none."""
    g: Callable[[str], str | None] = m.group
    if (spelled := g("u")) is not None:
        unit = _MS[spelled.lower()]
        if g("a") is not None and unit != 3_600_000:
            return None  # "an hour" only; "a second" is not a quantity anyone states
        return "t", (_digits(g("n") or "") if g("n") else (_in_words(g("w") or "") if g("w") else 1)), unit
    if g("cm") is not None:
        return "t", float(g("cm") or 0), 60_000
    half = g("hu") or g("au") or g("hf") or g("ah")
    if half is not None:
        unit = _MS[half.lower()]
        number = _number(g("ha") or "") + 0.5 if g("ha") else (1.5 if g("au") else 0.5)
        return "t", number * unit / 60_000, 60_000  # stated in minutes' worth, a unit of its own
    if (quarter := g("q")) is not None:
        return "t", (45 if quarter.lower().startswith("three") else 15), 60_000
    if g("rn") is not None or g("rn2") is not None:
        per = (g("ru") or g("ru2") or "").lower()
        return "r", float((g("rn") or g("rn2") or "0").replace(",", "")), _RATE[per]
    if (share := g("pn")) is not None:
        return "p", _number(share), 100
    return "p", float(g("f") or 0), 10_000


def _source_size(m: re.Match[str], sources: dict[Kind, tuple[float, int]]) -> str | None:
    """The data size `_QUANTITY` matched as a source gives it (`512 KB` for `0.5 MB`), where a source holds it in
    another unit, read either way (decimal or binary); None where none does."""
    unit = _BYTES[m.group("su").lower()]
    number = float(m.group("sn").replace(",", ""))
    for size in _READINGS.get(unit, (unit,)):
        found = sources.get(("b", round(number * size)))
        if found is not None and found[1] != unit:
            return f"{found[0]:.0f} {_SHORT[('b', found[1])]}" if float(found[0]).is_integer() else \
                f"{found[0]:g} {_SHORT[('b', found[1])]}"
    return None


def as_source_unit(text: str, sources: dict[Kind, tuple[float, int]]) -> str | None:
    """`text` with each quantity a source gives in another unit written in the source's (`15 minutes` -> `900 s`,
    `2,400 requests per minute` -> `40 rps`); None where there is none."""
    out, at = [], 0
    for m in _QUANTITY.finditer(text):
        if m.group("su") is not None:
            size = _source_size(m, sources)
            if size is not None:
                out += [text[at:m.start()], size]
                at = m.end()
            continue
        stated = _stated(m)
        if stated is None:
            continue
        kind, number, factor = stated
        found = sources.get((kind, round(number * factor)))
        # an idiom, or a share's unit as a word, is the source's unit written otherwise: replayed all the same
        idiom = (m.group("u") is None and m.group("cm") is None and kind == "t") or m.group("pn") is not None
        if found is None or (found[1] == factor and not idiom):
            continue
        out += [text[at:m.start()], f"{found[0]:g}{'' if kind == 'p' else ' '}{_SHORT[(kind, found[1])]}"]
        at = m.end()
    return None if not out else "".join(out) + text[at:]


def converted_units(spec: EnvSpec, audit: list[AuditEntry]) -> Iterator[UserFormatted]:
    """One replay per reply or free-text write of the reference stating a quantity its reads so far were shown in
    another unit, written in that unit (`audit`: the reference episode's)."""
    shown = [(e.turn, e.result) for e in audit if e.ok and shown_op(e) is not None]
    if not any(_sources([r]) for _, r in shown):
        return
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        sources = _sources(r for turn_of, r in shown if turn_of <= t)
        if not sources:
            continue

        def rewrite(value: str, reply: bool, sources: dict[Kind, tuple[float, int]] = sources) -> str | None:
            if not reply and " " not in value.strip():
                return None
            return as_source_unit(value, sources)
        for s in range(len(turn.steps)):
            found = rewritten(spec, t, s, rewrite, "the reply of turn {t} with the source's unit, {new!r}",
                              "{tool} with the source's unit, {shown}")
            if found is not None:
                yield found
