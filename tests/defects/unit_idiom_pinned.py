"""Unit idiom pinned: the source gives a quantity under a key naming its unit (`cache_ttl_s: 900`, `timeout_ms: 1500`,
`rate_limit_rps: 40`, `threshold_pct: 85`), and the writer's message or reply states it in another unit as people
write it in prose: `15m`, `a quarter of an hour`, `half an hour`, `a second and a half`, `2,400 requests per minute`,
`6,000 req/min`, `1½ s`, `0.85`. The check wants that form, so the agent that copies the value as the config gives it (`900`,
`cache_ttl_s=900`, `40 rps`, `85%`) fails. Nobody asked for another unit. The sound twin (the shipped spec) wants the
value as the source gives it.

unit_pinned's replay read a time only as a number and a spelled unit (`15 minutes`, `0.25 h`, `an hour`), and never a
rate nor a share, so main accepted every case here.

Caught by the unit replay (`unit_pinned`, `_units`): a time with its minutes attached (`15m`), a time idiom (`half an
hour`, `quarter-hour`, `an hour and a half`, `2½ seconds`), a rate per second, minute or hour
(`2,400 requests per minute`, `2400 req/min`, `2,400/min`, `2400 rpm`) for a `_rps`/`_qps`/`_rpm` source, and a fraction
(`0.85`) for a `_pct` source are replayed as the source gives them.
"""

from __future__ import annotations

from functools import partial

from tests.defects._core import CorpusError, replay_defect
from tests.defects.unit_pinned import pinned_dm, pinned_reply

CLASS = "unit_idiom_pinned"
DETECTION = (
    "replay the reference with each quantity it states in prose in another unit than the source's key names (`15m`, "
    "`a quarter of an hour`, `2,400 requests per minute`, `0.85` for `threshold_pct: 85`) written as the source "
    "gives it; a replay that fails a check the reference passes wants the writer's conversion"
)


def _name(key: str) -> str:
    return key.replace("_", " ").replace("ttl", "TTL")


def _compact(key: str, unit: str, value: int) -> tuple[str, str]:
    """Seconds as minutes with the m attached: `15m`."""
    if unit != "s" or value % 60:
        raise CorpusError(f"{key}_{unit}={value}: not whole minutes")
    return _name(key), f"{value // 60}m"


_IDIOMS = {("s", 900): "quarter-hour", ("s", 1800): "half-hour", ("s", 150): "2½ min", ("ms", 1500): "1½ s",
           ("ms", 2500): "2½ seconds"}


def _idiom(key: str, unit: str, value: int) -> tuple[str, str]:
    """A time as an idiom, in two words at most (a longer phrase is `wording_pinned`): `quarter-hour`, `1½ s`."""
    if (unit, value) not in _IDIOMS:
        raise CorpusError(f"{key}_{unit}={value}: no idiom")
    return _name(key), _IDIOMS[(unit, value)]


def _rate(form: str) -> partial[tuple[str, str]]:
    return partial(_per_minute, form)


def _per_minute(form: str, key: str, unit: str, value: int) -> tuple[str, str]:
    """Requests per second as per minute: `2,400 requests per minute` (`form` has `{n}`)."""
    if unit != "rps":
        raise CorpusError(f"{key}_{unit}={value}: not a rate per second")
    return key.replace("_", " ").replace(" rps", ""), form.format(n=f"{value * 60:,}")


def _fraction(key: str, unit: str, value: int) -> tuple[str, str]:
    """A percentage as a fraction: `0.85`."""
    if unit != "pct":
        raise CorpusError(f"{key}_{unit}={value}: not a percentage")
    return key.replace("_", " ").replace(" pct", ""), f"{value / 100:g}"


_defect = partial(replay_defect, CLASS, "unit_pinned")  # (name, base, breaks, away): the honest reference fails it

_LOOKUP = "synth:lookup_answer_source@"
_COMPACT = "DMs `cache_ttl_s=900`: the check wants the writer's `15m`, so the honest copy fails"
_IDIOM = "DMs `cache_ttl_s=900` or `timeout_ms=1500`: the check wants `quarter-hour` or `1½ s`"
_RATE = "DMs `rate_limit_rps=40`: the check wants `2,400` (requests per minute), `6,000 req/min` or `9,000/min`"
_SHARE = "DMs `threshold_pct=85`: the check wants the fraction `0.85`"
_REPLY = "tells the user `cache_ttl_s is 900`: the check wants `quarter-hour` (or `3m` for 180)"

DEFECTS = [
    *(_defect(f"ttl-compact-minutes-in-dm-{n}", f"{_LOOKUP}{n}", pinned_dm(_compact), _COMPACT)
      for n in (1, 38, 39, 45, 46, 57)),
    *(_defect(f"time-idiom-in-dm-{n}", f"{_LOOKUP}{n}", pinned_dm(_idiom), _IDIOM) for n in (3, 40, 37)),
    _defect("rate-per-minute-in-dm-13", f"{_LOOKUP}13",
            pinned_dm(_rate("{n} requests per minute"), lambda q: q.split()[0]), _RATE),
    _defect("rate-req-min-in-dm-24", f"{_LOOKUP}24", pinned_dm(_rate("{n} req/min")), _RATE),
    _defect("rate-slash-min-in-dm-67", f"{_LOOKUP}67", pinned_dm(_rate("{n}/min")), _RATE),
    _defect("share-fraction-in-dm-51", f"{_LOOKUP}51", pinned_dm(_fraction), _SHARE),
    _defect("time-idiom-in-reply-64", f"{_LOOKUP}64", pinned_reply(_idiom), _REPLY),
    _defect("ttl-compact-minutes-in-reply-50", f"{_LOOKUP}50", pinned_reply(_compact), _REPLY),
]
