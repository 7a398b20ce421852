"""A value inside a list or a dict argument read by a loose pattern: a check that wants each attendee of a meeting,
the recipient of a draft, or the people a config entry lists is written as a `matches` pattern that admits another
value in that item's place: an attendee read by the address's name only (`pablo\\.bianchi`, where the directory also
holds `pablo.bianchi2@...`: the calendar stores whoever is invited), a draft's recipient by the part before the
domain (`tom\\.varga@`: the mail tool keeps any address), the viewers of a service's config by their start only
(`^dev\\.lopez@...,hamza\\.osei@...`: one more viewer at the end passes), and a ticket's assignee by the id's
start (`^u-oscar`, where the directory also holds `u-oscar2`). The near misses replaced a scalar
argument's value, dropped a list's item, or changed a list's first item to another person; none put another value
the pattern admits in a read item's place, and none lengthened a list a dict argument holds (defects75 left these).

The sound twins compare exactly (the shipped `contains`), with the same colliding person in the directory, or pin the
config value whole (`^...$`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.defects._core import CorpusError, Defect, Spec, base_spec, calls, reference

CLASS = "item_pattern_loose"
DETECTION = (
    "for each item of a list argument, and each value of a dict argument, that a `matches` condition of a check "
    "reads (the condition holds for the list as written and fails without the item), write in its place the "
    "values the pattern admits near it and the other people the world holds that it admits, and a delimited value "
    "with one more item at either end: a near miss that still passes means the pattern admits a value the task "
    "does not want"
)
GATE, CODE = "mutations", "loose_value_accepted"


def _attendee_conds(spec: Spec, field: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(records check rule, its `contains` condition on the list field `field`) for each such condition."""
    out = [(c["rule"], w) for c in spec["checks"] if c["rule"]["kind"] == "records"
           for w in c["rule"]["where"] if w["field"] == field and w.get("op", "equals") == "contains"]
    if not out:
        raise CorpusError(f"{spec['capability']}: no `contains` condition on {field!r}")
    return out


def _by_pattern(field: str, pattern: Callable[[str], str], tool: str | None = None) -> Callable[[Spec], None]:
    """Each `contains` condition on the list `field` written as one `matches` condition per value it lists, and so
    each call matcher of `tool` pinning the list among its `args`."""
    def edit(spec: Spec) -> None:
        for rule, w in _attendee_conds(spec, field):
            wanted = w["value"] if isinstance(w["value"], list) else [w["value"]]
            at = rule["where"].index(w)
            rule["where"][at:at + 1] = [{"field": field, "op": "matches", "value": pattern(v)} for v in wanted]
        for c in spec["checks"]:
            for m in [c["rule"].get("call"), c["rule"].get("first"), c["rule"].get("then")]:
                if isinstance(m, dict) and m.get("tool") == tool and field in m.get("args", {}):
                    listed = m["args"].pop(field)
                    m.setdefault("where", []).extend(
                        {"field": field, "op": "matches", "value": pattern(v)}
                        for v in (listed if isinstance(listed, list) else [listed]))
    return edit


def name_only(email: str) -> str:
    """The address's name without its domain, unanchored: `pablo\\.bianchi` (admits `pablo.bianchi2@...`)."""
    return re.escape(email.split("@", 1)[0])


def up_to_at(email: str) -> str:
    """The address's name and its `@`, the domain left open: `tom\\.varga@`."""
    return re.escape(email.split("@", 1)[0] + "@")


def _namesake(email: str) -> str:
    local, domain = email.split("@", 1)
    return f"{local}2@{domain}"


def _first_invited(spec: Spec) -> str:
    for _, _, call in calls(spec, "calendar_create_event"):
        return str(call["arguments"]["attendees"][0])
    raise CorpusError(f"{spec['capability']}: the reference books no event")


def _add_namesake(spec: Spec, key: str, ref: str) -> None:
    """The directory also holds a second person like the one whose `key` is `ref`: id, address and handle with a `2`
    after them (`u-esra2`, `esra.larsen2@...`)."""
    people = spec["world"]["apps"]["directory"]["people"]
    person = next((p for p in people if p[key] == ref), None)
    if person is None:
        raise CorpusError(f"{spec['capability']}: {ref} is in no directory entry")
    people.append({**person, "id": person["id"] + "2", "email": _namesake(person["email"]),
                   "name": person["name"] + " (Ops)", "chat_handle": (person.get("chat_handle") or person["id"]) + "2"})


def _with_namesake(spec: Spec) -> None:
    """The directory also holds a second person named like the first attendee (`pablo.bianchi2@...`)."""
    _add_namesake(spec, "email", _first_invited(spec))


def _both(*edits: Callable[[Spec], None]) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        for e in edits:
            e(spec)
    return edit


def _invites_namesake(spec: Spec) -> list[dict[str, Any]]:
    ref = reference(spec)
    hits = [c for _, _, c in calls({"reference": ref, "capability": spec["capability"]}, "calendar_create_event")]
    if not hits:
        raise CorpusError(f"{spec['capability']}: the reference books no event")
    for c in hits:
        first = c["arguments"]["attendees"][0]
        c["arguments"]["attendees"] = [_namesake(first), *c["arguments"]["attendees"][1:]]
    return ref


def _attendee(base: str) -> Defect:
    base_spec(base)
    return Defect(CLASS, f"attendee-name-only-{base.rsplit(':', 1)[-1].replace('@', '-')}", base,
                  "invites the namesake (`pablo.bianchi2@...`) instead of the attendee asked for: each attendee is "
                  "read by the name before the domain, unanchored",
                  breaks=_both(_with_namesake, _by_pattern("attendees", name_only, "calendar_create_event")), fix=_with_namesake,
                  witness=_invites_namesake, gate=GATE, code=CODE)


def _private_address(field: str) -> Callable[[Spec], list[dict[str, Any]]]:
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        hits = [c for _, _, c in calls({"reference": ref, "capability": spec["capability"]}, "mail_save_draft")
                if c["arguments"].get(field)]
        if not hits:
            raise CorpusError(f"{spec['capability']}: the reference saves no draft with {field!r}")
        for c in hits:
            c["arguments"][field] = [a.split("@", 1)[0] + "@mailbox.example" for a in c["arguments"][field]]
        return ref
    return witness


def _draft(seed: int, field: str = "to") -> Defect:
    base = f"synth:draft_only_reply@{seed}"
    base_spec(base)
    return Defect(CLASS, f"draft-{'recipient' if field == 'to' else field}-domain-open-{seed}", base,
                  f"saves the draft with its {'recipient' if field == 'to' else 'copy'} at the same name on another "
                  f"domain (`tom.varga@mailbox.example`): the address is read up to the `@` only",
                  breaks=_by_pattern(field, up_to_at), witness=_private_address(field), gate=GATE, code=CODE)


def _viewer_conds(spec: Spec) -> list[dict[str, Any]]:
    out = [w for c in spec["checks"] if c["rule"]["kind"] == "records" for w in c["rule"]["where"]
           if w["field"] == "values.viewers"]
    if not out:
        raise CorpusError(f"{spec['capability']}: no condition on the viewers")
    return out


def _written_viewers(spec: Spec) -> str:
    for _, _, call in calls(spec, "services_update_config"):
        if "viewers" in call["arguments"]["changes"]:
            return str(call["arguments"]["changes"]["viewers"])
    raise CorpusError(f"{spec['capability']}: the reference writes no viewers")


def _viewers(start: bool, end: bool) -> Callable[[Spec], None]:
    def edit(spec: Spec) -> None:
        value = ("^" if start else "") + re.escape(_written_viewers(spec)) + ("$" if end else "")
        for w in _viewer_conds(spec):
            w["op"], w["value"] = "matches", value
    return edit


def _one_more_viewer(at_end: bool) -> Callable[[Spec], list[dict[str, Any]]]:
    def witness(spec: Spec) -> list[dict[str, Any]]:
        ref = reference(spec)
        written = _written_viewers(spec)
        listed = {v.lower() for v in written.split(",")}
        other = next(p["email"] for p in spec["world"]["apps"]["directory"]["people"]
                     if p["email"].lower() not in listed)
        for _, _, c in calls({"reference": ref, "capability": spec["capability"]}, "services_update_config"):
            c["arguments"]["changes"]["viewers"] = written + "," + other if at_end else other + "," + written
        return ref
    return witness


def _access(seed: int, start: bool) -> Defect:
    base = f"synth:access_request_approval@{seed}"
    base_spec(base)
    side = "start" if start else "end"
    return Defect(CLASS, f"viewers-{side}-only-{seed}", base,
                  f"grants read access to one more person than asked, {'after' if start else 'before'} the right "
                  f"list: the config's viewers are read by their {side} only",
                  breaks=_viewers(start, not start), fix=_viewers(True, True), witness=_one_more_viewer(start),
                  gate=GATE, code=CODE)


DEFECTS = [
    *(_attendee(f"synth:schedule_meeting_timezones@{seed}") for seed in (1, 2, 3)),
    # adapt_announced_change 2 has the hole too, but its acceptance mail comes from the attendee first invited.
    *(_draft(seed) for seed in (1, 2, 3)),
    *(_draft(seed, "cc") for seed in (1, 2)),
    *(_access(seed, True) for seed in (1, 2, 4)),
    *(_access(seed, False) for seed in (6, 7)),
]


def _assignee_read_from_start(spec: Spec) -> None:
    """Each exact check on a ticket's assignee read by the id's start, and each call matcher's pattern on it left open
    at its end."""
    found = False
    for c in spec["checks"]:
        rule = c["rule"]
        if rule["kind"] == "field" and rule["target"]["field"] == "assignee" and rule.get("op", "equals") == "equals":
            rule["op"], rule["value"], found = "matches", "^" + re.escape(rule["value"]), True
        for m in [rule.get("call"), rule.get("first"), rule.get("then")]:
            for w in m.get("where", []) if isinstance(m, dict) and m.get("tool") == "tickets_update" else []:
                if w["field"] == "assignee" and w.get("op") == "matches" and w["value"].endswith("$"):
                    w["value"] = w["value"][:-1]  # every spelling still admitted, each by its start only
    if not found:
        raise CorpusError(f"{spec['capability']}: no exact check on an assignee")


def _first_assignee(spec: Spec) -> str:
    for _, _, call in calls(spec, "tickets_update"):
        if call["arguments"].get("assignee"):
            return str(call["arguments"]["assignee"])
    raise CorpusError(f"{spec['capability']}: the reference assigns no ticket")


def _with_id_namesake(spec: Spec) -> None:
    """The directory also holds a second person whose id starts with the first assignee's (`u-esra2`)."""
    _add_namesake(spec, "id", _first_assignee(spec))


def _assigns_namesake(spec: Spec) -> list[dict[str, Any]]:
    ref = reference(spec)
    pid = _first_assignee(spec)
    for _, _, c in calls({"reference": ref, "capability": spec["capability"]}, "tickets_update", assignee=pid):
        c["arguments"]["assignee"] = pid + "2"
    return ref


def _assignee(base: str) -> Defect:
    base_spec(base)
    return Defect(CLASS, f"assignee-start-only-{base.rsplit(':', 1)[-1].replace('@', '-')}", base,
                  "hands the ticket to the namesake (`u-esra2`) instead of the person asked for: the assignee is "
                  "read by the id's start only", breaks=_both(_with_id_namesake, _assignee_read_from_start),
                  fix=_with_id_namesake, witness=_assigns_namesake, gate=GATE, code=CODE)


DEFECTS += [
    # delegate_and_follow_up has the hole too, but its delegate answers only once the ticket is theirs.
    *(_assignee(f"synth:ticket_triage_update@{seed}") for seed in (1, 2, 3)),
    *(_assignee(f"synth:oncall_handoff@{seed}") for seed in (1, 2)),
]
