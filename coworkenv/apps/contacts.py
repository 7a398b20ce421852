"""Contacts: people outside the directory (customers, vendors) with phone numbers and notes, the messages the
user sent them and the customer reports the user exported."""

from __future__ import annotations

import re
from typing import Any

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import ToolError, Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Key, Order, Record, Words

_PHONE = re.compile(r"^\+?[0-9][0-9 ()./-]{5,24}$")


class Contact(Record):
    name: str
    company: str = ""
    email: str = ""
    phone: str = ""
    notes: str = ""
    tags: list[str] = []
    updated_at: str = ""


class ContactMessage(Record):
    """A message the user sent to a contact."""

    contact: str
    body: str
    by: str = ""
    at: str = ""


class CustomerReport(Record):
    """A summary report on customers (contacts) the user exported."""

    title: str
    contacts: list[str] = []  # contact ids, as given
    summary: str = ""
    by: str = ""
    at: str = ""


class ContactsState(AppState):
    contacts: list[Contact] = []
    messages: list[ContactMessage] = []
    reports: list[CustomerReport] = []


def _check_phone(phone: str) -> str:
    if phone and not _PHONE.match(phone.strip()):
        raise ToolError(f"{phone!r} is not a phone number; use digits with an optional leading + (e.g. +34 611 222 333)")
    return phone.strip()


class ContactsTools(Toolkit):
    app = "contacts"

    @read
    @service_args("in_name", "stored_order")
    def search(self, query: str = "", tag: str | None = None, limit: int = 20,
               tags: list[str] | None = None, in_name: bool = False,
               stored_order: bool = False) -> list[dict[str, Any]]:
        """Find contacts by words in name, company, email, phone or notes, sorted by name.

        Args:
            query: Words that must all occur (empty matches everyone).
            tag: Only contacts with this tag.
            limit: Maximum number of contacts.
            tags: Only contacts with all of these tags too.
            in_name: Only contacts whose name contains the query as written (one piece of text, letter case
                as given), as a lookup by name does, in the order they were added; other fields are not searched.
            stored_order: In the order they were added, not by name.
        """
        table = self.world.table("contacts", "contacts")
        sets = [table.key("tag").ids(t) for t in [*([tag] if tag is not None else []), *(tags or [])]]
        if in_name:  # the index narrows to names holding every character of the query; the test is exact
            sets += [table.key("name_char").ids(char) for char in set(query)]
            return dump_many(table.select(None, sets=sets, where=lambda c: query in c.name, limit=clamp(limit)))
        return dump_many(table.select(None if stored_order else "name", words=("text", query), sets=sets,
                                      limit=clamp(limit)))

    @read
    def get(self, contact_id: str) -> dict[str, Any]:
        """Get one contact.

        Args:
            contact_id: Contact id.
        """
        return dump(self._contact(contact_id))

    @write
    def create(
        self, name: str, company: str = "", email: str = "", phone: str = "", notes: str = "",
        tags: list[str] | None = None,
    ) -> dict[str, Any]:
        """Add a contact.

        Args:
            name: Full name.
            company: Company.
            email: Email address.
            phone: Phone number.
            notes: Notes.
            tags: Tags.
        """
        if not name.strip():
            raise ToolError("a contact needs a name")
        if email and "@" not in email:
            raise ToolError(f"{email!r} is not an email address")
        contact = Contact(
            id=self.world.new_id("ct", "contacts", "contacts"), name=name.strip(), company=company, email=email,
            phone=_check_phone(phone), notes=notes, tags=tags or [], updated_at=self.world.now_iso,
        )
        self.put("contacts", contact)
        return dump(contact)

    @write
    def update(
        self, contact_id: str, phone: str | None = None, email: str | None = None, company: str | None = None,
        add_note: str | None = None,
    ) -> dict[str, Any]:
        """Change a contact's phone, email or company, or add a line to their notes.

        Args:
            contact_id: Contact id.
            phone: New phone number.
            email: New email address.
            company: New company.
            add_note: A line appended to the notes.
        """
        contact = self._contact(contact_id)
        update: dict[str, Any] = {"updated_at": self.world.now_iso}
        if phone is not None:
            update["phone"] = _check_phone(phone)
        if email is not None:
            if "@" not in email:
                raise ToolError(f"{email!r} is not an email address")
            update["email"] = email
        if company is not None:
            update["company"] = company
        if add_note:
            update["notes"] = f"{contact.notes}\n{add_note}" if contact.notes else add_note
        updated = contact.model_copy(update=update)
        self.put("contacts", updated)
        return dump(updated)

    @write
    @service_args("unchecked_id")
    def send_message(self, contact_id: str, message: str, unchecked_id: bool = False) -> dict[str, Any]:
        """Send a message to a contact (on the contact's channel: the app records it).

        Args:
            contact_id: Contact id.
            message: Message text.
            unchecked_id: Record a message to an id no contact has too, the id as written, as a service that
                checks no id does (else such an id is refused).
        """
        if not unchecked_id:
            self._contact(contact_id)
        sent = ContactMessage(id=self.world.new_id("cmsg", "contacts", "messages"), contact=contact_id, body=message,
                              by=self.world.user or "", at=self.world.now_iso)
        self.put("messages", sent)
        return {"status": "sent", "record": dump(sent, "id", "contact", "body", "at")}

    @write
    def export_report(self, title: str, contact_ids: list[str], summary: str) -> dict[str, Any]:
        """Export a summary report on customers (recorded as given).

        Args:
            title: Report title.
            contact_ids: Ids of the contacts the report covers.
            summary: The report's text.
        """
        report = CustomerReport(id=self.world.new_id("crep", "contacts", "reports"), title=title,
                                contacts=list(contact_ids), summary=summary, by=self.world.user or "",
                                at=self.world.now_iso)
        self.put("reports", report)
        return {"status": "exported", "report": dump(report, "id", "title", "contacts", "summary", "at")}

    def _contact(self, contact_id: str) -> Contact:
        return self.require("contacts", contact_id, "contact", "use contacts_search")  # type: ignore[no-any-return]


APP = AppDef(
    "contacts", ContactsState, ContactsTools, "external contacts: customers and vendors, phones and notes",
    indexes={
        "contacts": {
            "text": Words(lambda c: (c.name, c.company, c.email, c.phone, c.notes)),
            "tag": Key(lambda c: c.tags, multi=True),
            "name_char": Key(lambda c: sorted(set(c.name)), multi=True),
            "name": Order(lambda c: c.name.lower()),
        },
    },
)
