"""A value the agent writes checked by `in` a text: `phone in "+31 650 750 659"`, `in_reply_to in "msg-391"`,
`deployed_version in "1.5.0"`, where the author meant "is this value" (or "one of these", written as one text). `in`
is Python's membership: given a text it is a substring test, so every piece of the value passes: the number with its
last digit lost, the draft threaded to `msg-39`, the release `1.5.`. The write's near misses move a value to another
one of its kind, never to a piece of it. Found by `benchmarks/hunt_mutants.py --family d117` (`in_as_text`). The
sound twins are the shipped spec (`equals`) and, for one defect, the same check with `in` a list of the one value."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Edit, Spec, calls, reference

CLASS = "in_as_text"
DETECTION = (
    "statically, at the references gate: every `in` condition of a check, a tier's rule, a records, frame or call "
    "matcher's `where` and a dynamics `when` whose value is not a list is reported (`in` a text is a substring test)"
)


def _value(spec: Spec, tool: str, arg: str) -> str:
    found = [c["arguments"][arg] for _, _, c in calls(spec, tool) if isinstance(c["arguments"].get(arg), str)]
    if not found:
        raise CorpusError(f"{spec['capability']}: no call of {tool} writing {arg}")
    return str(found[0])


def _as_in(tool: str, arg: str, field: str, listed: bool = False) -> Edit:
    """Every check comparing the written value `equals` on `field` compares it `in` the value as a text (or, for the
    twin, `in` a list of the value)."""
    def edit(spec: Spec) -> None:
        value = _value(spec, tool, arg)
        new = [value] if listed else value
        changed = 0
        for chk in spec["checks"]:
            r = chk["rule"]
            if r["kind"] == "field" and r["target"]["field"] == field and r.get("op", "equals") == "equals" \
                    and r.get("value") == value:
                r["op"], r["value"] = "in", new
                changed += 1
            for w in r.get("where") or [] if r["kind"] == "records" else []:
                if w["field"] == field and w.get("op", "equals") == "equals" and w.get("value") == value:
                    w["op"], w["value"] = "in", new
                    changed += 1
        if not changed:
            raise CorpusError(f"{spec['capability']}: no check compares {field} {value!r} exactly")
    return edit


def _cut(tool: str, arg: str) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference writing the value with its last character lost."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        for turn in ref:
            for st in turn["steps"]:
                c = st.get("call")
                if c and c["name"] == tool and isinstance(c["arguments"].get(arg), str):
                    c["arguments"][arg] = c["arguments"][arg][:-1]
                    return ref
        raise CorpusError(f"{spec['capability']}: the reference never calls {tool} with {arg}")
    return witness


def _defect(name: str, base: str, tool: str, arg: str, field: str, away: str, twin_listed: bool = False) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_as_in(tool, arg, field),
                  fix=_as_in(tool, arg, field, listed=True) if twin_listed else None, witness=_cut(tool, arg),
                  gate="references", code="in_text_value")


DEFECTS = [
    _defect("phone-in-text", "synth:contact_phone_update@1", "contacts_update", "phone", "phone",
            "saves the new number with its last digit lost; the check reads `phone in \"+31 650 750 659\"`",
            twin_listed=True),
    _defect("phone-in-text-3", "synth:contact_phone_update@3", "contacts_update", "phone", "phone",
            "saves the new number with its last digit lost; the check reads `phone in` the number as a text"),
    _defect("reply-to-in-text", "synth:draft_only_reply@1", "mail_save_draft", "in_reply_to", "in_reply_to",
            "threads the draft to msg-39; the check reads `in_reply_to in \"msg-391\"`"),
    _defect("reply-to-in-text-4", "synth:draft_only_reply@4", "mail_save_draft", "in_reply_to", "in_reply_to",
            "threads the draft to a message whose id is the question's cut short; the check reads `in` a text"),
    _defect("release-in-text", "synth:refuse_forbidden_action@1", "services_deploy", "version", "deployed_version",
            "deploys `1.5.` for `1.5.0`; the check reads `deployed_version in \"1.5.0\"`"),
]
