"""Python record order: a Python check finds the record it judges by its position in a table (`rows[-1]`, "the
newest ticket is the last one"), not by its fields. The order records are listed in is no part of the state:
another agent's extra write, a record the world adds between turns, or a different listing makes the check judge
the wrong record. The sound twin finds the record by its fields."""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Spec, calls

CLASS = "python_record_order"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "run each Python check on the reference's final state with every table's records listed in reverse; a changed "
    "verdict (or a crash) means the check reads records by position"
)


def _last_value(spec: Spec, tool: str, arg: str) -> Any:
    found = list(calls(spec, tool))
    if not found:
        raise AssertionError(f"{spec['capability']}: the reference never calls {tool}")
    return found[-1][2]["arguments"][arg]


def _positional(app: str, table: str, tool: str, arg: str, field: str, by_position: bool):  # type: ignore[no-untyped-def]
    """A Python check that the record the reference's last `tool` call wrote holds `arg` in `field`: found as the
    table's last record (the defect) or by its field (the twin)."""

    def edit(spec: Spec) -> None:
        value = _last_value(spec, tool, arg)
        rows = f"state['apps'][{app!r}][{table!r}]"
        test = (f"    return bool({rows}) and {rows}[-1].get({field!r}) == {value!r}\n" if by_position else
                f"    return any(r.get({field!r}) == {value!r} for r in {rows})\n")
        spec["checks"].append({"id": f"newest-{table}", "description": f"the {table} record the task made is there",
                               "rule": {"kind": "python", "entrypoint": "check", "apps": [app],
                                        "code": "def check(state, audit, messages):\n" + test}})
    return edit


def _pair(name: str, base: str, away: str, app: str, table: str, tool: str, arg: str, field: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_positional(app, table, tool, arg, field, True),
                  fix=_positional(app, table, tool, arg, field, False), gate="sandbox",
                  code="record_order_dependent")


DEFECTS = [
    _pair("incident-ticket-is-last", "example:incident_rollback",
          "is judged on whichever ticket is listed last: one more ticket (or another listing) fails an honest agent",
          "tickets", "tickets", "tickets_create", "title", "title"),
    _pair("report-file-is-last", "example:report_from_files",
          "is judged on the last file listed: the reports written in another order fail an honest agent",
          "files", "files", "files_write_file", "path", "id"),
    _pair("roster-csv-is-last", "synth:report_from_data@1",
          "is judged on the last file listed: a draft written after the CSV fails an honest agent",
          "files", "files", "files_write_file", "path", "id"),
    _pair("reporter-ticket-is-last", "synth:mail_ticket_chat_coordination@1",
          "is judged on the last ticket listed: a second ticket filed after it fails an honest agent",
          "tickets", "tickets", "tickets_create", "title", "title"),
    _pair("last-task-is-last", "synth:todo_track_mail_requests@1",
          "is judged on the last to-do listed: adding the tasks in another order fails an honest agent",
          "todo", "tasks", "todo_add_task", "title", "title"),
    _pair("fix-ticket-is-last", "synth:incident_investigate_fix@1",
          "is judged on the last ticket listed: one more ticket filed after it fails an honest agent",
          "tickets", "tickets", "tickets_create", "title", "title"),
    _pair("staging-ticket-is-last", "synth:feature_flag_rollout@1",
          "is judged on the last ticket listed: one more ticket filed after it fails an honest agent",
          "tickets", "tickets", "tickets_create", "title", "title"),
]

