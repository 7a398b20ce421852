"""A name the task fixes, written by the agent, checked by a bound: a ticket's priority, a draft's reply-to, checked
`gte`/`lte` (`priority gte p3`: "p3 or lower", `in_reply_to gte msg-391`) where the task wants that one value. The
comparison orders the name as text, so it admits the names on one side of it: `p4` for `p3`, `msg-392` (another
mail) for `msg-391`. An agent that files the follow-up at p4, lowers a ticket it was told to leave at p3 to p4, or
threads the reply to the next mail in the inbox passes. The near misses of a name are one or two other values of its
kind, ranked by what the checks name, often only the one on the side the bound refuses (p2), so the bound looked
exact. Found by `benchmarks/hunt_mutants.py --family d111` (`id_at_least`). The sound twin is the shipped spec (each
name compared `equals`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Edit, Spec, calls, reference

CLASS = "name_bounded"
DETECTION = (
    "for each name (an id, a label) a reference write passes and each bounded condition (gte, gt, lte, lt) with a "
    "name for its value that a check on that field holds for it, replay the write with the other names of its kind "
    "the bound admits (the tool's allowed values, the other ids of its table, the values the world holds in that "
    "field; else the name's last digit moved): a replay that passes every check lets the agent write another name"
)

_ADMITS = {"gte": lambda a, b: a >= b, "gt": lambda a, b: a > b, "lte": lambda a, b: a <= b, "lt": lambda a, b: a < b}


def _write(spec: Spec, tool: str, arg: str, which: int) -> tuple[int, int, dict[str, Any]]:
    found = [c for c in calls(spec, tool) if isinstance(c[2]["arguments"].get(arg), str)]
    if len(found) <= which:
        raise CorpusError(f"{spec['capability']}: no call {which} of {tool} writing {arg}")
    return found[which]


def _shape(v: str) -> str:
    return re.sub(r"\d+", "#", v)


def _other(spec: Spec, value: str, op: str) -> str:
    """The nearest name of the written one's shape (`p#`, `msg-#`) the world holds that the bound admits; else the
    written one with its last digit moved into the bound."""
    held: set[str] = set()

    def walk(x: Any) -> None:
        if isinstance(x, dict):
            for y in x.values():
                walk(y)
        elif isinstance(x, list):
            for y in x:
                walk(y)
        elif isinstance(x, str) and x != value and _shape(x) == _shape(value):
            held.add(x)
    walk(spec["world"])
    admitted = sorted((x for x in held if _ADMITS[op](x, value)), reverse=op in ("lte", "lt"))
    if admitted:
        return admitted[0]
    step = 1 if op in ("gte", "gt") else -1
    moved = re.sub(r"(\d)(?!.*\d)", lambda m: str(int(m.group(1)) + step), value)
    if moved == value or not _ADMITS[op](moved, value):
        raise CorpusError(f"{spec['capability']}: no name beside {value!r} that {op} admits")
    return moved


def _bounded(tool: str, arg: str, op: str, which: int) -> Edit:
    """Every check comparing the written name `equals` on that field (a field check of the record the call names, a
    records condition, a call matcher's argument) compares it by `op` instead."""
    def edit(spec: Spec) -> None:
        _, _, c = _write(spec, tool, arg, which)
        value, named = c["arguments"][arg], set(map(str, c["arguments"].values()))
        changed = 0
        for chk in spec["checks"]:
            r = chk["rule"]
            if r["kind"] == "field" and r["target"]["field"] == arg and r["target"]["id"] in named \
                    and r.get("op", "equals") == "equals" and r.get("value") == value:
                r["op"] = op
                changed += 1
            for w in r.get("where") or [] if r["kind"] == "records" else []:
                if w["field"] == arg and w.get("op", "equals") == "equals" and w.get("value") == value:
                    w["op"] = op
                    changed += 1
        if not changed:
            raise CorpusError(f"{spec['capability']}: no check compares {arg} {value!r} exactly")
    return edit


def _written(tool: str, arg: str, op: str, which: int) -> Callable[[Spec], list[dict[str, Any]]]:
    """The reference writing the name beside the right one that the bound admits."""
    def witness(spec: Spec) -> list[dict[str, Any]]:
        t, s, c = _write(spec, tool, arg, which)
        ref = reference(spec)
        ref[t]["steps"][s]["call"]["arguments"][arg] = _other(spec, c["arguments"][arg], op)
        return ref
    return witness


def _defect(name: str, base: str, tool: str, arg: str, op: str, away: str, which: int = 0) -> Defect:
    return Defect(CLASS, name, base, away, breaks=_bounded(tool, arg, op, which), witness=_written(tool, arg, op, which),
                  gate="mutations", code="loose_value_accepted")


DEFECTS = [
    _defect("kept-priority-at-least", "synth:ticket_triage_update@1", "tickets_update", "priority", "gte",
            "lowers a ticket it was told to leave at p3 to p4; the guard reads `priority gte p3`"),
    _defect("follow-up-priority-at-least", "synth:feature_flag_rollout@1", "tickets_create", "priority", "gte",
            "files the failure ticket at a lower priority than asked; the check reads `priority gte`"),
    _defect("follow-up-priority-at-least-3", "synth:feature_flag_rollout@3", "tickets_create", "priority", "gte",
            "files the failure ticket at a lower priority than asked; the check reads `priority gte`"),
    _defect("reply-to-at-least", "synth:draft_only_reply@1", "mail_save_draft", "in_reply_to", "gte",
            "threads the draft to the next mail in the inbox; the check reads `in_reply_to gte` the question"),
    _defect("reply-to-at-most", "synth:draft_only_reply@3", "mail_save_draft", "in_reply_to", "lte",
            "threads the draft to an earlier mail; the check reads `in_reply_to lte` the question"),
    _defect("reply-to-at-most-2", "synth:draft_only_reply@2", "mail_save_draft", "in_reply_to", "lte",
            "threads the draft to an earlier mail; the check reads `in_reply_to lte` the question"),
    _defect("review-priority-at-least", "synth:refuse_forbidden_action@5", "tickets_create", "priority", "gte",
            "files the review request at a lower priority than asked; the check reads `priority gte`"),
    _defect("report-follow-up-at-least", "example:report_from_files", "tickets_create", "priority", "gte",
            "files the follow-up at a lower priority than asked; the check reads `priority gte`"),
]
