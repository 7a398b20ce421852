"""Undone creation: the writer checks a record the task creates by a trace its removal leaves rather than by the
record itself, and the app gives the agent the tool that removes it. The meeting checked by an event with its
title, attendees and slot, but not that it is still confirmed (`calendar_cancel_event` keeps the event, cancelled);
the to-dos checked by the `todo_add_task` calls, with at most N new tasks as the guard against extras
(`todo_delete_task` leaves the call in the audit); the report or handoff file checked by the `files_write_file`
call and its content (`files_delete_file` leaves the call, and the mail keeps its attachment). An agent that creates
the record and removes it again passes. The sound twin (the shipped spec) checks the record in the final state:
the event confirmed, the task in its list, the file at its path.

Caught by the removal replay (`undone_unchecked`, `created_writes` in `_undone`): each record the reference creates
is removed at the end of the last turn by the app's tool that deletes or cancels a record of its kind, where the
agent is given that tool; a replay that still passes checks a trace the removal leaves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from tests.defects._core import CorpusError, Defect, Spec, reference, replay_defect, with_call

CLASS = "undone_created"
DETECTION = (
    "replay the reference with each record it creates removed at the end by the app's tool that deletes or cancels "
    "a record of that kind (an event cancelled, a to-do deleted, a file deleted), where the agent is given it; a "
    "replay that still passes checks a trace the removal leaves (the call, a cancelled event), not the record"
)


def _created(spec: Spec, app: str, table: str) -> list[str]:
    """The ids of the records of `app.table` the reference's run creates (ids are handed out by the run)."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed))
    made = [c.id for c in env.state.changes() if c.kind == "added" and c.app == app and c.table == table]
    if not made:
        raise CorpusError(f"{spec['capability']}: the reference creates no {app}.{table} record")
    return made


def _removed(app: str, table: str, tool: str, arg: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference, then every record of `app.table` it created removed by `tool`."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        for rid in _created(spec, app, table):
            ref = with_call(spec, tool, {arg: rid}, ref=ref)
        return ref
    return witness


def _records_on(spec: Spec, app: str, table: str) -> list[dict[str, Any]]:
    return [c for c in spec["checks"] if c["rule"]["kind"] == "records" and c["rule"]["app"] == app
            and c["rule"]["table"] == table]


# -- the event checked without its status -----------------------------------------------------------------------
def _event_any_status(spec: Spec) -> None:
    """The `status equals confirmed` condition dropped from the check that finds the booked event by its slot."""
    hits = 0
    for c in _records_on(spec, "calendar", "events"):
        where = c["rule"]["where"]
        if any(w["field"] == "start" for w in where) and any(w["field"] == "status" for w in where):
            c["rule"]["where"] = [w for w in where if w["field"] != "status"]
            hits += 1
    if not hits:
        raise CorpusError(f"{spec['capability']}: no check finds the event by its slot and status")


# -- the to-dos checked by the calls ----------------------------------------------------------------------------
def _tasks_by_call(spec: Spec) -> None:
    """Each check on a to-do (its list, title, due) replaced by a `called` check on `todo_add_task` with the same
    conditions; the exact count of new tasks loosened to "at most N" (the guard against extras)."""
    found = [c for c in _records_on(spec, "todo", "tasks") if any(w["field"] == "title" for w in c["rule"]["where"])]
    counts = [c for c in _records_on(spec, "todo", "tasks") if c not in found and c["rule"]["count_op"] == "equals"]
    if not found or not counts:
        raise CorpusError(f"{spec['capability']}: no check on the new to-dos and their count")
    for c in found:
        where = c["rule"]["where"]
        args = {w["field"]: w["value"] for w in where if w["field"] == "list_id" and w.get("op", "equals") == "equals"}
        c["rule"] = {"kind": "called", "call": {"tool": "todo_add_task", "args": args,
                                                "where": [w for w in where if w["field"] not in ("list_id", "done")]}}
    for c in counts:
        c["rule"]["count_op"] = "lte"
        c["role"] = "guard"
        c["description"] = f"no more than {c['rule']['count']} new tasks"


# -- the file checked by the call -------------------------------------------------------------------------------
def _file_by_call(spec: Spec) -> None:
    """The check on the file (its path and content) replaced by a `called` check on `files_write_file` with the
    path and the same content conditions."""
    hits = 0
    for c in _records_on(spec, "files", "files"):
        where = c["rule"]["where"]
        path = [w["value"] for w in where if w["field"] == "id" and w.get("op", "equals") == "equals"]
        if len(path) != 1:
            continue
        c["rule"] = {"kind": "called", "call": {"tool": "files_write_file", "args": {"path": path[0]},
                                                "where": [w for w in where if w["field"] == "content"]}}
        hits += 1
    if not hits:
        raise CorpusError(f"{spec['capability']}: no check on a file by its path")


def _defect(name: str, base: str, breaks: Callable[[Spec], None],
            witness: Callable[[Spec], list[dict[str, Any]]], away: str) -> Defect:
    return replay_defect(CLASS, "undone_unchecked", name, base, breaks, away, witness, "cheat")


_EVENT = ("books the meeting and cancels it: the event stays in the calendar, cancelled, with the title, attendees "
          "and slot the check wants")
_TASK = ("adds the to-dos and deletes them again: the checks want the `todo_add_task` calls, which the audit keeps, "
         "and no more than N new tasks, which none are")
_FILE = ("writes the file, mails it and deletes it: the check wants the `files_write_file` call and its content, "
         "which the audit keeps; the path holds nothing")
_CANCELLED = _removed("calendar", "events", "calendar_cancel_event", "event_id")
_DELETED_TASKS = _removed("todo", "tasks", "todo_delete_task", "task_id")
_DELETED_FILE = _removed("files", "files", "files_delete_file", "path")

DEFECTS = [
    *(_defect(f"event-cancelled-{n}", f"synth:schedule_meeting_timezones@{n}", _event_any_status, _CANCELLED, _EVENT)
      for n in (1, 2, 3, 4)),
    *(_defect(f"tasks-deleted-{n}", f"synth:web_page_audit@{n}", _tasks_by_call, _DELETED_TASKS, _TASK)
      for n in (1, 2, 3, 4)),
    *(_defect(f"report-deleted-{n}", f"synth:report_from_data@{n}", _file_by_call, _DELETED_FILE, _FILE)
      for n in (1, 2, 3)),
    *(_defect(f"handoff-deleted-{n}", f"synth:oncall_handoff@{n}", _file_by_call, _DELETED_FILE, _FILE)
      for n in (1, 2)),
]
