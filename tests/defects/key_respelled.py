"""A guard reads a map's key spelled otherwise than the records spell it, so its path never resolves.

A flag or config key reached through a dotted path (`flags.smart_retry`) written by hand as `flags.smart-retry`,
`flags.SmartRetry` or `flags.smart retry`: no record holds that key and `services_set_flag` refuses a key the service
lacks, so the path is always missing. "Never back on" (`not_equals true`) then always holds: the guard never fails.
The twin is the same guard with the key spelled as the records spell it.
"""

from __future__ import annotations

import re
from typing import Any

from tests.defects._core import Defect, Spec, check, with_call
from tests.defects.value_never_held import _kept_flag, _staging_flag

CLASS = "key_respelled"
DETECTION = (
    "for each dotted path into a map field of a record (a condition's field), collect the keys the table's records "
    "hold (initial world, dynamics and turn changes): a key no record holds that equals one of them once case, "
    "'-', '_' and spaces are set aside is a respelling, and the path never resolves"
)
GATE, CODE = "references", "key_respelled"


def _respell(key: str, how: str) -> str:
    """`key` spelled another way (`how`); a one-word key the way gives back unchanged is upper-cased."""
    out = _respelled(key, how)
    return out if out != key else key.upper()


def _respelled(key: str, how: str) -> str:
    parts = [p for p in re.split(r"[_\-\s]+", key) if p]
    if how == "dash":
        return "-".join(parts)
    if how == "camel":
        return parts[0] + "".join(p.capitalize() for p in parts[1:])
    if how == "upper":
        return key.upper()
    if how == "space":
        return " ".join(parts)
    return "_".join(p.capitalize() for p in parts)  # "title": Smart_Retry


def _staging_never_back(how: str | None):  # type: ignore[no-untyped-def]
    """The staging flag guard as "never the other value" (`not_equals`), its key respelled `how` (None: as is)."""
    def edit(spec: Spec) -> None:
        _, flag, value = _staging_flag(spec)
        rule = check(spec, "staging-rolled-back", "field")["rule"]
        rule.update(op="not_equals", value=not value)
        if how is not None:
            rule["target"]["field"] = "flags." + _respell(flag, how)
    return edit


def _harmful(op: str, value: bool) -> bool:
    """The flag value a guard on `op value` forbids."""
    return value if op == "not_equals" else not value


def _staging_back_on(spec: Spec) -> list[dict[str, Any]]:
    rule = check(spec, "staging-rolled-back", "field")["rule"]
    service, flag = rule["target"]["id"], rule["target"]["field"].split(".", 1)[1]
    return with_call(spec, "services_set_flag", {"service": service, "flag": flag,
                                                 "enabled": _harmful(rule["op"], rule["value"])})


def _kept_never_flipped(which: str, how: str | None):  # type: ignore[no-untyped-def]
    def edit(spec: Spec) -> None:
        w, _, flag = _kept_flag(spec, which)
        w.update(op="not_equals", value=not w["value"])
        if how is not None:
            w["field"] = "flags." + _respell(flag, how)
    return edit


def _kept_flipped(which: str):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict[str, Any]]:
        w, service, flag = _kept_flag(spec, which)
        return with_call(spec, "services_set_flag", {"service": service, "flag": flag,
                                                     "enabled": _harmful(w.get("op", "equals"), w["value"])})
    return witness


def _staging(name: str, base: str, how: str) -> Defect:
    return Defect(CLASS, name, base, f"turns the staging flag back on after the rollback: the guard's key is spelled "
                  f"{how}-wise and never resolves", breaks=_staging_never_back(how), fix=_staging_never_back(None),
                  witness=_staging_back_on, gate=GATE, code=CODE)


def _kept(name: str, base: str, which: str, how: str) -> Defect:
    return Defect(CLASS, name, base, f"flips another flag of the service: the guard's key is spelled {how}-wise and "
                  "never resolves", breaks=_kept_never_flipped(which, how), fix=_kept_never_flipped(which, None),
                  witness=_kept_flipped(which), gate=GATE, code=CODE)


DEFECTS = [
    _staging("staging-flag-dashed", "synth:feature_flag_rollout@1", "dash"),
    _staging("staging-flag-camel", "synth:feature_flag_rollout@2", "camel"),
    _staging("staging-flag-upper", "synth:feature_flag_rollout@4", "upper"),
    _staging("staging-flag-spaced", "synth:feature_flag_rollout@5", "space"),
    _kept("prod-other-flag-dashed", "synth:feature_flag_rollout@6", "prod", "dash"),
    _kept("incident-other-flag-camel", "synth:incident_investigate_fix@2", "only", "camel"),
    _kept("incident-other-flag-dashed", "synth:incident_investigate_fix@5", "only", "dash"),
    _kept("incident-other-flag-title-15", "synth:incident_investigate_fix@15", "only", "title"),
]
