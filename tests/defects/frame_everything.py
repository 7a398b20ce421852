"""Frame allowing everything: a frame guard whose allow-list names, whole, every app the spec can change (app by
app, or table by table), so it can never fail, though it does not name every app the library has. A check on
"every app" breaks as soon as apps gain tables or the library gains apps; what matters is what this spec's
world, tools and dynamics can change. The sound twin keeps the spec's narrowed frame."""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Spec, frame

CLASS = "frame_everything"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "collect the apps the spec can change (its world's records, its write tools, its dynamics and log streams); a "
    "frame allowing each of them whole (app-wide or every table) with no id, fields or where can never fail"
)

_TABLES = {"mail": ["messages"], "calendar": ["events"], "files": ["files"], "chat": ["channels", "messages"],
           "tickets": ["tickets"], "services": ["services", "configs", "deployments"], "logs": ["lines"],
           "directory": ["people", "teams"], "todo": ["lists", "tasks"], "scheduler": ["jobs", "runs"],
           "config": ["entries", "revisions", "integrations"], "inventory": ["locations", "items", "movements", "orders"]}


def _changeable(spec: Spec) -> list[str]:
    """The apps the spec's world holds records of, its tools write to, and its dynamics touch."""
    held = {app for app, tables in spec["world"]["apps"].items() if any(tables.values())}
    decls = {d["name"]: d["bind"]["op"] for d in spec.get("tool_decls", [])}
    written = {decls.get(t, t).split("_")[0] for t in [*spec["tools"], *decls]}
    moved = {e["app"] for r in spec["dynamics"]["rules"] for e in r["effects"] if "app" in e}
    logged = {"logs"} if spec["dynamics"].get("streams") or any(
        e["kind"] == "log" for r in spec["dynamics"]["rules"] for e in r["effects"]) else set()
    return sorted(held | written | moved | logged)


def _app_wide(spec: Spec) -> None:
    frame(spec)["rule"]["allow"] = [{"app": app} for app in _changeable(spec)]


def _table_wide(spec: Spec) -> None:
    allow: list[dict[str, Any]] = []
    for app in _changeable(spec):
        allow += [{"app": app, "table": t} for t in _TABLES[app]] if app in _TABLES else [{"app": app}]
    frame(spec)["rule"]["allow"] = allow


def _defect(name: str, base: str, away: str, breaks) -> Defect:  # type: ignore[no-untyped-def]
    return Defect(CLASS, name, base, away, breaks=breaks, gate="reads_state", code="unfalsifiable_frame")


DEFECTS = [
    _defect("incident-frame-every-app", "example:incident_rollback",
            "changes anything in payments, tickets, chat, mail or logs: the frame names each of them whole", _app_wide),
    _defect("reschedule-frame-every-table", "example:meeting_reschedule",
            "changes any event, mail or chat message: the frame names every table of every app the spec touches",
            _table_wide),
    _defect("triage-frame-every-app", "synth:ticket_triage_update@1",
            "reassigns tickets that were already triaged: the frame allows every app the spec can change", _app_wide),
    _defect("inbox-frame-every-table", "synth:inbox_triage_reply@1",
            "archives a colleague's mail too: the frame allows every table of every app the spec can change",
            _table_wide),
    _defect("jobs-frame-every-app", "synth:scheduler_pause_failing_jobs@1",
            "pauses another service's jobs too: the frame allows every app the spec can change", _app_wide),
    _defect("restock-frame-every-app", "example:restock_store_declared_tools",
            "closes the Porto task or moves other stock: the frame allows every app the declared tools reach",
            _app_wide),
]
