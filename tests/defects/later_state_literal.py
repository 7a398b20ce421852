"""A turn's answer checked for a literal the world holds only later: the user asks in the first turn for a value (the
colleague's directory role, the ticket's priority), and between the turns the world changes it (the colleague goes
on leave, someone escalates the ticket). The writer took the answer from the final world: the reference's first reply
states the later value and a text check bound to turn 0 wants that literal (`all_of: ["ENG-376: p1"]`, the role
with "(on leave until ...)"). No state is read, so the later-state readings of `reply_states` and `number.source`
never looked; the honest answer, true when given, fails, and only a reference that knew the future passes. The sound
twin wants the value of its own turn (later_state_read's twin). The role's literal (a phrase the initial world does not
state) is also `wording_pinned`, which main reported; the priority's is not."""

from __future__ import annotations

from typing import Any

from tests.defects._core import Defect, Spec, reference
from tests.defects.later_state_read import _PRIORITY, _ROLE, _asked, _colleague_role, _ticket_priority

CLASS = "later_state_literal"
# How a program can detect the class (what the gates should do), in one line.
DETECTION = (
    "replay the reference up to the end of turn t and compare each record field with the final state: a term of a "
    "text check bound to turn t that states a field's final value, which the value at the turn's end does not, wants "
    "what the world held only after the reply"
)


def _literal_later(target: Any):  # type: ignore[no-untyped-def]
    """later_state_read's defect with the `reply_states` written out as the literal the final world holds."""
    def edit(spec: Spec) -> None:
        _asked(target, True)(spec)
        c = spec["checks"][-1]
        rid, field = c["rule"]["source"]["id"], c["rule"]["source"]["field"]
        say = next(s for s in reversed(spec["reference"][0]["steps"]) if s.get("say"))["say"]
        later = say.rsplit(f"{field.capitalize()} of {rid}: ", 1)[1].removesuffix(".")
        c["rule"] = {"kind": "text", "scope": "final", "turn": 0, "all_of": [f"{rid}: {later}"]}
    return edit


def _pair(name: str, base: str, target: Any, away: str) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_literal_later(target), fix=_asked(target, False),
                  witness=reference, witness_kind="honest", gate="reads_state", code="reads_later_state")


DEFECTS = [
    _pair("role-literal-before-leave", "synth:adapt_announced_change@1", _colleague_role, _ROLE),
    _pair("role-literal-before-leave-4", "synth:adapt_announced_change@4", _colleague_role, _ROLE),
    _pair("handed-priority-literal-before-escalation", "synth:adapt_announced_change@1", _ticket_priority, _PRIORITY),
    _pair("handed-priority-literal-before-escalation-4", "synth:adapt_announced_change@4", _ticket_priority,
          _PRIORITY),
    _pair("priority-literal-before-escalation", "synth:delegate_and_follow_up@1", _ticket_priority, _PRIORITY),
    _pair("priority-literal-before-escalation-2", "synth:delegate_and_follow_up@2", _ticket_priority, _PRIORITY),
    _pair("alert-priority-literal-before-escalation", "synth:adapt_silent_change@1", _ticket_priority, _PRIORITY),
    _pair("alert-priority-literal-before-escalation-2", "synth:adapt_silent_change@2", _ticket_priority, _PRIORITY),
]
