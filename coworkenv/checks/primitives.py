"""Primitives of the declarative checks: resolving fields, comparing values, matching calls and records."""

from __future__ import annotations

import re
import unicodedata
from itertools import compress, repeat
from operator import attrgetter, eq
from typing import Any

from coworkenv.spec import CallMatcher, FieldRef, FieldRule, Op, RecordsRule, Selector
from coworkenv.spec_regex import search
from coworkenv.world import Change, World

MISSING = object()  # a field path that does not resolve


# -- primitives -----------------------------------------------------------------------------------
def field_value(record: Any, path: str) -> Any:
    """Value at a dotted field path of a record, or MISSING."""
    head, _, rest = path.partition(".")
    value = getattr(record, head, MISSING)
    for part in rest.split(".") if rest else ():
        if isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return MISSING
    return value


def resolve(world: World, ref: FieldRef) -> Any:
    record = world.table(ref.app, ref.table).get(ref.id)
    return MISSING if record is None else field_value(record, ref.field)


def compare(actual: Any, op: Op, expected: Any) -> bool:
    """Apply a comparison operator; type mismatches compare as false. `matches` runs the pattern under a time
    bound and raises `coworkenv.spec_regex.PatternTimeout` past it (the answer is unknown, not false). Text that
    `contains` or `matches` reads is also read in its compatibility form (NFKC), as a text check reads it: a
    full-width "１０８" or "ＰＬＡＴ" says "108" and "PLAT", so a guard on the phrase is not evaded by respelling it."""
    if actual is MISSING:
        return op in ("not_equals", "not_contains")
    try:
        if op == "equals":
            return bool(actual == expected)
        if op == "not_equals":
            return bool(actual != expected)
        if op in ("contains", "not_contains"):
            found = _contains(actual, expected)
            return found if op == "contains" else not found
        if op == "matches":
            text = str(actual)
            return search(str(expected), text) is not None or \
                (not text.isascii() and search(str(expected), _compatible(text)) is not None)
        if op == "in":
            return actual in expected
        if op == "gte":
            return bool(actual >= expected)
        if op == "lte":
            return bool(actual <= expected)
        if op == "gt":
            return bool(actual > expected)
        if op == "lt":
            return bool(actual < expected)
    except TypeError:
        return False
    raise ValueError(f"unknown operator {op!r}")


def _contains(actual: Any, expected: Any) -> bool:
    wanted = expected if isinstance(expected, list) else [expected]
    if isinstance(actual, str):
        return all(str(w).lower() in actual.lower() or
                   (not actual.isascii() and _compatible(str(w)).lower() in _compatible(actual).lower())
                   for w in wanted)
    if isinstance(actual, list | tuple | set | dict):
        return all(w in actual for w in wanted)
    return False


def _compatible(text: str) -> str:
    """The text in its compatibility form (NFKC): full-width digits and letters as ASCII, a no-break space as a space."""
    return unicodedata.normalize("NFKC", text)


def arg_matches(actual: Any, expected: Any) -> bool:
    """Expected lists must all be present, dicts match as subsets, strings match case-insensitively."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(arg_matches(actual.get(k), v) for k, v in expected.items())
    if isinstance(expected, list):
        return isinstance(actual, list) and all(any(arg_matches(a, e) for a in actual) for e in expected)
    if isinstance(expected, str) and isinstance(actual, str):
        return actual.strip().lower() == expected.strip().lower()
    return bool(actual == expected)


def call_matches(matcher: CallMatcher, tool: str, args: dict[str, Any]) -> bool:
    """Same tool, every given argument matches and every `where` condition holds on the arguments."""
    if tool != matcher.tool or not all(arg_matches(args.get(k), v) for k, v in matcher.args.items()):
        return False
    return not matcher.where or all(compare(_arg_value(args, c.field), c.op, c.value) for c in matcher.where)


def _arg_value(args: dict[str, Any], path: str) -> Any:
    value: Any = args
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return MISSING
        value = value[part]
    return value


def record_matches(record: Any, rule: RecordsRule) -> bool:
    """Whether one record (None: absent) meets every condition of a records rule."""
    return record is not None and all(compare(field_value(record, c.field), c.op, c.value) for c in rule.where)


def count_records(world: World, rule: RecordsRule) -> int:
    """Records of the rule's table meeting its conditions, in O(records written since the journal started)."""
    table = world.table(rule.app, rule.table)
    touched = world.touched(rule.app, rule.table)

    def delta() -> int:  # matches gained minus lost by the records written since the journal started
        return sum(record_matches(table.get(i), rule) - record_matches(old, rule) for i, old in touched.items())

    # The count at the journal's start is scanned once per journal; afterwards only written records are read.
    baseline = world.journal_memo(("records", id(rule)), lambda: _matching(list(table), rule) - delta(), owner=rule)
    return baseline + delta()


def _matching(records: list[Any], rule: RecordsRule) -> int:
    """How many of `records` meet every condition of a records rule: `sum(record_matches(r, rule) ...)`, with the
    `equals` conditions on a record's own fields (the usual ones: status, channel, owner) tested first by C-level
    loops (`actual == expected` per record, as `compare` does), so only their survivors reach the other conditions."""
    rest = []
    for c in rule.where:
        if c.op != "equals" or "." in c.field:
            rest.append(c)
            continue
        try:
            records = list(compress(records, map(eq, map(attrgetter(c.field), records), repeat(c.value))))
        except (AttributeError, TypeError):  # a field some record lacks, a comparison that raises: as compare does
            return sum(record_matches(r, rule) for r in records)
    return sum(1 for r in records if all(compare(field_value(r, c.field), c.op, c.value) for c in rest))


def holds(world: World, rule: FieldRule | RecordsRule) -> bool:
    """Whether a state predicate holds (`state_holds` also explains a failure)."""
    if isinstance(rule, FieldRule):
        return compare(resolve(world, rule.target), rule.op, rule.value)
    return compare(count_records(world, rule), rule.count_op, rule.count)


def state_holds(world: World, rule: FieldRule | RecordsRule) -> tuple[bool, str]:
    """Evaluate a state predicate; the reason explains a failure."""
    if isinstance(rule, FieldRule):
        actual = resolve(world, rule.target)
        ok = compare(actual, rule.op, rule.value)
        shown = "missing" if actual is MISSING else repr(actual)
        t = rule.target
        return ok, f"{t.app}.{t.table}[{t.id}].{t.field} is {shown}, expected {rule.op} {rule.value!r}"
    n = count_records(world, rule)
    ok = compare(n, rule.count_op, rule.count)
    conds = " and ".join(f"{c.field} {c.op} {c.value!r}" for c in rule.where) or "any"
    return ok, f"{n} record(s) in {rule.app}.{rule.table} where {conds}; expected {rule.count_op} {rule.count}"


def selector_allows(sel: Selector, change: Change, world: World | None = None) -> bool:
    """Whether a frame selector allows a change (`where` conditions need the world to read the record)."""
    if sel.app != change.app or (sel.table is not None and sel.table != change.table):
        return False
    if sel.id is not None and sel.id != change.id:
        return False
    if sel.fields is not None and not (change.kind == "changed" and set(change.fields) <= set(sel.fields)):
        return False
    if sel.where:
        if world is None:
            return False
        record = world.table(change.app, change.table).get(change.id)
        if record is None:  # removed: judge the record as it was
            record = world.touched(change.app, change.table).get(change.id)
        return record is not None and all(compare(field_value(record, c.field), c.op, c.value) for c in sel.where)
    return True


def render_value(value: Any, fmt: str) -> list[str]:
    """The strings a reply must contain to state `value` (every item of a list)."""
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        text = str(item)
        if fmt == "date":
            text = text[:10]
        elif fmt == "time" and "T" in text:
            text = text.split("T", 1)[1][:5]
        out.append(text)
    return out


def states_value(text: str, wanted: str) -> bool:
    """Whether `text` states `wanted` (a rendered value, `render_value`) as a token of its own, case aside: not inside
    a longer word, number or code ("5" is not stated by "15", "2025", "5.5" or "INV-5"; "ana@helix.test" not by
    "diana@helix.test"; "job-84" not by "job-842"), though a plural may follow a word ("mug" of "mugs") and an ISO
    time may follow its date's "T"."""
    if not wanted:
        return True
    if wanted.lower() not in text.lower():
        return False
    head, tail = wanted[0], wanted[-1]
    left = r"(?<![^\W_])" if head.isalpha() else \
        r"(?:(?<![\w.,])(?<![\w@][-@])|(?<=\dT))" if head.isdigit() else ""
    right = r"(?=(?:e?s)?(?![^\W\d_]))(?!\d)" if tail.isalpha() else r"(?!\d|[.,]\d)" if tail.isdigit() else ""
    return re.search(left + re.escape(wanted) + right, text, flags=re.IGNORECASE) is not None
