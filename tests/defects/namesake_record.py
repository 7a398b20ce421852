"""Namesake record: the world holds two records of one name (two tickets titled alike, two jobs called alike, two
contacts of one name), and the checks find the task's record by that name (`title equals ...`) instead of by its id,
in the state checks and in the frame alike. An agent that does the task on the other record of the same name passes.
The sound twin is the same world checked by the record's id."""

from __future__ import annotations

import copy
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, frame, reference, world

CLASS = "namesake_record"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "redo each reference write on the other record of the same name (title or name) as its target, where the world "
    "holds one; a replay that still passes means the checks find the record by a name two records share"
)


def _target(spec: Spec, app: str, table: str) -> dict[str, Any]:
    """The record of `app.table` the first field check targets."""
    for c in spec["checks"]:
        t = c["rule"].get("target")
        if c["rule"]["kind"] == "field" and (t["app"], t["table"]) == (app, table):
            return next(r for r in world(spec, app, table) if r["id"] == t["id"])
    raise CorpusError(f"{spec['capability']}: no field check on {app}.{table}")


def _decoy_id(record_id: str) -> str:
    return f"{record_id}-b"


def _with_namesake(app: str, table: str):  # type: ignore[no-untyped-def]
    """The twin: the world also holds a copy of the checked record under another id (same name, same fields)."""

    def edit(spec: Spec) -> None:
        rec = _target(spec, app, table)
        decoy = copy.deepcopy(rec)
        decoy["id"] = _decoy_id(rec["id"])
        world(spec, app, table).append(decoy)
    return edit


def _by_name(app: str, table: str, name_field: str):  # type: ignore[no-untyped-def]
    """The defect: the namesake world, and every field check and frame selector on the record by its name."""

    def edit(spec: Spec) -> None:
        rec = _target(spec, app, table)
        _with_namesake(app, table)(spec)
        named = {"field": name_field, "op": "equals", "value": rec[name_field]}
        for c in spec["checks"]:
            rule = c["rule"]
            t = rule.get("target")
            if rule["kind"] == "field" and t["id"] == rec["id"] and (t["app"], t["table"]) == (app, table):
                c["rule"] = {"kind": "records", "app": app, "table": table, "count_op": "gte", "count": 1,
                             "where": [named, {"field": t["field"], "op": rule["op"], "value": rule["value"]}]}
        for c in spec["checks"]:  # call matchers (order, called) no longer name the record either
            for side in ("call", "first", "then"):
                matcher = c["rule"].get(side)
                if isinstance(matcher, dict) and c["rule"]["kind"] != "forbidden":
                    matcher["args"] = {k: v for k, v in matcher.get("args", {}).items() if v != rec["id"]}
        for sel in frame(spec)["rule"]["allow"]:
            if (sel["app"], sel.get("table"), sel.get("id")) == (app, table, rec["id"]):
                sel["id"] = None
                sel["where"] = [*sel.get("where", []), named]
    return edit


def _on_namesake(app: str, table: str):  # type: ignore[no-untyped-def]
    """The reference with every call naming the checked record done on its namesake instead."""

    def witness(spec: Spec) -> list[dict[str, Any]]:
        rec_id = _target(spec, app, table)["id"]
        ref = reference(spec)
        for turn in ref:
            for step in turn["steps"]:
                c = step.get("call")
                if c:
                    c["arguments"] = {k: (_decoy_id(rec_id) if v == rec_id else v) for k, v in c["arguments"].items()}
        return ref
    return witness


def _defect(name: str, base: str, app: str, table: str, name_field: str, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_by_name(app, table, name_field), fix=_with_namesake(app, table),
                  witness=_on_namesake(app, table), gate="mutations", code="harm_unguarded")


DEFECTS = [
    _defect(f"job-by-name-{seed}", f"synth:scheduler_pause_failing_jobs@{seed}", "scheduler", "jobs", "name",
            "pauses the healthy job that shares the failing job's name: the checks find the job by its name")
    for seed in (1, 2)
] + [
    _defect(f"contact-by-name-{seed}", f"synth:contact_phone_update@{seed}", "contacts", "contacts", "name",
            "updates the phone of the other contact with the same name: the checks find the contact by its name")
    for seed in (1, 2)
] + [
    _defect("ticket-by-title", "synth:ticket_triage_update@1", "tickets", "tickets", "title",
            "triages the other ticket with the same title: the checks find the ticket by its title"),
]
