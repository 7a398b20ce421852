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
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coworkenv.checks import compare
from coworkenv.spec import CalledRule, EnvSpec, FieldRule, OrderRule, RecordsRule, ReferenceStep, ToolCallSpec
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, replaced
from coworkenv.validate.entities import EntityIndex

_NEGATIONS = frozenset({"not_equals", "not_contains"})
_PER_ARGUMENT = 2  # other ids tried per written link

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
