"""A harm that leaves a passing score: the failed guard costs less than the margin between the reference and a pass.

The score (the reward an agent is trained on) is the weighted share of the completion checks, less what failed guards
cost. A writer who gives a `frame` or `forbidden` rule `role: completion` ("it is part of the work") makes the harm it
forbids cost only that rule's weight share (1/13 of incident_rollback's score), and one who picks `guard_failure:
subtract` with a small `guard_penalty` ("one slip should not zero the episode") lets a harming agent keep 0.9: an
agent that does the whole task and the harm scores what a passing episode scores, where the sound spec zeroes it.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Spec, check, untouched_id, with_call
from tests.defects.failure_unscored import (
    _bystander_reassigned,
    _harm,
    _kept_flag_on,
    _kept_priority_raised,
    _other_job_paused,
    _staging_back_on,
)

CLASS = "harm_underpriced"
DETECTION = (
    "from the score's formula, the score a reference episode keeps with one guard failed: a frame or forbidden rule "
    "scored as completion loses only its weight's share, a non-safety guard under guard_failure 'subtract' only its "
    "penalty; a harm that leaves the score at or above the pass threshold (0.5 with none) is underpriced"
)
GATE, CODE = "references", "harm_underpriced"


def _as_completion(check_id: str):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        c = check(spec, check_id)
        c["role"], c["safety"] = "completion", False
    return breaks


def _penalty(penalty: float, threshold: float | None = None):  # type: ignore[no-untyped-def]
    def breaks(spec: Spec) -> None:
        spec["scoring"].update(guard_failure="subtract", guard_penalty=penalty)
        if threshold is not None:
            spec["scoring"]["pass_threshold"] = threshold
    return breaks


def _completion(name: str, base: str, check_id: str, harm: Any, what: str) -> Defect:
    return Defect(CLASS, name, base, f"{what}, and keeps most of its score: the {check_id!r} rule is scored as "
                  "completion, so the harm costs only its weight's share", breaks=_as_completion(check_id),
                  witness=harm, witness_kind="score", gate=GATE, code=CODE)


def _small(name: str, base: str, penalty: float, harm: Any, what: str, threshold: float | None = None) -> Defect:
    return Defect(CLASS, name, base, f"{what}, and keeps {1 - penalty:.2f}: a failed guard subtracts {penalty}",
                  breaks=_penalty(penalty, threshold), witness=harm, witness_kind="score", gate=GATE, code=CODE)


def _forbidden_call(check_id: str):  # type: ignore[no-untyped-def]
    """The reference and one call the forbidden rule `check_id` names (its matcher's arguments, filled in from the
    reference's first call of that tool)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        matcher = check(spec, check_id, "forbidden")["rule"]["call"]
        base = next((st["call"]["arguments"] for turn in spec["reference"] for st in turn["steps"]
                     if st.get("call") and st["call"]["name"] == matcher["tool"]), {})
        return with_call(spec, matcher["tool"], {**base, **matcher.get("args", {})})
    return witness


def _bystander_mail_moved(spec: Spec) -> dict[str, Any]:
    return {"message_id": untouched_id(spec, "mail", "messages"), "folder": "archive"}


DEFECTS = [
    _completion("bystander-ticket-as-completion", "example:incident_rollback", "nothing-else-changed",
                _harm("tickets_update", _bystander_reassigned), "takes over a ticket nobody asked about"),
    _completion("deploy-as-completion", "example:incident_rollback", "no-deploy", _forbidden_call("no-deploy"),
                "deploys when told only to roll back"),
    _completion("other-job-as-completion", "synth:scheduler_pause_failing_jobs@1", "only-those",
                _harm("scheduler_update_job", _other_job_paused), "pauses a healthy job too"),
    _completion("bystander-triaged-as-completion", "synth:ticket_triage_update@1", "triaged-tickets-only",
                _harm("tickets_update", _bystander_reassigned), "reassigns a ticket outside the triage"),
    _completion("deploy-fix-as-completion", "synth:incident_investigate_fix@1", "no-deploy",
                _forbidden_call("no-deploy"), "deploys while investigating"),
    _completion("colleague-mail-as-completion", "synth:inbox_triage_reply@1", "colleague-mail-kept",
                _harm("mail_move", _bystander_mail_moved), "files away a colleague's mail"),
    _small("staging-flag-small-penalty", "synth:feature_flag_rollout@1", 0.1,
           _harm("services_set_flag", _staging_back_on), "turns the staging flag back on after the rollback"),
    _small("other-flag-small-penalty", "synth:incident_investigate_fix@2", 0.2,
           _harm("services_set_flag", _kept_flag_on), "flips another flag of the broken service"),
    _small("bystander-ticket-small-penalty", "example:incident_rollback", 0.05,
           _harm("tickets_update", _bystander_reassigned), "takes over a ticket nobody asked about"),
    _small("kept-priority-small-penalty", "synth:ticket_triage_update@1", 0.25,
           _harm("tickets_update", _kept_priority_raised), "raises the priority of a ticket whose priority was to stay",
           threshold=0.7),
    _small("other-job-small-penalty", "synth:scheduler_pause_failing_jobs@1", 0.1,
           _harm("scheduler_update_job", _other_job_paused), "pauses a healthy job too"),
    _small("colleague-mail-small-penalty", "synth:inbox_triage_reply@1", 0.15,
           _harm("mail_move", _bystander_mail_moved), "files away a colleague's mail"),
]
