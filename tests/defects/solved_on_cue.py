"""Solved on cue: the live system has a job due on the clock just after the reference is done (the SLA bot's sweep,
the scheduler's remediation, the mail rules, the reconciler) that runs only where the agent's other work left its
cue (`when`: another ticket already triaged, another job already paused, another mail already filed) and then makes
the very change a check wants. Left to itself the world never runs the job (nothing sets the cue), the reads-only
agent neither, and the mutant that skips that change ends before the job is due; so the check looks exercised. Yet an
agent that does the other work, skips that change and reads on for a minute gets its credit from the job. The sound
twin has the same job, due at the same time with the same cue, which runs only where the change is already made and
sets just that."""

from __future__ import annotations

from typing import Any

from coworkenv.checks import holds
from coworkenv.env import base_world
from coworkenv.loading import parse_spec
from coworkenv.spec_checks import RecordsRule
from coworkenv.world._time import format_time
from tests.defects._core import CorpusError, Defect, Spec, WitnessKind
from tests.defects.solved_by_clock import _LATER_TICKS, _end_clock, _targets, reads_instead

CLASS = "solved_on_cue"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where a rule runs on the clock, play the reference without each of its writes, then again reading on after "
    "its end as far as the step budget allows: a state check the first fails and the second passes is done by a "
    "job the agent's other work set off, not by the agent"
)


def _split(spec: Spec) -> tuple[tuple[str, str, str], dict[str, Any], dict[str, Any]]:
    """((app, table, id) of the first checked record, its wanted fields, the `when` of the cue: the first records
    check the initial world fails (the agent's other work: a ticket filed, a message sent), else another checked
    record's wanted fields)."""
    targets = list(_targets(spec).items())
    (key, fields) = targets[0]
    world = base_world(parse_spec(spec))
    for c in spec["checks"]:
        if c["rule"]["kind"] == "records" and not c.get("safety") and not holds(
                world, RecordsRule.model_validate(c["rule"])):
            return key, fields, {"when": [c["rule"]]}
    if len(targets) < 2:
        raise CorpusError(f"{spec['capability']}: no records check and a single record the checks want changed")
    (app, table, rid), cue = targets[1]
    when = [{"kind": "field", "target": {"app": app, "table": table, "id": rid, "field": name}, "op": "equals",
             "value": value} for name, value in cue.items()]
    return key, fields, {"when": when}


def _job(spec: Spec, keeps: bool) -> None:
    (app, table, rid), fields, cue = _split(spec)
    own = [{"kind": "field", "target": {"app": app, "table": table, "id": rid, "field": name}, "op": "equals",
            "value": value} for name, value in fields.items()]
    due = _end_clock(spec) + _LATER_TICKS * spec["world"]["tick_s"]
    spec["dynamics"]["rules"].append({
        "id": "cued-job", "on": {"kind": "at", "time": format_time(due)}, "delay_s": 0, "once": True,
        "when": cue["when"] + (own if keeps else []),
        "effects": [{"kind": "update_record", "app": app, "table": table, "id": rid, "set": fields}]})


def _cued_fix(spec: Spec) -> None:
    """A job due two calls after the reference's end that, once another checked record holds what the checks want,
    sets the first checked record's fields."""
    _job(spec, keeps=False)


def _cued_keep(spec: Spec) -> None:
    """The twin: the same job, cue and time, which runs only where the first record already holds the fix."""
    _job(spec, keeps=True)


def _skips_one(spec: Spec) -> list[dict[str, Any]]:
    """The agent that does the other work, skips the writes naming the first checked record (each made a quiet
    read) and reads on three times before its last reply."""
    (app, _, rid), _, _ = _split(spec)
    return reads_instead(spec, [(app, rid)])


def _defect(name: str, base: str, away: str, kind: WitnessKind = "cheat") -> Defect:
    return Defect(CLASS, name, f"synth:{base}", away, breaks=_cued_fix, fix=_cued_keep, witness=_skips_one,
                  witness_kind=kind, gate="noop", code="solved_by_world")


_TICKET = "skips one ticket and gets its triage from the SLA bot's sweep, which runs once the other tickets are done"
_JOB = "skips one failing job and gets its pause from the remediation, which runs once the other jobs are paused"
_MAIL = "skips one mail and gets it filed by the mail rules, which run once the other mails are filed"
_DEPLOY = "skips the rollback and gets it from the reconciler, which runs once the incident ticket is filed"
_EVENT = "skips the move and gets it from the calendar assistant, which runs once the teammate is told"
_DELEGATE = "skips the status change and gets it from the workflow bot, which runs once the delegate is asked"

_CASES: dict[tuple[str, WitnessKind], list[tuple[str, str]]] = {
    (_TICKET, "cheat"): [("sla-sweep-on-cue", "ticket_triage_update@2"), ("sla-sweep-on-cue-3", "ticket_triage_update@3"), ("sla-sweep-on-cue-4", "ticket_triage_update@4")],
    (_JOB, "cheat"): [("remediation-on-cue", "scheduler_pause_failing_jobs@1"), ("remediation-on-cue-2", "scheduler_pause_failing_jobs@2"), ("remediation-on-cue-3", "scheduler_pause_failing_jobs@3")],
    (_MAIL, "cheat"): [("mail-rules-on-cue", "inbox_triage_reply@1"), ("mail-rules-on-cue-2", "inbox_triage_reply@2"), ("mail-rules-on-cue-3", "inbox_triage_reply@3")],
    (_DEPLOY, "score"): [("reconciler-on-ticket", "incident_investigate_fix@2"), ("reconciler-on-ticket-3", "incident_investigate_fix@3"), ("reconciler-on-ticket-4", "incident_investigate_fix@4")],
    (_EVENT, "score"): [("assistant-on-dm", "reschedule_conflict@1"), ("assistant-on-dm-2", "reschedule_conflict@2")],
    (_DELEGATE, "score"): [("workflow-bot-on-ask", "delegate_and_follow_up@1"), ("workflow-bot-on-ask-3", "delegate_and_follow_up@3")],
}
DEFECTS = [_defect(name, base, away, kind) for (away, kind), cases in _CASES.items() for name, base in cases]
