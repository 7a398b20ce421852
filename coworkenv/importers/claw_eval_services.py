"""Claw-Eval mock services as coworkenv apps: fixture records -> world records, service tools -> bindings.

Each adapter knows one service: where its fixtures are, how a fixture record becomes an app record, and which
app operation each of its tools runs (argument renames, conversions, value maps, result shaping). A task tool
argument an adapter does not know is accepted and dropped, and the importer reports it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from coworkenv.bindings import ArgBinding, ResultShape

PRIORITY = {"urgent": "p1", "critical": "p1", "high": "p2", "medium": "p3", "normal": "p3", "low": "p4"}
TICKET_STATUS = {"open": "open", "in_progress": "in_progress", "pending": "blocked", "blocked": "blocked",
                 "resolved": "resolved", "closed": "closed"}
# Services that cannot become a world app (by name prefix): why they are left out.
UNSUPPORTED = {
    "web_real": "real web search and pages (not reproducible offline)",
    "ocr": "multimodal input (images)", "caption": "multimodal input (images, video)",
    "documents": "multimodal input (documents as images)",
}


def unsupported_reason(service: str) -> str:
    """Why a service without an adapter is left out."""
    found = next((why for prefix, why in UNSUPPORTED.items() if service.startswith(prefix)), None)
    return found or "no coworkenv app for this service (no adapter yet)"


@dataclass(frozen=True)
class ToolMap:
    """How one service tool runs on an app op: known arguments, fixed op arguments and the result's shape."""

    op: str
    args: dict[str, ArgBinding]
    defaults: dict[str, Any] = field(default_factory=dict)
    result: ResultShape = field(default_factory=ResultShape)


@dataclass(frozen=True)
class ServiceAdapter:
    """One Claw-Eval service as a coworkenv app."""

    name: str
    app: str
    fixture_env: str  # the service's environment variable naming its fixture file
    records: Callable[[Any], dict[str, list[dict[str, Any]]]]  # fixture JSON -> {table: records}
    tools: dict[str, ToolMap]


def _addresses(value: Any) -> list[str]:
    items = value if isinstance(value, list) else str(value or "").split(",")
    return [str(i).strip() for i in items if str(i).strip()]


def _mail_records(data: Any) -> dict[str, list[dict[str, Any]]]:
    rows = data if isinstance(data, list) else data.get("messages", [])
    out = []
    for m in rows:
        labels = {str(label).upper() for label in m.get("labels", [])}
        folder = "sent" if "SENT" in labels else "drafts" if "DRAFT" in labels else "inbox"
        message_id = str(m["message_id"])
        out.append({
            "id": message_id, "thread_id": str(m.get("thread_id") or f"thr-{message_id}"), "folder": folder,
            "sender": str(m.get("from", "")), "to": _addresses(m.get("to")), "cc": _addresses(m.get("cc")),
            "subject": str(m.get("subject", "")), "body": str(m.get("body", "")), "sent_at": m.get("date"),
            "read": bool(m.get("is_read", False)),
        })
    return {"messages": out}


def _ticket_records(data: Any) -> dict[str, list[dict[str, Any]]]:
    rows = data if isinstance(data, list) else data.get("tickets", [])
    out = []
    for t in rows:
        created = str(t.get("created_at", ""))
        out.append({
            "id": str(t["ticket_id"]), "title": str(t.get("title", "")), "description": str(t.get("description", "")),
            "status": TICKET_STATUS.get(str(t.get("status", "open")).lower(), "open"),
            "priority": PRIORITY.get(str(t.get("priority", "")).lower(), "p3"),
            "reporter": str(t.get("reporter", "")), "labels": [str(x) for x in t.get("tags", [])],
            "created_at": created, "updated_at": str(t.get("updated_at", created)),
        })
    return {"tickets": out}


def _rename(to: str, *convert: Any, values: dict[str, Any] | None = None) -> ArgBinding:
    return ArgBinding(to=to, convert=list(convert), values=values or {})


_MESSAGE_SUMMARY = ResultShape(fields={"message_id": "id", "from": "sender", "to": "to", "subject": "subject",
                                       "date": "sent_at", "is_read": "read"}, wrap="messages")
_MESSAGE = ResultShape(fields={"message_id": "id", "from": "sender", "to": "to", "cc": "cc", "subject": "subject",
                               "body": "body", "date": "sent_at", "is_read": "read"})
_COMPOSE = {"to": _rename("to", "split"), "cc": _rename("cc", "split"), "subject": _rename("subject"),
            "body": _rename("body"), "reply_to_message_id": _rename("in_reply_to"),
            "in_reply_to": _rename("in_reply_to")}
_TICKET = ResultShape(fields={"ticket_id": "id", "title": "title", "description": "description",
                              "status": "status", "priority": "priority", "tags": "labels",
                              "reporter": "reporter", "created_at": "created_at"})
_TICKET_SUMMARY = ResultShape(fields={"ticket_id": "id", "title": "title", "status": "status",
                                      "priority": "priority"}, wrap="tickets")
_PRIORITY_ARG = _rename("priority", values=PRIORITY)
_STATUS_ARG = _rename("status", values={**TICKET_STATUS, "all": None})

ADAPTERS: dict[str, ServiceAdapter] = {
    "gmail": ServiceAdapter("gmail", "mail", "GMAIL_FIXTURES", _mail_records, {
        "gmail_list_messages": ToolMap("mail_list_messages", {
            "max_results": _rename("limit"), "unread_only": _rename("unread_only")}, result=_MESSAGE_SUMMARY),
        "gmail_search_messages": ToolMap("mail_search", {
            "query": _rename("query"), "max_results": _rename("limit")}, result=_MESSAGE_SUMMARY),
        "gmail_get_message": ToolMap("mail_read_message", {"message_id": _rename("message_id")}, result=_MESSAGE),
        "gmail_save_draft": ToolMap("mail_save_draft", _COMPOSE,
                                    result=ResultShape(fields={"draft_id": "id", "status": "folder"})),
        "gmail_send_message": ToolMap("mail_send", _COMPOSE,
                                      result=ResultShape(fields={"message_id": "id", "sent_at": "sent_at"})),
    }),
    "helpdesk": ServiceAdapter("helpdesk", "tickets", "HELPDESK_FIXTURES", _ticket_records, {
        "helpdesk_list_tickets": ToolMap("tickets_search", {
            "status": _STATUS_ARG, "query": _rename("query")}, result=_TICKET_SUMMARY),
        "helpdesk_get_ticket": ToolMap("tickets_get", {"ticket_id": _rename("ticket_id")}, result=_TICKET),
        "helpdesk_update_ticket": ToolMap("tickets_update", {
            "ticket_id": _rename("ticket_id"), "priority": _PRIORITY_ARG, "status": _STATUS_ARG,
            "assignee": _rename("assignee")}, result=_TICKET),
        "helpdesk_close_ticket": ToolMap("tickets_update", {"ticket_id": _rename("ticket_id")},
                                         defaults={"status": "closed"}, result=_TICKET),
    }),
}
