"""Can a check ever fail? A structural test over every typed world, not only the episodes the gates ran.

A declarative check is unfalsifiable ("true on every state") when no value its target can take makes it
false: a field compared with a value of another type (`config_version not_equals "3"` on an int field), a
count `gte 0`, `min_times 0`, a regex that matches everything, a reply that must state an empty value, or a
record condition no record can meet inside an `equals 0`/`lte` count. Probes are drawn from the check's own
value, the field's value in the worlds the gates saw, and small perturbations of them, and kept only when
the field's type admits them (strict validation: no coercion of "3" into 3).
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError

from coworkenv.apps import APPS
from coworkenv.checks import MISSING, compare, field_value, render_value
from coworkenv.spec import CalledRule, EnvSpec, FieldCond, FieldRef, FieldRule, RecordsRule, ReplyStatesRule
from coworkenv.spec_regex import PatternRefused, PatternTimeout

FinalValue = Callable[[FieldRef], Any]


def unfalsifiable_reason(rule: Any, spec: EnvSpec, final: FinalValue | None) -> str | None:
    """Why `rule` holds on every state, or None if some state falsifies it (or it cannot be analysed).

    `final` gives a field's value in the reference's final world (a probe, and the value a reply must state).
    """
    if isinstance(rule, FieldRule):
        probes = list(_field_probes(rule.target, rule.value, spec, final))
        try:
            if probes and all(compare(p, rule.op, rule.value) for p in probes):
                return f"no value of {_where(rule.target)} makes '{rule.op} {rule.value!r}' false"
        except (PatternTimeout, PatternRefused):  # a pattern too slow on a probe: this rule cannot be analysed
            return None
    elif isinstance(rule, RecordsRule):
        impossible = next((c for c in rule.where if not _satisfiable(rule.app, rule.table, c)), None)
        if impossible is not None:
            if compare(0, rule.count_op, rule.count):
                return (f"no {rule.app}.{rule.table} record can have {impossible.field} {impossible.op} "
                        f"{impossible.value!r}, so the count is always 0 and '{rule.count_op} {rule.count}' holds")
        elif rule.count_op == "gte" and rule.count <= 0:
            return f"a record count is always >= {rule.count}"
    elif isinstance(rule, CalledRule):
        if rule.min_times <= 0:
            return f"min_times {rule.min_times}: holds even when the call never happens"
    elif isinstance(rule, ReplyStatesRule) and final is not None:
        value = final(rule.source)
        if value is not MISSING and any(text.strip() == "" for text in render_value(value, rule.format) or [""]):
            return f"{_where(rule.source)} renders as an empty string, which every reply states"
    return None


def _where(ref: FieldRef) -> str:
    return f"{ref.app}.{ref.table}[{ref.id}].{ref.field}"


def _field_probes(ref: FieldRef, expected: Any, spec: EnvSpec, final: FinalValue | None) -> Iterator[Any]:
    adapter = _field_adapter(ref.app, ref.table, ref.field)
    if adapter is None:
        return
    initial = next((r for r in getattr(getattr(spec.world.apps, ref.app), ref.table) if r.id == ref.id), None)
    if initial is None:
        yield MISSING  # the record may not exist (it is created by the agent or by dynamics)
    seeds = [expected]
    if initial is not None:
        seeds.append(field_value(initial, ref.field))
    if final is not None:
        seeds.append(final(ref))
    yield from _probes(adapter, ref.app, ref.table, ref.field, seeds)


def _probes(adapter: TypeAdapter[Any], app: str, table: str, field: str, seeds: list[Any]) -> Iterator[Any]:
    """Typed values near the seeds: each seed, its perturbations, it wrapped in a list, and every enum value."""
    candidates: list[Any] = [None, *_enum_values(app, table, field)]
    for seed in seeds:
        candidates += _perturb(seed)
        if isinstance(seed, list):
            candidates += [p for item in seed for p in _perturb(item)]
        elif seed is not MISSING:
            candidates.append([seed])
    for probe in candidates:
        if _admits(adapter, probe):
            yield probe


def _satisfiable(app: str, table: str, cond: FieldCond) -> bool:
    """Whether some record of the table could meet `cond` (assumed so when its field cannot be typed)."""
    adapter = _field_adapter(app, table, cond.field)
    if adapter is None:
        return True
    if cond.op == "matches":
        return True  # any compiling pattern matches some string
    # `contains` on a list field takes one item: probe lists holding it (and, perturbed, the empty list) too.
    seeds = [cond.value, [cond.value]] if cond.op in ("contains", "not_contains") else [cond.value]
    return any(compare(p, cond.op, cond.value) for p in _probes(adapter, app, table, cond.field, seeds))


def _perturb(value: Any) -> list[Any]:
    """The value itself and nearby values of the same shape."""
    if value is MISSING:
        return []
    if isinstance(value, bool):
        return [value, not value]
    if isinstance(value, int | float):
        return [value, value + 1, value - 1, 0]
    if isinstance(value, str):
        return [value, value + "~", "", value.upper()]
    if isinstance(value, list):
        return [value, [], [*value, "~"], *([[v] for v in value])]
    if isinstance(value, dict):
        return [value, {}]
    return [value, None]


def _admits(adapter: TypeAdapter[Any], value: Any) -> bool:
    try:
        adapter.validate_python(value, strict=True)
    except ValidationError:
        return False
    return True


@cache
def _enum_values(app: str, table: str, field: str) -> tuple[Any, ...]:
    """The Literal values a field admits (also inside Optional or list), else nothing."""
    model = APPS[app].tables.get(table) if app in APPS else None
    info = model.model_fields.get(field) if model is not None else None
    return tuple(_literals(info.annotation)) if info is not None else ()


def _literals(annotation: Any) -> Iterator[Any]:
    if typing.get_origin(annotation) is Literal:
        yield from typing.get_args(annotation)
        return
    for arg in typing.get_args(annotation):
        yield from _literals(arg)


@cache
def _field_adapter(app: str, table: str, field: str) -> TypeAdapter[Any] | None:
    """A strict validator for the value at a (possibly dotted) field path; None when it is not typed."""
    model = APPS[app].tables.get(table) if app in APPS else None
    head, _, rest = field.partition(".")
    if model is None or head not in model.model_fields:
        return None
    annotation = model.model_fields[head].annotation
    if rest or annotation is None:
        return None  # inside a dict field the value type is free-form for probing purposes
    return TypeAdapter(annotation)
