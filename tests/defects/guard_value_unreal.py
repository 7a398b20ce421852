"""Guards and triggers that name a value no call carries: a forbidden guard, a dynamics rule's trigger or `when`
whose argument is cut short (`task_id: "tas"`), misspelled (`smart-retry`, `BUG_305`), of a record that does not
exist (`task-9`), in another case where the comparison is exact (a `where` condition `equals` "SVC-KYC"), or a
pattern nothing the world holds matches. The guard never matches the call an agent really makes: an attempt the tool
refuses goes uncounted (the frame sees only state changes), and the rule never fires.

The sound twins name the value as the world spells it, fold case where the matcher does (a call's `args`), or match
a subset legitimately (a `matches` pattern on every service, an `in` list of two real services).
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Spec, base_spec, check, with_call

CLASS = "guard_value_unreal"
DETECTION = (
    "each value a forbidden guard or a dynamics trigger or `when` names must be one a call or a "
    "record can carry: a record's id or field in the world, the dynamics or the reference, or a token of the texts "
    "(case folded where the matcher folds it); a near miss of one (cut short, a tail added, respelled, one or two "
    "letters off, the same shape with other digits) or a pattern matching nothing the world holds never fires"
)
GATE, CODE = "references", "guard_value_unreal"


def _matcher(spec: Spec, check_id: str) -> dict[str, Any]:
    return check(spec, check_id, "forbidden")["rule"]["call"]  # type: ignore[no-any-return]


def _arg(check_id: str, key: str, value: Any):  # type: ignore[no-untyped-def]
    def edit(spec: Spec) -> None:
        _matcher(spec, check_id)["args"][key] = value(_matcher(spec, check_id)["args"][key]) if callable(value) \
            else value
    return edit


def _where(check_id: str, key: str, op: str, value: Any):  # type: ignore[no-untyped-def]
    """The guard's argument `key` moved to a `where` condition (`op`, `value` from the argument's own value)."""
    def edit(spec: Spec) -> None:
        matcher = _matcher(spec, check_id)
        own = matcher["args"].pop(key)
        matcher["where"] = [*matcher.get("where", []), {"field": key, "op": op,
                                                        "value": value(own) if callable(value) else value}]
    return edit


def _refused(base: str, check_id: str, **extra: Any):  # type: ignore[no-untyped-def]
    """The reference and one attempt at the call the sound guard of `base` forbids (its arguments as the world
    spells them) that the tool refuses (`extra`: an argument it does not take, a version the service lacks): the
    twin counts it, the defect's guard never matches it."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        matcher = _matcher(base_spec(base), check_id)
        return with_call(spec, matcher["tool"], {**matcher["args"], **extra})
    return witness


def _rule(spec: Spec, rule_id: str) -> dict[str, Any]:
    return next(r for r in spec["dynamics"]["rules"] if r["id"] == rule_id)  # type: ignore[no-any-return]


def _trigger(rule_id: str, key: str, value: Any):  # type: ignore[no-untyped-def]
    def edit(spec: Spec) -> None:
        args = _rule(spec, rule_id)["on"]["call"]["args"]
        args[key] = value(args[key])
    return edit


def _when_key_cut(rule_id: str):  # type: ignore[no-untyped-def]
    def edit(spec: Spec) -> None:
        target = _rule(spec, rule_id)["when"][0]["target"]
        target["field"] = target["field"][:-2]
    return edit


def _guard(name: str, base: str, check_id: str, what: str, breaks: Any, fix: Any = None, **extra: Any) -> Defect:
    return Defect(CLASS, name, base, f"{what}, is refused, and passes: the guard {check_id!r} names a value no call "
                  "carries, so the attempt goes uncounted", breaks=breaks, fix=fix,
                  witness=_refused(base, check_id, **extra) if extra else None, gate=GATE, code=CODE)


def _cut(value: str) -> str:
    return value[: max(3, len(value) * 2 // 3)]


def _dashed(value: str) -> str:
    return value.replace("_", "-")


DEFECTS = [
    # Forbidden guards on a value cut short, respelled or of no record, where the tool takes it without complaint or
    # no probe runs (declared tools).
    _guard("declared-task-id-cut", "example:restock_store_declared_tools", "porto_untouched",
           "closes the Porto to-do", _arg("porto_untouched", "task_id", lambda v: v[:3]),
           status="finished"),
    _guard("declared-task-id-missing", "example:restock_store_declared_tools", "porto_untouched",
           "closes the Porto to-do", _arg("porto_untouched", "task_id", lambda v: v.rsplit("-", 1)[0] + "-9"),
           fix=_arg("porto_untouched", "task_id", str.upper), status="finished"),
    _guard("declared-issue-key-cut", "example:triage_escalation_declared_tools", "other_bug_untouched",
           "raises the other bug too", _arg("other_bug_untouched", "issue_key", lambda v: v[:-1]),
           priority="urgent"),
    _guard("declared-issue-key-respelled", "example:triage_escalation_declared_tools", "other_bug_untouched",
           "raises the other bug too", _arg("other_bug_untouched", "issue_key", lambda v: v.replace("-", "_")),
           fix=_arg("other_bug_untouched", "issue_key", str.lower), priority="urgent"),
    _guard("flag-name-cut", "synth:feature_flag_rollout@1", "prod-untouched", "turns the flag on in production",
           _arg("prod-untouched", "flag", _cut), environment="production"),
    _guard("flag-name-dashed", "synth:feature_flag_rollout@2", "prod-untouched", "turns the flag on in production",
           _arg("prod-untouched", "flag", _dashed), environment="production"),
    _guard("export-path-cut", "example:report_from_files", "export-not-overwritten",
           "overwrites the week's export without overwrite set",
           _arg("export-not-overwritten", "path", lambda v: v.rsplit(".", 1)[0]), content="priority,tickets\n"),
    _guard("export-path-respelled", "example:report_from_files", "export-not-overwritten",
           "overwrites the week's export without overwrite set",
           _arg("export-not-overwritten", "path", lambda v: v.replace("_", "-")),
           fix=_where("export-not-overwritten", "path", "matches", "^exports/"), content="priority,tickets\n"),
    # Where conditions compare exactly: another case, a pattern or an `in` list naming nothing the world holds.
    _guard("deploy-where-case", "synth:incident_investigate_fix@1", "no-deploy", "redeploys the failing service",
           _where("no-deploy", "service", "equals", str.upper), fix=_arg("no-deploy", "service", str.upper),
           version="4.0.0", environment="production"),
    _guard("deploy-where-pattern", "synth:incident_investigate_fix@2", "no-deploy", "redeploys the failing service",
           _where("no-deploy", "service", "matches", lambda v: "^" + v.replace("-", "_") + "$"),
           fix=_where("no-deploy", "service", "matches", "^svc-"), version="4.0.0", environment="production"),
    _guard("deploy-where-in-cut", "example:incident_rollback", "no-deploy", "redeploys the payments service",
           _where("no-deploy", "service", "in", lambda v: [v[:-2]]),
           fix=_where("no-deploy", "service", "in", lambda v: [v, "svc-gateway"]),
           version="2.0.0", environment="production"),
    _guard("deploy-where-case-example", "example:incident_rollback", "no-deploy", "redeploys the payments service",
           _where("no-deploy", "service", "equals", str.upper), fix=_arg("no-deploy", "service", str.upper),
           version="2.0.0", environment="production"),
    _guard("document-where-case", "synth:clarify_ambiguous_request@2", "not-the-other-document",
           "mails the other document", _where("not-the-other-document", "attachments", "contains", lambda v: v[0].upper()),
           fix=_where("not-the-other-document", "attachments", "contains", lambda v: v[0]), urgent=True),
    # Dynamics rules whose trigger or `when` names no value the world holds: the world never reacts.
    Defect(CLASS, "canary-flag-cut", "synth:feature_flag_rollout@1",
           "turns the flag on in production after a staging trial that showed nothing: the staging errors the task "
           "hinges on never appear", breaks=_trigger("staging-canary", "flag", _cut), gate=GATE, code=CODE),
    Defect(CLASS, "restart-rule-service-cut", "synth:incident_investigate_fix@1",
           "restarts the failing service and sees no sign it still fails: the rule that says so never fires",
           breaks=_trigger("restart-does-not-help", "service", lambda v: v[:-1]), gate=GATE, code=CODE),
    Defect(CLASS, "restart-rule-key-cut", "synth:incident_investigate_fix@2",
           "restarts the failing service and sees no sign it still fails: the rule's `when` reads a flag no service "
           "has", breaks=_when_key_cut("restart-does-not-help"), gate=GATE, code=CODE),
    Defect(CLASS, "restart-rule-version-cut", "synth:adapt_silent_change@1",
           "restarts the failing service and sees no sign it still fails: the rule's `when` wants a release cut "
           "short", breaks=lambda s: _rule(s, "restart-does-not-help")["when"][0].update(
               value=_rule(s, "restart-does-not-help")["when"][0]["value"].rsplit(".", 1)[0]),
           gate=GATE, code=CODE),
    Defect(CLASS, "restart-rule-example-cut", "example:incident_rollback",
           "restarts the payments service and sees no sign the pool is exhausted again: the rule never fires",
           breaks=_trigger("restart-without-fix", "service", lambda v: v[:-1]), gate=GATE, code=CODE),
    # Case in an argument folds (the matcher compares arguments case-insensitively): a sound guard, which the probe
    # of the mutations gate used to try as written (the tools look ids up as written) and so found dead.
    _guard("cancel-event-missing", "synth:reschedule_conflict@1", "not-cancelled", "cancels the meeting it was to move",
           _arg("not-cancelled", "event_id", lambda v: v + "9"), fix=_arg("not-cancelled", "event_id", str.upper),
           notify="all"),
]


# -- a version number no record names (defects71) ------------------------------------------------------------
def _active_version(spec: Spec, check_id: str) -> int:
    service = _matcher(spec, check_id)["args"]["service"]
    found = next(s for s in spec["world"]["apps"]["services"]["services"] if s["id"] == service)
    return int(found["config_version"])


def _version(check_id: str, value: int):  # type: ignore[no-untyped-def]
    """The guard also names the config version to roll back to: `value`."""
    def edit(spec: Spec) -> None:
        _matcher(spec, check_id)["args"]["to_version"] = value
    return edit


def _rollback_attempt(check_id: str):  # type: ignore[no-untyped-def]
    """The reference and one rollback of the guarded service to the version it runs, which the tool refuses: the
    twin's guard (any version) counts it, the defect's (version 999) never matches it."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        args = {**_matcher(spec, check_id)["args"], "to_version": _active_version(spec, check_id)}
        return with_call(spec, "services_rollback_config", args)
    return witness


DEFECTS += [
    Defect(CLASS, f"rollback-version-unreal-{seed}", f"synth:adapt_silent_change@{seed}",
           "tries to roll the service's config back, is refused, and passes: the guard names config version "
           f"{value}, which no record holds, so the attempt goes uncounted",
           breaks=_version("no-config-rollback", value), witness=_rollback_attempt("no-config-rollback"),
           gate=GATE, code=CODE)
    for seed, value in ((1, 999), (3, 0), (5, 100))
]
