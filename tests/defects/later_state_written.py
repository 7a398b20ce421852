"""A value the agent writes in one turn, checked against a later state: the user asks in the first turn for a value
to be put into the message the agent writes then (the ticket's priority in the #incidents update, in the DM to the
delegate or to the colleague it hands the ticket to), and between the turns the world changes it (someone escalates
the ticket). The writer's `records` check on the chat messages
wants the text to contain the final value, as the writer's reference (which knew the future) wrote it: the message
true when it was written fails. The reply checks' later-state gates judged text checks only; a records check on what
the agent wrote is bound to no turn. The sound twin wants the value of its own turn."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, record, reference, world
from tests.defects.later_state_read import _ticket_priority, changed_later

CLASS = "later_state_written"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference up to the end of each turn but the last; a records check that already holds there on a "
    "record the episode made, whose `contains` term states a field's final value that the field did not hold when "
    "the turn ended, judges what the agent wrote against a value that did not exist then"
)
_WRITES = ("chat_post_message", "chat_send_dm")


def _written(target: Any, defect: bool):  # type: ignore[no-untyped-def]
    """Turn 0 asks for the value in its first chat message; the reference's message states the final value and a
    records check wants it (the defect), or both the value of its own turn (the twin); a later change sets it."""

    def edit(spec: Spec) -> None:
        app, table, rid, field, _question, later = target(spec)
        now = record(spec, app, table, rid)[field]
        later = changed_later(spec, app, table, rid, field, later)
        post = next((s["call"] for s in spec["reference"][0]["steps"]
                     if s.get("call") and s["call"]["name"] in _WRITES), None)
        if post is None:
            raise CorpusError(f"{spec['capability']}: the first turn writes no chat message")
        said = later if defect else now
        spec["turns"][0]["content"] += f" Put the current {field} of {rid} in your first chat message."
        post["arguments"]["text"] += f" {field.capitalize()} of {rid}: {said}."
        spec["checks"].append({"id": f"{field}-of-{rid}-written", "description": f"the message states the {field}",
                               "rule": {"kind": "records", "app": "chat", "table": "messages", "where": [
                                   _channel(spec, post), {"field": "text", "op": "contains", "value": str(said)}], "count": 1}})
    return edit


def _channel(spec: Spec, call: dict[str, Any]) -> dict[str, Any]:
    """The condition finding the message in its channel or DM (a bare value is any other message's word too)."""
    args = call["arguments"]
    if call["name"] == "chat_send_dm":
        ref = args["person"]
        found = [p["id"] for p in world(spec, "directory", "people")
                 if ref in (p["id"], p.get("email"), p.get("chat_handle"))]
        if not found:
            raise CorpusError(f"{spec['capability']}: no person {ref!r}")
        return {"field": "channel", "op": "contains", "value": found[0]}
    ref = args["channel"]
    found = [c["id"] for c in world(spec, "chat", "channels") if ref in (c["id"], c["name"])]
    if not found:
        raise CorpusError(f"{spec['capability']}: no channel {ref!r}")
    return {"field": "channel", "op": "equals", "value": found[0]}


def _pair(name: str, base: str, target: Any, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_written(target, True), fix=_written(target, False),
                  witness=reference, witness_kind="honest", gate="reads_state", code="reads_later_state")


_PRIORITY = ("fails the agent that writes the ticket's priority as it was in turn 0 (someone escalates it later): "
             "the records check wants the priority after the escalation")

DEFECTS = [
    _pair("priority-written-before-leave", "synth:adapt_announced_change@1", _ticket_priority, _PRIORITY),
    _pair("priority-written-before-leave-4", "synth:adapt_announced_change@4", _ticket_priority, _PRIORITY),
    _pair("priority-written-before-escalation", "synth:delegate_and_follow_up@1", _ticket_priority, _PRIORITY),
    _pair("priority-written-before-escalation-2", "synth:delegate_and_follow_up@2", _ticket_priority, _PRIORITY),
    _pair("alert-priority-written-before-escalation", "synth:adapt_silent_change@1", _ticket_priority, _PRIORITY),
    _pair("alert-priority-written-before-escalation-2", "synth:adapt_silent_change@2", _ticket_priority, _PRIORITY),
]
