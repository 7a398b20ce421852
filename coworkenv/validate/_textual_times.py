"""A date-time bound the checks compare as text, written in another form than the values it is compared with.

The checks order strings as text (`gte`, `gt`, `lte`, `lt` on two strings compare them character by character). A
world writes its date-times one way, `2026-08-17T09:10:00Z` (UTC, every part two digits), and text order is time
order only between date-times written alike. A bound an author writes by hand in another form compares wrongly:
`sent_at gte 2026-8-17T8:30:00Z` (the month and the hour unpadded) sorts after every `2026-08-...` value, so the
window "sent after 08:30" holds no mail at all and the guard "no mail in the window" never fires; `start gte
2026-09-21T04:30:00-04:00` (the same instant in the user's offset) reads as 04:30 against values written in UTC, an
hour window four hours wide. No near miss writes a date-time in another form, so nothing caught it (found by the
outsider hunt, `benchmarks/hunt_mutants.py --family d132` kind `dt_as_text`: 2 of the 26 accepted mutants
witnessed unsound, the guard of access_request_approval 7 and 8 never firing).

`textual_times` reports each ordering condition (a field rule's op, a records rule's or frame selector's `where`, a
call matcher's `where`, a tier's rule too) whose value starts like a date (`YYYY-M-D`) and is written in a form none
of the values it meets is written in: the forms the untouched world holds in that field of the table, the forms the
reference passes to that argument of the tool, and the world's own form (`YYYY-MM-DDTHH:MM:SSZ`; a bare day
`YYYY-MM-DD` too under `gte` and `lt`, where text order and "from that day on" / "before that day" agree).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

from coworkenv.checks import field_value
from coworkenv.spec import CallMatcher, EnvSpec, FieldCond, FieldRule, RecordsRule, Selector
from coworkenv.validate._check_reads import spec_rules

_ORDER = frozenset({"gt", "gte", "lt", "lte"})
_DATEISH = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}(?:$|[T ])")
_WORLD_FORM = "9999-99-99T99:99:99Z"
_DAY_FORM = "9999-99-99"


def _form(text: str) -> str:
    """The text's shape: every digit as 9 (`2026-8-17T8:30:00Z` -> `9999-9-99T9:99:99Z`)."""
    return re.sub(r"\d", "9", text)


def _world_forms(spec: EnvSpec, app: str | None, table: str | None, field: str) -> set[str]:
    rows = getattr(getattr(spec.world.apps, app or "", None), table or "", None) or []
    out = set()
    for rec in rows:
        v = field_value(rec, field)
        if isinstance(v, str) and _DATEISH.match(v):
            out.add(_form(v))
    return out


def _argument_forms(spec: EnvSpec, tool: str, field: str) -> set[str]:
    out = set()
    for turn in spec.reference:
        for step in turn.steps:
            if step.call is not None and step.call.name == tool:
                v: Any = step.call.arguments
                for part in field.split("."):
                    v = v.get(part) if isinstance(v, dict) else None
                if isinstance(v, str) and _DATEISH.match(v):
                    out.add(_form(v))
    return out


_LOOSE = re.compile(r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2}))?)?(Z|[+-]\d\d:?\d\d)?$")


def _in_world_form(value: str) -> str | None:
    """The bound as the world writes it (UTC, every part two digits), where it reads as a date-time."""
    m = _LOOSE.match(value)
    if m is None:
        return None
    y, mo, d, h, mi, sec, zone = m.groups()
    try:
        tz = UTC if zone in (None, "Z") else datetime.strptime(zone.replace(":", ""), "%z").tzinfo
        moment = datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), int(sec or 0), tzinfo=tz)
    except ValueError:
        return None
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _misformed(op: str, value: Any, held: set[str]) -> str | None:
    """Why the bound compares wrongly as text, or None."""
    if op not in _ORDER or not isinstance(value, str) or not _DATEISH.match(value):
        return None
    form = _form(value)
    allowed = held | {_WORLD_FORM} | ({_DAY_FORM} if op in ("gte", "lt") else set())
    if form in allowed:
        return None
    seen = ", ".join(sorted(f.replace("9", "D") for f in held)) or _WORLD_FORM.replace("9", "D")
    fixed = _in_world_form(value)
    todo = f"write {fixed!r}" if fixed else "write it in the form of the values, in UTC, every part two digits"
    return (f"{op} {value!r} is compared as text with date-times written like {seen} (D a digit): a bound in another "
            "form (a part not two digits, another offset than the values', a bare day under lte or gt) sorts in the "
            f"wrong place, and the window holds other times than it says; {todo}")


def _conds(where: str, conds: list[FieldCond], held: Callable[[str], set[str]]) -> Iterator[tuple[str, str]]:
    for k, c in enumerate(conds):
        if (why := _misformed(c.op, c.value, held(c.field))) is not None:
            yield f"{where}.where[{k}]", f"{c.field} {why}"


def textual_times(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each date-time bound written in another form than the values it is ordered against."""
    for _, _, where, rule in spec_rules(spec.checks):
        if isinstance(rule, FieldRule):
            t = rule.target
            if (why := _misformed(rule.op, rule.value, _world_forms(spec, t.app, t.table, t.field))) is not None:
                yield f"{where}.value", f"{t.table}[{t.id}].{t.field} {why}"
        elif isinstance(rule, RecordsRule):
            yield from _conds(where, rule.where, functools.partial(_world_forms, spec, rule.app, rule.table))
        for k, sel in enumerate(getattr(rule, "allow", None) or []):
            if isinstance(sel, Selector):
                yield from _conds(f"{where}.allow[{k}]", sel.where,
                                  functools.partial(_world_forms, spec, sel.app, sel.table))
        for name in ("call", "first", "then"):
            matcher = getattr(rule, name, None)
            if isinstance(matcher, CallMatcher):
                yield from _conds(f"{where}.{name}", matcher.where,
                                  functools.partial(_argument_forms, spec, matcher.tool))
