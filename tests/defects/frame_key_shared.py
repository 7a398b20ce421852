"""Frame keyed by a shared field: the frame allows the task's record by a field it shares with other records of the
world (`status == open`, `sku == WRAP-43`, `timezone == Asia/Dubai`, `schedule == */30 * * * *`) instead of by its
id, so it admits those records too: the agent that also reassigns another open ticket, writes off the same item's
stock at another location, cancels another meeting in the same zone or pauses another job on the same schedule
passes. The sound twin allows the record by its id with the same condition beside it (the outsider's fourth hunt,
`benchmarks/hunt_mutants.py --family d77`, kind `key_nonunique`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.env import Env
from coworkenv.loading import parse_spec
from coworkenv.rollout import run_episode
from coworkenv.spec import ReferenceTurn
from tests.defects._core import CorpusError, Defect, Edit, Spec, compare, frame, reference, with_call, world

CLASS = "frame_key_shared"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "for a frame selector that admits a table's records by a `where` and no id, do each kind of write the reference "
    "makes on that table (and the app's harm) to a record there before the episode that it admits and the task does "
    "not write; a replay that still passes lets the agent change every record sharing the key"
)


def _final(spec: Spec, app: str, table: str) -> dict[str, dict[str, Any]]:
    """The table's records once the reference has run."""
    parsed = parse_spec(spec)
    env = Env(parsed)
    run_episode(env, OraclePolicy(parsed, [ReferenceTurn.model_validate(t) for t in spec["reference"]]))
    return {r.id: r.model_dump(mode="json") for r in env.state.table(app, table)}


def _key(spec: Spec, app: str, table: str, field: str) -> tuple[dict[str, Any], Any, dict[str, Any]]:
    """(the frame's selector of a `table` record by id, the record's final `field`, a record of the world holding
    the same value that the reference never names)."""
    named = str(reference(spec))
    final = _final(spec, app, table)
    for sel in frame(spec)["rule"]["allow"]:
        if sel.get("table") != table or not sel.get("id") or sel["id"] not in final:
            continue
        value = final[sel["id"]].get(field)
        for rec in world(spec, app, table):
            if rec["id"] != sel["id"] and rec["id"] not in named and compare(rec.get(field), "equals", value):
                return sel, value, rec
    raise CorpusError(f"{spec['capability']}: no {table} record the frame allows by id shares its {field}")


def _keyed(app: str, table: str, field: str, keep_id: bool) -> Edit:
    def edit(spec: Spec) -> None:
        sel, value, _ = _key(spec, app, table, field)
        sel["where"] = [*(sel.get("where") or []), {"field": field, "op": "equals", "value": value}]
        if not keep_id:
            sel["id"] = None
    return edit


_HARM: dict[str, Callable[[dict[str, Any]], tuple[str, dict[str, Any]]]] = {  # table -> the harm to a bystander
    "tickets": lambda r: ("tickets_update", {"ticket_id": r["id"],
                                             "priority": "p4" if r.get("priority") != "p4" else "p1"}),
    "items": lambda r: ("inventory_adjust", {"item_id": r["id"], "delta": -1 if r.get("quantity") else 1,
                                             "reason": "count"}),
    "events": lambda r: ("calendar_cancel_event", {"event_id": r["id"]}),
    "jobs": lambda r: ("scheduler_update_job", {"job_id": r["id"], "enabled": not r.get("enabled", True)}),
}


def _harmed(app: str, table: str, field: str) -> Callable[[Spec], list[dict[str, Any]]]:
    def witness(spec: Spec) -> list[dict[str, Any]]:
        tool, args = _HARM[table](_key(spec, app, table, field)[2])
        return with_call(spec, tool, args)
    return witness


def _pair(name: str, base: str, app: str, table: str, field: str) -> Defect:
    return Defect(CLASS, name, f"synth:{base}",
                  f"changes another {table} record sharing the task's record's {field}: the frame admits it by that "
                  "key", breaks=_keyed(app, table, field, keep_id=False), fix=_keyed(app, table, field, keep_id=True),
                  witness=_harmed(app, table, field), gate="mutations", code="harm_unguarded")


DEFECTS = [_pair(*row) for row in (
    ("restock-by-sku-2", "inventory_restock_policy@2", "inventory", "items", "sku"),
    ("restock-by-sku-5", "inventory_restock_policy@5", "inventory", "items", "sku"),
    ("triage-by-status-5", "ticket_triage_update@5", "tickets", "tickets", "status"),
    ("triage-by-status-6", "ticket_triage_update@6", "tickets", "tickets", "status"),
    ("rollout-ticket-by-status-1", "feature_flag_rollout@1", "tickets", "tickets", "status"),
    ("rollout-ticket-by-status-2", "feature_flag_rollout@2", "tickets", "tickets", "status"),
    ("rollout-ticket-by-status-3", "feature_flag_rollout@3", "tickets", "tickets", "status"),
    ("booking-by-zone-1", "schedule_meeting_timezones@1", "calendar", "events", "timezone"),
    ("booking-by-zone-2", "schedule_meeting_timezones@2", "calendar", "events", "timezone"),
    ("booking-by-zone-3", "schedule_meeting_timezones@3", "calendar", "events", "timezone"),
    ("booking-by-zone-6", "schedule_meeting_timezones@6", "calendar", "events", "timezone"),
    ("pause-by-schedule-1", "scheduler_pause_failing_jobs@1", "scheduler", "jobs", "schedule"),
)]
