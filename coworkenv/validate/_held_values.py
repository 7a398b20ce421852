"""Comparisons that decide nothing because of their value's type or spelling, and failures the score ignores.

`never_held`: a condition of a check (a `field` rule, a `records` or frame `where`, a dynamics `when`, a call
matcher's `args` or `where`) compares a record field or a tool argument with a value that field never holds: `"true"`
for a bool, `"P1"` for a priority whose values are `p1`..`p4`, `"5"` for a number, `not_contains` on a flag, `gte` a
string on a number. Such a condition is constant: `equals` never holds and `not_equals` always does, so a guard
written "never becomes X" with X misspelled can never fail (and a matcher with such an argument never matches, so a
`forbidden` guard never fires). The types are the record models' and the tools' own annotations; where a type is not
known (a declared tool's loose schema, `Any`) nothing is said.

`respelled_keys`: a condition reads a key of a map field (`flags.smart-retry`, `values.DB_POOL_SIZE`) that no record
of the table holds, where a record holds the same key spelled otherwise (`smart_retry`: case, `-`, `_`, spaces
aside). The path then never resolves, so `equals` never holds and `not_equals` always does; the tools that set such
keys (`services_set_flag`) refuse a key the record lacks, and a sound spec names a key as the records spell it.

`unscored_failures`: a check whose failure leaves the episode's score where it was: a required completion check of
weight 0 where the required checks decide the pass (no `pass_threshold`: the task's credit ignores it), or any guard
where a failed guard subtracts a penalty of 0, or every completion check where `robustness_weight` is 1. The episode then
fails with full marks; training reads the score, so the failure teaches nothing. Also every completion check at once where
their weights sum to 0 (each required, weight 0: an outside author's grader check weighted 0): the completion is 0 for
every episode, the reference's too, so the score is flat (nothing, or only a robustness share) whatever the agent does.

`underpriced_harms`: a harm whose failure leaves a passing score. A guard rule (`frame`, `forbidden`) given
`role: completion` costs only its weight's share (1/13 of incident_rollback's), and `guard_failure: subtract` with a
small `guard_penalty` (0.1) leaves 0.9: a harming agent that does the rest of the task keeps a score the task would
pass. The rule is the score's formula applied to a reference episode with that one harm: the score left must stay
below the pass threshold (`pass_threshold`, or 0.5, where the default penalty leaves a harming episode, when none is
set). A guard whose penalty is 0 is `unscored_failures`' (named there, not twice).

`uncounted_attempts`: a safety `forbidden` guard with `attempts: false`. The spec marks the call a hazard (a safety
check zeroes the episode), yet the guard counts only calls the world carried out: an agent that tries it and is
refused (a missing or wrong argument, a value the mock rejects, which the next try or a real tool would not) passes
with full marks. `attempts: false` is sound where only the effect matters, on a guard that is not a safety check ("no
document was deleted" as a side rule, not the hazard the task is about); a safety guard counts the attempt.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from coworkenv.apps import APPS
from coworkenv.bindings import spec_catalog
from coworkenv.spec import (
    GUARD_RULE_KINDS,
    CallMatcher,
    EnvSpec,
    FieldCond,
    FieldRule,
    ForbiddenRule,
    RecordsRule,
)
from coworkenv.validate._check_reads import rule_kind, spec_rules

_UNKNOWN = object()  # a type this module does not read: nothing is said about it


def _annotation(model: type[BaseModel], path: str) -> Any:
    """The type of `path` (dotted into dict values and nested models) on `model`, or _UNKNOWN."""
    ann: Any = model
    for part in path.split("."):
        ann = _member(ann, part)
        if ann is _UNKNOWN:
            return _UNKNOWN
    return ann


def _member(ann: Any, name: str) -> Any:
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        found = ann.model_fields.get(name)
        return _UNKNOWN if found is None else found.annotation
    arms = [a for a in _arms(ann) if get_origin(a) is dict]
    if len(arms) == 1 and len(get_args(arms[0])) == 2:
        return get_args(arms[0])[1]
    return _UNKNOWN


def _arms(ann: Any) -> list[Any]:
    """The alternatives of a union (`X | None`, `Union[...]`), else the type itself."""
    if get_origin(ann) in (Union, types.UnionType):
        return [arm for a in get_args(ann) for arm in _arms(a)]
    return [ann]


def _holds(ann: Any, value: Any, *, fold: bool = False) -> bool | None:
    """Whether a field of type `ann` can hold a value equal to `value` (None: the type is not one read here).
    `fold`: strings compare case-insensitively and stripped (as a call matcher compares arguments)."""
    verdicts = [_arm_holds(arm, value, fold) for arm in _arms(ann)]
    if any(v is True for v in verdicts):
        return True
    return None if any(v is None for v in verdicts) else False


def _arm_holds(arm: Any, value: Any, fold: bool) -> bool | None:
    if arm is Any or arm is object:
        return None
    if arm is type(None) or arm is None:
        return value is None
    origin = get_origin(arm)
    if origin is Literal:
        if fold and isinstance(value, str):
            return any(isinstance(a, str) and a.strip().lower() == value.strip().lower() for a in get_args(arm))
        return any(a == value and type(a) is type(value) for a in get_args(arm))
    if arm is bool:
        return isinstance(value, bool | int | float) and value in (0, 1)
    if arm in (int, float):
        return isinstance(value, int | float)
    if arm is str:
        return isinstance(value, str)
    if origin in (list, tuple, set, frozenset) or arm in (list, tuple, set, frozenset):
        return isinstance(value, list | tuple)
    if origin is dict or arm is dict or (isinstance(arm, type) and issubclass(arm, BaseModel)):
        return isinstance(value, dict)
    return None


def _item_type(ann: Any) -> Any:
    """The item type of the list arm of `ann`, or _UNKNOWN."""
    for arm in _arms(ann):
        if get_origin(arm) in (list, tuple, set, frozenset) and get_args(arm):
            return get_args(arm)[0]
    return _UNKNOWN


def _kinds(ann: Any) -> set[str]:
    """What a value of type `ann` can be, coarsely: text, number, list, dict, other; 'unknown' where not read."""
    out: set[str] = set()
    for arm in _arms(ann):
        origin = get_origin(arm)
        if arm is str or (origin is Literal and any(isinstance(a, str) for a in get_args(arm))):
            out.add("text")
        elif arm in (int, float, bool) or (origin is Literal and any(isinstance(a, int | float) for a in get_args(arm))):
            out.add("number")
        elif origin in (list, tuple, set, frozenset) or arm in (list, tuple, set, frozenset):
            out.add("list")
        elif origin is dict or arm is dict or (isinstance(arm, type) and issubclass(arm, BaseModel)):
            out.add("dict")
        elif arm is type(None):
            out.add("none")
        else:
            out.add("unknown")
    return out


def _never(ann: Any, op: str, value: Any) -> str | None:
    """Why comparing a field of type `ann` with `value` by `op` is constant (None when it is not, or unknown)."""
    if ann is _UNKNOWN:
        return None
    kinds = _kinds(ann)
    if "unknown" in kinds:
        return None
    if op in ("equals", "not_equals"):
        if _holds(ann, value) is False:
            return f"the field never holds {value!r}"
    elif op == "in":
        if isinstance(value, list | tuple) and value and all(_holds(ann, v) is False for v in value):
            return f"the field holds none of {value!r}"
    elif op in ("contains", "not_contains"):
        wanted = value if isinstance(value, list) else [value]
        if "text" in kinds:
            return None
        if "list" in kinds:
            item = _item_type(ann)
            if item is _UNKNOWN or not wanted or any(_holds(item, w) is not False for w in wanted):
                return None
            return f"no item of the list is ever {wanted[0]!r}" if len(wanted) == 1 else \
                f"the list's items are never {wanted!r}"
        if "dict" in kinds:
            return None if all(isinstance(w, str) for w in wanted) else f"the map's keys are text, not {wanted!r}"
        return f"'{op}' reads text, lists and maps; the field holds neither"
    elif op in ("gte", "lte", "gt", "lt"):
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if (number and "number" not in kinds) or (isinstance(value, str) and "text" not in kinds) or \
                not (number or isinstance(value, str)):
            return f"'{op}' compares {type(value).__name__} with a field that never holds one"
    return None


def _constant(op: str) -> str:
    return "always holds" if op in ("not_equals", "not_contains") else "never holds"


def _conds(where: str, model: type[BaseModel], conds: list[FieldCond]) -> Iterator[tuple[str, str]]:
    for k, cond in enumerate(conds):
        why = _never(_annotation(model, cond.field), cond.op, cond.value)
        if why is not None:
            yield (f"{where}.where[{k}]", f"{cond.field} {cond.op} {cond.value!r}: {why}, so the condition "
                   f"{_constant(cond.op)}; write the value as the record holds it")


def _table(app: str, table: str | None) -> type[BaseModel] | None:
    if app not in APPS or table is None:
        return None
    found = APPS[app].tables.get(table)
    return found if isinstance(found, type) and issubclass(found, BaseModel) else None


def _rule(where: str, rule: Any, catalog: dict[str, Any]) -> Iterator[tuple[str, str]]:
    if isinstance(rule, FieldRule):
        model = _table(rule.target.app, rule.target.table)
        if model is not None:
            why = _never(_annotation(model, rule.target.field), rule.op, rule.value)
            if why is not None:
                yield (f"{where}.value", f"{rule.target.table}[{rule.target.id}].{rule.target.field} {rule.op} "
                       f"{rule.value!r}: {why}, so the check {_constant(rule.op)}; write the value as the record "
                       "holds it")
    elif isinstance(rule, RecordsRule):
        model = _table(rule.app, rule.table)
        if model is not None:
            yield from _conds(where, model, rule.where)
    for k, sel in enumerate(getattr(rule, "allow", None) or []):
        model = _table(sel.app, sel.table)
        if model is not None:
            yield from _conds(f"{where}.allow[{k}]", model, sel.where)
    for name in ("call", "first", "then"):
        matcher = getattr(rule, name, None)
        if isinstance(matcher, CallMatcher):
            yield from _matcher(f"{where}.{name}", matcher, catalog)


def _matcher(where: str, matcher: CallMatcher, catalog: dict[str, Any]) -> Iterator[tuple[str, str]]:
    tool = catalog.get(matcher.tool)
    params = getattr(tool, "params", None)
    if not (isinstance(params, type) and issubclass(params, BaseModel)):
        return
    for key, expected in matcher.args.items():
        found = params.model_fields.get(key)
        if found is None:
            continue
        why = _arg_never(found.annotation, expected)
        if why is not None:
            yield (f"{where}.args.{key}", f"{matcher.tool} argument {key} = {expected!r}: {why}, so the matcher "
                   "never matches; write the value as the tool takes it")
    yield from _conds(where, params, matcher.where)


def _arg_never(ann: Any, expected: Any) -> str | None:
    """Why a matcher's expected argument can never match what the tool takes (None when it can, or unknown)."""
    kinds = _kinds(ann)
    if "unknown" in kinds:
        return None
    if isinstance(expected, dict):
        return None if "dict" in kinds else "the tool takes no map there"
    if isinstance(expected, list):
        if "list" not in kinds:
            return "the tool takes a single value there, not a list"
        item = _item_type(ann)
        bad = [e for e in expected if item is not _UNKNOWN and _holds(item, e, fold=True) is False]
        return f"the tool never takes {bad[0]!r} in that list" if bad else None
    if _holds(ann, expected, fold=True) is False:
        return "the tool takes a list there" if kinds == {"list"} or kinds == {"list", "none"} else \
            f"the tool never takes {expected!r} there"
    return None


def _squeezed(key: str) -> str:
    return "".join(ch for ch in key.lower() if ch.isalnum())


def map_keys(spec: EnvSpec, app: str, table: str, head: str) -> set[str]:
    """The keys the map field `head` holds in any record of the table: the initial world and records the dynamics or
    the turns put."""
    keys: set[str] = set()
    state = getattr(spec.world.apps, app, None)
    for rec in getattr(state, table, None) or []:
        value = getattr(rec, head, None)
        if isinstance(value, dict):
            keys.update(str(k) for k in value)
    effects = [e for r in spec.dynamics.rules for e in r.effects] + [e for t in spec.turns for e in t.changes]
    for effect in effects:
        if getattr(effect, "app", None) == app and getattr(effect, "table", None) == table:
            for holder in (getattr(effect, "record", None), getattr(effect, "set", None)):
                if isinstance(holder, dict) and isinstance(holder.get(head), dict):
                    keys.update(str(k) for k in holder[head])
                elif isinstance(holder, dict):
                    keys.update(k.split(".", 1)[1] for k in holder if k.startswith(head + "."))
    return keys


def _respelled(spec: EnvSpec, app: str, table: str, path: str) -> str | None:
    head, _, rest = path.partition(".")
    if not rest:
        return None
    key = rest.split(".", 1)[0]
    keys = map_keys(spec, app, table, head)
    if not keys or key in keys:
        return None
    near = sorted(k for k in keys if _squeezed(k) == _squeezed(key))
    return f"no record of {app}.{table} holds the key {key!r} of {head}; they spell it {near[0]!r}" if near else None


def respelled_keys(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each condition reading a map key that the records hold only under another spelling."""
    def rules() -> Iterator[tuple[str, Any]]:
        for _, _, where, simple in spec_rules(spec.checks):  # a tier's rule too
            yield where, simple
        for i, rule in enumerate(spec.dynamics.rules):
            for j, pred in enumerate(rule.when):
                yield f"dynamics.rules[{i}].when[{j}]", pred

    def walk(where: str, rule: Any) -> Iterator[tuple[str, str]]:
        if isinstance(rule, FieldRule):
            why = _respelled(spec, rule.target.app, rule.target.table, rule.target.field)
            if why is not None:
                yield f"{where}.target.field", f"{rule.target.field}: {why}, so the check {_constant(rule.op)}"
        elif isinstance(rule, RecordsRule):
            for k, cond in enumerate(rule.where):
                why = _respelled(spec, rule.app, rule.table, cond.field)
                if why is not None:
                    yield f"{where}.where[{k}].field", f"{cond.field}: {why}, so the condition {_constant(cond.op)}"
        for k, sel in enumerate(getattr(rule, "allow", None) or []):
            for m, cond in enumerate(sel.where):
                why = _respelled(spec, sel.app, sel.table or "", cond.field) if sel.table else None
                if why is not None:
                    yield f"{where}.allow[{k}].where[{m}].field", f"{cond.field}: {why}, so the condition " \
                        f"{_constant(cond.op)}"

    for where, rule in rules():
        yield from walk(where, rule)


def never_held(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each condition of the spec's checks and dynamics whose value its field never holds."""
    catalog = spec_catalog(spec)
    for _, _, where, simple in spec_rules(spec.checks):  # a tier's rule too
        yield from _rule(where, simple, catalog)
    for i, rule in enumerate(spec.dynamics.rules):
        call = getattr(rule.on, "call", None)
        if isinstance(call, CallMatcher):
            yield from _matcher(f"dynamics.rules[{i}].on.call", call, catalog)
        for j, pred in enumerate(rule.when):
            yield from _rule(f"dynamics.rules[{i}].when[{j}]", pred, catalog)


def unscored_failures(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each check whose failure leaves the episode's score unchanged."""
    scoring = spec.scoring
    completion = [c for c in spec.checks if not c.is_guard]
    total = sum(c.weight for c in completion)
    if scoring.robustness_weight >= 1 and completion:
        yield ("scoring.robustness_weight", "robustness_weight 1 scores an episode by its robustness alone whenever a "
               "figure is given: every completion check fails at no cost; keep it below 1 (Claw-Eval: 0.2)")
    if completion and total == 0:
        yield ("checks", f"the completion checks ({', '.join(repr(c.id) for c in completion[:4])}"
               f"{', ...' if len(completion) > 4 else ''}) weigh 0 in all: every episode's completion is 0, the "
               "reference's too, so the score is the same whatever the agent does (training reads the score); "
               "give them their weights")
    for i, check in enumerate(spec.checks):
        if check.is_guard:
            if not check.safety and scoring.guard_failure == "subtract" and scoring.guard_penalty == 0:
                yield (f"checks[{i}]", f"guard {check.id!r} fails at no cost: scoring subtracts a guard_penalty of 0 "
                       "for a failed guard, so a harmful episode keeps full marks; give guard_penalty a share "
                       "(0.5 by default), use guard_failure 'zero', or make the guard a safety check")
        elif check.required and check.weight == 0 and total > 0 and scoring.pass_threshold is None:
            yield (f"checks[{i}]", f"required check {check.id!r} has weight 0: an episode that fails it fails "
                   "with full marks (the score counts only weighted checks); give it a weight, or drop "
                   "'required' if it is not part of the task")


_HARM_BAR = 0.5  # the score a harming episode may keep at most with no pass_threshold (the default penalty's 1 - 0.5)


def _passing(score: float, threshold: float | None) -> bool:
    return score >= threshold if threshold is not None else score > _HARM_BAR


def underpriced_harms(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each guard, or guard rule scored as completion, whose failure leaves a passing score."""
    scoring = spec.scoring
    threshold = scoring.pass_threshold
    bar = f"the pass threshold {threshold}" if threshold is not None else f"{_HARM_BAR} (no pass_threshold)"
    total = sum(c.weight for c in spec.checks if not c.is_guard)
    for i, check in enumerate(spec.checks):
        if check.is_guard:
            penalty = scoring.guard_penalty
            if check.safety or scoring.guard_failure != "subtract" or penalty == 0:
                continue
            left = round(1 - penalty, 6)
            if _passing(left, threshold):
                yield (f"checks[{i}]", f"guard {check.id!r} costs only guard_penalty {penalty}: an episode that does "
                       f"the harm and the rest of the task scores {left}, not below {bar}; raise guard_penalty above "
                       f"{round(1 - (threshold if threshold is not None else _HARM_BAR), 6)}, use guard_failure "
                       "'zero', or make the guard a safety check")
        elif (kind := rule_kind(check.rule)) in GUARD_RULE_KINDS and total > 0:
            left = round(1 - check.weight / total, 6)
            if _passing(left, threshold):
                yield (f"checks[{i}]", f"{kind} rule {check.id!r} has role 'completion': the harm it "
                       f"forbids costs only its weight's share, so an episode that does it scores {left}, not below "
                       f"{bar} (and an agent that does nothing earns its credit); drop role (a {kind} rule "
                       "is a guard by default)")


def uncounted_attempts(spec: EnvSpec) -> Iterator[tuple[str, str]]:
    """(path, message) for each safety `forbidden` guard that does not count failed attempts."""
    for _, check, where, rule in spec_rules(spec.checks):  # a tier's forbidden rule too
        if check.safety and isinstance(rule, ForbiddenRule) and not rule.attempts:
            yield (f"{where}.attempts", f"safety guard {check.id!r} forbids {rule.call.tool} but "
                   "counts only calls that succeeded: an agent that tries the hazard and is refused passes; drop "
                   "'attempts: false' (or make the guard a non-safety one where only the effect matters)")
