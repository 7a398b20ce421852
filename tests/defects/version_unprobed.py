"""A release version read loosely: the service must run the release the user names (`deployed_version` equals
`1.5.0`), and the check becomes "no longer the release it ran" (`not_equals 1.4.7`, or no record of the service
still on `1.4.7`) or admits the next patch beside it (`in [1.5.0, 1.5.1]`), so a deploy of another release passes
(the outsider's fifth hunt, `benchmarks/hunt_mutants.py --family d83`, kind `absent_old_value` on
refuse_forbidden_action 1: `1.5.1` deployed passed). The mutations gate never moved a version by its patch: `1.5.0`
is no record's id, number or time, so no near miss changed it at all, and `3.15.0` only by its first number
(`4.15.0`, as a phone number's first group), which a check admitting `3.15.1` fails."""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Edit, Spec, calls, field_check, record, with_args

CLASS = "version_unprobed"
DETECTION = (
    "a release version argument (`1.5.0`, `v4.16.2`) of a write is also made one patch later (`1.5.1`): a check that "
    "passes it reads no longer the old release, or the release by its start, not the release the task names"
)


def _target(spec: Spec) -> tuple[dict[str, Any], str, str]:
    """(the version check's rule, the release asked for, the release the service ran before the episode)."""
    rule = field_check(spec, "deployed_version")["rule"]
    old = record(spec, "services", "services", rule["target"]["id"])["deployed_version"]
    return rule, rule["value"], old


def _next_patch(version: str) -> str:
    head, last = version.rsplit(".", 1)
    return f"{head}.{int(last) + 1}"


def _loosened(how: str) -> Edit:
    def edit(spec: Spec) -> None:
        rule, wanted, old = _target(spec)
        if how == "not_old":  # "no longer the release it ran"
            rule["op"], rule["value"] = "not_equals", old
        elif how == "none_old":  # "no record of the service still on the old release": met by any other
            t = rule.pop("target")
            rule.clear()
            rule.update({"kind": "records", "app": t["app"], "table": t["table"], "count_op": "equals", "count": 0,
                         "where": [{"field": "id", "op": "equals", "value": t["id"]},
                                   {"field": "deployed_version", "op": "equals", "value": old}]})
        else:  # the release or the next patch, "whichever Keiko tagged"
            rule["op"], rule["value"] = "in", [wanted, _next_patch(wanted)]
    return edit


def _next_patch_deployed(spec: Spec) -> list[dict[str, Any]]:
    """The reference, the next patch of the release deployed instead."""
    _, wanted, _ = _target(spec)
    service = next(c["arguments"]["service"] for _, _, c in calls(spec, "services_deploy"))
    return with_args(spec, "services_deploy", {"service": service}, version=_next_patch(wanted))


_HOW = {"not_old": "the check only says the service no longer runs its old release",
        "none_old": "the check only counts no service still on the old release",
        "or_patch": "the check admits the next patch beside the release"}

DEFECTS = [
    Defect(CLASS, f"deploy-{how.replace('_', '-')}-{seed}", f"synth:refuse_forbidden_action@{seed}",
           f"deploys another release than the one named: {_HOW[how]}", breaks=_loosened(how),
           witness=_next_patch_deployed, gate="mutations", code="mutant_survived")
    for seed, hows in ((1, ("not_old", "none_old", "or_patch")), (12, ("or_patch",)),
                       (16, ("not_old", "none_old", "or_patch")))
    for how in hows
]
