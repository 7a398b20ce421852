"""`in` given a text where a list was meant: a condition `field in "msg-391"` (or `in "p1, p2"`).

A check's `in` is Python's `actual in expected`. Given a list it asks "is the value one of these"; given a text it
asks "is the value a piece of this text", so `in_reply_to in "msg-391"` holds for `msg-39` and `msg-3`, `phone in
"+31 650 750 659"` for the number with its last digit lost, `deployed_version in "1.5.0"` for `1.5`, and `priority in
"p1, p2"` for `p` and `,`. An outside author writing one value, or a list as one comma-separated text, gets a check
that admits the pieces of the value. The near misses of a write move a value to another one of its kind (another
message, the number one digit off), never to a piece of it, so nothing caught it (found by the outsider hunt,
`benchmarks/hunt_mutants.py --family d117` kind `in_as_text`: 207 of 212 mutants accepted, 11 witnessed).

`text_membership` reports every `in` whose value is not a list, in every check (a tier's rule too, a records or
frame `where`, a call matcher's `where`) and dynamics `when`: the comparison is a substring test, never what a spec
means by `in`; a substring is written `contains` (or a pattern), one value `equals`, several a list.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from coworkenv.spec import CallMatcher, EnvSpec, FieldCond, FieldRule, RecordsRule
from coworkenv.validate._check_reads import spec_rules


def _why(value: Any) -> str | None:
    if isinstance(value, list):
        return None
    if isinstance(value, str):
        return (f"`in` a text is a substring test: it holds for any piece of {value!r} (a value cut short, one "
                "character of it); compare one value with `equals`, several with `in` a list, a piece of text with "
                "`contains`")
    return f"`in` takes a list of values, not {type(value).__name__} {value!r}; write the values as a list"


def _conds(where: str, conds: list[FieldCond]) -> Iterator[tuple[str, str]]:
    for k, cond in enumerate(conds):
        why = _why(cond.value) if cond.op == "in" else None
        if why is not None:
            yield f"{where}.where[{k}]", f"{cond.field} in {cond.value!r}: {why}"


def _rule(where: str, rule: Any) -> Iterator[tuple[str, str]]:
    if isinstance(rule, FieldRule) and rule.op == "in" and (why := _why(rule.value)) is not None:
        yield f"{where}.value", f"{rule.target.table}[{rule.target.id}].{rule.target.field} in {rule.value!r}: {why}"
    elif isinstance(rule, RecordsRule):
        yield from _conds(where, rule.where)
    for k, sel in enumerate(getattr(rule, "allow", None) or []):
        yield from _conds(f"{where}.allow[{k}]", sel.where)
    for name in ("call", "first", "then"):
        matcher = getattr(rule, name, None)
        if isinstance(matcher, CallMatcher):
            yield from _conds(f"{where}.{name}", matcher.where)


def text_membership(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each `in` condition of the spec's checks and dynamics whose value is not a list."""
    for _, _, where, simple in spec_rules(spec.checks):  # a tier's rule too
        yield from _rule(where, simple)
    for i, rule in enumerate(spec.dynamics.rules):
        call = getattr(rule.on, "call", None)
        if isinstance(call, CallMatcher):
            yield from _conds(f"dynamics.rules[{i}].on.call", call.where)
        for j, pred in enumerate(rule.when):
            yield from _rule(f"dynamics.rules[{i}].when[{j}]", pred)
