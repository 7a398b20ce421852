"""Notes: the user's own notes, with tags, and who the user shared them with."""

from __future__ import annotations

from typing import Any

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import ToolError, Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Key, Order, Record, Words

_SUMMARY = ("id", "title", "tags", "updated_at")


class Note(Record):
    title: str
    body: str = ""
    tags: list[str] = []
    created_at: str = ""
    updated_at: str = ""


class NoteShare(Record):
    """A note the user shared with people (names or addresses, as the user gave them)."""

    note: str
    recipients: list[str] = []
    by: str = ""
    at: str = ""


class NotesState(AppState):
    notes: list[Note] = []
    shares: list[NoteShare] = []


class NotesTools(Toolkit):
    app = "notes"

    @read
    @service_args("stored_order")
    def list_notes(self, tag: str | None = None, limit: int = 50, stored_order: bool = False) -> list[dict[str, Any]]:
        """List notes, most recently updated first (summaries without bodies).

        Args:
            tag: Only notes with this tag.
            limit: Maximum number of notes.
            stored_order: In the order the notebook holds them, not most recently updated first.
        """
        table = self.world.table("notes", "notes")
        sets = [table.key("tag").ids(tag) if tag is not None else None]
        rows = table.select(None if stored_order else "updated", sets=sets, reverse=not stored_order,
                            limit=clamp(limit))
        return dump_many(rows, *_SUMMARY)

    @read
    def search_notes(self, query: str, limit: int = 20) -> list[dict[str, Any]]:
        """Find notes by words in title, body or tags.

        Args:
            query: Words that must all occur.
            limit: Maximum number of notes.
        """
        table = self.world.table("notes", "notes")
        rows = table.select("updated", words=("text", query), reverse=True, limit=clamp(limit))
        return dump_many(rows, *_SUMMARY)

    @read
    def read_note(self, note_id: str) -> dict[str, Any]:
        """Read a note in full.

        Args:
            note_id: Note id.
        """
        return dump(self._note(note_id))

    @write
    def create_note(self, title: str, body: str, tags: list[str] | None = None) -> dict[str, Any]:
        """Write a new note.

        Args:
            title: Title.
            body: Text.
            tags: Tags.
        """
        if not title.strip():
            raise ToolError("a note needs a title")
        now = self.world.now_iso
        note = Note(id=self.world.new_id("note", "notes", "notes"), title=title, body=body, tags=tags or [],
                    created_at=now, updated_at=now)
        self.put("notes", note)
        return dump(note, *_SUMMARY)

    @write
    def update_note(
        self, note_id: str, body: str | None = None, append: str | None = None, tags: list[str] | None = None,
    ) -> dict[str, Any]:
        """Replace a note's body, append a line to it, or set its tags.

        Args:
            note_id: Note id.
            body: New body (replaces the old one).
            append: Text added as a new line at the end.
            tags: New full list of tags.
        """
        note = self._note(note_id)
        if body is not None and append is not None:
            raise ToolError("give either body (replace) or append, not both")
        update: dict[str, Any] = {"updated_at": self.world.now_iso}
        if body is not None:
            update["body"] = body
        if append is not None:
            update["body"] = f"{note.body}\n{append}" if note.body else append
        if tags is not None:
            update["tags"] = tags
        updated = note.model_copy(update=update)
        self.put("notes", updated)
        return dump(updated, *_SUMMARY)

    @write
    def delete_note(self, note_id: str) -> dict[str, Any]:
        """Delete a note.

        Args:
            note_id: Note id.
        """
        self._note(note_id)
        self.world.table("notes", "notes").delete(note_id)
        return {"id": note_id, "deleted": True}

    @write
    @service_args("unchecked_id")
    def share_note(self, note_id: str, recipients: list[str], unchecked_id: bool = False) -> dict[str, Any]:
        """Share a note with people.

        Args:
            note_id: Note id.
            recipients: Names or email addresses of the people to share it with.
            unchecked_id: Record a share of an id no note has too, the id as written, as a service that checks no
                id does (else such an id is refused).
        """
        if not unchecked_id:
            self._note(note_id)
        share = NoteShare(id=self.world.new_id("share", "notes", "shares"), note=note_id, recipients=list(recipients),
                          by=self.world.user or "", at=self.world.now_iso)
        self.put("shares", share)
        return {"status": "shared", "record": dump(share, "id", "note", "recipients", "at")}

    def _note(self, note_id: str) -> Note:
        return self.require("notes", note_id, "note", "use notes_list_notes or notes_search_notes")  # type: ignore[no-any-return]


APP = AppDef("notes", NotesState, NotesTools, "the user's notes with tags", indexes={
    "notes": {
        "text": Words(lambda n: (n.title, n.body, " ".join(n.tags))),
        "tag": Key(lambda n: n.tags, multi=True),
        "updated": Order(lambda n: n.updated_at),
    },
})
