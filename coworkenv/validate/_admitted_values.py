"""A written value a check's pattern reads loosely: the near misses the other values the pattern admits beside it.

A check that wants a value a write passes (`in_reply_to equals msg-391`, a release `1.5.0`, a due date, a meeting's
start) is sometimes written as a pattern that admits more than that value: anchored at one end only
(`^msg-391` admits `msg-3910` and `msg-391x`, `^1\\.5\\.0` admits `1.5.0-rc1`, `msg-391$` admits `re-msg-391`), or
with a class over a digit where the task fixes the digit (`^2026-1[17]-1[17]T` for 17 November admits 11 November,
`T1[05]:30` for 15:30 admits 10:30, `^\\+31 650 750 65[0-9]$` a wrong number), or an alternation of values of which
one is right (`T(09|14):30`). The other near misses move a value a step (an hour, a day, a number one off, another
record the world holds, the date read the other way round): a pattern admitting none of those steps passes them all
and still admits what no near miss wrote.

So for each value a write passes (a date-time, a date, a number, or a name without spaces: an id, a version, a
path, a phone number) and each `matches` or `contains` condition of a check on that field (the field's last part is
the argument's name or ends in `_` and the name, `deployed_version`; a records or field check on the app the tool writes, or a `called`/`order` matcher of the
tool, as `_loose_values` reads them) that holds for it, the values the pattern admits near it are tried: each
character replaced by a digit, `x`, `-` or `.` the pattern admits there, one character left out, one added at
either end, and a literal branch of the pattern in place of another. A candidate is kept where it is another value
of the written one's kind, by the world's typing: another instant (the same one written otherwise, `+00:00` for `Z`,
is the same value), another date, another number (`15.0` is 15), another string (not the same in other capitals:
`_loose_values` tries those, where the tool may fold them back). Up to `_MAX_PER_VALUE` of them (the extensions
first, then the nearest) become near misses; each must fail a check. A tool that refuses the value fails the write
(the mutant is killed); one that stores it otherwise than as the reference's value ends where the reference ends
(an equivalent mutant, not counted). Where no condition reads a written value by a pattern, nothing is made.

A written person or channel is tried as the others the world holds in the same form only (`@esra` and `esra` are one
person): `assignee matches ^u-esra` admits `u-esra2` where the directory holds one. And the values inside a list or a
dict argument (`_item_values`): an item of a list (an attendee, a recipient) that a `matches` condition reads (it holds
for the list and fails without the item) is replaced by the other people and the near strings the condition admits
for the list as stored; a dict's value (a config's `viewers`) as a scalar, and one listing people or records one item
longer at either end, where a `matches` condition on its key holds for it.
"""

from __future__ import annotations

import re
import re._parser as _sre  # the parse tree of `re`, as `coworkenv.spec_regex` reads it: the pattern's literal branches
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, date, datetime
from typing import Any

from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._bounded_text import bounded_text_mutations
from coworkenv.validate._date_parts import _stamp
from coworkenv.validate._loose_values import _Cond, _holds, _literal, _loose_conditions, _reading
from coworkenv.validate._mutation_core import Mutation, replaced
from coworkenv.validate.entities import MAX_ID_CHARS, EntityIndex

_OPS = frozenset({"matches", "contains"})
_ALPHABET = "0123456789x-."  # what may stand in a character's place, or be added at an end
_ENDS = "0x"  # added at either end: a longer number, a longer id
_MAX_PER_VALUE = 3  # near misses per written value
_MAX_PROBES = 800  # searches per (value, condition)
_MAX_ITEMS = 8  # items of a list argument tried
_MAX_PEOPLE = 40  # other people tried in a list item's place
_NUMBERISH = re.compile(r"\+?\d[\d ().\-/]{4,}\d")  # digits in groups: a phone number, with its spaces
_COUNT = re.compile(r"-?\d{1,9}(\.\d+)?")


def admitted_value_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]],
                             tools: Mapping[str, ToolDef], index: EntityIndex) -> list[Mutation]:
    """One near miss per value a check's pattern admits beside a written value (see the module docstring); and per
    value a bound on a written name admits (`_bounded_text`: `priority gte p3` admits `p4`)."""
    bounded = bounded_text_mutations(spec, writes, tools, index)
    conds = {key: [c for c in cs if c[2] in _OPS and isinstance(c[3], str) and c[3]]
             for key, cs in _loose_conditions(spec).items()}
    if not any(conds.values()):
        return bounded
    out: list[Mutation] = bounded
    for t, s, call, tool in ((t, s, c, tools[c.name]) for t, s, c in writes if c.name in tools):
        for name, value in call.arguments.items():
            if isinstance(value, list | dict):
                for path, other, check_id in _item_values(call, tool, name, value, conds, index):
                    step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: other}))
                    out.append(Mutation("change_arg", f"reference[{t}].steps[{s}].call.arguments.{path}",
                                        f"{call.name}: {path} -> {other!r}, which check {check_id}'s pattern admits "
                                        "as well: compare the value exactly", replaced(spec.reference, t, s, step),
                                        code="loose_value_accepted"))
                continue
            kind = _kind(value)
            if kind is None or _literal(tool, name):
                continue
            # A person or channel spelled otherwise is the same one: only the others the world holds are tried.
            people = tuple(index.recipients(value, {value}, limit=_MAX_PEOPLE)) \
                if isinstance(value, str) and index.is_recipient(value) else None
            # The field the value lands in is named after the argument, or qualifies it (`version` is stored as
            # a service's `deployed_version`).
            reading = [*_reading(conds, tool, call.name, name),
                       *(c for (app, field), cs in conds.items() if app == tool.app and field.endswith("_" + name)
                         for c in cs)]
            if not reading:
                continue
            for other, check_id in _admitted(value, kind, reading, index, more=people or (), near=people is None):
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: other}))
                loose = kind == "text"
                out.append(Mutation("change_arg" if kind in ("text", "number") else "time_shift",
                                    f"reference[{t}].steps[{s}].call.arguments.{name}",
                                    f"{call.name}: {name} {value!r} -> {other!r}, which check {check_id}'s pattern "
                                    "admits as well: pin the value whole", replaced(spec.reference, t, s, step),
                                    code="loose_value_accepted" if loose else "mutant_survived"))
    return out


def _item_values(call: ToolCallSpec, tool: ToolDef, name: str, value: list[Any] | dict[str, Any],
                 conds: dict[tuple[str, str], list[_Cond]], index: EntityIndex) -> Iterator[tuple[str, Any, str]]:
    """(where, the argument with another value in an item's place, the check admitting it) for the items of a list
    argument (attendees, recipients, labels) and the values of a dict argument (a config's changes) that a `matches`
    condition reads: one that holds for the list as written and fails without the item (so it reads that item, not
    the others), or that holds for the dict's value. The candidates are the other people the world holds and the
    strings near the item (as `_admitted` makes them); a delimited value (`a@x,b@x`) is also tried one item longer
    at either end, another person or record of the first item's kind added."""
    if isinstance(value, list):
        reading = [c for c in _reading(conds, tool, call.name, name) if c[2] == "matches"]
        for i, item in enumerate(value[:_MAX_ITEMS]):
            if not isinstance(item, str) or not item or (kind := _item_kind(item, index)) is None:
                continue
            rest = value[:i] + value[i + 1:]
            reads = [c for c in reading if _holds(value, c[2], c[3]) and not _holds(rest, c[2], c[3])]
            if not reads:
                continue

            def place(x: str, i: int = i) -> list[Any]:
                return [*value[:i], x, *value[i + 1:]]
            people = tuple(index.recipients(item, set(value), limit=_MAX_PEOPLE)) if index.is_recipient(item) else ()
            # An address near another is another; an id or a handle near one may name the same person (`@esra`).
            near = not index.is_recipient(item) or "@" in item[1:]
            for other, check_id in _admitted(item, kind, reads, index, place, people, near):
                yield f"{name}[{i}]", place(other), check_id
        return
    for key, leaf in value.items():
        if not isinstance(leaf, str) or not leaf:
            continue
        reads = [c for c in conds.get((tool.app, key), []) if c[2] == "matches" and _holds(leaf, c[2], c[3])]
        if not reads:
            continue
        listed = _delimited_items(leaf, index)
        if listed is not None:
            sep, items = listed
            extra = index.recipient(items[0], set(items)) or index.other_record(items[0], set(items))
            longer = (leaf + sep + extra, extra + sep + leaf) if extra is not None else ()
            for other, check_id in _admitted(leaf, "text", reads, index, more=longer):
                if other not in longer:  # tried first; the items' own near misses drop or move one
                    break
                yield f"{name}.{key}", {**value, key: other}, check_id
            continue
        kind = _kind(leaf)
        if kind is not None:
            for other, check_id in _admitted(leaf, kind, reads, index):
                yield f"{name}.{key}", {**value, key: other}, check_id


def _item_kind(item: str, index: EntityIndex) -> str | None:
    """An item's kind for `_as_written`: a person's address or another name is text however long."""
    kind = _kind(item)
    return "text" if kind is None and index.is_recipient(item) else kind


def _delimited_items(value: str, index: EntityIndex) -> tuple[str, list[str]] | None:
    """(separator, items) where a string lists people or records (`a@x.test,b@x.test`), else None."""
    for sep in (",", ";"):
        items = [v.strip() for v in value.split(sep)]
        if len(items) > 1 and all(v and (index.is_recipient(v) or v in index.table_of) for v in items):
            return sep, items
    return None


def _kind(value: Any) -> str | None:
    """What a written value is, for telling another value of its kind: `instant`, `date`, `number`, `text`."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return "number"
    if not isinstance(value, str) or not value:
        return None
    if _instant(value) is not None:
        return "instant"
    if _date(value) is not None:
        return "date"
    if _COUNT.fullmatch(value):
        return "number"
    if len(value) <= MAX_ID_CHARS and (not any(c.isspace() for c in value) or _NUMBERISH.fullmatch(value)):
        return "text"
    return None


def _instant(text: str) -> datetime | None:
    return _stamp(text)


def _date(text: str) -> date | None:
    if len(text) != 10 or not text[:4].isdigit():
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _number(text: str) -> float | None:
    try:
        return float(text) if _COUNT.fullmatch(text) else None
    except ValueError:
        return None


def _forms(value: Any, kind: str) -> list[str]:
    """The value as the checks may read it: as written, and a date-time also as a world stores it (UTC, `Z`)."""
    text = str(value)
    if kind != "instant":
        return [text]
    moment = _instant(text)
    stored = moment.astimezone(UTC).isoformat().replace("+00:00", "Z") if moment is not None else text
    return [text] if stored == text else [text, stored]


def _as_written(candidate: str, value: Any, kind: str) -> Any | None:
    """The candidate as the write passes it, where it is another value of the written one's kind, else None."""
    if kind == "instant":
        was, now = _instant(str(value)), _instant(candidate)
        if now is None or was is None or now == was:
            return None
        if str(value).endswith("Z"):
            return now.astimezone(UTC).isoformat().replace("+00:00", "Z")
        return now.astimezone(was.tzinfo).isoformat()
    if kind == "date":
        day = _date(candidate)
        return candidate if day is not None and day != _date(str(value)) else None
    if kind == "number":
        number = _number(candidate)
        if number is None or number == float(value):
            return None
        if isinstance(value, str):
            return candidate
        return int(number) if isinstance(value, int) and number.is_integer() else number
    if candidate.lower() == str(value).lower() or candidate.strip() != candidate or "  " in candidate:
        return None
    return candidate


def _admitted(value: Any, kind: str, reading: list[tuple[str, bool, str, Any]], index: EntityIndex,
              place: Callable[[str], Any] = lambda v: v, more: tuple[str, ...] = (),
              near: bool = True) -> Iterator[tuple[Any, str]]:
    """(another value of the kind, the check whose pattern admits it) for the first few values the conditions that
    hold for `value` admit beside it; `place` puts a candidate where the condition reads it (an item in its list),
    `more` are candidates to try first (the other people the world holds, a list one item longer), and the strings
    near `value` after them unless `near` is False (a person's id, whose near strings may name the same person)."""
    seen: set[str] = {str(value)}
    found = 0
    for form in _forms(value, kind):
        for check_id, _state, op, expected in reading:
            if not _holds(place(form), op, expected):
                continue
            pattern = expected if op == "matches" else re.escape(expected)
            for candidate in (*more, *(_neighbours(form, pattern) if near else ())):
                other = _as_written(candidate, value, kind)
                if other is None or str(other) in seen:
                    continue
                seen.add(str(other))
                # Another record or person the condition names itself (`^(svc-a|svc-b)$`) is one it accepts on
                # purpose.
                if kind == "text" and candidate.lower() in str(expected).lower() \
                        and (candidate in index.table_of or index.is_recipient(candidate)):
                    continue
                if not _holds(place(candidate), op, expected):
                    continue
                yield other, check_id
                found += 1
                if found >= _MAX_PER_VALUE:
                    return


def _neighbours(text: str, pattern: str) -> Iterator[str]:
    """Strings near `text` that the pattern is searched in (not yet tested): a character more at either end, another
    literal branch of the pattern in place of one `text` holds, each character replaced or left out; at most
    `_MAX_PROBES`, the nearest first."""
    made = 0
    for c in _ENDS:
        yield text + c
        yield c + text
    for a, b in _branch_pairs(pattern):
        start = text.find(a)
        while start >= 0:
            yield text[:start] + b + text[start + len(a):]
            start = text.find(a, start + 1)
    for i, ch in enumerate(text):
        for c in _ALPHABET:
            if c != ch.lower():
                made += 1
                if made > _MAX_PROBES:
                    return
                yield text[:i] + c + text[i + 1:]
    for i in range(len(text)):
        yield text[:i] + text[i + 1:]


def _branch_pairs(pattern: str) -> list[tuple[str, str]]:
    """(one literal branch, another) for each alternation of the pattern whose branches are all literal text."""
    try:
        tree = _sre.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError, TypeError):
        return []
    out: list[tuple[str, str]] = []

    def walk(sub: Any) -> None:
        for op, av in sub.data if isinstance(sub, _sre.SubPattern) else []:
            if op is _sre.BRANCH:
                texts = [_literal_text(b) for b in av[1]]
                if all(t is not None for t in texts):
                    out.extend((a, b) for a in texts if a for b in texts if b is not None and b != a)
                for b in av[1]:
                    walk(b)
            elif op is _sre.SUBPATTERN:
                walk(av[-1])
            elif op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT):
                walk(av[2])
    walk(tree)
    return out[:12]


def _literal_text(sub: Any) -> str | None:
    """The text a sub-pattern of literal characters only matches, else None."""
    chars = []
    for op, av in sub.data:
        if op is not _sre.LITERAL:
            return None
        chars.append(chr(av))
    return "".join(chars)
