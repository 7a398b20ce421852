"""A written link a check reads only by what it is not: the near miss linking another record of the table.

A check that wants the reply threaded to the asker's mail (`in_reply_to equals msg-391`) is sometimes written as
"it is a reply" (`in_reply_to not_equals null`, `not_equals ""`) or as "not that other thread" (`not_equals
msg-390`). The condition reads the field, so its author cares which record the write links, yet it admits every
other record of the table. The near misses of an optional link are context mutants (`core=False`, reported, not
failed: whether the task cares is for its checks to say), and the loose-reading near misses (`_loose_values`) count
`not_equals` among the exact comparisons (as a guard's "not the old value" it is one), so nothing failed a reply
threaded to another mail (found by the outsider hunt, `benchmarks/hunt_mutants.py --family d141` kind
`cond_not_null`: 12 accepted mutants witnessed unsound by a reply to the wrong message, in draft_only_reply,
access_request_approval, inbox_triage_reply and incident_investigate_fix).

So for each string argument of a write that is a record's id (not a person or a channel, which `_loose_values` and
the recipient near misses judge), and each condition of a completion check on that field (the field's last part is
the argument's name; a records or field check on the app the tool writes, or a `called`/`order` matcher of the tool)
whose op is `not_equals` or `not_contains` and which holds for the written id, the first other ids of its table that
the condition admits too are tried as near misses (`negated_link_accepted`, core: a check reads the link). One that
another check pins (an exact condition beside it) fails that check; a tool that refuses the other id fails the
write. Where no completion check reads a written id by negation, no near miss is made.

A value a write puts into a map (`services_update_config(changes={"region": "eu-west-1"})`) read the same way
(`values.region not_equals eu-central-1`, "no longer the bad region") slipped through too: its near misses
(`_map_values`) are the other values the world holds under the key, and where the only one is the value the condition
excludes (the service's own bad region), none passed the condition, so nothing tried `eu-west-2` (defects144: 2 of 4
correct_bad_data seeds tried accepted such a check, witnessed by the agent that sets `eu-west-2`). So each map
value of a write (a word, or a record's id as above; not a person, a channel or free text) that a completion check
reads by negation on its key (the field's last part, `values.region`; `changes.region` for a matcher) is tried as
the first values the condition admits too (`negated_value_accepted`, core): the values any record of the world holds
under that key (a field of that name or a map's entry), then the written value with its last digit moved.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from coworkenv.checks import compare
from coworkenv.spec import CalledRule, EnvSpec, FieldRule, OrderRule, RecordsRule, ReferenceStep, ToolCallSpec
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, replaced
from coworkenv.validate.entities import MAX_ID_CHARS, EntityIndex

_NEGATIONS = frozenset({"not_equals", "not_contains"})
_PER_ARGUMENT = 2  # other ids tried per written link
_WORD = re.compile(r"[A-Za-z0-9][\w.:/@-]*")  # a map's word value: a region, a tier, a version; no sentence

# (check id, op, expected) of one negated condition
_Cond = tuple[str, str, Any]


def negated_link_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]], tools: Mapping[str, ToolDef],
                           index: EntityIndex) -> list[Mutation]:
    """One near miss per other id a negated condition admits beside a written link (see the module)."""
    conds = _negated_conditions(spec)
    if not conds:
        return []
    out: list[Mutation] = []
    for t, s, call in writes:
        tool = tools.get(call.name)
        if tool is None:
            continue
        out += _map_value_mutations(spec, t, s, call, tool, conds, index)
        for name, value in call.arguments.items():
            if not isinstance(value, str) or value not in index.table_of or index.is_recipient(value):
                continue
            reading = [c for c in (*conds.get((tool.app, name), []), *conds.get(("call:" + call.name, name), []))
                       if _holds(value, c[1], c[2])]
            if not reading:
                continue
            found = 0
            for other in index.table_ids.get(index.table_of[value], []):
                admitting = next((c for c in reading if other != value and _holds(other, c[1], c[2])), None)
                if admitting is None:
                    continue
                where = f"reference[{t}].steps[{s}]"
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: other}))
                out.append(Mutation("change_arg", f"{where}.call.arguments.{name}",
                                    f"{call.name}: {name} {value!r} -> {other!r}, which check {admitting[0]} reads "
                                    f"only as {admitting[1]} {admitting[2]!r} and admits as well: compare the value "
                                    "exactly (equals the record the task names)",
                                    replaced(spec.reference, t, s, step), code="negated_link_accepted"))
                found += 1
                if found >= _PER_ARGUMENT:
                    break
    return out


def _map_value_mutations(spec: EnvSpec, t: int, s: int, call: ToolCallSpec, tool: ToolDef,
                         conds: dict[tuple[str, str], list[_Cond]], index: EntityIndex) -> list[Mutation]:
    """Near misses of each map value of one write that a negated condition reads (see the module)."""
    out: list[Mutation] = []
    for name, value in call.arguments.items():
        if not isinstance(value, dict):
            continue
        for key, leaf in value.items():
            if not isinstance(leaf, str) or len(leaf) > MAX_ID_CHARS or not _WORD.fullmatch(leaf) \
                    or index.is_recipient(leaf):
                continue
            reading = [c for c in (*conds.get((tool.app, key), []), *conds.get(("call:" + call.name, key), []))
                       if _holds(leaf, c[1], c[2])]
            if not reading:
                continue
            found = 0
            for other in _other_values(leaf, key, index):
                admitting = next((c for c in reading if _holds(other, c[1], c[2])), None)
                if admitting is None:
                    continue
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={
                    **call.arguments, name: {**value, key: other}}))
                out.append(Mutation("change_arg", f"reference[{t}].steps[{s}].call.arguments.{name}.{key}",
                                    f"{call.name}: {name}.{key} {leaf!r} -> {other!r}, which check {admitting[0]} "
                                    f"reads only as {admitting[1]} {admitting[2]!r} and admits as well: compare the "
                                    "value exactly (equals the value the task asks for)",
                                    replaced(spec.reference, t, s, step), code="negated_value_accepted"))
                found += 1
                if found >= _PER_ARGUMENT:
                    break
    return out


def _other_values(leaf: str, key: str, index: EntityIndex) -> list[str]:
    """Values to try for a map's `leaf` under `key`: the other ids of its table where it is an id, else the texts
    records hold under `key` (a field of that name, a map's entry), then `leaf` with its last digit moved."""
    if leaf in index.table_of:
        return [i for i in index.table_ids.get(index.table_of[leaf], []) if i != leaf]
    held: list[str] = []
    for (app, table), ids in index.table_ids.items():
        for rid in ids:
            for field, v in (index.record(app, table, rid) or {}).items():
                found = v.get(key) if isinstance(v, dict) else v if field == key else None
                if isinstance(found, str):
                    held.append(found)
    moved = re.sub(r"(\d)(?!.*\d)", lambda m: str((int(m.group(1)) + 1) % 10), leaf)
    return [v for v in dict.fromkeys([*held, moved]) if v.lower() != leaf.lower()]


def _negated_conditions(spec: EnvSpec) -> dict[tuple[str, str], list[_Cond]]:
    """Completion checks' negated conditions by (app or `call:` tool, field's last part)."""
    out: dict[tuple[str, str], list[_Cond]] = {}
    for _, check, _, rule in spec_rules(spec.checks):
        if check.is_guard:
            continue
        pairs: list[tuple[str, str, str, Any]] = []
        if isinstance(rule, RecordsRule):
            pairs = [(rule.app, w.field, w.op, w.value) for w in rule.where]
        elif isinstance(rule, FieldRule):
            pairs = [(rule.target.app, rule.target.field, rule.op, rule.value)]
        elif isinstance(rule, CalledRule | OrderRule):
            matchers = [rule.call] if isinstance(rule, CalledRule) else [rule.first, rule.then]
            pairs = [("call:" + m.tool, w.field, w.op, w.value) for m in matchers for w in m.where]
        for key, field, op, value in pairs:
            if op in _NEGATIONS:
                out.setdefault((key, field.rsplit(".", 1)[-1]), []).append((check.id, op, value))
    return out


def _holds(value: Any, op: str, expected: Any) -> bool:
    try:
        return compare(value, op, expected)  # type: ignore[arg-type]
    except (PatternRefused, PatternTimeout, ValueError):
        return False
