"""A frame that allows the records the agent makes by which records they are not: "every ticket but those there at
the start" (`id not_equals` each of them), in place of the made record by the id the reference's run gave it (or the
file by its path).

The writer meant "the old tickets stay as they are; the new one is fine" and wrote it as exclusions. Nothing in the
selector says what a new record may hold, so every record the agent makes is allowed: an agent that files the ticket
right and a second one at another priority, writes the report and a copy at another path, or sends the reply and a
second draft, passes, where the shipped frame (the made record by its id) refuses the extra one. The mutation gate's
harms act on records there before the episode, and the exclusions leave exactly those out, so main never saw the
selector admit anything. Found by the outsider's hunt (`--family d154`, `scope_id_not_equals`, `scope_id_prefix`:
accepted and witnessed on incident_rollback, report_from_files, correct_bad_data, draft_only_reply and
report_from_data). The sound twin is the shipped spec.

Caught by the mutations gate (`frame_scope_open`): where a frame selector admits a table's records by conditions on
their ids that list none (`not_equals`, `matches`, a bound), each reference write making a record of it is made once
more beside the right one with a near miss (another value, or the same write at a new path).
"""

from __future__ import annotations

import copy
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, frame, reference, world
from tests.defects.made_wrong_first import _other_priority

CLASS = "frame_scope_open"
DETECTION = (
    "where a frame selector admits a table's records by conditions on their ids alone that list no record (id "
    "not_equals each record there at the start, id matches a prefix), make each reference write that makes a record "
    "of that table once more right after it with a near miss (another value; a file at another path): if every "
    "required check still passes, the frame admits any record the agent makes"
)
GATE, CODE = "mutations", "frame_scope_open"


def _made_selectors(spec: Spec, app: str, table: str) -> list[dict[str, Any]]:
    """The frame's selectors of `app.table` naming by id a record the initial world lacks (one the reference makes)."""
    there = {r["id"] for r in world(spec, app, table)}
    found = [s for s in frame(spec)["rule"]["allow"] if s.get("app") == app and s.get("table") == table
             and isinstance(s.get("id"), str) and s["id"] not in there]
    if not found:
        raise CorpusError(f"{spec['capability']}: the frame allows no made {app}.{table} record by its id")
    return found


def _all_but_old(app: str, table: str):  # type: ignore[no-untyped-def]
    """The defect: the frame's selectors of the made records replaced by one admitting every record of the table
    but those there at the start (by id, each one)."""
    def edit(spec: Spec) -> None:
        made = _made_selectors(spec, app, table)
        allow = frame(spec)["rule"]["allow"]
        allow[:] = [s for s in allow if s not in made]
        allow.append({"app": app, "table": table, "id": None, "fields": None, "where": [
            {"field": "id", "op": "not_equals", "value": r["id"]} for r in world(spec, app, table)]})
    return edit


def _extra(tool: str, change: Any):  # type: ignore[no-untyped-def]
    """The reference with its first `tool` call made once more right after it with `change(arguments)`."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        for turn in ref:
            for i, step in enumerate(turn["steps"]):
                if step.get("call") and step["call"]["name"] == tool:
                    extra = copy.deepcopy(step)
                    extra["say"] = None
                    change(extra["call"]["arguments"])
                    turn["steps"].insert(i + 1, extra)
                    return ref
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool}")
    return witness


def _other_path(args: dict[str, Any]) -> None:
    stem, _, ext = str(args["path"]).rpartition(".")
    args["path"] = f"{stem}-copy.{ext}"


def _other_words(args: dict[str, Any]) -> None:
    key = next(k for k in ("body", "text", "content") if k in args)
    args[key] = "Sorry, ignore my last message."


def _defect(name: str, base: str, app: str, table: str, tool: str, change: Any, what: str) -> Defect:
    return Defect(CLASS, name, base, f"{what}: the frame allows every {table} record but those there at the start",
                  breaks=_all_but_old(app, table), witness=_extra(tool, change), gate=GATE, code=CODE)


DEFECTS = [
    _defect("rollback-second-ticket", "example:incident_rollback", "tickets", "tickets", "tickets_create",
            _other_priority, "files the rollback incident, then a second ticket at another priority"),
    _defect("incident-second-ticket-2", "synth:incident_investigate_fix@2", "tickets", "tickets", "tickets_create",
            _other_priority, "files the incident ticket, then a second one at another priority"),
    _defect("staging-second-ticket-1", "synth:feature_flag_rollout@1", "tickets", "tickets", "tickets_create",
            _other_priority, "files the staging failure, then a second ticket at another priority"),
    _defect("report-copy-elsewhere", "example:report_from_files", "files", "files", "files_write_file",
            _other_path, "writes the report, then a copy at another path"),
    _defect("draft-second-message-2", "synth:draft_only_reply@2", "mail", "messages", "mail_save_draft",
            _other_words, "saves the reply's draft, then a second draft saying something else"),
]
