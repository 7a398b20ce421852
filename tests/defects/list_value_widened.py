"""A list a config value holds, checked item by item: the approved access grant's `viewers` (a comma-separated
string a `services_update_config` call writes) read by a `contains` condition listing the existing viewers and the
requester. `contains` on a string reads each item as a substring, so the list with one more person at either end
(a grant to someone nobody approved) passes. The shipped generator had this hole until GENERATOR_VERSION 18; the
near misses lengthened a delimited list written as a scalar argument (`_delimited_extra`) but not one a dict argument
holds, so the gates accepted it.

The sound twins are the generator's specs since 18: the same `contains` and a `matches` condition admitting exactly
those items, in any order.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, check, reference

CLASS = "list_value_widened"
GATE, CODE = "mutations", "mutant_survived"  # the one-more near miss is an argument change
DETECTION = (
    "for each delimited list of people or records a write passes, as a scalar argument or as a value of a dict "
    "argument (a config's changes), the list with one more item of its kind: a near miss that passes every check "
    "means the checks admit an item the task never asked for"
)


def _contains_only(spec: Spec) -> None:
    """The grant's check as the generator wrote it before 18: the items by `contains`, no bound on the list."""
    rule = check(spec, "access-granted")["rule"]
    kept = [w for w in rule["where"] if not (w["field"] == "values.viewers" and w.get("op") == "matches")]
    if len(kept) == len(rule["where"]):
        raise CorpusError(f"{spec['capability']}: the viewers are not pinned by a pattern")
    rule["where"] = kept


def _one_more(at_end: bool):  # type: ignore[no-untyped-def]
    """Witness: the grant lists one more person of the directory, at the list's end or its start."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        found = [c for _, _, c in calls({"reference": ref, "capability": spec["capability"]}, "services_update_config")
                 if "viewers" in c["arguments"].get("changes", {})]
        if not found:
            raise CorpusError(f"{spec['capability']}: the reference writes no viewers")
        for c in found:
            written = str(c["arguments"]["changes"]["viewers"])
            listed = {v.strip().lower() for v in written.split(",")}
            other = next(p["email"] for p in spec["world"]["apps"]["directory"]["people"]
                         if p["email"].lower() not in listed)
            c["arguments"]["changes"]["viewers"] = f"{written},{other}" if at_end else f"{other},{written}"
        return ref
    return witness


DEFECTS = [
    *(Defect(CLASS, f"viewers-one-more-{seed}", f"synth:access_request_approval@{seed}",
             f"grants read access to one more person than approved ({'after' if end else 'before'} the right list): "
             "each viewer is read by `contains`, the list's length by nothing", breaks=_contains_only,
             witness=_one_more(end), gate=GATE, code=CODE)
      for seed, end in ((1, True), (2, True), (4, True), (6, False), (7, False), (8, True))),
]
