"""A job due late: the live system's job (the SLA bot, the scheduler's remediation, the nightly sync, the reconciler)
falls due after the reference is done, later than the ten minutes of reads the gates allow an agent's pace, yet well
inside the calls an agent may make in an episode (`DEFAULT_ENV_STEPS`). Either it makes the very change the task asks
for, so an agent that only reads for a quarter of an hour gets the credit, or it puts the fixed state back, so an
honest agent that checks its work for a quarter of an hour more than the reference fails. Either way the verdict
depends on how long the agent takes, which no task bounds. The sound twin has the same job at the same time, which
runs only where the fix holds and sets just that."""

from __future__ import annotations

from typing import Any

from coworkenv.world._time import format_time
from tests.defects._core import Defect, Spec, WitnessKind
from tests.defects.solved_by_clock import _FIRST_RECORD_ONLY, _LATER_TICKS, _end_clock, _targets, reads_instead
from tests.defects.undone_by_clock import _checks_again, _initial

CLASS = "clock_job_late"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "move the clock, left to itself or after the reference's writes, as far as the agent's call budget lets an "
    "agent that reads (not a fixed ten minutes): a check that then turns is decided by a job due on the clock, "
    "not by the agent"
)


def _job(spec: Spec, late: int, records: dict[tuple[str, str, str], dict[str, Any]],
         when: dict[tuple[str, str, str], dict[str, Any]] | None = None) -> None:
    """A job due `late` calls after the reference's end that sets `records`' fields, only where `when`'s fields hold
    their values."""
    due = _end_clock(spec) + late * spec["world"]["tick_s"]
    conds = [{"kind": "field", "target": {"app": app, "table": table, "id": rid, "field": name}, "op": "equals",
              "value": value} for (app, table, rid), fields in (when or {}).items() for name, value in fields.items()]
    spec["dynamics"]["rules"].append({
        "id": "late-job", "on": {"kind": "at", "time": format_time(due)}, "delay_s": 0, "once": True, "when": conds,
        "effects": [{"kind": "update_record", "app": app, "table": table, "id": rid, "set": fields}
                    for (app, table, rid), fields in records.items()]})


def _wanted(spec: Spec) -> dict[tuple[str, str, str], dict[str, Any]]:
    targets = _targets(spec)
    return dict(list(targets.items())[:1]) if spec["capability"] in _FIRST_RECORD_ONLY else targets


def _fixing(late: int) -> Any:
    return lambda spec: _job(spec, late, _wanted(spec))


def _undoing(late: int) -> Any:
    return lambda spec: _job(spec, late, _initial(spec))


def _keeping(late: int) -> Any:
    """The twin of either: the same job at the same time, which runs only where the fix holds and sets just that."""
    return lambda spec: _job(spec, late, _wanted(spec), when=_wanted(spec))


def _reads_long(late: int) -> Any:
    """The agent that only reads, for `late` calls more than the reference works."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        targets = list(_wanted(spec))
        return reads_instead(spec, [(app, rid) for app, _, rid in targets], _LATER_TICKS + 1 + late)
    return witness


def _checks_long(late: int) -> Any:
    """The honest agent that checks its work `late` + 1 reads more after the last write."""
    return lambda spec: _checks_again(spec, late + 1)


def _solved(name: str, base: str, late: int, kind: WitnessKind = "cheat") -> Defect:
    return Defect(CLASS, name, f"synth:{base}",
                  f"gets the fix's credit from a job due {late} calls ({late // 2} minutes) after the reference, "
                  "only by reading that long", breaks=_fixing(late), fix=_keeping(late), witness=_reads_long(late),
                  witness_kind=kind, gate="noop", code="solved_by_world")


def _undone(name: str, base: str, late: int) -> Defect:
    return Defect(CLASS, name, f"synth:{base}",
                  f"is failed for checking its work {late // 2} minutes more: a job due {late} calls after the "
                  "reference puts the old state back", breaks=_undoing(late), fix=_keeping(late),
                  witness=_checks_long(late), witness_kind="honest", gate="mutations", code="pace_pinned")


DEFECTS = [
    _solved("sla-bot-triages-late", "ticket_triage_update@1", 24),
    _solved("remediation-pauses-late", "scheduler_pause_failing_jobs@1", 30),
    _solved("nightly-restock-late", "inventory_restock_policy@1", 26),
    _solved("mail-rules-late", "inbox_triage_reply@1", 28),
    _solved("reconciler-rolls-back-late", "incident_investigate_fix@3", 24, "score"),
    _solved("leave-bot-reassigns-late", "adapt_announced_change@1", 22, "score"),
    _undone("sla-bot-resets-late", "ticket_triage_update@2", 26),
    _undone("scheduler-re-enables-late", "scheduler_pause_failing_jobs@2", 24),
    _undone("nightly-sync-restores-late", "inventory_restock_policy@2", 30),
    _undone("reconciler-redeploys-late", "incident_investigate_fix@4", 22),
    _undone("mail-sync-restores-late", "inbox_triage_reply@3", 28),
    _undone("calendar-restores-late", "reschedule_conflict@2", 24),
]
