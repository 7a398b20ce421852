"""Spelling pinned: a dynamics rule, a follow-up turn or a check's own call matcher (`called`, `order`) waits for a
call spelled exactly as the reference spelled it (`{"person": "esra"}`, `{"channel": "#notify"}`), though the tool
accepts the same person by id, email or chat handle and the same channel by id or #name and stores it one way. An
honest agent that writes `u-esra` never gets the colleague's answer (or the next turn), or loses the order check,
and fails; the sound twin matches every spelling (or the state). A matcher naming two of the three spellings (the
reference's and the one the gate used to try, `[esra, u-esra]`, `[#finance, c-finance]`) is the same mistake for the
agent that writes the third (the email, the bare channel name), defects110: the gate now tries every spelling."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, call, record, with_args

CLASS = "spelling_pinned"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "rewrite a person (id, email, chat handle) or channel (id, #name, bare name) argument of a reference write that a dynamics rule, "
    "a turn condition or a called/order check matcher matches to each other spelling the tool accepts; the world ends "
    "the same for the tool, so a failing replay (a state or reply check; for a check matcher, that check) means a "
    "matcher pins the reference's spelling"
)


def _forms_person(spec: Spec, ref: str) -> list[str]:
    person = next(p for p in spec["world"]["apps"]["directory"]["people"]
                  if ref.lower() in (p["id"].lower(), p.get("email", "").lower(), p.get("chat_handle", "").lower()))
    return [v for v in (person["id"], person.get("email"), person.get("chat_handle")) if v]


def _forms_channel(spec: Spec, ref: str) -> list[str]:
    channel = next(c for c in spec["world"]["apps"]["chat"]["channels"]
                   if ref in (c["id"], c["name"], c["name"].lstrip("#")))
    return [channel["id"], channel["name"]]


def _check_on_reference_spelling(check_prefix: str, side: str, arg: str):  # type: ignore[no-untyped-def]
    """The `side` matcher (`call`, `first`, `then`) of every check whose id starts with `check_prefix` names `arg` as
    the reference spelled it, in place of the generator's every-spelling condition."""

    def breaks(spec: Spec) -> None:
        pinned = [c for c in spec["checks"] if c["id"].startswith(check_prefix)]
        assert pinned, f"no check {check_prefix}*"
        for c in pinned:
            matcher = c["rule"][side]
            matcher["args"][arg] = call(spec, matcher["tool"], **matcher["args"])["arguments"][arg]
            matcher["where"] = [w for w in matcher.get("where", []) if w["field"] != arg]
    return breaks


def _other_channel(tool: str, arg: str):  # type: ignore[no-untyped-def]
    """The reference with `arg` of its first `tool` call naming the channel the other way (id <-> #name)."""

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        value = call(spec, tool)["arguments"][arg]
        forms = _forms_channel(spec, value)
        return with_args(spec, tool, {arg: value}, **{arg: forms[1] if value == forms[0] else forms[0]})
    return witness


def _incidents_told(pinned: bool):  # type: ignore[no-untyped-def]
    """A `called` check that #incidents heard of the fix: on the reference's `#incidents` (the defect) or on any
    spelling of the channel (the twin)."""

    def edit(spec: Spec) -> None:
        matcher: dict[str, Any] = {"tool": "chat_post_message", "args": {"channel": "#incidents"}} if pinned else {
            "tool": "chat_post_message", "where": [{"field": "channel", "op": "in",
                                                    "value": [*_forms_channel(spec, "#incidents"), "incidents"]}]}
        spec["checks"].append({"id": "incidents-told", "description": "#incidents heard of the fix",
                               "rule": {"kind": "called", "call": matcher}})
    return edit


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


# -- a matcher naming two of the spellings: the reference's and the one the gate tried first ---------------------
def _spellings(spec: Spec, tool: str, value: str) -> tuple[str, str, str]:
    """(the reference's spelling, the other one a respelling tries first, the third the tool takes too): a person's
    id, email and chat handle, a channel's id, `#name` and bare name."""
    channel = tool == "chat_post_message"
    forms = [*_forms_channel(spec, value), _forms_channel(spec, value)[1].lstrip("#")] if channel \
        else _forms_person(spec, value)
    if value not in forms:
        raise CorpusError(f"{spec['capability']}: {value!r} is no spelling of {forms}")
    other = forms[1] if value == forms[0] else forms[0]
    third = next(f for f in forms if f not in (value, other))
    return value, other, third


def _two_spellings(locate, tool: str, arg: str):  # type: ignore[no-untyped-def]
    """The matcher `locate` finds (or makes) on `tool` takes the `arg` of the reference's first call it matches in two
    spellings (`in [esra, u-esra]`): the reference's, and the one a respelling of it tries first; the third the tool
    takes (the email, the chat handle, the channel's bare name) it misses."""

    def breaks(spec: Spec) -> None:
        matcher = locate(spec)
        value = call(spec, tool, **matcher.get("args", {}))["arguments"][arg]
        mine, other, _ = _spellings(spec, tool, value)
        matcher.get("args", {}).pop(arg, None)
        matcher["where"] = [w for w in matcher.get("where", []) if w["field"] != arg] + [
            {"field": arg, "op": "in", "value": [mine, other]}]
    return breaks


def _third_spelling(tool: str, arg: str, **match: Any):  # type: ignore[no-untyped-def]
    """The honest agent: the reference with `arg` of its first (matching) `tool` call in the third spelling."""

    def witness(spec: Spec) -> list[dict]:  # type: ignore[type-arg]
        value = call(spec, tool, **match)["arguments"][arg]
        return with_args(spec, tool, {**match, arg: value}, **{arg: _spellings(spec, tool, value)[2]})
    return witness


def _rule_matcher(tool: str):  # type: ignore[no-untyped-def]
    def locate(spec: Spec) -> dict[str, Any]:
        rule = next((r for r in spec["dynamics"]["rules"] if r["on"].get("call", {}).get("tool") == tool), None)
        if rule is None:
            raise CorpusError(f"{spec['capability']}: no dynamics rule on {tool}")
        return rule["on"]["call"]  # type: ignore[no-any-return]
    return locate


def _turn_matcher(tool: str):  # type: ignore[no-untyped-def]
    """The follow-up turn waits for the agent's first `tool` call (a condition made here)."""
    def locate(spec: Spec) -> dict[str, Any]:
        spec["turns"][1]["condition"] = {"kind": "after_call", "call": {"tool": tool, "args": {}, "where": []}}
        return spec["turns"][1]["condition"]["call"]  # type: ignore[no-any-return]
    return locate


def _check_matcher(prefix: str, side: str):  # type: ignore[no-untyped-def]
    def locate(spec: Spec) -> dict[str, Any]:
        found = next((c for c in spec["checks"] if c["id"].startswith(prefix)), None)
        if found is None:
            raise CorpusError(f"{spec['capability']}: no check {prefix}*")
        return found["rule"][side]  # type: ignore[no-any-return]
    return locate


def _told_matcher(spec: Spec) -> dict[str, Any]:
    """A `called` check that the team's channel heard of the fix (made here, on the reference's post)."""
    spec["checks"].append({"id": "channel-told", "description": "the team's channel heard of the fix",
                           "rule": {"kind": "called", "call": {"tool": "chat_post_message", "args": {}, "where": []}}})
    return spec["checks"][-1]["rule"]["call"]  # type: ignore[no-any-return]


_TWO_OF_THREE = [
    ("dm-answer-handle-or-id", "synth:delegate_and_follow_up@1", _rule_matcher("chat_send_dm"), "chat_send_dm",
     "person", "is never answered by the delegate for DMing them by email: the rule names their handle and id only"),
    ("dm-turn-email-or-id", "synth:delegate_and_follow_up@2", _turn_matcher("chat_send_dm"), "chat_send_dm",
     "person", "never gets the follow-up turn for DMing the delegate by chat handle: the turn names email and id only"),
    ("ack-assignee-id-or-email", "synth:adapt_announced_change@1", _rule_matcher("tickets_update"), "tickets_update",
     "assignee", "gets no acknowledgement for assigning the new owner by chat handle: the rule names id and email"),
    ("handoff-order-id-or-email", "synth:oncall_handoff@1", _check_matcher("note-after-", "first"), "tickets_update",
     "assignee", "loses the order checks for handing over by chat handle: the matcher names id and email only"),
    ("post-order-name-or-id", "synth:mail_ticket_chat_coordination@1", _check_matcher("ticket-before-post", "then"),
     "chat_post_message", "channel", "loses the order check for posting to the channel by its bare name "
     "(`finance`): the matcher names #name and id only"),
    ("told-called-name-or-id", "example:incident_rollback", _told_matcher, "chat_post_message", "channel",
     "loses the `called` check for posting to `incidents` (bare name): the matcher names #incidents and c-incidents"),
]

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
    Defect(CLASS, "handoff-note-after-assignee-id", "synth:oncall_handoff@1",
           "loses the order checks for handing the tickets over by the next on-call person's email, not their id",
           breaks=_check_on_reference_spelling("note-after-", "first", "assignee"),
           witness=_other_spelling("tickets_update", "assignee"), witness_kind="honest", gate="mutations",
           code="spelling_pinned"),
    Defect(CLASS, "delegate-asked-after-assignee-id", "synth:delegate_and_follow_up@2",
           "loses the order check for assigning the ticket to the delegate by email, not by id",
           breaks=_check_on_reference_spelling("delegate-asked-after-assignment", "first", "assignee"),
           witness=_other_spelling("tickets_update", "assignee"), witness_kind="honest", gate="mutations",
           code="spelling_pinned"),
    Defect(CLASS, "post-after-ticket-on-hash-name", "synth:mail_ticket_chat_coordination@1",
           "loses the order check for posting to the team channel by its id instead of #name",
           breaks=_check_on_reference_spelling("ticket-before-post", "then", "channel"),
           witness=_other_channel("chat_post_message", "channel"), witness_kind="honest", gate="mutations",
           code="spelling_pinned"),
    Defect(CLASS, "incidents-told-only-on-hash-name", "example:incident_rollback",
           "loses the `called` check for posting the update to c-incidents (the channel's id) instead of #incidents",
           breaks=_incidents_told(True), fix=_incidents_told(False),
           witness=_other_channel("chat_post_message", "channel"), witness_kind="honest", gate="mutations",
           code="spelling_pinned"),
] + [
    Defect(CLASS, name, base, away, breaks=_two_spellings(locate, tool, arg), witness=_third_spelling(tool, arg),
           witness_kind="honest", gate="mutations", code="spelling_pinned")
    for name, base, locate, tool, arg, away in _TWO_OF_THREE
]
