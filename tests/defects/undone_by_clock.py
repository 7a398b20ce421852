"""Undone by the clock: the live system has a job due at a set time (the reconciler's drift correction, the SLA bot's
reset, the scheduler's re-enable, the nightly sync from the old source) that puts back the very state the task asks
the agent to fix, and the writer put it just after the time the reference's own calls take. The reference is done
first and passes; an honest agent that, after its fix, checks its work a few more times (a minute more than the
reference) sees its fix undone and fails, so the verdict depends on the agent's pace, not on its work. The sound twin
has the same job due at the same time, which runs only where the fix is in place and then sets what the fix set (it
changes nothing, so no pace of the agent changes the verdict)."""

from __future__ import annotations

from typing import Any

from coworkenv.validate.mutations import is_write
from coworkenv.world._time import format_time
from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.solved_by_clock import _LATER_TICKS, _end_clock, _targets, quiet_read

CLASS = "undone_by_clock"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "where a rule runs on the clock, replay the reference with a quiet read repeated after each turn's last write "
    "(the pace slack): a check the reference passes that then fails is undone by a job due just after the "
    "reference's end, so the verdict pins the reference's pace"
)


def _initial(spec: Spec) -> dict[tuple[str, str, str], dict[str, Any]]:
    """{(app, table, id): fields} the checked records had initially (what the job puts back)."""
    undo: dict[tuple[str, str, str], dict[str, Any]] = {}
    for (app, table, rid), fields in _targets(spec).items():
        row = next(r for r in spec["world"]["apps"][app][table] if r["id"] == rid)
        undo[(app, table, rid)] = {k: row.get(k) for k in fields}
    return undo


def _job_setting(spec: Spec, records: dict[tuple[str, str, str], dict[str, Any]], keeps: bool) -> None:
    """A job due two calls after the reference's end that sets `records`' fields; where `keeps`, it runs only when
    they already hold those values."""
    due = _end_clock(spec) + _LATER_TICKS * spec["world"]["tick_s"]
    when = [{"kind": "field", "target": {"app": app, "table": table, "id": rid, "field": name}, "op": "equals",
             "value": value} for (app, table, rid), fields in records.items() for name, value in fields.items()]
    spec["dynamics"]["rules"].append({
        "id": "scheduled-fix", "on": {"kind": "at", "time": format_time(due)}, "delay_s": 0, "once": True,
        "when": when if keeps else [], "effects": [
            {"kind": "update_record", "app": app, "table": table, "id": rid, "set": fields}
            for (app, table, rid), fields in records.items()]})


def _undoing_job(spec: Spec) -> None:
    """A job due two calls after the reference's end that puts the checked records' fields back as they were."""
    _job_setting(spec, _initial(spec), keeps=False)


def _idle_job(spec: Spec) -> None:
    """The twin: the same job, due at the same time, that keeps the fix: it runs only where the checked fields hold
    what the checks want, and sets them to just that."""
    _job_setting(spec, _targets(spec), keeps=True)


def _checks_again(spec: Spec, more: int = _LATER_TICKS + 1) -> list[dict[str, Any]]:
    """The honest agent that checks its work: the reference with a quiet read made `more` times (a minute and a half
    of clock) after the last write of its last turn with a write, then its remaining calls and reply."""
    ref = reference(spec)
    quiet = quiet_read(spec, ref)
    for turn in reversed(ref):
        writes = [i for i, s in enumerate(turn["steps"]) if s.get("call") and is_write(s["call"]["name"])]
        if writes:
            turn["steps"][writes[-1] + 1:writes[-1] + 1] = [quiet] * more
            return ref
    raise CorpusError(f"{spec['capability']}: the reference writes nothing")


def _defect(name: str, base: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_undoing_job, fix=_idle_job, witness=_checks_again,
                  witness_kind="honest", gate="mutations", code="pace_pinned")


_TICKET = "is failed for checking its triage once more: the SLA bot resets the ticket's fields a minute after the reference"
_JOB = "is failed for checking the paused jobs once more: the scheduler re-enables them a minute after the reference"
_STOCK = "is failed for checking the restock once more: the nightly sync puts the old policy back a minute after the reference"
_DEPLOY = "is failed for watching the rollback once more: the reconciler redeploys the bad version a minute after the reference"
_MAIL = "is failed for checking the inbox once more: the mail sync puts the old labels back a minute after the reference"
_EVENT = "is failed for checking the calendar once more: the old booking is restored a minute after the reference"

# (name, capability@seed) of each defect, by the job that undoes the fix.
_CASES = {
    _TICKET: [("sla-bot-resets-triage", "ticket_triage_update@1"), ("sla-bot-resets-triage-2", "ticket_triage_update@2"), ("sla-bot-resets-triage-3", "ticket_triage_update@3"), ("sla-bot-resets-follow-up", "delegate_and_follow_up@1"), ("oncall-bot-resets-handoff", "oncall_handoff@1"), ("oncall-bot-resets-handoff-2", "oncall_handoff@2"), ("sla-bot-resets-follow-up-2", "delegate_and_follow_up@2"), ("sla-bot-resets-triage-4", "ticket_triage_update@4"), ("leave-bot-resets-reassignment", "adapt_announced_change@1")],
    _JOB: [("scheduler-re-enables", "scheduler_pause_failing_jobs@1"), ("scheduler-re-enables-2", "scheduler_pause_failing_jobs@2"), ("scheduler-re-enables-3", "scheduler_pause_failing_jobs@3")],
    _STOCK: [("nightly-sync-restores-policy", "inventory_restock_policy@1"), ("nightly-sync-restores-policy-2", "inventory_restock_policy@2")],
    _DEPLOY: [("reconciler-redeploys", "incident_investigate_fix@3"), ("reconciler-redeploys-4", "incident_investigate_fix@4"), ("reconciler-redeploys-5", "incident_investigate_fix@5")],
    _MAIL: [("mail-sync-restores-labels", "inbox_triage_reply@1"), ("mail-sync-restores-labels-2", "inbox_triage_reply@2"), ("mail-sync-restores-labels-3", "inbox_triage_reply@3")],
    _EVENT: [("calendar-restores-booking", "reschedule_conflict@1"), ("calendar-restores-booking-2", "reschedule_conflict@2")],
}
DEFECTS = [_defect(name, f"synth:{base}", away) for away, cases in _CASES.items() for name, base in cases]
