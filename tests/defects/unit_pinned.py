"""Unit pinned: the source gives a quantity in one unit, a config value whose key names it (`cache_ttl_s: 900`,
`timeout_ms: 600`), the writer's message or reply converts it (`15 minutes`, `0.6 s`, `1 hour`) and the check wants
the converted form. Nobody asked for another unit, so the agent that copies the value as the config gives it (`900`,
`cache_ttl_s=900`) fails. The sound twin (the shipped spec) wants the value as the source gives it.

Narrow: only lookup_answer_source states a config value to a reader (seeds 1, 3, 9, 14 of 1-30 ask one with a unit
in its key; the others ask a document's fact).

Caught by the unit replay (`unit_pinned`, `_units`): each reply or free-text write of the reference that states, in
another unit, a quantity the reference's reads were shown under a key naming its unit is replayed with the value as
shown (`900 s`); a replay that fails a check the reference passes wants the writer's conversion.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import partial
from typing import Any

from tests.defects._core import CorpusError, Spec, replay_defect

CLASS = "unit_pinned"
DETECTION = (
    "replay the reference with each quantity it states in another unit than the source's key names "
    "(`15 minutes` for `cache_ttl_s: 900`) written as the source gives it (`900 s`); a replay that fails a check the "
    "reference passes wants the writer's conversion"
)

_KEY = re.compile(r"\b([a-z_]+?)_(ms|s|rps|pct|bytes|kb|mb|mib)=(\d+)")
Convert = Callable[[str, str, int], tuple[str, str]]  # (key, unit, value) -> (the writer's prose for it, quantity)


def _converted(key: str, unit: str, value: int) -> tuple[str, str]:
    """(the writer's prose for the setting, the converted quantity): `cache TTL`, `15 minutes`."""
    name = key.replace("_", " ").replace("ttl", "TTL")
    seconds = value / 1000 if unit == "ms" else value
    if seconds >= 3600 and seconds % 3600 == 0:
        n = int(seconds // 3600)
        return name, f"{n} hour{'s' if n > 1 else ''}"
    if seconds >= 60 and seconds % 60 == 0:
        return name, f"{int(seconds // 60)} minutes"
    return name, f"{seconds:g} s" if seconds < 1 else f"{seconds:g} seconds"


def _dm(spec: Spec) -> dict[str, Any]:
    for turn in spec["reference"]:
        for step in turn["steps"]:
            call = step.get("call")
            if call and call["name"] == "chat_send_dm" and _KEY.search(call["arguments"]["text"]):
                return call  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no DM states a config value with a unit in its key")


def pinned_dm(convert: Convert, pin: Callable[[str], str] = str) -> Callable[[Spec], None]:
    """The DM says the quantity as `convert` writes it, and the DM's check wants it (or the part of it `pin` keeps:
    the number of `2,400 requests per minute`) instead of the value."""
    def edit(spec: Spec) -> None:
        call = _dm(spec)
        m = _KEY.search(call["arguments"]["text"])
        assert m is not None
        key, unit, value = m.group(1), m.group(2), m.group(3)
        name, quantity = convert(key, unit, int(value))
        call["arguments"]["text"] = call["arguments"]["text"].replace(m.group(0), f"a {name} of {quantity}")
        hits = 0
        for c in spec["checks"]:
            rule = c["rule"]
            if rule["kind"] != "records" or rule["table"] != "messages":
                continue
            for w in rule["where"]:
                if w["field"] == "text" and w.get("op") == "contains" and w["value"] == value:
                    w["value"] = pin(quantity)
                    hits += 1
        if not hits:
            raise CorpusError(f"{spec['capability']}: no check wants {value} in the DM")
    return edit


def pinned_reply(convert: Convert) -> Callable[[Spec], None]:
    """The reply to the user says the quantity as `convert` writes it, and a text check wants it instead of the check
    that the reply states the config's value."""
    def edit(spec: Spec) -> None:
        m = _KEY.search(_dm(spec)["arguments"]["text"])
        assert m is not None
        key, unit, value = m.group(1), m.group(2), m.group(3)
        name, quantity = convert(key, unit, int(value))
        say = [s for s in spec["reference"][-1]["steps"] if s.get("say")][-1]
        shown = f"{key}_{unit} is {value}"
        if shown not in say["say"]:
            raise CorpusError(f"{spec['capability']}: the reply does not say {shown!r}")
        say["say"] = say["say"].replace(shown, f"the {name} is {quantity}")
        found = [c for c in spec["checks"] if c["rule"]["kind"] == "reply_states"
                 and c["rule"]["source"]["field"].startswith("values.")]
        if not found:
            raise CorpusError(f"{spec['capability']}: no check that the reply states the config's value")
        found[0]["rule"] = {"kind": "text", "scope": "final", "turn": 0, "all_of": [quantity], "words": True}
    return edit


_in_dm = pinned_dm(_converted)
_in_reply = pinned_reply(_converted)


_defect = partial(replay_defect, CLASS, "unit_pinned")  # (name, base, breaks, away): the honest reference fails it


_DM = ("DMs the setting as the config gives it, `cache_ttl_s=900` or `timeout_ms=600`: the check wants the writer's "
       "conversion, `15 minutes` or `0.6 s`, so the honest copy fails")
_REPLY = "tells the user `cache_ttl_s is 900`: the check wants `15 minutes`"
_LOOKUP = "synth:lookup_answer_source@"

DEFECTS = [
    *(_defect(f"config-value-converted-in-dm-{n}", f"{_LOOKUP}{n}", _in_dm, _DM) for n in (1, 9, 14, 37, 38, 46)),
    *(_defect(f"config-value-converted-in-reply-{n}", f"{_LOOKUP}{n}", _in_reply, _REPLY) for n in (3, 39)),
]
