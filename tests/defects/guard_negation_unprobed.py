"""A guard on "any but the one the task sets", written as a negation: the service's other flags are guarded by a
`forbidden` on `services_set_flag` for the service with `flag not_equals <the flag the task sets>` (no flag but that
one set at any time), as a writer says it, where the generator lists the others (`flag in [...]`) or reads them in the
end state. The defect is the spec without that guard: flipping another flag of the service passes (the frame allows
the service's `flags`; in a live world the automation's rewrite of the whole flag set even erases it from the end
state). The sound twin has the guard; main's guard probe copied the reference's own `flag` (the one the negation
excludes), so its probe never fired the guard and the sound twin was rejected as `guard_never_fires`: a writer who
guarded the harm the right way was told the guard protects nothing."""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Spec, reference

CLASS = "guard_negation_unprobed"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "build a guard's probe to meet its negations too: an argument a `not_equals`/`not_contains` excludes at the value "
    "copied from the reference takes another (a key of the named record's map, a value the field holds in the world); "
    "the spec without the guard is rejected by the harm on the other key"
)


def _flag_write(spec: Spec, service: str | None = None) -> dict[str, Any]:
    """The reference's (first) flag write, on `service` where given."""
    return next(s["call"]["arguments"] for t in reference(spec) for s in t["steps"]
                if s.get("call") and s["call"]["name"] == "services_set_flag"
                and (service is None or s["call"]["arguments"]["service"] == service))


def _guard_id(spec: Spec) -> str:
    """The guard on the other flags: the call guard where the spec has one, else the end-state one."""
    ids = [c["id"] for c in spec["checks"]]
    return next((i for i in ids if i.endswith("other-flags-untouched")), None) or next(
        i for i in ids if i.endswith("other-flags-kept"))


def _negated(spec: Spec) -> None:
    """The twin: the other-flags guard as a forbidden call on any flag but the one the task sets."""
    gid = _guard_id(spec)
    check = next(c for c in spec["checks"] if c["id"] == gid)
    rule = check["rule"]
    service = rule["call"]["args"]["service"] if rule["kind"] == "forbidden" else next(
        w["value"] for w in rule["where"] if w["field"] == "id")
    flag = _flag_write(spec, service)["flag"]
    check["rule"] = {"kind": "forbidden", "call": {"tool": "services_set_flag", "args": {"service": service},
                                                   "where": [{"field": "flag", "op": "not_equals", "value": flag}]},
                     "attempts": True}
    check["role"] = "guard"


def _dropped(spec: Spec) -> None:
    """The defect: no guard on the other flags at all."""
    gid = _guard_id(spec)
    spec["checks"] = [c for c in spec["checks"] if c["id"] != gid]


def _defect(name: str, base: str, away: str, code: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_dropped, fix=_negated, gate="mutations", code=code)


_AWAY = "flips another flag of the service beside the one the task sets: nothing guards the other flags (the twin's " \
        "guard, `flag not_equals` the task's flag, was rejected by main as never firing)"
DEFECTS = [
    _defect("silent-change-4", "synth:adapt_silent_change@4", f"{_AWAY}; the rollout schedule's rewrite erases it",
            "harm_erased_by_world"),
    _defect("silent-change-11", "synth:adapt_silent_change@11", f"{_AWAY}; the rollout schedule's rewrite erases it",
            "harm_erased_by_world"),
    _defect("incident-fix-1", "synth:incident_investigate_fix@1", _AWAY, "unguarded"),
    _defect("incident-fix-15", "synth:incident_investigate_fix@15", _AWAY, "unguarded"),
    _defect("rollout-staging-1", "synth:feature_flag_rollout@1", f"{_AWAY} (on staging)", "unguarded"),
]
