"""Tickets: an issue tracker with a status workflow, assignees and comments."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.apps.directory import person_by_ref
from coworkenv.tools import ToolError, Toolkit, read, write
from coworkenv.world import AppDef, AppState, Kept, Key, Order, Record, Words

Status = Literal["open", "in_progress", "blocked", "resolved", "closed"]
Priority = Literal["p1", "p2", "p3", "p4"]
# The workflow: which status may follow which.
TRANSITIONS: dict[str, frozenset[str]] = {
    "open": frozenset({"in_progress", "blocked", "closed"}),
    "in_progress": frozenset({"open", "blocked", "resolved"}),
    "blocked": frozenset({"open", "in_progress"}),
    "resolved": frozenset({"closed", "open"}),
    "closed": frozenset({"open"}),
}


class Comment(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    author: str
    body: str
    at: str


class Ticket(Record):
    title: str
    description: str = ""
    status: Status = "open"
    priority: Priority = "p3"
    assignee: str | None = None
    reporter: str = ""
    service: str | None = None
    labels: list[str] = []
    comments: list[Comment] = []
    created_at: str = ""
    updated_at: str = ""


class TicketsState(AppState):
    tickets: list[Ticket] = []
    kept: list[Kept] = []  # fields a helpdesk service keeps as written (an imported task's tools only)


class TicketsTools(Toolkit):
    app = "tickets"

    @read
    def search(
        self, query: str = "", status: Status | None = None, assignee: str | None = None,
        service: str | None = None, limit: int = 20,
    ) -> list[dict[str, Any]]:
        """Search tickets by words, status, assignee or service.

        Args:
            query: Words that must all occur in title, description or labels.
            status: Only tickets in this status.
            assignee: Only tickets assigned to this person id.
            service: Only tickets about this service id.
            limit: Maximum number of tickets.
        """
        table = self.world.table("tickets", "tickets")
        sets = [
            table.key("status").ids(status) if status is not None else None,
            table.key("assignee").ids(assignee) if assignee is not None else None,
            table.key("service").ids(service) if service is not None else None,
        ]
        fields = ("id", "title", "status", "priority", "assignee", "service")
        return dump_many(table.select("id", words=("text", query), sets=sets, limit=clamp(limit)), *fields)

    @read
    def get(self, ticket_id: str) -> dict[str, Any]:
        """Get a ticket with its comments.

        Args:
            ticket_id: Ticket id, e.g. OPS-101.
        """
        return dump(self._ticket(ticket_id))

    @write
    def create(
        self, title: str, description: str, priority: Priority = "p3", assignee: str | None = None,
        service: str | None = None, labels: list[str] | None = None,
    ) -> dict[str, Any]:
        """Create a ticket.

        Args:
            title: Short summary.
            description: Details.
            priority: p1 (urgent) to p4.
            assignee: Person id, email or handle.
            service: Id of the service concerned.
            labels: Labels.
        """
        if service is not None and service not in self.world.table("services", "services"):
            raise ToolError(f"no service {service!r}; use services_list_services")
        owner = person_by_ref(self, assignee).id if assignee else None
        prefix = next((t.id.rsplit("-", 1)[0] for t in self.rows("tickets")), "TKT")
        ticket = Ticket(
            id=self.world.new_id(prefix, "tickets", "tickets"), title=title, description=description,
            priority=priority, assignee=owner, reporter=self.world.user or "", service=service,
            labels=labels or [], created_at=self.world.now_iso, updated_at=self.world.now_iso,
        )
        self.put("tickets", ticket)
        return dump(ticket)

    @write
    def update(
        self, ticket_id: str, status: Status | None = None, assignee: str | None = None,
        priority: Priority | None = None,
    ) -> dict[str, Any]:
        """Change a ticket's status (following the workflow), assignee or priority.

        Args:
            ticket_id: Ticket id.
            status: New status: open, in_progress, blocked, resolved or closed.
            assignee: New assignee (person id, email or handle).
            priority: New priority.
        """
        ticket = self._ticket(ticket_id)
        update: dict[str, Any] = {"updated_at": self.world.now_iso}
        if status is not None and status != ticket.status:
            if status not in TRANSITIONS[ticket.status]:
                allowed = ", ".join(sorted(TRANSITIONS[ticket.status]))
                raise ToolError(f"{ticket_id} cannot go from {ticket.status} to {status}; allowed: {allowed}")
            update["status"] = status
        if assignee is not None:
            update["assignee"] = person_by_ref(self, assignee).id
        if priority is not None:
            update["priority"] = priority
        updated = ticket.model_copy(update=update)
        self.put("tickets", updated)
        return dump(updated)

    @write
    def comment(self, ticket_id: str, body: str) -> dict[str, Any]:
        """Add a comment to a ticket.

        Args:
            ticket_id: Ticket id.
            body: Comment text.
        """
        ticket = self._ticket(ticket_id)
        if not body.strip():
            raise ToolError("comment body is empty")
        note = Comment(author=self.world.user or "me", body=body, at=self.world.now_iso)
        self.put("tickets", ticket.model_copy(update={"comments": [*ticket.comments, note],
                                                      "updated_at": self.world.now_iso}))
        return {"id": ticket_id, "comments": len(ticket.comments) + 1}

    def _ticket(self, ticket_id: str) -> Ticket:
        return self.require("tickets", ticket_id, "ticket", "use tickets_search")  # type: ignore[no-any-return]


APP = AppDef("tickets", TicketsState, TicketsTools, "issue tracker: tickets, workflow, assignees, comments", indexes={
    "tickets": {
        "text": Words(lambda t: (t.id, t.title, t.description, " ".join(t.labels))),
        "status": Key(lambda t: t.status),
        "assignee": Key(lambda t: t.assignee),
        "service": Key(lambda t: t.service),
        "id": Order(lambda t: t.id),
    },
})
