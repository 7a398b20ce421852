"""A ticket admitted with another owner named in another spelling than the reference writes: every check on the
ticket's assignee (its field check, and the order checks' matchers on the hand-over where there are any) reads it
as "this person or that one", the owner the task names and someone else of the directory, written the way the
check spells the first (an id beside an id: `assignee in [u-oscar, u-leon]`; a pattern's alternative:
`^(?:u\\-olga|@*(?i:olga...))$|^(?:u\\-zoe)$`), while the reference hands the ticket over by the owner's email or
chat handle (the tickets tool takes any spelling and stores the id). The agent that gives the ticket to the other
person passes: the owner the task names never gets it.

The gates' wrong-recipient near miss already tried first a person the checks name, but only in the spelling of the
argument (defects105 widened it to any spelling for channels and direct conversations only): the reference writes
`oscar@...`, the check names `u-leon`, so the near miss went to another email no check names, which fails, and the
other person the check admits was never tried. Now a person whom one condition of a check (an `in` list, a
`matches` pattern) accepts beside the argument's person is tried first, spelled as that condition spells them.
The sound twin is the base with the same respelled hand-over (the check wants the one owner)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, reference

CLASS = "person_listed_elsewhere"
DETECTION = (
    "the wrong-recipient near miss tries first the people whom one condition of a check (an `in` list, a `matches` "
    "pattern) accepts beside the argument's person, in the spelling the condition names them (an id for an "
    "argument spelled by email): the write moved to them must fail a check"
)
_WRITES = ("tickets_update", "tickets_create")


def _people(spec: Spec) -> dict[str, dict[str, Any]]:
    return {p["id"]: p for p in spec["world"]["apps"]["directory"]["people"]}


def _handed(spec: Spec) -> tuple[str, str]:
    """(the ticket, the owner by id) of the first hand-over a field check on the ticket's assignee wants."""
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["field"] == "assignee" and rule["op"] == "equals" \
                and rule["value"] in _people(spec):
            return rule["target"]["id"], rule["value"]
    for c in spec["checks"]:  # a ticket the task creates: its records check
        rule = c["rule"]
        if rule["kind"] == "records" and rule.get("table") == "tickets":
            owner = next((w["value"] for w in rule["where"] if w["field"] == "assignee" and w["op"] == "equals"
                          and w["value"] in _people(spec)), None)
            if owner is not None:
                return "", owner
    raise CorpusError(f"{spec['capability']}: no check wants one assignee")


def _other(spec: Spec) -> str:
    """Someone else of the directory whom no check names: the last by id."""
    named = str([c["rule"] for c in spec["checks"]]).lower()
    _, owner = _handed(spec)
    return sorted(p for p in _people(spec) if p not in (spec["user"], owner) and p.lower() not in named)[-1]


def _owner_writes(ref: list[dict[str, Any]], spec: Spec) -> list[dict[str, Any]]:
    """The arguments of each write of `ref` handing the ticket to its owner (in any spelling)."""
    ticket, owner = _handed(spec)
    spellings = [owner, *(_people(spec)[owner].get(f) for f in ("email", "chat_handle"))]
    found = [st["call"]["arguments"] for turn in ref for st in turn["steps"] if st.get("call")
             and st["call"]["name"] in _WRITES and st["call"]["arguments"].get("assignee") in spellings
             and (not ticket or st["call"]["arguments"].get("ticket_id") == ticket)]
    if not found:
        raise CorpusError(f"{spec['capability']}: the reference never hands {ticket or 'a ticket'} to {owner}")
    return found


def _respelled(form: str) -> Callable[[Spec], None]:
    """The twin: the reference hands the ticket over by the owner's `form` (email, chat_handle)."""
    def edit(spec: Spec) -> None:
        owner = _handed(spec)[1]
        spelling = _people(spec)[owner][form]
        for args in _owner_writes(spec["reference"], spec):
            args["assignee"] = spelling
    return edit


def _admit(form: str) -> Callable[[Spec], None]:
    """The defect: the respelled hand-over, and every condition on the ticket's assignee also admits the other
    person, spelled as the condition spells the owner (an id; a pattern's own alternative)."""
    respell = _respelled(form)

    def edit(spec: Spec) -> None:
        ticket, owner = _handed(spec)
        other = _other(spec)
        respell(spec)
        hits = 0
        for c in spec["checks"]:
            rule = c["rule"]
            conds: list[dict[str, Any]] = []
            if rule["kind"] == "field" and rule["target"]["field"] == "assignee" and rule["target"]["id"] == ticket:
                conds = [rule]
            elif rule["kind"] == "records" and rule.get("table") == "tickets":
                conds = [w for w in rule["where"] if w["field"] == "assignee"]
            elif rule["kind"] == "order":
                conds = [w for m in (rule["first"], rule["then"]) if m["tool"] in _WRITES
                         and (not ticket or m["args"].get("ticket_id") == ticket)
                         for w in m.get("where", []) if w["field"] == "assignee"]
            for w in conds:
                if w["op"] == "equals" and w["value"] == owner:
                    w["op"], w["value"] = "in", [owner, other]
                    hits += 1
                elif w["op"] == "matches" and re.search(w["value"], owner):
                    w["value"] = f"(?:{w['value']})|^(?:{re.escape(other)})$"
                    hits += 1
        if not hits:
            raise CorpusError(f"{spec['capability']}: no condition names {owner}")
    return edit


def _given_elsewhere(spec: Spec) -> list[dict[str, Any]]:
    """The agent hands the ticket to the other person (by id, as the check names them)."""
    ref = reference(spec)
    other = _other(spec)
    for args in _owner_writes(ref, spec):
        args["assignee"] = other
    return ref


_AWAY = "gives the ticket to someone else of the directory, not the owner the task names"

DEFECTS = [
    Defect(CLASS, f"{cap}-{seed}-by-{form.split('_')[-1]}", f"synth:{cap}@{seed}", _AWAY,
           breaks=_admit(form), fix=_respelled(form), witness=_given_elsewhere, gate="mutations",
           code="mutant_survived")
    for cap, seed, form in (("ticket_triage_update", 1, "email"), ("ticket_triage_update", 2, "chat_handle"),
                            ("oncall_handoff", 1, "email"), ("oncall_handoff", 2, "chat_handle"),
                            ("delegate_and_follow_up", 2, "email"), ("adapt_announced_change", 1, "chat_handle"),
                            ("feature_flag_rollout", 1, "email"), ("mail_ticket_chat_coordination", 1, "email"))
]
