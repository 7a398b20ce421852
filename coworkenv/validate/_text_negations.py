"""`not_equals` on a free text where "does not contain" was meant: `text not_equals "3603"` on a chat message.

A message's text, a mail's body, a note's content is a sentence; `not_equals v` on it asks "is the whole text other
than v", which every sentence is. An author who writes the negation of `contains` as `not_equals` (as `!=` reads in
code) keeps a condition that never fails: the answer that states the right value and the wrong one too ("900, or
3603") passes, where the spec meant to refuse it. No near miss adds a wrong value beside the right one, so nothing
caught it (found by the outsider hunt, `benchmarks/hunt_mutants.py --family d119` kind `not_contains_as_ne`:
lookup_answer_source 1-5, 5 of 5 accepted on main).

`text_negations` reports each `not_equals` (in a records, frame or call matcher `where`, and a field rule) on a field
that holds free text: another condition of the same rule reads it with `contains` or `matches`, or the untouched
world holds text with spaces in it there; unless the value is a text the world holds whole in that field (then "not
this very text" is what it says).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from coworkenv.checks import field_value
from coworkenv.spec import CallMatcher, EnvSpec, FieldCond, FieldRule, RecordsRule, Selector
from coworkenv.validate._check_reads import spec_rules

_WHY = ("`not_equals` compares the whole text, which a sentence never equals, so the condition never fails; write "
        "`not_contains` to refuse a text that mentions the value")


def _held(spec: EnvSpec, app: str | None, table: str | None, field: str) -> list[str]:
    """The texts the untouched world holds in `field` of the table."""
    rows = getattr(getattr(spec.world.apps, app or "", None), table or "", None) or []
    out = []
    for rec in rows:
        v = field_value(rec, field)
        if isinstance(v, str):
            out.append(v)
    return out


def _free_text(held: list[str]) -> bool:
    return any(len(v) > 20 and len(v.split()) >= 3 for v in held)


def _conds(where: str, conds: list[FieldCond], held: Any) -> Iterator[tuple[str, str]]:
    searched = {c.field for c in conds if c.op in ("contains", "matches")}
    for k, c in enumerate(conds):
        if c.op != "not_equals" or not isinstance(c.value, str):
            continue
        texts = held(c.field)
        if c.value in texts or not (c.field in searched or _free_text(texts)):
            continue
        yield f"{where}.where[{k}]", f"{c.field} not_equals {c.value!r} on a free text: {_WHY}"


def text_negations(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each `not_equals` on a free-text field in the spec's checks (a tier's rule too)."""
    for _, _, where, rule in spec_rules(spec.checks):
        if isinstance(rule, FieldRule) and rule.op == "not_equals" and isinstance(rule.value, str):
            t = rule.target
            texts = _held(spec, t.app, t.table, t.field)
            if rule.value not in texts and _free_text(texts):
                yield f"{where}.value", f"{t.table}[{t.id}].{t.field} not_equals {rule.value!r}: {_WHY}"
        elif isinstance(rule, RecordsRule):
            yield from _conds(where, rule.where, lambda f, r=rule: _held(spec, r.app, r.table, f))
        for k, sel in enumerate(getattr(rule, "allow", None) or []):
            if isinstance(sel, Selector):
                yield from _conds(f"{where}.allow[{k}]", sel.where,
                                  lambda f, s=sel: _held(spec, s.app, s.table, f))
        for name in ("call", "first", "then"):
            matcher = getattr(rule, name, None)
            if isinstance(matcher, CallMatcher):  # call arguments: free text only where the same matcher searches it
                yield from _conds(f"{where}.{name}", matcher.where, lambda f: [])
