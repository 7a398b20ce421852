"""A turn's answer judged by a later state through a reply check bound to no turn: the user asks in the first turn
for a value (the colleague's directory role, the ticket's priority), and after the reply the world changes it (a
turn's change, or a rule on the clock or answering the agent's next write). The writer leaves the check's `turn`
unset, so `reply_states` reads every reply against the final state: the honest answer, true when given in turn 0,
fails unless the agent repeats a value nobody asked for again. The sound twin wants the value of its own turn as a
literal, in any reply."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects import later_state_by_rule, later_state_read
from tests.defects._core import CorpusError, Defect, Spec, reference
from tests.defects.later_state_read import _colleague_role, _ticket_priority

CLASS = "later_state_unbound"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "a reply check bound to no turn, in a task of several turns, is judged at the last turn whose reference reply "
    "states the value it wants; where a later turn's change, a rule or a later write sets that field after that "
    "reply, the answer true when given fails"
)


def _last_answer_checked(spec: Spec) -> None:
    """Where no check reads the last turn's reply, the writer checks it for a name it gives that no turn says (the
    backup's, the cause's): a check bound to no turn reads that reply too, so the gates want it checked."""
    last = len(spec["turns"]) - 1
    if any(c["rule"]["kind"] == "text" and c["rule"].get("turn") == last for c in spec["checks"]):
        return
    said = " ".join(t["content"] for t in spec["turns"]).lower()
    reply = next(s["say"] for s in reversed(spec["reference"][last]["steps"]) if s.get("say"))
    names = [w for w in re.findall(r"\b[A-Z][a-z]{3,}\b", reply) if w.lower() not in said]
    if not names:
        raise CorpusError(f"{spec['capability']}: the last reply names nothing the turns do not")
    spec["checks"].append({"id": "last-answer-names", "description": f"the last reply names {names[0]}",
                           "rule": {"kind": "text", "scope": "final", "turn": last, "all_of": [names[0]]}})


def _unbound(edit: Callable[[Spec], None]) -> Callable[[Spec], None]:
    """The turn-0 answer check `edit` adds, bound to no turn (the twin's literal searched in every reply)."""

    def unbound(spec: Spec) -> None:
        edit(spec)
        rule = spec["checks"][-1]["rule"]
        del rule["turn"]
        if rule["kind"] == "text":
            rule["scope"] = "replies"
        _last_answer_checked(spec)
    return unbound


def _pair(name: str, base: str, target: Any, how: str | None, away: str) -> Defect:
    if how is None:  # a turn's change sets the field
        breaks, fix = later_state_read._asked(target, True), later_state_read._asked(target, False)
    else:  # a rule sets it, on the clock or on the agent's next write
        breaks, fix = (later_state_by_rule._asked(target, how, True),  # type: ignore[arg-type]
                       later_state_by_rule._asked(target, how, False))  # type: ignore[arg-type]
    return Defect(CLASS, name, base, away, breaks=_unbound(breaks), fix=_unbound(fix), witness=reference,
                  witness_kind="honest", gate="reads_state", code="reads_later_state")


_ROLE = ("fails the agent that states the colleague's role as the directory gave it in turn 0: the check, bound to no "
         "turn, wants the role they have after going on leave")
_PRIORITY = ("fails the agent that states the ticket's priority as it was in turn 0: the check, bound to no turn, "
             "wants the priority after the escalation")

DEFECTS = [
    _pair("role-unbound", "synth:adapt_announced_change@1", _colleague_role, None, _ROLE),
    _pair("role-unbound-4", "synth:adapt_announced_change@4", _colleague_role, None, _ROLE),
    _pair("role-unbound-by-clock-6", "synth:adapt_announced_change@6", _colleague_role, "clock", _ROLE),
    _pair("priority-unbound", "synth:delegate_and_follow_up@1", _ticket_priority, None, _PRIORITY),
    _pair("priority-unbound-by-action-2", "synth:delegate_and_follow_up@2", _ticket_priority, "action", _PRIORITY),
    _pair("alert-priority-unbound", "synth:adapt_silent_change@1", _ticket_priority, None, _PRIORITY),
    _pair("alert-priority-unbound-by-clock-2", "synth:adapt_silent_change@2", _ticket_priority, "clock", _PRIORITY),
]
