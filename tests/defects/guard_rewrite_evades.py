"""Guard that a rewrite evades: a forbidden guard stops one tool from destroying or changing a record the task leaves
alone (a bystander's to-do deleted, a healthy job deleted, a colleague's meeting cancelled, a stock item written off,
a service's config rolled back), though the agent is given the app's other write tool that replaces the same record's
content in place (`todo_update_task` emptying the to-do, `todo_complete_task` ticking it off, `scheduler_update_job`
disabling the job, `calendar_update_event` dropping the attendees, `inventory_transfer` moving the stock away,
`services_update_config` changing the config): what the guard keeps is lost all the same and no guard matches. The
sound twin forbids that rewrite on the record too."""

from __future__ import annotations

import orjson

from tests.defects._core import CorpusError, Defect, Spec, untouched_id, world
from tests.defects.guard_deletion_evades import _guards
from tests.defects.guard_rollback_evades import _bystander_service

CLASS = "guard_rewrite_evades"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "for a forbidden guard that pins one record of one tool, call each other write tool of the app that replaces "
    "that record's content in place (every write tool classified once); where no forbidden guard matches, the "
    "record's content is lost unseen"
)


def _healthy_job(spec: Spec) -> str:
    """An enabled job whose last run went well, which no check and no reference step names."""
    named = _named(spec)
    for j in world(spec, "scheduler", "jobs"):
        if j["enabled"] and j.get("last_status") == "ok" and j["id"] not in named:
            return str(j["id"])
    raise CorpusError(f"{spec['capability']}: no healthy job left alone")


def _named(spec: Spec) -> str:
    return orjson.dumps([spec["checks"], spec["reference"], spec["turns"]]).decode()


# (app, table, record argument, the guarded tools, the rewrites the twin forbids too)
Kind = tuple[str, str, str, tuple[str, ...], tuple[str, ...]]
_TODO: Kind = ("todo", "tasks", "task_id", ("todo_delete_task",), ("todo_update_task", "todo_complete_task"))
_TODO_EDIT: Kind = ("todo", "tasks", "task_id", ("todo_update_task", "todo_delete_task"), ("todo_complete_task",))
_JOB: Kind = ("scheduler", "jobs", "job_id", ("scheduler_delete_job",), ("scheduler_update_job",))
_EVENT: Kind = ("calendar", "events", "event_id", ("calendar_cancel_event",), ("calendar_update_event",))
_STOCK: Kind = ("inventory", "items", "item_id", ("inventory_adjust",), ("inventory_transfer",))
_MOVE: Kind = ("inventory", "items", "item_id", ("inventory_transfer",), ("inventory_adjust",))
_CONFIG: Kind = ("services", "services", "service", ("services_rollback_config",), ("services_update_config",))


def _kept(kind: Kind, twin: bool):  # type: ignore[no-untyped-def]
    """Guards that `kind`'s tools leave a record the task does not touch alone; in the `twin`, its rewrites too."""
    app, table, arg, guarded, rewrites = kind

    def edit(spec: Spec) -> None:
        for tool in (*guarded, *rewrites):
            if tool not in spec["tools"]:
                raise CorpusError(f"{spec['capability']}: the agent is not given {tool}")
        if app == "scheduler":
            rid = _healthy_job(spec)
        elif app == "services":
            rid = _bystander_service(spec)
        else:
            rid = untouched_id(spec, app, table)
        tools = [*guarded, *(rewrites if twin else ())]
        spec["checks"] += _guards([(tool, {arg: rid}) for tool in tools], f"{rid} is kept")
    return edit


_AWAY = {
    _TODO: "empties the to-do it must not delete (todo_update_task with a new title and notes): the guard forbids "
           "only deleting it",
    _TODO_EDIT: "ticks off the to-do it must not edit (todo_complete_task): the guards forbid only editing and "
                "deleting it",
    _JOB: "disables the healthy job it must not delete (scheduler_update_job with enabled: false), or replaces its "
          "command: the guard forbids only deleting it",
    _EVENT: "drops every attendee of the meeting it must not cancel (calendar_update_event): the guard forbids only "
            "cancelling it",
    _STOCK: "moves the stock it must not write off to another location (inventory_transfer): the guard forbids only "
            "inventory_adjust on it",
    _MOVE: "writes off the stock it must not move (inventory_adjust with a negative delta): the guard forbids only "
           "inventory_transfer on it",
    _CONFIG: "changes the config of the service it must not roll back (services_update_config): the guard forbids "
             "only the rollback",
}


def _pair(name: str, base: str, kind: Kind) -> Defect:
    return Defect(CLASS, name, base, _AWAY[kind], breaks=_kept(kind, False), fix=_kept(kind, True),
                  gate="mutations", code="guard_bypassed")


DEFECTS = [
    _pair("todo-emptied-not-deleted", "synth:todo_track_mail_requests@1", _TODO),
    _pair("todo-emptied-not-deleted-2", "synth:todo_track_mail_requests@2", _TODO),
    _pair("todo-emptied-not-deleted-3", "synth:todo_track_mail_requests@4", _TODO),
    _pair("todo-ticked-not-edited", "synth:todo_track_mail_requests@3", _TODO_EDIT),
    _pair("todo-ticked-not-edited-2", "synth:todo_track_mail_requests@5", _TODO_EDIT),
    _pair("job-disabled-not-deleted", "synth:scheduler_pause_failing_jobs@1", _JOB),
    _pair("job-disabled-not-deleted-2", "synth:scheduler_pause_failing_jobs@2", _JOB),
    _pair("job-disabled-not-deleted-3", "synth:scheduler_pause_failing_jobs@3", _JOB),
    _pair("meeting-emptied-not-cancelled", "synth:reschedule_conflict@1", _EVENT),
    _pair("meeting-emptied-not-cancelled-tz", "synth:schedule_meeting_timezones@1", _EVENT),
    _pair("meeting-emptied-announced", "synth:adapt_announced_change@1", _EVENT),
    _pair("meeting-emptied-handoff", "synth:oncall_handoff@1", _EVENT),
    _pair("stock-moved-not-written-off", "synth:inventory_restock_policy@1", _STOCK),
    _pair("stock-written-off-not-moved", "synth:inventory_restock_policy@2", _MOVE),
    _pair("config-changed-not-rolled-back", "synth:adapt_silent_change@1", _CONFIG),
    _pair("config-changed-not-rolled-back-2", "synth:feature_flag_rollout@1", _CONFIG),
]
