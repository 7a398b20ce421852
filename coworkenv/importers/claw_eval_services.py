"""Claw-Eval mock services as coworkenv apps: fixture records -> world records, service tools -> bindings.

Each adapter knows one service: where its fixtures are, how a fixture record becomes an app record, and which
app operation each of its tools runs (argument renames, conversions, value maps, result shaping). A task tool
argument an adapter does not know is accepted and dropped, and the importer reports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from coworkenv.bindings import ArgBinding, Case, DayWindow, ItemFilter, ResultShape
from coworkenv.importers.claw_eval_adapter import ServiceAdapter, ToolMap, number_of, recorded
from coworkenv.importers.claw_eval_adapter import rename as _rename
from coworkenv.importers.claw_eval_adapter import written as _written
from coworkenv.importers.claw_eval_backoffice import BACKOFFICE
from coworkenv.importers.claw_eval_documents import DOCUMENTS
from coworkenv.importers.claw_eval_ocr import BY_COMMAND as BY_OCR_COMMAND
from coworkenv.importers.claw_eval_records import Derived, RecordMap, first_of, tags_of, text_of
from coworkenv.request_models import DaySpan
from coworkenv.world import format_time, parse_time

PRIORITY = {"urgent": "p1", "critical": "p1", "high": "p2", "medium": "p3", "normal": "p3", "low": "p4"}
# Every status a helpdesk fixture of the public checkout holds has its own app status (before, `investigating`
# and `done` fell to `open`, so an `open` filter listed them); `done` shares `closed` with it.
TICKET_STATUS = {"open": "open", "in_progress": "in_progress", "investigating": "in_progress", "pending": "blocked",
                 "blocked": "blocked", "resolved": "resolved", "done": "closed", "closed": "closed"}
# Services without an adapter (by name prefix): why they are left out.
UNSUPPORTED = {
    "web_real": "real web search and pages (not reproducible offline)",
    "ocr": "multimodal input (images): no OCR service of Claw-Eval's own", "caption": "multimodal input (images, video)",
    "documents": "PDF text extraction run by a command other than Claw-Eval's documents service "
                 "(mock_services/documents/server.py, which the import answers as there, its PDFs' text read with "
                 "pypdf): no adapter for that command",
}


# Services run under a name of each task's, found by the folder of the mock service their command runs.
BY_COMMAND = {**BY_OCR_COMMAND, "documents": DOCUMENTS}


def adapter_for(name: str, command: str) -> ServiceAdapter | None:
    """The adapter of a task's service: by its name, else by the mock service its command runs when that service
    runs under a name of each task's (the OCR service: `ocr_t50`, `ocr_paper`...), named as the task names it."""
    found = ADAPTERS.get(name)
    parts = command.split()
    by_command = BY_COMMAND.get(Path(parts[-1]).parent.name) if parts else None
    return found if found is not None else replace(by_command, name=name) if by_command is not None else None


def unsupported_reason(service: str) -> str:
    """Why a service without an adapter is left out."""
    found = next((why for prefix, why in UNSUPPORTED.items() if service.startswith(prefix)), None)
    return found or "no coworkenv app for this service (no adapter yet)"


def _addresses(value: Any) -> list[str]:
    items = value if isinstance(value, list) else str(value or "").split(",")
    return [str(i).strip() for i in items if str(i).strip()]


def _wall_time(value: Any) -> Any:
    """A mail fixture's time as Claw-Eval's gmail service shows and compares it: its clock time read as UTC (the
    service prints a `+08:00` time's own hours with `Z`, and filters by that)."""
    if not isinstance(value, str):
        return value
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return value
    return parsed.strftime("%Y-%m-%dT%H:%M:%SZ")


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
            "subject": str(m.get("subject", "")), "body": str(m.get("body", "")), "sent_at": _wall_time(m.get("date")),
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


def _moved_times(first: str, keys: tuple[str, ...], pick: Any, ahead: timedelta, *, calendar: bool) -> Any:
    """Why the loader of a service that moves its records' times (`_load_fixtures` of Claw-Eval's calendar and
    gmail) raises on a fixture's data, or None: the same steps on the same values. Each record's `first` time is read
    (`datetime.fromisoformat(v.replace("Z", "+00:00"))`), the earliest or newest (`pick`) is moved to about now
    (`ahead` of the service's UTC clock; the `calendar`'s at that time's own clock hour), and every record's `keys`
    (the calendar's: those set) are moved by that. A record that is no object, lacks the time, or holds one that is
    no text, no ISO time or none with an offset (it cannot be taken from the aware clock) fails it."""

    def fails(data: Any) -> str | None:
        if not data:  # the loader returns at once: nothing to move
            return None
        where = "the fixture"
        listed = isinstance(data, list)  # else the loader reads an object's keys, or a text's characters, as records
        try:
            dates = []
            for n, record in enumerate(data):
                where = f"record {n}" if listed else f"the fixture (a JSON {type(data).__name__}, no list of records)"
                dates.append(datetime.fromisoformat(record[first].replace("Z", "+00:00")))
            where = f"the {first} times"
            chosen = pick(dates)
            target = datetime.now(UTC) + ahead
            if calendar:
                target = target.replace(hour=chosen.hour, minute=chosen.minute, second=0, microsecond=0)
            delta = target - chosen
            for n, record in enumerate(data):
                where = f"record {n}"
                for key in keys:
                    if not calendar or (record.get(key)):
                        (datetime.fromisoformat(record[key].replace("Z", "+00:00")) + delta).strftime(
                            "%Y-%m-%dT%H:%M:%SZ")
        except (KeyError, TypeError, AttributeError, ValueError, OverflowError) as exc:
            what = f"no {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
            return f"{where}: {what}"
        return None

    return fails


def _mail_as_loaded(rows: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The mail as the service holds it once loaded: its dates' clock times with `Z` (`_wall_time`)."""
    return [{**m, "date": _wall_time(m["date"])} if "date" in m else m for m in rows]


def _with_snippet(article: Mapping[str, Any]) -> Mapping[str, Any]:
    """An article with the snippet a search shows of it: its content's first 150 characters and `...`, as the
    service cuts it (of the content as loaded: an update of it is not followed)."""
    return {**article, "snippet": str(article.get("content") or "")[:150] + "..."}


_MESSAGE_SUMMARY = ResultShape(fields={"message_id": "id", "from": "sender", "to": "to", "subject": "subject",
                                       "date": "sent_at", "is_read": "read"}, wrap="messages", count="total")
_MESSAGE = ResultShape(fields={"message_id": "id", "from": "sender", "to": "to", "cc": "cc", "subject": "subject",
                               "body": "body", "date": "sent_at", "is_read": "read"})
_COMPOSE = {"to": _rename("to", "split"), "cc": _rename("cc", "split"), "subject": _rename("subject"),
            "body": _rename("body"), "reply_to_message_id": _rename("in_reply_to"),
            "in_reply_to": _rename("in_reply_to")}
# The app's priorities in the service's words (a held ticket shows its own word until a write changes it)
PRIORITY_WORD = {"p1": "urgent", "p2": "high", "p3": "medium", "p4": "low"}
_TICKET = ResultShape(fields={"ticket_id": "id", "title": "title", "description": "description",
                              "status": "status", "priority": "priority", "tags": "labels",
                              "reporter": "reporter", "created_at": "created_at"},
                      values={"priority": PRIORITY_WORD}, kept="added")
_TICKET_SUMMARY = ResultShape(fields={"ticket_id": "id", "title": "title", "status": "status",
                                      "priority": "priority"}, wrap="tickets", count="total",
                              values={"priority": PRIORITY_WORD}, kept="shown")
ARTICLE_STATUS = {"published": "published", "active": "published", "live": "published", "draft": "draft",
                  "archived": "archived", "deprecated": "archived", "outdated": "archived"}
# The services keep a priority as any text; the apps hold closed sets of words. A word of the service's own tasks is
# mapped (letter case aside, as the fixtures are read); any other text is accepted and ignored, the rest of the
# write going through, where the app would refuse the whole call (the priority stays as it was, or the default).
# Either way the service's priority is the text as written: kept beside the record and shown so (`ArgBinding.kept`).
_PRIORITY_ARG = _rename("priority", "lower", values=PRIORITY, unmapped="dropped", kept="priority")
_STATUS_ARG = _rename("status", values={**TICKET_STATUS, "all": None})
# The services filter a list by comparing a status's text: one no record holds lists nothing.
_STATUS_FILTER = _rename("status", values={**TICKET_STATUS, "all": None}, closed=True)

ADAPTERS: dict[str, ServiceAdapter] = {
    "gmail": ServiceAdapter("gmail", "mail", "GMAIL_FIXTURES", _mail_records, {
        # the service lists its fixture's mail sent in the last `days_back` days (7 unless given), in the fixture's
        # order, and takes no other filter
        "gmail_list_messages": ToolMap("mail_list_messages", {
            "max_results": _rename("limit"), "days_back": _rename("days_back")},
            defaults={"days_back": 7, "stored_order": True}, result=_MESSAGE_SUMMARY, stored=True,
            listed=("message_id", "from", "subject", "date", "is_read", "labels"), cut="max_results",
            day_spans=(DaySpan(days="days_back", sign=-1),)),  # `now - timedelta(days=req.days_back)`
        "gmail_search_messages": ToolMap("mail_search", {
            "query": _rename("query"), "max_results": _rename("limit")}, result=_MESSAGE_SUMMARY),
        "gmail_get_message": ToolMap("mail_read_message", {"message_id": _rename("message_id")}, result=_MESSAGE,
                                     stored=True),
        # the service answers the mail it recorded, as the request gave it (no id: it keeps none)
        "gmail_save_draft": ToolMap("mail_save_draft", _COMPOSE, result=recorded(
            "draft", "draft_saved", "to", "subject", "body", "reply_to_message_id")),
        # the service records any `to` as given, no address or an empty one too
        "gmail_send_message": ToolMap("mail_send", _COMPOSE, defaults={"any_recipient": True}, result=recorded(
            "message", "sent", "to", "subject", "body")),
    }, key="message_id", list_key="messages", held_as=_mail_as_loaded, not_found="Message {message_id} not found",
        load_fails=_moved_times("date", ("date",), max, timedelta(days=-1), calendar=False)),
    "helpdesk": ServiceAdapter("helpdesk", "tickets", "HELPDESK_FIXTURES", _ticket_records, {
        "helpdesk_list_tickets": ToolMap("tickets_search", {
            "status": _STATUS_FILTER, "query": _rename("query")}, result=_TICKET_SUMMARY, stored=True,
            listed=("ticket_id", "title", "reporter", "department", "priority", "status", "created_at")),
        "helpdesk_get_ticket": ToolMap("tickets_get", {"ticket_id": _rename("ticket_id")}, result=_TICKET,
                                       stored=True),
        "helpdesk_update_ticket": ToolMap("tickets_update", {
            "ticket_id": _rename("ticket_id"), "priority": _PRIORITY_ARG, "status": _STATUS_ARG,
            "assignee": _rename("assignee"),
            # fields the service keeps as written that a ticket here has none for: kept beside it, shown so
            "tags": _rename(None, kept="tags"), "category": _rename(None, kept="category")},
            result=_written(_TICKET, "ticket", "updated"), stored=True),
        "helpdesk_close_ticket": ToolMap("tickets_update", {"ticket_id": _rename("ticket_id"),
                                                            "resolution": _rename(None, kept="resolution")},
                                         defaults={"status": "closed"}, stored=True, result=_written(
                                             # the service sets the ticket's resolution as the call gives it
                                             _TICKET.model_copy(update={"given": {"resolution": "resolution"}}),
                                             "ticket", "closed")),
    }, key="ticket_id", list_key="tickets", not_found="Ticket {ticket_id} not found"),
}

_CONTACT = ResultShape(fields={"contact_id": "id", "name": "name", "department": "tags.0", "email": "email",
                               "phone": "phone", "notes": "notes"})
_CUSTOMER = ResultShape(fields={"customer_id": "id", "name": "company", "contact_person": "name",
                                "status": "tags.0", "tier": "tags.1", "industry": "tags.2", "email": "email",
                                "phone": "phone", "notes": "notes"})
_ARTICLE = ResultShape(fields={"article_id": "id", "title": "title", "category": "category", "tags": "tags",
                               "content": "body", "author": "author", "last_updated": "updated_at",
                               "created_at": "created_at", "views": "views"}, kept="added")
_NOTE = ResultShape(fields={"note_id": "id", "title": "title", "content": "body", "tags": "tags",
                            "created_at": "created_at"})

ADAPTERS.update({
    # A person's department is their first tag (search filters by it); title, location, skills and the like
    # become lines of the contact's notes.
    "contacts": ServiceAdapter("contacts", "contacts", "CONTACTS_FIXTURES", RecordMap(
        "contacts", "contacts", {"id": text_of("contact_id"), "name": "name", "email": "email", "phone": "phone",
                                 "tags": tags_of("department", then=("contacts",)),
                                 "notes": first_of("notes", "note")},
        fold_into="notes"), {
        # the service matches the query within names only, and the department within a person's department
        "contacts_search": ToolMap("contacts_search", {
            "query": _rename("query"), "department": _rename(None), "max_results": _rename("limit")},
            defaults={"tag": "contacts", "in_name": True, "limit": 200},  # (it lists every match)
            result=ResultShape(fields=_CONTACT.fields, wrap="contacts", count="total"), stored=True,
            item_filters={"department": ItemFilter(path="tags.0", within=True)}),
        "contacts_get": ToolMap("contacts_get", {"contact_id": _rename("contact_id")}, result=_CONTACT, stored=True),
        "contacts_send_message": ToolMap("contacts_send_message", {
            "contact_id": _rename("contact_id"), "message": _rename("message")},
            defaults={"unchecked_id": True},  # the service records a message to any id
            result=recorded("record", "sent", "contact_id", "message")),  # the message as the service records it
    }, tag="contacts", key="contact_id", not_found="Contact {contact_id} not found"),
    # A customer is a contact at a company: status, tier and industry are its tags in that order (the list
    # filters by each, as the service does, and lists every customer), revenue, contract and the like become lines of its notes. Both services tag their
    # records ("contacts", "crm") and list only their own, so a task can use both.
    "crm": ServiceAdapter("crm", "contacts", "CRM_FIXTURES", RecordMap(
        "contacts", "customers", {"id": text_of("customer_id"), "company": "name",
                                  "name": first_of("contact_person", "name"),
                                  "email": first_of("email", "contact_email"),
                                  "phone": first_of("phone", "contact_phone"),
                                  "tags": tags_of("status", "tier", "industry", then=("crm",)), "notes": text_of("notes")},
        fold_into="notes"), {
        # (an empty filter filters nothing, as the service tests each one's truth)
        "crm_list_customers": ToolMap("contacts_search", {
            "status": _rename("tags", "to_list", blank=True), "tier": _rename("tags", "to_list", blank=True),
            "industry": _rename("tags", "to_list", blank=True)}, defaults={"tag": "crm", "limit": 200, "stored_order": True},
                                      result=ResultShape(fields=_CUSTOMER.fields, wrap="customers", count="total"),
                                      stored=True, listed=("customer_id", "name", "contact_person", "tier", "status",
                                                           "industry", "annual_revenue")),
        "crm_get_customer": ToolMap("contacts_get", {"customer_id": _rename("contact_id")}, result=_CUSTOMER,
                                    stored=True),
        "crm_export_report": ToolMap("contacts_export_report", {
            "title": _rename("title"), "customer_ids": _rename("contact_ids"), "summary": _rename("summary")},
            result=recorded("report", "exported", "title", "customer_ids", "summary")),  # as the service records it
    }, tag="crm", key="customer_id", not_found="Customer {customer_id} not found"),
    "kb": ServiceAdapter("kb", "kb", "KB_FIXTURES", RecordMap(
        "articles", "articles", {"id": text_of("article_id"), "title": "title", "body": text_of("content"),
                                 "category": "category", "tags": tags_of("tags"),
                                 "status": Derived(("status",), lambda r: ARTICLE_STATUS.get(
                                     str(r.get("status") or "published").lower(), str(r.get("status")))),
                                 "author": "author", "updated_at": text_of("last_updated"),
                                 "created_at": text_of("created_at"), "views": number_of("views")}), {
        # the service lists, in its fixture's order and whatever their status, the articles sharing any word,
        # character pair or CJK character with the query
        "kb_search": ToolMap("kb_search", {
            "query": _rename("query"), "category": _rename("category", blank=True), "max_results": _rename("limit")},
            defaults={"any_token": True, "include_archived": True},
            # the snippet cut from the article's content as it is now (an update followed)
            result=ResultShape(fields={"article_id": "id", "title": "title", "category": "category",
                                       "last_updated": "updated_at", "snippet": "body"}, snippets={"snippet": 150},
                               wrap="articles", count="total", kept="shown"),
            stored=True, listed=("article_id", "title", "category", "tags", "last_updated", "views", "snippet"),
            held_as=_with_snippet, cut="max_results"),
        "kb_get_article": ToolMap("kb_get_article", {"article_id": _rename("article_id")}, result=_ARTICLE,
                                  stored=True),
        # the service's answer; it dates the article's `last_updated` to the day (kept so, shown by later answers)
        "kb_update_article": ToolMap("kb_update_article", {
            "article_id": _rename("article_id"), "content": _rename("body")}, kept_stamp="last_updated",
            result=ResultShape(fields={"article_id": "id"}, const={"status": "updated"}, stamp_style="date")),
    }, key="article_id", not_found="Article {article_id} not found"),
    # A meeting note's participants, duration and the like become lines at the end of its body.
    "notes": ServiceAdapter("notes", "notes", "NOTES_FIXTURES", RecordMap(
        "notes", "notes", {"id": text_of("note_id"), "title": "title", "body": text_of("content"),
                           "tags": tags_of("tags"), "created_at": text_of("created_at"),
                           "updated_at": text_of("created_at")}, fold_into="body"), {
        # the service lists its notes in the fixture's order and takes no filter (a tag is accepted and dropped)
        "notes_list": ToolMap("notes_list_notes", {"max_results": _rename("limit"), "tag": ArgBinding(to=None)},
                              defaults={"stored_order": True},
                              result=ResultShape(fields={"note_id": "id", "title": "title", "tags": "tags",
                                                         "created_at": "updated_at"}, wrap="notes", count="total"),
                              stored=True, listed=("note_id", "title", "created_at", "participants", "duration_minutes"),
                              cut="max_results"),
        "notes_get": ToolMap("notes_read_note", {"note_id": _rename("note_id")}, result=_NOTE, stored=True),
        "notes_share": ToolMap("notes_share_note", {"note_id": _rename("note_id"), "recipients": _rename("recipients")},
                               defaults={"unchecked_id": True},  # the service records a share of any id
                               result=recorded("record", "shared", "note_id", "recipients")),  # as recorded there
    }, key="note_id", not_found="Note {note_id} not found"),
})


def _utc(name: str) -> Derived:
    return Derived((name,), lambda r: format_time(parse_time(str(r[name]))) if r.get(name) else None)


_EVENT = ResultShape(fields={"event_id": "shown_id", "title": "title", "start_time": "start", "end_time": "end",
                             "attendees": "attendees", "location": "location", "organizer": "organizer",
                             "description": "description", "status": "status"},
                     kept="added")  # an event the service made: its fields, its times as given
# an event written (created, deleted): the op's `event`, without its status (the answer's status is the write's)
_EVENT_WRITTEN = ResultShape(fields={k: f"event.{v}" for k, v in _EVENT.fields.items() if k != "status"},
                             record_id="event.id", kept="added")
def _fixture_time(value: Any) -> datetime | None:
    """A fixture time as Claw-Eval's services read it (`fromisoformat`, `Z` as UTC); None when it reads as none
    or as a time without an offset (the services cannot compare it with their clock)."""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00")) if isinstance(value, str) else None
    except ValueError:
        return None
    return parsed if parsed is not None and parsed.utcoffset() is not None else None


def as_the_calendar_loads(events: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The events with their times where Claw-Eval's calendar shows them once loaded, its clock at the world's
    start (a day before the earliest event's instant, `claw_eval._start`). The service moves every time by the
    earliest event's own clock hour on that instant's UTC day less the instant, and writes each moved time's own
    clock hours with `Z`: times in UTC stay, a fixture at `+08:00` lands 16 hours after its instants (09:00+08:00 at
    17:00Z). Events whose starts it cannot read (it fails to load) are left as the fixture gives them."""
    starts = [_fixture_time(e.get("start_time")) for e in events]
    if not starts or any(t is None for t in starts):
        return events
    earliest = min(t for t in starts if t is not None)
    day = earliest.astimezone(UTC)
    delta = day.replace(hour=earliest.hour, minute=earliest.minute, second=0, microsecond=0) - earliest
    out: list[Mapping[str, Any]] = []
    for event in events:
        moved = dict(event)
        for key in ("start_time", "end_time"):
            at = _fixture_time(event.get(key))
            if at is not None:
                moved[key] = (at + delta).strftime("%Y-%m-%dT%H:%M:%SZ")
        out.append(moved)
    return out


# Claw-Eval shifts its events so that the earliest starts about a day after the service starts; the importer
# starts the world a day before the earliest event's instant instead (see claw_eval._start), and holds the times
# as the service then shows them (`as_the_calendar_loads`).
ADAPTERS["calendar"] = ServiceAdapter("calendar", "calendar", "CALENDAR_FIXTURES", RecordMap(
    "events", "events", {"id": text_of("event_id"), "shown_id": text_of("event_id"), "title": "title", "start": _utc("start_time"),
                         "end": _utc("end_time"), "attendees": tags_of("attendees"), "location": "location",
                         "organizer": first_of("organizer"), "description": text_of("description"),
                         "status": Derived(("status",), lambda r: "cancelled" if r.get("status") == "cancelled"
                                           else "confirmed")},
    fold_into="description", defaults={"organizer": "", "timezone": "UTC"}, loaded=as_the_calendar_loads), {
    # the service lists the events starting in [date, date + days), not those overlapping it
    # (it reads the day as `strptime(date, "%Y-%m-%d")`, else answers an error; no day in a window under a day long)
    "calendar_list_events": ToolMap("calendar_list_events", {}, defaults={"starting": True}, windows=(
        DayWindow(day="date", days="days", start="start", end="end", strict="Invalid date format: {day}"),),
        result=ResultShape(fields=_EVENT.fields, wrap="events", count="total", kept="added"), stored=True,
        day_spans=(DaySpan(days="days", day="date"),)),  # `query_date + timedelta(days=req.days)`
    "calendar_get_event": ToolMap("calendar_get_event", {"event_id": _rename("event_id")}, result=_EVENT, stored=True),
    # the service removes the event: a get or delete of it then finds none, and the next create numbers from the
    # events left (`evt_NNN` after them)
    "calendar_delete_event": ToolMap("calendar_cancel_event", {"event_id": _rename("event_id")},
                                     defaults={"remove": True}, result=_written(_EVENT_WRITTEN, "event", "deleted"),
                                     stored=True),
    "calendar_create_event": ToolMap("calendar_add_event", {
        "title": _rename("title"), "start_time": _rename("start_time", kept="start_time"),
        "end_time": _rename("end_time", kept="end_time"), "attendees": _rename("attendees"),
        "location": _rename("location")},
        defaults={"id_as_counted": True},  # numbered by the count held, a held id too after a delete, as there
        kept_fresh=True,  # the event the service holds: the fields it made it with, its times as given
        # the event the service makes: the call's fields, not recurring
        # (its times as the call gives them)
        result=_written(ResultShape(fields={k: v for k, v in _EVENT_WRITTEN.fields.items()
                                            if k not in ("organizer", "description")}, const={"recurring": False},
                                    given={"start_time": "start_time", "end_time": "end_time"},
                                    record_id="event.id", kept="added"),
                        "event", "created")),
    "calendar_get_user_events": ToolMap("calendar_user_events", {
        "user": _rename("user"), "date": _rename("date", strict_day="Invalid date format: {value}")},
                                        result=ResultShape(fields=_EVENT.fields, wrap="events", count="total",
                                                           echo={"user": "user"}, kept="added"), stored=True),
}, key="event_id", not_found="Event {event_id} not found",
    load_fails=_moved_times("start_time", ("start_time", "end_time"), min, timedelta(days=1), calendar=True),
    # an event time without offset: the service's lists fail comparing it with aware times (a TypeError, a 500)
    handler_fails=("has a time no listing can place",))


def _web_records(data: Any) -> dict[str, list[dict[str, Any]]]:
    """Claw-Eval's web fixtures: search entries (with `keywords`) and pages (with `content` or `status_code`)."""
    if not isinstance(data, list):
        raise ValueError("expected a list of search entries or of pages")
    results, pages = [], []
    for n, item in enumerate(data):
        if "keywords" in item or "snippet" in item:
            results.append({"id": f"r-{n + 1:04d}", "url": str(item["url"]), "title": str(item.get("title") or ""),
                            "snippet": str(item.get("snippet") or ""), "source": str(item.get("source") or ""),
                            "published_at": str(item.get("published_at") or ""),
                            "keywords": [str(k) for k in item.get("keywords", [])]})
        else:
            status = int(item.get("status_code", 200))
            pages.append({"id": str(item["url"]), "title": str(item.get("title") or ""), "status": status,
                          "body": str(item.get("content") or "") if status < 400 else str(item.get("error") or "")})
    return {name: rows for name, rows in (("results", results), ("pages", pages)) if rows}


def _pages_as_fetched(rows: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The fixture's pages that answer (status under 400) as the service's fetch answers them: its fields, the
    content type the page gives (`text/html` unless given) and the time of the fetch (`fetched_at`, the call's)."""
    return [{"status_code": p.get("status_code", 200), "url": p["url"], "title": p.get("title", ""),
             "content": p.get("content", ""), "content_type": p.get("content_type", "text/html"), "fetched_at": None}
            for p in rows if "url" in p and "keywords" not in p and "snippet" not in p
            and int(p.get("status_code", 200)) < 400]


# Claw-Eval's mock web: a search over fixed entries ranked by keyword tokens, fetches of fixed pages, and
# notifications (recorded).
ADAPTERS["web"] = ServiceAdapter("web", "web", ("WEB_SEARCH_FIXTURES", "WEB_FETCH_FIXTURES"), _web_records, {
    "web_search": ToolMap("web_rank_results", {"query": _rename("query"), "max_results": _rename("max_results")},
                          result=ResultShape(wrap="results", count="total", echo={"query": "query"}),
                          cut="max_results"),
    # as the service: a failing fetch says why in `error`; a page that answers has none, and its content type and
    # the time it was fetched (held pages: the fixture's pages that answer)
    "web_fetch": ToolMap("web_fetch", {"url": _rename("url")}, defaults={"any_url": True}, result=ResultShape(fields={
        "status_code": "status", "url": "url", "title": "title", "content": "body", "error": "error"},
        optional=["error"], record_id="url", stamp="fetched_at", stamp_style="isoformat",
        # a fetch that fails answers its status, the URL, why, and no content
        failing={"status_code": "status", "url": "url", "error": "error", "content": None}), stored=True),
    "send_notification": ToolMap("web_notify", {"channel": _rename("channel"), "message": _rename("message"),
                                                "recipients": _rename("recipients")},
                                 result=recorded("record", "sent", "channel", "message", "recipients")),
}, key="url", held_as=_pages_as_fetched)


TODO_LIST = "tasks"  # Claw-Eval's to-do service has no lists: every task is in this one
TODO_PRIORITY = {"urgent": "high", "critical": "high", "high": "high", "medium": "medium", "normal": "medium",
                 "low": "low"}
# Claw-Eval's to-do statuses as the app's stages (a task in progress is started, not done). The service keeps a
# status as any text and compares it as written, so any other word (`done`, `blocked`, `Completed`) is the task's
# `status_word`, listed by that word alone, as there.
TODO_STAGE = {"completed": "done", "pending": "not_started", "in_progress": "in_progress"}


def _day_or_time(name: str) -> Derived:
    """A fixture time in UTC; a date alone (YYYY-MM-DD) is that day's 00:00 UTC."""
    def compute(record: Any) -> str | None:
        value = str(record.get(name) or "")
        return format_time(parse_time(f"{value}T00:00:00Z" if len(value) == 10 else value)) if value else None
    return Derived((name,), compute)


def _todo_status(record: Any) -> str:
    return str(record.get("status") or "pending")


# A task's status as the service words it: a status word no stage is, else its stage's word
_TODO_STATUS = [Case(path="status_word"), Case(path="done", equals=True, shows="completed"),
                Case(path="started", equals=True, shows="in_progress"), Case(shows="pending")]
_TODO = ResultShape(fields={"task_id": "shown_id", "title": "title", "description": "notes", "status": "status_word",
                            "priority": "priority", "due_date": "due", "tags": "tags", "completed_at": "done_at",
                            "created_at": "created_at"},
                    cases={"status": _TODO_STATUS}, optional=["completed_at"],  # a task done shows when
                    kept="added")  # as the service keeps them: a priority of any text, a created task's due date
_TODO_PRIORITY_ARG = _rename("priority", "lower", values=TODO_PRIORITY, unmapped="dropped",
                             kept="priority")  # as _PRIORITY_ARG
# A due date is that day's 00:00 UTC; status pending/in_progress/completed -> the stage (not started, started,
# done), any other word -> the status word (a `done` or `blocked` task is done or not as before, and listed by its
# word alone), which a list filters by exactly, as the service compares the status; description + other fields ->
# notes.
ADAPTERS["todo"] = ServiceAdapter("todo", "todo", "TODO_FIXTURES", RecordMap(
    "tasks", "tasks", {"id": text_of("task_id"), "shown_id": text_of("task_id"), "title": "title", "notes": text_of("description"),
                       "due": _day_or_time("due_date"),
                       "priority": Derived(("priority",), lambda r: TODO_PRIORITY.get(
                           str(r.get("priority") or "medium").lower(), str(r.get("priority")))),
                       "tags": tags_of("tags"),
                       "done": Derived(("status",), lambda r: str(r.get("status", "")).lower() in ("completed", "done")),
                       "started": Derived(("status",), lambda r: str(r.get("status", "")).lower() == "in_progress"),
                       "status_word": Derived(("status",), lambda r: None if _todo_status(r) in TODO_STAGE
                                              else _todo_status(r)),
                       "done_at": _day_or_time("completed_at"), "created_at": text_of("created_at")},
    fold_into="notes", defaults={"list_id": TODO_LIST},
    extra_rows={"lists": ({"id": TODO_LIST, "name": "Tasks"},)}), {
    "todo_list_tasks": ToolMap("todo_list_tasks", {"status": _rename("stage", values={**TODO_STAGE, "all": None},
                                                                     closed=True, unmapped_to="status_word")},
                               defaults={"include_done": True, "limit": 200, "stored_order": True},
                               result=_TODO.model_copy(update={"wrap": "tasks", "count": "total"}), stored=True),
    "todo_get_task": ToolMap("todo_get_task", {"task_id": _rename("task_id")}, result=_TODO, stored=True),
    "todo_update_task": ToolMap("todo_update_task", {
        "task_id": _rename("task_id"), "title": _rename("title"), "priority": _TODO_PRIORITY_ARG,
        "status": _rename("stage", values=TODO_STAGE, unmapped_to="status_word"), "tags": _rename("tags")},
        result=_written(_TODO, "task", "updated"), stored=True),
    "todo_create_task": ToolMap("todo_add_task", {
        "title": _rename("title"), "description": _rename("notes"), "priority": _TODO_PRIORITY_ARG,
        "due_date": _rename("due", "time_or_none", kept="due_date")},  # numbered as there; any title kept as written, empty too
        defaults={"list_id": TODO_LIST, "id_prefix": "todo_", "title_as_written": True},
        # the task keeps its due date as given and the service's stamp of its making, shown so by later answers
        kept_stamp="created_at", kept_fresh=True,
        # the task the service makes: pending, with no completion field, its due date as given, made now
        result=_written(ResultShape(fields={k: v for k, v in _TODO.fields.items() if k not in (
            "completed_at", "created_at")}, const={"status": "pending"}, given={"due_date": "due_date"},
            stamp="created_at", stamp_style="isoformat", kept="added"), "task", "created")),
    "todo_delete_task": ToolMap("todo_delete_task", {"task_id": _rename("task_id")},
                                result=_written(_TODO, "task", "deleted", under="task"), stored=True),
}, key="task_id", not_found="Task {task_id} not found")


INVENTORY_LOCATION = "main"  # Claw-Eval's products have no stock locations: every item is at this one


def _first_number(*names: str, kind: type = float) -> Derived:
    def compute(record: Any) -> Any:
        value = next((record[n] for n in names if record.get(n) not in (None, "")), None)
        return None if value is None else kind(value)
    return Derived(names, compute)


_PRODUCT = ResultShape(fields={
    "product_id": "id", "name": "name", "category": "category", "quantity": "quantity", "unit": "unit",
    "reorder_level": "reorder_level", "supplier": "supplier", "unit_cost": "unit_cost", "unit_price": "unit_price",
    "lead_time_days": "lead_time_days", "notes": "notes"})
# (the service compares a category's text, letter case too; an empty one filters nothing)
_LIST_PRODUCTS = ToolMap("inventory_search_items", {"category": _rename("category", blank=True)}, defaults={"limit": 200},
                         result=ResultShape(fields=_PRODUCT.fields, wrap="products", count="total"), stored=True,
                         item_filters={"category": ItemFilter(path="category")})
_GET_PRODUCT = ToolMap("inventory_get_item", {"product_id": _rename("item_id")}, result=_PRODUCT, stored=True)
# A product is a stock item at one location; its stock is `quantity` or `current_stock`, its reorder level
# `reorder_level`, `min_stock_threshold` or `min_stock`, its selling price `unit_price` or `selling_price`; sales
# rates, restock dates, sync state, a shelf location and the like become lines of its notes.
ADAPTERS["inventory"] = ServiceAdapter("inventory", "inventory", "INVENTORY_FIXTURES", RecordMap(
    "items", "products", {"id": text_of("product_id"), "sku": text_of("product_id"), "name": "name",
                          "category": text_of("category"), "supplier": text_of("supplier"),
                          "quantity": _first_number("quantity", "current_stock", kind=int),
                          "reorder_level": _first_number("reorder_level", "min_stock_threshold", "min_stock", kind=int),
                          "unit": first_of("unit"), "unit_cost": _first_number("unit_cost"),
                          "unit_price": _first_number("unit_price", "selling_price"),
                          "lead_time_days": _first_number("lead_time_days", kind=int), "notes": text_of("notes")},
    fold_into="notes", defaults={"location": INVENTORY_LOCATION, "unit": ""},  # no unit invented when none is given
    extra_rows={"locations": ({"id": INVENTORY_LOCATION, "name": "Stock"},)}), {
    "inventory_list_products": _LIST_PRODUCTS, "inventory_list_items": _LIST_PRODUCTS,
    "inventory_get_product": _GET_PRODUCT, "inventory_get_item": _GET_PRODUCT,
    "inventory_create_order": ToolMap("inventory_create_order", {
        "product_id": _rename("item_id"), "quantity": _rename("quantity", "int"), "supplier": _rename("supplier")},
        defaults={"as_written": True},  # the service records any order: an unknown product, any quantity, no supplier
        result=recorded("order", "created", "product_id", "quantity", "supplier")),  # the order as requested
}, key="product_id", not_found="Product {product_id} not found")

ADAPTERS.update(BACKOFFICE)

# Each tool's endpoint on its Claw-Eval service (the `tool_endpoints` of the public checkout's tasks, each a route of
# its service's source): Claw-Eval's runner sends a call to the tool's URL, whatever the tool is called, so a tool
# the import does not know by name is bound by its endpoint (`by_endpoint`): a new version's name for it, or one
# endpoint offered under two names (`inventory_list_products` / `inventory_list_items`, `send_report` on
# `/web/notify`).
ENDPOINTS: dict[str, str] = {
    "gmail_list_messages": "/gmail/messages",
    "gmail_get_message": "/gmail/messages/get",
    "gmail_save_draft": "/gmail/drafts/save",
    "gmail_send_message": "/gmail/send",
    "helpdesk_list_tickets": "/helpdesk/tickets",
    "helpdesk_get_ticket": "/helpdesk/tickets/get",
    "helpdesk_update_ticket": "/helpdesk/tickets/update",
    "helpdesk_close_ticket": "/helpdesk/tickets/close",
    "contacts_search": "/contacts/search",
    "contacts_get": "/contacts/get",
    "contacts_send_message": "/contacts/send_message",
    "crm_list_customers": "/crm/customers",
    "crm_get_customer": "/crm/customers/get",
    "crm_export_report": "/crm/export",
    "kb_search": "/kb/search",
    "kb_get_article": "/kb/articles/get",
    "kb_update_article": "/kb/articles/update",
    "notes_list": "/notes/list",
    "notes_get": "/notes/get",
    "notes_share": "/notes/share",
    "calendar_list_events": "/calendar/events",
    "calendar_get_event": "/calendar/events/get",
    "calendar_delete_event": "/calendar/events/delete",
    "calendar_create_event": "/calendar/events/create",
    "calendar_get_user_events": "/calendar/user_events",
    "web_search": "/web/search",
    "web_fetch": "/web/fetch",
    "send_notification": "/web/notify",
    "todo_list_tasks": "/todo/tasks",
    "todo_get_task": "/todo/tasks/get",
    "todo_update_task": "/todo/tasks/update",
    "todo_create_task": "/todo/tasks/create",
    "todo_delete_task": "/todo/tasks/delete",
    "inventory_list_products": "/inventory/products",
    "inventory_list_items": "/inventory/products",
    "inventory_get_product": "/inventory/products/get",
    "inventory_get_item": "/inventory/products/get",
    "inventory_create_order": "/inventory/orders/create",
    "finance_list_transactions": "/finance/transactions",
    "finance_get_transaction": "/finance/transactions/get",
    "finance_submit_report": "/finance/report/submit",
    "finance_report_submit": "/finance/report/submit",
    "config_list_integrations": "/config/integrations",
    "config_get_integration": "/config/integrations/get",
    "config_update_integration": "/config/integrations/update",
    "config_send_notification": "/config/notify",
    "scheduler_list_jobs": "/scheduler/jobs",
    "scheduler_get_job": "/scheduler/jobs/get",
    "scheduler_job_history": "/scheduler/jobs/history",
    "scheduler_create_job": "/scheduler/jobs/create",
    "scheduler_update_job": "/scheduler/jobs/update",
    "scheduler_delete_job": "/scheduler/jobs/delete",
    "rss_list_feeds": "/rss/feeds",
    "rss_list_articles": "/rss/articles",
    "rss_get_article": "/rss/articles/get",
    "rss_publish": "/rss/publish",
    "ocr_extract_text": "/ocr/extract",
    "documents_extract_text": "/documents/extract_text",
}


def by_endpoint(adapter: ServiceAdapter, path: str, name: str = "") -> ToolMap | None:
    """The adapter's tool served at `path` on its service (`ENDPOINTS`): the one of that `name` when it is served
    there (one route may have two names), else the first; None when the adapter serves no such route."""
    if ENDPOINTS.get(name) == path and name in adapter.tools:
        return adapter.tools[name]
    return next((mapping for known, mapping in adapter.tools.items() if ENDPOINTS.get(known) == path), None)

