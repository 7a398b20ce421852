"""Mail: folders, threads, read flags, drafts vs sent, attachments as file references."""

from __future__ import annotations

from typing import Any, Literal

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.tools import ToolError, Toolkit, read, service_args, write
from coworkenv.world import AppDef, AppState, Key, Order, Record, Words, parse_time

Folder = Literal["inbox", "sent", "drafts", "archive", "trash"]
_SUMMARY = ("id", "thread_id", "folder", "sender", "to", "subject", "sent_at", "read", "labels")


class Message(Record):
    thread_id: str
    folder: Folder
    sender: str
    to: list[str]
    cc: list[str] = []
    subject: str
    body: str
    sent_at: str | None = None
    read: bool = False
    attachments: list[str] = []
    in_reply_to: str | None = None
    labels: list[str] = []


class MailState(AppState):
    messages: list[Message] = []


class MailTools(Toolkit):
    app = "mail"

    @read
    @service_args("stored_order")
    def list_messages(
        self, folder: Folder = "inbox", unread_only: bool = False, label: str | None = None, limit: int = 20,
        days_back: int | None = None, stored_order: bool = False,
    ) -> list[dict[str, Any]]:
        """List messages of a folder, newest first (summaries without bodies).

        Args:
            folder: inbox, sent, drafts, archive or trash.
            unread_only: Only unread messages.
            label: Only messages with this label.
            limit: Maximum number of messages.
            days_back: Only messages sent in this many days before now.
            stored_order: In the order the mailbox holds them, not newest first.
        """
        table = self.world.table("mail", "messages")
        since = self.world.clock - days_back * 86400 if days_back is not None else None

        def keep(m: Message) -> bool:
            return (not unread_only or not m.read) and (
                since is None or (bool(m.sent_at) and parse_time(m.sent_at) >= since))

        rows = table.select(
            None if stored_order else "recent",
            sets=[table.key("folder").ids(folder), table.key("label").ids(label) if label else None],
            where=keep if unread_only or since is not None else None, reverse=not stored_order, limit=clamp(limit),
        )
        return dump_many(rows, *_SUMMARY)

    @read
    def search(self, query: str, folder: Folder | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """Search messages by words in subject, body, sender or recipients.

        Args:
            query: Words that must all occur.
            folder: Restrict to one folder.
            limit: Maximum number of messages.
        """
        table = self.world.table("mail", "messages")
        in_folder = table.key("folder").ids(folder) if folder is not None else None
        rows = table.select("recent", words=("text", query), sets=[in_folder], reverse=True, limit=clamp(limit))
        return dump_many(rows, *_SUMMARY)

    @read
    def read_message(self, message_id: str) -> dict[str, Any]:
        """Read a full message (does not change its read flag; use mark_read for that).

        Args:
            message_id: Message id from list_messages or search.
        """
        return dump(self._message(message_id))

    @write
    def mark_read(self, message_ids: list[str], read: bool = True) -> dict[str, Any]:
        """Mark messages read or unread.

        Args:
            message_ids: Message ids.
            read: True for read, False for unread.
        """
        messages = [self._message(i) for i in message_ids]
        for m in messages:
            self.put("messages", m.model_copy(update={"read": read}))
        return {"updated": [m.id for m in messages], "read": read}

    @write
    def label(self, message_ids: list[str], add: list[str] | None = None, remove: list[str] | None = None) -> dict[str, Any]:
        """Add labels to messages or remove labels from them.

        Args:
            message_ids: Message ids.
            add: Labels to add (e.g. follow-up, billing).
            remove: Labels to remove.
        """
        adding, removing = [x.strip() for x in add or []], set(remove or [])
        if not adding and not removing:
            raise ToolError("give labels to add or to remove")
        if any(not x or " " in x for x in adding):
            raise ToolError(f"labels are single words such as follow-up; got {adding}")
        messages = [self._message(i) for i in message_ids]
        out = {}
        for m in messages:
            labels = [x for x in m.labels if x not in removing]
            labels += [x for x in dict.fromkeys(adding) if x not in labels]
            self.put("messages", m.model_copy(update={"labels": labels}))
            out[m.id] = labels
        return {"labels": out}

    @write
    def move(self, message_id: str, folder: Folder) -> dict[str, Any]:
        """Move a message to another folder (archive, trash, inbox). Sent and drafts are managed by send/save_draft.

        Args:
            message_id: Message id.
            folder: Target folder.
        """
        message = self._message(message_id)
        if folder in ("sent", "drafts") or message.folder in ("sent", "drafts"):
            raise ToolError("sent messages and drafts cannot be moved; use send_draft to send a draft")
        self.put("messages", message.model_copy(update={"folder": folder}))
        return {"id": message_id, "folder": folder}

    @write
    @service_args("any_recipient")
    def send(
        self, to: list[str], subject: str, body: str, cc: list[str] | None = None,
        attachments: list[str] | None = None, in_reply_to: str | None = None, any_recipient: bool = False,
    ) -> dict[str, Any]:
        """Send an email now from the user's mailbox.

        Args:
            to: Recipient email addresses.
            subject: Subject line.
            body: Message text.
            cc: Copy recipients.
            attachments: Paths of files (from the files app) to attach.
            in_reply_to: Id of the message this replies to (keeps the thread).
            any_recipient: Send to any text, no recipient or one that is no address too, as a mail service that
                records the request as given does.
        """
        message = self._compose("sent", to, subject, body, cc or [], attachments or [], in_reply_to,
                                check=not any_recipient)
        return {"id": message.id, "thread_id": message.thread_id, "folder": "sent", "sent_at": message.sent_at}

    @write
    def save_draft(
        self, to: list[str], subject: str, body: str, cc: list[str] | None = None,
        attachments: list[str] | None = None, in_reply_to: str | None = None,
    ) -> dict[str, Any]:
        """Save an email as a draft without sending it.

        Args:
            to: Recipient email addresses (a draft may have none yet, or text that is no address: sending it is
                refused until they are addresses).
            subject: Subject line.
            body: Message text.
            cc: Copy recipients.
            attachments: Paths of files to attach.
            in_reply_to: Id of the message this replies to (a draft may name one the mailbox does not hold: it
                starts its own thread, and sending it is refused until the id is corrected).
        """
        message = self._compose("drafts", to, subject, body, cc or [], attachments or [], in_reply_to)
        return {"id": message.id, "thread_id": message.thread_id, "folder": "drafts"}

    @write
    def send_draft(self, draft_id: str) -> dict[str, Any]:
        """Send a saved draft.

        Args:
            draft_id: Id of a message in the drafts folder.
        """
        draft = self._message(draft_id)
        if draft.folder != "drafts":
            raise ToolError(f"message {draft_id!r} is not a draft (folder: {draft.folder})")
        _check_recipients(draft.to, draft.cc)
        if draft.in_reply_to is not None and draft.in_reply_to not in self.world.table("mail", "messages"):
            raise ToolError(f"draft {draft_id!r} replies to {draft.in_reply_to!r}, which no message has; save it "
                            "again with the id of the message it answers (mail_search finds it)")
        sent = draft.model_copy(update={"folder": "sent", "sent_at": self.world.now_iso, "read": True})
        self.put("messages", sent)
        return {"id": sent.id, "folder": "sent", "sent_at": sent.sent_at}

    def _message(self, message_id: str) -> Message:
        return self.require("messages", message_id, "message", "use mail_search or mail_list_messages")  # type: ignore[no-any-return]

    def _compose(
        self, folder: Folder, to: list[str], subject: str, body: str, cc: list[str],
        attachments: list[str], in_reply_to: str | None, check: bool = True,
    ) -> Message:
        if folder != "drafts" and check:  # a draft is not sent: its recipients are checked when it is
            _check_recipients(to, cc)
        files = self.world.table("files", "files")
        for path in attachments:
            if path not in files:
                raise ToolError(f"attachment {path!r} does not exist; use files_list to find paths")
        thread_id = None
        if in_reply_to is not None and (folder == "sent" or in_reply_to in self.world.table("mail", "messages")):
            thread_id = self._message(in_reply_to).thread_id  # a draft's unknown reply-to is kept, unthreaded
        message_id = self.world.new_id("msg", "mail", "messages")
        user = self.world.table("directory", "people").get(self.world.user) if self.world.user else None
        message = Message(
            id=message_id, thread_id=thread_id or f"thr-{message_id}", folder=folder,
            sender=user.email if user is not None else "me", to=to, cc=cc, subject=subject, body=body,
            sent_at=self.world.now_iso if folder == "sent" else None, read=True,
            attachments=attachments, in_reply_to=in_reply_to,
        )
        self.put("messages", message)
        return message


def _check_recipients(to: list[str], cc: list[str]) -> None:
    if not [a for a in to if a.strip()]:
        raise ToolError("a message needs at least one recipient in 'to'")
    for address in [*to, *cc]:
        if "@" not in address:
            raise ToolError(f"{address!r} is not an email address; look people up with directory_search")


APP = AppDef("mail", MailState, MailTools, "email: folders, threads, drafts and sent mail", indexes={
    "messages": {
        "text": Words(lambda m: (m.subject, m.body, m.sender, " ".join(m.to), " ".join(m.cc))),
        "folder": Key(lambda m: m.folder),
        "label": Key(lambda m: m.labels, multi=True),
        "recent": Order(lambda m: m.sent_at or ""),
    },
})
