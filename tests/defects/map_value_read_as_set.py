"""A setting written into a map read only by what it is not: the new config version's `values.region equals
eu-west-1` written `values.region not_equals eu-central-1` ("no longer the bad region") or `not_contains` it, or a
part of it (`not_contains central`), or moved onto a `called` check of the write (`changes.region not_equals
eu-central-1`). The condition reads the key's value, yet admits every region but one: the agent
that sets `eu-west-2` passes. The write's near misses for a map's word are the other values the world holds under
the key (`_map_values`); where the only one is the bad value the condition excludes (correct_bad_data 4, 5 and 20:
every service but the broken ones runs eu-west-1), none passed the condition and none tried another region. The sound twin
is the shipped spec (the value compared `equals`)."""

from __future__ import annotations

from tests.defects._core import Defect, Edit, Spec
from tests.defects.map_key_present import _nth, _other_value

CLASS = "map_value_read_as_set"
DETECTION = (
    "for each value a write puts into a map (a word or an id; not a person, a channel or free text) that a completion "
    "check reads on its key by a negated condition (`not_equals`, `not_contains`) it meets, try the write with the "
    "values the world holds under the key, then the value with its last digit moved, that the condition admits too: "
    "a near miss that passes every required check shows the check reads the setting only as changed"
)


def _old(spec: Spec, which: int, key: str) -> str:
    """The value under `key` of the active config of the service whose new config the `which`-th condition reads."""
    r, _ = _nth(spec, which)
    rid = next(str(w["value"]) for w in r["where"] if w["field"] == "id")
    svc = rid.partition("@")[0]
    state = spec["world"]["apps"]["services"]
    active = next(s["config_version"] for s in state["services"] if s["id"] == svc)
    return str(next(c for c in state["configs"] if c["service"] == svc and c["version"] == active)["values"][key])


def _negated(which: int, op: str, part: int | None = None) -> Edit:
    """The `which`-th map condition compared `equals` read as `op` the service's old value (`part`: only that
    `-`-separated part of it, `central` of `eu-central-1`)."""
    def edit(spec: Spec) -> None:
        r, i = _nth(spec, which)
        w = r["where"][i]
        old = _old(spec, which, w["field"].partition(".")[2])
        w["op"], w["value"] = op, old if part is None else old.split("-")[part]
    return edit


def _by_call(which: int) -> Edit:
    """The `which`-th map condition moved off the new config onto a `called` check of the write: the call set the
    key to anything but the old value (`services_update_config where changes.region not_equals eu-central-1`)."""
    def edit(spec: Spec) -> None:
        r, i = _nth(spec, which)
        key = r["where"][i]["field"].partition(".")[2]
        old = _old(spec, which, key)
        svc = next(str(w["value"]) for w in r["where"] if w["field"] == "id").partition("@")[0]
        del r["where"][i]
        spec["checks"].append({"id": f"{svc}-{key}-changed", "description": f"{svc}'s {key} set away from {old}",
                               "rule": {"kind": "called", "call": {
                                   "tool": "services_update_config", "args": {"service": svc},
                                   "where": [{"field": f"changes.{key}", "op": "not_equals", "value": old}]}}})
    return edit


def _defect(name: str, base: str, which: int, op: str, part: int | None = None) -> Defect:
    breaks = _by_call(which) if op == "called" else _negated(which, op, part)
    return Defect(CLASS, name, base, _AWAY, breaks=breaks,
                  witness=_other_value(which, "services_update_config", "changes"),
                  gate="mutations", code="negated_value_accepted")


_AWAY = "sets the region to eu-west-2: the check reads the new config's region only as not the bad one"

DEFECTS = [
    _defect("region-not-old-4", "synth:correct_bad_data@4", 0, "not_equals"),
    _defect("region-not-old-4-second", "synth:correct_bad_data@4", 1, "not_equals"),
    _defect("region-lacks-old-4-third", "synth:correct_bad_data@4", 2, "not_contains"),
    _defect("region-not-old-5-third", "synth:correct_bad_data@5", 2, "not_equals"),
    _defect("region-lacks-old-5", "synth:correct_bad_data@5", 0, "not_contains"),
    _defect("region-lacks-part-5-second", "synth:correct_bad_data@5", 1, "not_contains", 1),
    _defect("region-not-old-20-second", "synth:correct_bad_data@20", 1, "not_equals"),
    _defect("region-lacks-part-20", "synth:correct_bad_data@20", 0, "not_contains", 0),
    _defect("region-call-not-old-4-third", "synth:correct_bad_data@4", 2, "called"),
    _defect("region-call-not-old-20", "synth:correct_bad_data@20", 0, "called"),
]
