"""A flag left out of the call matchers: the task turns one flag of staging on, watches it fail and turns it back
off (`services_set_flag(service, flag="smart_retry", enabled=...)`), and the order checks that ask for the try and
the roll-back match the calls by service and value only, so the agent that tries another flag of the service
(`fast_search` on, then off) passes: both flags end as they began, and every state check still holds (the outsider's
fifth hunt, `benchmarks/hunt_mutants.py --family d83`; found by scanning which write arguments no near miss moves).
The mutations gate never named another key of the dict a keyed write sets: the flag is no record's id, and a near
miss of one call at a time would leave the other flag on, which the guard on the service's other flags fails. The same
holds for the service left out of the matchers where another service than production has the flag
(feature_flag_rollout 7: `svc-reports` holds `new_checkout` too)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Edit, Spec, calls, reference

CLASS = "flag_key_unprobed"
DETECTION = (
    "for a keyed write (an argument naming a key of a dict field of the record another argument names: a service's "
    "flag), replay the reference with another key of that dict in every write naming the record and key, not "
    "equivalent where the records end the same: a replay that passes lets the agent work on the wrong flag"
)


def _flag(spec: Spec) -> tuple[str, str, str]:
    """(the service, the flag the task toggles, another flag the service has)."""
    service, flag = _flag_named(spec)
    svc = next(r for r in spec["world"]["apps"]["services"]["services"] if r["id"] == service)
    others = sorted(f for f in svc.get("flags") or {} if f != flag)
    if not others:
        raise CorpusError(f"{spec['capability']}: {service} has no other flag")
    return service, flag, others[0]


def _holder(spec: Spec) -> str:
    """Another service holding the flag that no guard names (not production)."""
    svc, flag = _flag_named(spec)
    guarded = str([c["rule"] for c in spec["checks"] if c["rule"]["kind"] == "forbidden"])
    for r in spec["world"]["apps"]["services"]["services"]:
        if r["id"] != svc and flag in (r.get("flags") or {}) and repr(r["id"]) not in guarded:
            return r["id"]  # type: ignore[no-any-return]
    raise CorpusError(f"{spec['capability']}: no unguarded service but {svc} has {flag}")


def _flag_named(spec: Spec) -> tuple[str, str]:
    found = next(calls(spec, "services_set_flag"), None)
    if found is None:
        raise CorpusError(f"{spec['capability']}: the reference sets no flag")
    return found[2]["arguments"]["service"], found[2]["arguments"]["flag"]


def _unmatched(arg: str) -> Edit:
    """`arg` (the flag, or the service) left out of every completion check's matcher of the flag's calls."""
    def edit(spec: Spec) -> None:
        service, flag = _flag_named(spec)
        value = flag if arg == "flag" else service
        hit = 0
        for c in spec["checks"]:
            if c["rule"]["kind"] not in ("order", "called"):
                continue
            for key in ("call", "first", "then"):
                m = c["rule"].get(key)
                if isinstance(m, dict) and m.get("tool") == "services_set_flag" and (m.get("args") or {}).get(arg) == value:
                    del m["args"][arg]
                    hit += 1
        if not hit:
            raise CorpusError(f"{spec['capability']}: no check matches the flag's calls by {arg}")
    return edit


def _toggled_elsewhere(arg: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference with another flag of the service (or the flag of another service) tried and rolled back."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        svc, flag = _flag_named(spec)
        other = _flag(spec)[2] if arg == "flag" else _holder(spec)
        ref = reference(spec)
        for _, _, c in calls({"reference": ref, "capability": spec["capability"]}, "services_set_flag", service=svc,
                             flag=flag):
            c["arguments"][arg] = other
        return ref
    return witness


DEFECTS = [
    *(Defect(CLASS, f"rollout-flag-unmatched-{seed}", f"synth:feature_flag_rollout@{seed}",
             "tries another flag of staging and rolls it back: the checks match the calls by service and value only",
             breaks=_unmatched("flag"), witness=_toggled_elsewhere("flag"), gate="mutations", code="mutant_survived")
      for seed in (1, 3, 5, 10, 14, 16)),
    Defect(CLASS, "rollout-service-unmatched-7", "synth:feature_flag_rollout@7",
           "tries the flag on another service that has it (not production) and rolls it back: the checks match the "
           "calls by flag and value only", breaks=_unmatched("service"), witness=_toggled_elsewhere("service"),
           gate="mutations", code="mutant_survived"),
]
