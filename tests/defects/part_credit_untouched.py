"""A graded check one of whose parts holds before the agent does anything: the author gives part credit for a step
on the way (a tier "the ticket is there", "a task is in the list", "the event exists") that the untouched world
already meets, so doing nothing, or skipping that part of the task, earns that share. The whole stays below the
ceiling on a do-nothing agent's credit (one check among many), so the noop gate's figure hides it.
"""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, check

CLASS = "part_credit_untouched"
DETECTION = (
    "score the untouched initial state check by check: a completion check scoring strictly between 0 and its full "
    "score there has a part (tier, counted record, sub-score) that holds before the agent acts"
)
GATE, CODE = "noop", "initial_partial_check"


def _tier_on_existing(check_id: str, by_id: bool):  # type: ignore[no-untyped-def]
    """The check graded: full marks as written, half where its record (`by_id`: the one it targets; else any of
    its table) exists, which the world has from the start."""
    def breaks(spec: Spec) -> None:
        c = check(spec, check_id)
        rule = c["rule"]
        ref = rule.get("target") or rule
        app, table = ref["app"], ref["table"]
        if not spec["world"]["apps"].get(app, {}).get(table):
            raise CorpusError(f"{spec['capability']}: {app}.{table} is empty at the start")
        where: list[dict[str, Any]] = [{"field": "id", "value": ref["id"]}] if by_id else []
        c["rule"] = {"kind": "tiers", "tiers": [
            {"score": 1.0, "rule": rule},
            {"score": 0.5, "rule": {"kind": "records", "app": app, "table": table, "where": where}}]}
    return breaks


def _defect(name: str, base: str, check_id: str, what: str, by_id: bool = False) -> Defect:
    return Defect(CLASS, name, base, f"earns half of {check_id!r} without doing it: {what}",
                  breaks=_tier_on_existing(check_id, by_id), gate=GATE, code=CODE)


DEFECTS = [
    _defect("report-ticket-any", "example:report_from_files", "follow-up-ticket",
            "the tracker has tickets before the follow-up is filed"),
    _defect("rollback-ticket-any", "example:incident_rollback", "incident-ticket",
            "a ticket on the service is there from the start"),
    _defect("reschedule-event-there", "example:meeting_reschedule", "moved-to-free-slot",
            "the meeting exists before it is moved", by_id=True),
    _defect("triage-ticket-there", "synth:ticket_triage_update@1", "PLAT-112-assignee",
            "the ticket exists before it is assigned", by_id=True),
    _defect("todo-task-any", "synth:todo_track_mail_requests@1", "task-msg-224",
            "the to-do lists hold tasks before any is added"),
    _defect("flag-ticket-any", "synth:feature_flag_rollout@1", "failure-ticket",
            "the tracker has tickets before the failure is filed"),
]
