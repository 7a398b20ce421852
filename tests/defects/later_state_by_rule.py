"""A turn's answer judged by a state a rule of the world sets later: the user asks in the first turn for a value (the
colleague's directory role, the ticket's priority), and after the reply a dynamics rule changes it, one due on the
clock (it falls inside the wait before the next turn) or one answering the agent's next write. The writer checks the
first reply with `reply_states` bound to turn 0, which reads the final state: the honest answer, true when given,
fails. The turns' `changes` say nothing, so a reading of the turns alone misses it. The sound twin wants the value of
its own turn as a literal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from tests.defects._core import Defect, Spec, frame, record, reference
from tests.defects.later_state_read import _colleague_role, _ticket_priority, asked_at_turn_0

CLASS = "later_state_by_rule"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference up to the end of the turn a reply check judges and compare the field it reads with the "
    "final state: a rule due on the clock or answering a later action that changed it makes the honest answer fail"
)

Trigger = Literal["clock", "action"]


def _trigger(spec: Spec, how: Trigger) -> dict[str, Any]:
    """When the rule fires: inside the wait before turn 1 (after every step of turn 0 has ticked the clock), or on
    the reference's last write of turn 1, matched by its arguments other than a person."""
    if how == "clock":
        world = spec["world"]
        start = datetime.fromisoformat(world["start"].replace("Z", "+00:00"))
        steps = len(spec["reference"][0]["steps"]) + 1
        at = start + timedelta(seconds=world["tick_s"] * steps + spec["turns"][1]["advance_s"] // 4)
        return {"kind": "at", "time": at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}
    last = [s["call"] for s in spec["reference"][1]["steps"] if s.get("call") and not s["call"]["name"].split(
        "_", 1)[1].startswith(("get", "list", "search", "read", "free"))][-1]
    # A person is left out of the matcher: a rule pinned to one spelling of them is another defect (spelling_pinned).
    args = {k: v for k, v in last["arguments"].items() if not (isinstance(v, str) and (v.startswith("u-") or "@" in v))}
    return {"kind": "action", "call": {"tool": last["name"], "args": args, "where": []}}


def _asked(target: Any, how: Trigger, defect: bool):  # type: ignore[no-untyped-def]
    """Turn 0 asks for the value; the reply of turn 0 states it (the final value in the defect, its own turn's in
    the twin); a rule sets it after the reply (a turn's change setting it becomes the rule, so the turns say
    nothing), and the frame allows it."""

    def edit(spec: Spec) -> None:
        app, table, rid, field, question, later = target(spec)
        now = record(spec, app, table, rid)[field]
        if later is None:  # the turn's change becomes the rule
            changes = spec["turns"][1]["changes"]
            change = next(c for c in changes if c.get("id") == rid and field in c.get("set", {}))
            later = change["set"][field]
            changes.remove(change)
        else:
            allow = frame(spec)["rule"]["allow"]
            mine = [a for a in allow if (a["app"], a.get("table"), a.get("id")) == (app, table, rid)]
            for a in mine:
                if a.get("fields") is not None:
                    a["fields"] = [*a["fields"], field]
            if not mine:
                allow.append({"app": app, "table": table, "id": rid, "fields": [field], "where": []})
        spec["dynamics"]["rules"].append({
            "id": f"{field}-of-{rid}-changes", "on": _trigger(spec, how), "when": [], "delay_s": 0, "once": True,
            "effects": [{"kind": "update_record", "app": app, "table": table, "id": rid, "set": {field: later}}]})
        asked_at_turn_0(spec, (app, table, rid, field), question, now, later, defect)
    return edit


def _pair(name: str, base: str, target: Any, how: Trigger, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_asked(target, how, True), fix=_asked(target, how, False),
                  witness=reference, witness_kind="honest", gate="reads_state", code="reads_later_state")


_ROLE = "fails the agent that states the colleague's role as the directory gave it in turn 0 (a rule changes it later)"
_PRIORITY = "fails the agent that states the ticket's priority as it was in turn 0 (a rule escalates it later)"

DEFECTS = [
    _pair("role-by-clock", "synth:adapt_announced_change@1", _colleague_role, "clock", _ROLE),
    _pair("role-by-clock-4", "synth:adapt_announced_change@4", _colleague_role, "clock", _ROLE),
    _pair("role-by-action-6", "synth:adapt_announced_change@6", _colleague_role, "action", _ROLE),
    _pair("priority-by-clock", "synth:delegate_and_follow_up@1", _ticket_priority, "clock", _PRIORITY),
    _pair("priority-by-action-2", "synth:delegate_and_follow_up@2", _ticket_priority, "action", _PRIORITY),
    _pair("alert-priority-by-clock", "synth:adapt_silent_change@1", _ticket_priority, "clock", _PRIORITY),
    _pair("alert-priority-by-action-2", "synth:adapt_silent_change@2", _ticket_priority, "action", _PRIORITY),
]
