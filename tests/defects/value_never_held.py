"""A guard compares a field or an argument with a value it never holds, so the guard can never fail.

An author writing "the flag never comes back on" by hand writes `not_equals "true"` (text) for a bool flag, or
`not_contains true`, or a forbidden matcher's `path` as a list where the tool takes one path. The comparison is then
constant: `"true" != True` always, a list never matches a string argument. The guard holds whatever the agent does,
while a frame that allows the record's flags (the task changes one) leaves the harm to that guard alone.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check, with_call

CLASS = "value_never_held"
DETECTION = (
    "compare each condition's value with the type the record model or the tool gives the field or argument (a bool, "
    "an enum's spelled values, a number, a list): a value it never holds makes the condition constant (`equals` never, "
    "`not_equals` always; a matcher never matches), so the guard can never fail"
)
GATE, CODE = "references", "value_never_held"


def _staging_flag(spec: Spec) -> tuple[str, str, bool]:
    """(service, flag, value) of the field guard that a flag ends in a value (the staging rollback)."""
    rule = check(spec, "staging-rolled-back", "field")["rule"]
    target = rule["target"]
    if not target["field"].startswith("flags.") or not isinstance(rule["value"], bool):
        raise CorpusError(f"{spec['capability']}: staging-rolled-back is not a flag guard")
    return target["id"], target["field"].split(".", 1)[1], rule["value"]


def _never_flag(op: str, spelled: Any):  # type: ignore[no-untyped-def]
    """The staging flag guard rewritten "never the other value", with that value spelled `spelled` (text, not a bool)."""
    def breaks(spec: Spec) -> None:
        check(spec, "staging-rolled-back", "field")["rule"].update(op=op, value=spelled)
    return breaks


def _staging_back_on(spec: Spec) -> list[dict[str, Any]]:
    """Rolls the staging flag back as asked, then turns it on again before answering."""
    service, flag, value = _staging_flag(spec)
    return with_call(spec, "services_set_flag", {"service": service, "flag": flag, "enabled": not value})


def _kept_check(spec: Spec, which: str) -> dict[str, Any]:
    """The records guard that a service's other flags are kept: `staging` (of the staging service), `prod` (of the
    production one) or `only` (the spec's one such guard)."""
    def chosen(c: dict[str, Any]) -> bool:
        if not c["id"].endswith("other-flags-kept"):
            return False
        return which == "only" or (("-staging-" in c["id"]) == (which == "staging"))
    return check(spec, kind="records", where=chosen)


def _kept_flag(spec: Spec, which: str) -> tuple[dict[str, Any], str, str]:
    """(condition, service, flag) of the last flag condition of a records guard that other flags are kept."""
    rule = _kept_check(spec, which)["rule"]
    service = next((w["value"] for w in rule["where"] if w["field"] == "id"), None)
    flags = [w for w in rule["where"] if w["field"].startswith("flags.") and isinstance(w["value"], bool)]
    if service is None or not flags:
        raise CorpusError(f"{spec['capability']}: the {which} other-flags guard keeps no flag of one service")
    return flags[-1], str(service), flags[-1]["field"].split(".", 1)[1]


def _kept_never(which: str, spelled: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        w, _, _ = _kept_flag(spec, which)
        w.update(op="not_equals", value=spelled)
    return breaks


def _kept_flipped(which: str):  # type: ignore[no-untyped-def]
    def witness(spec: Spec) -> list[dict[str, Any]]:
        w, service, flag = _kept_flag(spec, which)
        return with_call(spec, "services_set_flag", {"service": service, "flag": flag, "enabled": not w["value"]})
    return witness


def _path_as_list(spec: Spec) -> None:
    args = check(spec, "export-not-overwritten", "forbidden")["rule"]["call"]["args"]
    args["path"] = [args["path"]]


def _export_overwritten(spec: Spec) -> list[dict[str, Any]]:
    path = check(spec, "export-not-overwritten", "forbidden")["rule"]["call"]["args"]["path"]
    return with_call(spec, "files_write_file", {"path": path, "content": "week,median\n"})


def _staging(name: str, base: str, op: str, spelled: Any, how: str) -> Defect:
    return Defect(CLASS, name, base, f"turns the staging flag back on after the rollback: the guard reads {how}",
                  breaks=_never_flag(op, spelled), witness=_staging_back_on, gate=GATE, code=CODE)


def _kept(name: str, base: str, which: str, spelled: str) -> Defect:
    return Defect(CLASS, name, base, f"flips another flag of the service: the guard's 'not_equals {spelled!r}' is text "
                  "against a bool", breaks=_kept_never(which, spelled), witness=_kept_flipped(which),
                  gate=GATE, code=CODE)


DEFECTS = [
    _staging("staging-flag-not-text-true", "synth:feature_flag_rollout@1", "not_equals", "true",
             "'not_equals \"true\"', text against a bool"),
    _staging("staging-flag-not-text-True", "synth:feature_flag_rollout@2", "not_equals", "True",
             "'not_equals \"True\"', text against a bool"),
    _staging("staging-flag-not-on", "synth:feature_flag_rollout@3", "not_equals", "on",
             "'not_equals \"on\"', a word the flag never holds"),
    _staging("staging-flag-not-contains-true", "synth:feature_flag_rollout@4", "not_contains", True,
             "'not_contains true' on a bool, which contains nothing"),
    _staging("staging-flag-not-enabled", "synth:feature_flag_rollout@5", "not_equals", "enabled",
             "'not_equals \"enabled\"', a word the flag never holds"),
    _staging("staging-flag-not-TRUE", "synth:feature_flag_rollout@7", "not_equals", "TRUE",
             "'not_equals \"TRUE\"', text against a bool"),
    _kept("staging-other-flag-text", "synth:feature_flag_rollout@3", "staging", "true"),
    _kept("prod-other-flag-text", "synth:feature_flag_rollout@6", "prod", "True"),
    _kept("staging-other-flag-text-8", "synth:feature_flag_rollout@8", "staging", "true"),
    _kept("incident-other-flag-text", "synth:incident_investigate_fix@2", "only", "true"),
    _kept("incident-other-flag-text-5", "synth:incident_investigate_fix@5", "only", "on"),
    _kept("incident-other-flag-text-15", "synth:incident_investigate_fix@15", "only", "true"),
    Defect(CLASS, "export-path-as-list", "example:report_from_files",
           "overwrites last week's export: the forbidden matcher's path is a list, and files_write_file takes one path",
           breaks=_path_as_list, witness=_export_overwritten, gate=GATE, code=CODE),
]
