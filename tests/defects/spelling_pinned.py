"""Spelling pinned: a dynamics rule or a follow-up turn waits for a call spelled exactly as the reference spelled
it (`{"person": "esra"}`, `{"channel": "#notify"}`), though the tool accepts the same person by id, email or chat
handle and the same channel by id or #name and stores it one way. An honest agent that writes `u-esra` never gets
the colleague's answer (or the next turn) and fails; the sound twin matches every spelling (or the state)."""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Spec, call, record, with_args

CLASS = "spelling_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "rewrite a person (id <-> email) or channel (id <-> #name) argument of a reference write that a dynamics rule "
    "or a turn condition matches to another spelling the tool accepts; the world ends the same for the tool, so a "
    "failing replay means a matcher pins the reference's spelling"
)


def _forms_person(spec: Spec, ref: str) -> list[str]:
    person = next(p for p in spec["world"]["apps"]["directory"]["people"]
                  if ref.lower() in (p["id"].lower(), p.get("email", "").lower(), p.get("chat_handle", "").lower()))
    return [v for v in (person["id"], person.get("email"), person.get("chat_handle")) if v]


def _rule_on_reference_spelling(rule_id: str, tool: str, arg: str):  # type: ignore[no-untyped-def]
    """The dynamics rule `rule_id` fires only on the reference's own spelling of `arg`."""

    def breaks(spec: Spec) -> None:
        rule = next(r for r in spec["dynamics"]["rules"] if r["id"] == rule_id)
        rule["on"]["call"]["args"][arg] = call(spec, tool)["arguments"][arg]
    return breaks


def _other_spelling(tool: str, arg: str):  # type: ignore[no-untyped-def]
    """The reference with `arg` of its first `tool` call spelled another way (person: its email or id)."""

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        value = call(spec, tool)["arguments"][arg]
        forms = _forms_person(spec, value)
        other = forms[1] if value == forms[0] else forms[0]
        return with_args(spec, tool, {arg: value}, **{arg: other})
    return witness


def _after_dm_turn(pinned: bool):  # type: ignore[no-untyped-def]
    """The follow-up turn comes once the agent has DMed the delegate: on the reference's spelling (the defect) or
    on any spelling of that person (the twin)."""

    def edit(spec: Spec) -> None:
        person = call(spec, "chat_send_dm")["arguments"]["person"]
        matcher: dict[str, Any] = {"tool": "chat_send_dm", "args": {"person": person}} if pinned else {
            "tool": "chat_send_dm", "where": [{"field": "person", "op": "in", "value": _forms_person(spec, person)}]}
        spec["turns"][1]["condition"] = {"kind": "after_call", "call": matcher}
    return edit


def _channel_ack(pinned: bool):  # type: ignore[no-untyped-def]
    """The team lead answers in the channel the agent posted the ticket to, and a check wants that answer: the rule
    fires on the reference's `#name` (the defect) or on any post in that channel (the twin)."""

    def edit(spec: Spec) -> None:
        posted = call(spec, "chat_post_message")["arguments"]["channel"]
        channel = next(c for c in spec["world"]["apps"]["chat"]["channels"]
                       if posted in (c["id"], c["name"], c["name"].lstrip("#")))
        lead = next(m for m in channel.get("members", []) if m != spec["user"])
        matcher: dict[str, Any] = {"tool": "chat_post_message", "args": {"channel": posted}} if pinned else {
            "tool": "chat_post_message", "where": [{"field": "channel", "op": "in",
                                                    "value": [channel["id"], channel["name"],
                                                              channel["name"].lstrip("#")]}]}
        spec["dynamics"]["rules"].append({
            "id": "lead-acknowledges", "on": {"kind": "action", "call": matcher}, "delay_s": 0,
            "effects": [{"kind": "put_record", "app": "chat", "table": "messages", "record": {
                "id": "chat-lead-ack", "channel": channel["id"], "sender": lead, "text": "Seen, on it.",
                "ts": "$now"}}]})
        frame = next(c for c in spec["checks"] if c["rule"]["kind"] == "frame")
        frame["rule"]["allow"].append({"app": "chat", "table": "messages", "id": "chat-lead-ack"})
        spec["checks"].append({"id": "lead-acknowledged", "description": "the channel saw the post (the lead said so)",
                               "rule": {"kind": "records", "app": "chat", "table": "messages",
                                        "where": [{"field": "channel", "value": channel["id"]},
                                                  {"field": "sender", "value": lead}],
                                        "count_op": "equals", "count": 1}})
    return edit


def _ack_on_assignee(spec: Spec) -> None:
    """The owner's acknowledgement fires on the hand-over call spelled as the reference spelled the new owner."""
    rule = spec["dynamics"]["rules"][0]
    ticket = rule["on"]["call"]["args"]["ticket_id"]
    owner = call(spec, "tickets_update", ticket_id=ticket)["arguments"]["assignee"]
    record(spec, "directory", "people", owner)  # the reference names the owner by id
    rule["on"]["call"]["args"]["assignee"] = owner


DEFECTS = [
    Defect(CLASS, "delegate-answers-only-by-handle", "synth:delegate_and_follow_up@1",
           "is never answered by the delegate (and fails) for DMing them by person id instead of their chat handle",
           breaks=_rule_on_reference_spelling("answers-after-dm", "chat_send_dm", "person"),
           witness=_other_spelling("chat_send_dm", "person"), witness_kind="honest", gate="mutations",
           code="spelling_pinned"),
    Defect(CLASS, "delegate-answers-only-by-handle-2", "synth:delegate_and_follow_up@2",
           "is never answered by the delegate for DMing them by another spelling than the reference's",
           breaks=_rule_on_reference_spelling("answers-after-dm", "chat_send_dm", "person"),
           witness=_other_spelling("chat_send_dm", "person"), witness_kind="honest", gate="mutations",
           code="spelling_pinned"),
    Defect(CLASS, "follow-up-waits-for-handle", "synth:delegate_and_follow_up@1",
           "never gets the follow-up turn for DMing the delegate by person id: the turn waits for the handle",
           breaks=_after_dm_turn(True), fix=_after_dm_turn(False),
           witness=_other_spelling("chat_send_dm", "person"), witness_kind="honest", gate="mutations",
           code="spelling_pinned"),
    Defect(CLASS, "owner-acks-only-by-id", "synth:adapt_announced_change@1",
           "gets no acknowledgement from the new owner (and fails) for assigning the ticket by their email",
           breaks=_ack_on_assignee, gate="mutations", code="spelling_pinned"),
    Defect(CLASS, "lead-acks-only-on-hash-name", "synth:mail_ticket_chat_coordination@2",
           "gets no acknowledgement from the team lead for posting to the channel by its id instead of #name",
           breaks=_channel_ack(True), fix=_channel_ack(False), gate="mutations", code="spelling_pinned"),
    Defect(CLASS, "lead-acks-only-on-hash-name-2", "synth:mail_ticket_chat_coordination@1",
           "gets no acknowledgement from the team lead for posting to the channel by its id instead of #name",
           breaks=_channel_ack(True), fix=_channel_ack(False), gate="mutations", code="spelling_pinned"),
]
