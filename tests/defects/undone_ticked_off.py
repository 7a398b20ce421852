"""Undone by ticking off: the writer checks a to-do the task adds by its list, title and due date, but not that it is
still open, and the agent is given `todo_complete_task` (and `todo_update_task` with `done`), which ticks it off. An
agent that adds the to-do and ticks it off at once passes: the broken page's fix, the mailed request, is tracked
nowhere, as an open to-do list shows nothing. The to-do stays in its list, so the removal replay (`todo_delete_task`)
failed the check and proved nothing. The sound twin (the shipped spec) also wants `done: false`, the state a new to-do
starts in and the task leaves it in.

The hole was our own generators' (web_page_audit, todo_track_mail_requests): the defect is each one's check as shipped
before this round, which main accepted (`GENERATOR_VERSION` 12 wants the to-do open).

Caught by the deactivating replay (`undone_unchecked`, `created_writes` and `_deactivations` in `_undone`): each
record the reference creates is set at the end of the last turn to each value that puts it out of force that a write
tool of its app sets by the record's id (a to-do's `done` true, a job's `enabled` false, an article's `status`
archived or draft), where the agent is given the tool; a replay that still passes checks a record that was added, not
one that is in force.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference, replay_defect, with_call
from tests.defects.undone_created import _created

CLASS = "undone_ticked_off"
DETECTION = (
    "replay the reference with each record it creates put out of force at the end by a write tool of its app that "
    "sets a field of the record by its id (a to-do ticked off, a job disabled, an article archived), where the agent "
    "is given it; a replay that still passes checks a record that was added, not one that is still open"
)


def _any_done(spec: Spec) -> None:
    """The `done equals false` condition dropped from every check on the to-dos that wants it."""
    hits = 0
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] != "records" or (rule["app"], rule["table"]) != ("todo", "tasks"):
            continue
        where = rule["where"]
        if any(w["field"] == "done" and w.get("op", "equals") == "equals" and w["value"] is False for w in where):
            rule["where"] = [w for w in where if w["field"] != "done"]
            hits += 1
    if not hits:
        raise CorpusError(f"{spec['capability']}: no check wants a to-do open")


def _ticked_off(tool: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference, then every to-do it added ticked off by `tool` (`todo_complete_task`, or `todo_update_task`
    with `done: true`)."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        for rid in _created(spec, "todo", "tasks"):
            ref = with_call(spec, tool, {"task_id": rid, "done": True}, ref=ref)
        return ref
    return witness


def _defect(name: str, base: str, tool: str, away: str) -> Defect:
    return replay_defect(CLASS, "undone_unchecked", name, base, _any_done, away, _ticked_off(tool), "cheat")


_KEPT = "the checks want a to-do in the list with the title (and due date), which the ticked-off one still is"
_AUDIT = "adds a to-do for each broken page and ticks each one off at once: " + _KEPT
_REQUESTS = "adds a to-do for each mailed request, labels the mails and ticks the to-dos off at once: " + _KEPT

DEFECTS = [
    *(_defect(f"audit-task-completed-{n}", f"synth:web_page_audit@{n}", "todo_complete_task", _AUDIT)
      for n in (1, 2, 3, 4, 5)),
    *(_defect(f"audit-task-updated-done-{n}", f"synth:web_page_audit@{n}", "todo_update_task", _AUDIT)
      for n in (6, 7, 8)),
    *(_defect(f"request-task-completed-{n}", f"synth:todo_track_mail_requests@{n}", "todo_complete_task", _REQUESTS)
      for n in (1, 2, 3, 4, 5)),
    *(_defect(f"request-task-updated-done-{n}", f"synth:todo_track_mail_requests@{n}", "todo_update_task", _REQUESTS)
      for n in (6, 7, 8)),
]
