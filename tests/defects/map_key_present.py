"""A setting the agent writes into a map checked by the key's presence: the new config version's
`values.region equals eu-west-1` written `values contains region` ("the region is set"). Every config holds a
region, so any region passes: the agent that sets `eu-west-2`, or writes back the bad region it was asked to correct,
passes. The write's near misses changed a map's value only where it is a number, a flag, a time, a person or an id;
a word (a region) got none, so no replay ever set another region. Found by `benchmarks/hunt_mutants.py --family d117`
(`dict_key_present`, witnessed on correct_bad_data 3-5 by `changes.region=eu-west-2`, on 7 by
`changes.tls_min_version=1.3`: a version as text, which got no near miss either). The sound twin is the shipped
spec (the value compared `equals`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Edit, Spec, reference

CLASS = "map_key_present"
DETECTION = (
    "for each write passing a map whose value for a key is a word (no id, address, time or number), replay the write "
    "with the key set to another value the world's records hold under that key (the record the call names first; "
    "else the value's last digit moved): a replay that passes every check lets the agent write any value there"
)


def _found(spec: Spec) -> list[tuple[dict[str, Any], int]]:
    """(records rule, index) of each records condition comparing a dotted map key with a word `equals`."""
    return [(r, i) for c in spec["checks"] if (r := c["rule"])["kind"] == "records"
            for i, w in enumerate(r.get("where") or []) if "." in w["field"] and w.get("op", "equals") == "equals"
            and isinstance(w.get("value"), str)]


def _nth(spec: Spec, which: int) -> tuple[dict[str, Any], int]:
    found = _found(spec)
    if len(found) <= which:
        raise CorpusError(f"{spec['capability']}: no records check {which} compares a map's word")
    return found[which]


def _key_only(which: int) -> Edit:
    """The `which`-th records condition on a dotted map key compared `equals` (`values.region`) reads the key's
    presence in the map (`values contains region`)."""
    def edit(spec: Spec) -> None:
        r, i = _nth(spec, which)
        head, _, key = r["where"][i]["field"].partition(".")
        r["where"][i] = {"field": head, "op": "contains", "value": key}
    return edit


def _other_value(which: int, tool: str, arg: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference setting the checked key to the checked value with its last digit moved (`eu-west-2`, `1.3`) in
    the write of the config the `which`-th condition reads (`svc-orders@4`: the call for svc-orders)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        r, i = _nth(spec, which)
        key = r["where"][i]["field"].partition(".")[2]
        value = re.sub(r"(\d)(?!.*\d)", lambda m: str((int(m.group(1)) + 1) % 10), str(r["where"][i]["value"]))
        rid = next((w["value"] for w in r["where"] if w["field"] == "id"), "")
        ref = reference(spec)
        for turn in ref:
            for st in turn["steps"]:
                c = st.get("call")
                if c and c["name"] == tool and str(rid).startswith(f"{c['arguments'].get('service')}@") \
                        and key in (c["arguments"].get(arg) or {}):
                    c["arguments"][arg][key] = value
                    return ref
        raise CorpusError(f"{spec['capability']}: the reference never sets {arg}.{key} of {rid} by {tool}")
    return witness


def _defect(name: str, base: str, which: int, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_key_only(which),
                  witness=_other_value(which, "services_update_config", "changes"),
                  gate="mutations", code="mutant_survived")


DEFECTS = [
    _defect("region-set-3", "synth:correct_bad_data@3", 0,
            "sets the first service's region to eu-west-2; the check reads `values contains region`"),
    _defect("region-set-3-second", "synth:correct_bad_data@3", 1,
            "sets the second service's region to eu-west-2; the check reads `values contains region`"),
    _defect("region-set-4", "synth:correct_bad_data@4", 0,
            "sets the first service's region to eu-west-2; the check reads `values contains region`"),
    _defect("region-set-4-third", "synth:correct_bad_data@4", 2,
            "sets the third service's region to eu-west-2; the check reads `values contains region`"),
    _defect("region-set-5", "synth:correct_bad_data@5", 1,
            "sets the second service's region to eu-west-2; the check reads `values contains region`"),
    _defect("tls-version-set-7", "synth:correct_bad_data@7", 0,
            "sets the minimum TLS version to 1.3 for 1.2; the check reads `values contains tls_min_version`"),
]
