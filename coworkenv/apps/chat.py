"""Chat: channels and direct messages."""

from __future__ import annotations

from typing import Any

from coworkenv.apps._common import clamp, dump, dump_many
from coworkenv.apps.directory import person_by_ref
from coworkenv.tools import ToolError, Toolkit, read, write
from coworkenv.world import AppDef, AppState, Key, Order, Record


class Channel(Record):
    name: str
    members: list[str] = []
    topic: str = ""
    is_dm: bool = False


class ChatMessage(Record):
    channel: str
    sender: str
    text: str
    ts: str


class ChatState(AppState):
    channels: list[Channel] = []
    messages: list[ChatMessage] = []


class ChatTools(Toolkit):
    app = "chat"

    @read
    def list_channels(self) -> list[dict[str, Any]]:
        """List channels and direct-message conversations."""
        channels = self.world.table("chat", "channels").select("id")
        return dump_many(channels, "id", "name", "topic", "is_dm")

    @read
    def read_channel(self, channel: str, limit: int = 20) -> list[dict[str, Any]]:
        """Read the latest messages of a channel, oldest first.

        Args:
            channel: Channel id or name (e.g. #incidents).
            limit: Maximum number of messages.
        """
        channel_id = self._channel(channel).id
        table = self.world.table("chat", "messages")
        rows = table.select("ts", sets=[table.key("channel").ids(channel_id)], limit=clamp(limit), last=True)
        return dump_many(rows)

    @write
    def post_message(self, channel: str, text: str) -> dict[str, Any]:
        """Post a message to a channel.

        Args:
            channel: Channel id or name (e.g. #incidents).
            text: Message text.
        """
        found = self._channel(channel)
        if found.is_dm:
            raise ToolError(f"{channel} is a direct conversation; use chat_send_dm")
        return self._post(found.id, text)

    @write
    def send_dm(self, person: str, text: str) -> dict[str, Any]:
        """Send a direct message to a person.

        Args:
            person: Person id, email or chat handle.
            text: Message text.
        """
        target = person_by_ref(self, person)
        me = self.world.user or "me"
        channel_id = "dm-" + "-".join(sorted({me, target.id}))
        if channel_id not in self.world.table("chat", "channels"):
            self.put("channels", Channel(id=channel_id, name=f"@{target.chat_handle or target.id}",
                                         members=sorted({me, target.id}), is_dm=True))
        return self._post(channel_id, text)

    def _post(self, channel_id: str, text: str) -> dict[str, Any]:
        if not text.strip():
            raise ToolError("message text is empty")
        message = ChatMessage(id=self.world.new_id("chat", "chat", "messages"), channel=channel_id,
                              sender=self.world.user or "me", text=text, ts=self.world.now_iso)
        self.put("messages", message)
        return dump(message)

    def _channel(self, ref: str) -> Channel:
        channels = self.world.table("chat", "channels")
        found = channels.get(ref)
        if found is None:
            name = ref if ref.startswith("#") else f"#{ref}"
            found = next(iter(channels.select(sets=[channels.key("name").ids(name)], limit=1)), None)
        if found is None:
            raise ToolError(f"no channel {ref!r}; use chat_list_channels")
        return found  # type: ignore[no-any-return]


APP = AppDef("chat", ChatState, ChatTools, "team chat: channels and direct messages", indexes={
    "channels": {"id": Order(lambda c: c.id), "name": Key(lambda c: c.name)},
    "messages": {"channel": Key(lambda m: m.channel), "ts": Order(lambda m: m.ts)},
})
