"""A turn's answer judged by a later state: the user asks in the first turn for a value (the colleague's role in the
directory, the ticket's priority), and between the turns the world changes it (the colleague goes on leave, someone
escalates the ticket). The writer checks the first reply with `reply_states` bound to turn 0, which reads the final
state: the honest answer, true when given, fails; only a reference that knew the future passes. The sound twin wants
the value of its own turn as a literal."""

from __future__ import annotations

from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, calls, frame, record, reference

CLASS = "later_state_read"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "a reply_states check (or a text check's number source) bound to turn t reads a field that a later turn's "
    "changes set to another value: the reply is judged against a value that did not exist when it was given"
)

# (app, table, id, field, what the user asks, the world's new value or None where a turn's change already sets it)
Target = tuple[str, str, str, str, str, Any]


def _colleague_role(spec: Spec) -> Target:
    """The colleague whose directory role a later turn changes (they go on leave)."""
    for change in spec["turns"][1]["changes"]:
        if change["kind"] == "update_record" and change["app"] == "directory" and "role" in change["set"]:
            name = record(spec, "directory", "people", change["id"])["name"]
            return "directory", "people", change["id"], "role", f"What is {name}'s role in the directory?", None
    raise CorpusError(f"{spec['capability']}: no later turn changes a directory role")


def _ticket_priority(spec: Spec) -> Target:
    """The task's ticket, escalated by someone else between the turns."""
    found = next(calls(spec, "tickets_update"), None)
    if found is None:
        raise CorpusError(f"{spec['capability']}: the reference updates no ticket")
    tid = found[2]["arguments"]["ticket_id"]
    now = record(spec, "tickets", "tickets", tid)["priority"]
    later = "p1" if now != "p1" else "p2"
    return "tickets", "tickets", tid, "priority", f"What priority is {tid} at?", later


def changed_later(spec: Spec, app: str, table: str, rid: str, field: str, later: Any) -> Any:
    """The value turn 1's changes give `field`: `later` added as such a change (and allowed by the frame) where it is
    not None, else the value the spec's own change sets."""
    if later is None:
        return next(c["set"][field] for c in spec["turns"][1]["changes"] if c.get("id") == rid)
    spec["turns"][1]["changes"].append({"kind": "update_record", "app": app, "table": table, "id": rid,
                                        "set": {field: later}})
    allow = frame(spec)["rule"]["allow"]
    mine = [a for a in allow if (a["app"], a.get("table"), a.get("id")) == (app, table, rid)]
    for a in mine:  # a selector must allow every field that changes (selectors are not pooled)
        if a.get("fields") is not None:
            a["fields"] = [*a["fields"], field]
    if not mine:
        allow.append({"app": app, "table": table, "id": rid, "fields": [field], "where": []})
    return later


def _asked(target: Any, defect: bool):  # type: ignore[no-untyped-def]
    """Turn 0 asks for the value; the reply of turn 0 states it (the final value in the defect, its own turn's in
    the twin); a later change sets it (added where the spec has none, and allowed by the frame)."""

    def edit(spec: Spec) -> None:
        app, table, rid, field, question, later = target(spec)
        now = record(spec, app, table, rid)[field]
        later = changed_later(spec, app, table, rid, field, later)
        asked_at_turn_0(spec, (app, table, rid, field), question, now, later, defect)
    return edit


def asked_at_turn_0(spec: Spec, ref: tuple[str, str, str, str], question: str, now: Any, later: Any,
                    defect: bool) -> None:
    """Turn 0 asks `question`; its reply states the later value and a `reply_states` bound to turn 0 reads the
    field (the defect), or it states the value of its own turn and a text check wants that literal (the twin)."""
    app, table, rid, field = ref
    spec["turns"][0]["content"] += f" {question}"
    say = next(s for s in reversed(spec["reference"][0]["steps"]) if s.get("say"))
    say["say"] += f" {field.capitalize()} of {rid}: {later if defect else now}."
    if defect:
        rule: dict[str, Any] = {"kind": "reply_states", "source": {"app": app, "table": table, "id": rid,
                                                                   "field": field}, "turn": 0}
    else:
        # A bare number is no answer (any other number's digits may hold it): the twin wants it beside its record.
        rule = {"kind": "text", "scope": "final", "turn": 0, "all_of": [f"{rid}: {now}" if isinstance(now, int) else str(now)]}
    spec["checks"].append({"id": f"{field}-of-{rid}-told", "description": f"turn 0 states the {field} of {rid}",
                           "rule": rule})


def _pair(name: str, base: str, target: Any, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_asked(target, True), fix=_asked(target, False),
                  witness=reference, witness_kind="honest", gate="reads_state", code="reads_later_state")


_ROLE = "fails the agent that states the colleague's role as the directory gave it in turn 0 (they go on leave later)"
_PRIORITY = "fails the agent that states the ticket's priority as it was in turn 0 (someone escalates it later)"

DEFECTS = [
    _pair("role-before-leave", "synth:adapt_announced_change@1", _colleague_role, _ROLE),
    _pair("role-before-leave-4", "synth:adapt_announced_change@4", _colleague_role, _ROLE),
    _pair("role-before-leave-6", "synth:adapt_announced_change@6", _colleague_role, _ROLE),
    _pair("priority-before-escalation", "synth:delegate_and_follow_up@1", _ticket_priority, _PRIORITY),
    _pair("priority-before-escalation-2", "synth:delegate_and_follow_up@2", _ticket_priority, _PRIORITY),
    _pair("alert-priority-before-escalation", "synth:adapt_silent_change@1", _ticket_priority, _PRIORITY),
    _pair("alert-priority-before-escalation-2", "synth:adapt_silent_change@2", _ticket_priority, _PRIORITY),
]
