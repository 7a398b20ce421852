"""Loading specs: schema validation and reference resolution, with errors naming the field path."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from pydantic import ValidationError

from coworkenv.apps import APPS
from coworkenv.binding_check import binding_issues
from coworkenv.bindings import spec_catalog
from coworkenv.spec import (
    AfterCall,
    AppendLog,
    CallMatcher,
    DeleteRecord,
    EnvSpec,
    FieldRef,
    FieldRule,
    OnAction,
    PutRecord,
    PythonRule,
    RecordsRule,
    ReplyStatesRule,
    Selector,
    TextRule,
    TiersRule,
    UpdateRecord,
    migrate_spec_data,
    schema_version_problem,
)
from coworkenv.spec_seal import SealFailure, is_sealed, open_sealed
from coworkenv.world import Record, gc_paused, parse_time


@dataclass(frozen=True)
class SpecIssue:
    """One problem in a spec: where (a field path) and what."""

    path: str
    message: str
    gate: str = "references"

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class SpecError(ValueError):
    """A spec that cannot be loaded. `issues` lists every problem with its field path."""

    def __init__(self, source: str, issues: list[SpecIssue]) -> None:
        self.source = source
        self.issues = issues
        lines = "\n".join(f"  - {i}" for i in issues[:20])
        more = f"\n  ... and {len(issues) - 20} more" if len(issues) > 20 else ""
        super().__init__(f"invalid environment spec {source}:\n{lines}{more}")

    @property
    def line(self) -> str:
        """The message on one line (a command's `error:` line escapes line breaks: its list read as `\\n  - `)."""
        shown = "; ".join(str(i) for i in self.issues[:5])
        more = f"; and {len(self.issues) - 5} more" if len(self.issues) > 5 else ""
        return f"invalid environment spec {self.source}: {shown}{more}"


def parse_spec(data: str | bytes | dict[str, Any], source: str = "<spec>") -> EnvSpec:
    """Validate spec data against the schema only (gate: schema); data of an older schema version is migrated
    to the current one first (`coworkenv.spec.SPEC_MIGRATIONS`). A sealed file whose seal holds is loaded as
    `load_spec` loads it (it passed every check when it was sealed); one whose seal fails, validated in full."""
    if isinstance(data, str | bytes) and is_sealed(data):
        opened = open_sealed(data, source)
        return opened if isinstance(opened, EnvSpec) else _load_unsealed(opened, source, parse_spec)
    if isinstance(data, str | bytes):
        try:  # one pass from JSON to typed records in pydantic's core; any problem is reported by the path below
            with gc_paused():
                return EnvSpec.model_validate_json(data)
        except ValidationError:
            pass
    try:
        raw = orjson.loads(data) if isinstance(data, str | bytes) else data
    except orjson.JSONDecodeError as exc:
        raise SpecError(source, [SpecIssue("(document)", f"not valid JSON: {exc}", "schema")]) from None
    if not isinstance(raw, dict):
        raise SpecError(source, [SpecIssue("(document)", f"expected a JSON object, got {type(raw).__name__}",
                                           "schema")])
    version = schema_version_problem(raw)
    if version is not None:  # the rest is read under that version's rules: its other lines would mislead
        raise SpecError(source, [SpecIssue("schema_version", version, "schema")])
    try:
        with gc_paused():
            return EnvSpec.model_validate(migrate_spec_data(raw))
    except ValidationError as exc:
        issues = [
            SpecIssue(_loc(err["loc"]), f"{err['msg']} (got {_short(err.get('input'))})", "schema")
            for err in exc.errors()
        ]
        raise SpecError(source, issues) from None


def load_spec(data: str | bytes | dict[str, Any] | Path, source: str | None = None) -> EnvSpec:
    """Parse and check a spec (schema + references); raise SpecError listing every problem.

    A sealed file (`coworkenv.spec_seal_write.seal_spec`) whose seal holds is loaded without validating its records
    again; any other data, a sealed file whose seal fails included, is validated in full.
    """
    if isinstance(data, Path):
        source = source or str(data)
        try:
            data = data.read_bytes()
        except OSError as exc:
            raise SpecError(source, [SpecIssue("(file)", f"cannot read: {exc.strerror}", "schema")]) from None
    if isinstance(data, str | bytes) and is_sealed(data):  # written by seal_spec: see coworkenv.spec_seal
        opened = open_sealed(data, source or "<sealed spec>")
        return opened if isinstance(opened, EnvSpec) else _load_unsealed(opened, source or "<sealed spec>", load_spec)
    spec = parse_spec(data, source or "<spec>")
    issues = reference_issues(spec)
    if issues:
        raise SpecError(source or spec.id, issues)
    return spec


def _load_unsealed(failed: SealFailure, source: str, load: Callable[[dict[str, Any], str], EnvSpec]) -> EnvSpec:
    """A sealed file whose seal fails, validated in full by `load`; an error lists the failed seal first."""
    seal = SpecIssue("(seal)", failed.message, "schema")
    if failed.payload is None:
        raise SpecError(source, [seal, SpecIssue("(document)", failed.problem, "schema")])
    try:
        return load(failed.payload, source)
    except SpecError as exc:
        raise SpecError(source, [seal, *exc.issues]) from None


def reference_issues(spec: EnvSpec) -> list[SpecIssue]:
    """Every reference in the spec that does not resolve: apps, tables, ids, fields, tools, people, services."""
    return list(_References(spec).issues())


class _References:
    def __init__(self, spec: EnvSpec) -> None:
        self.spec = spec
        self.tools = spec_catalog(spec)  # built-in and declared tools
        # Records that dynamics or user turns create count as existing for checks.
        self._created: dict[tuple[str, str], set[str]] = {}
        for effect in self._effects():
            if isinstance(effect, PutRecord) and "id" in effect.record:
                self._created.setdefault((effect.app, effect.table), set()).add(str(effect.record["id"]))
        self._ids: dict[tuple[str, str], set[str]] = {}

    def ids(self, app: str, table: str) -> set[str]:
        """Ids of the records of `app.table`, created ones included; read on first use (most tables are never
        named by a reference, and a large world's tables are most of a spec)."""
        found = self._ids.get((app, table))
        if found is None:
            found = set(self._created.get((app, table), ()))
            if app in APPS and table in APPS[app].state_model.model_fields:
                found.update(r.id for r in getattr(getattr(self.spec.world.apps, app), table))
            self._ids[(app, table)] = found
        return found

    def _effects(self) -> Iterator[Any]:
        for rule in self.spec.dynamics.rules:
            yield from rule.effects
        for turn in self.spec.turns:
            yield from turn.changes

    def issues(self) -> Iterator[SpecIssue]:
        spec = self.spec
        for issue in binding_issues(spec):
            yield SpecIssue(issue.path, issue.message)
        try:
            parse_time(spec.world.start)
        except ValueError as exc:
            yield SpecIssue("world.start", str(exc))
        if spec.user not in self.ids("directory", "people"):
            yield SpecIssue("user", f"person {spec.user!r} is not in world.apps.directory.people")
        for i, name in enumerate(spec.tools):
            if name not in self.tools:
                yield SpecIssue(f"tools[{i}]", f"unknown tool {name!r}")
        if len(spec.reference) != len(spec.turns):
            yield SpecIssue("reference", f"has {len(spec.reference)} turns, the spec has {len(spec.turns)} user turns")
        for t, turn in enumerate(spec.reference):
            for s, step in enumerate(turn.steps):
                where = f"reference[{t}].steps[{s}]"
                if (step.call is None) == (step.say is None):
                    yield SpecIssue(where, "a step has exactly one of 'call' or 'say'")
                elif step.call is not None and step.call.name not in self.tools:
                    yield SpecIssue(f"{where}.call.name", f"unknown tool {step.call.name!r}")
        for i, check in enumerate(spec.checks):
            yield from self._rule(f"checks[{i}].rule", check.rule)
        for i, rule in enumerate(spec.dynamics.rules):
            if isinstance(rule.on, OnAction):
                yield from self._matcher(f"dynamics.rules[{i}].on.call", rule.on.call)
            else:
                try:
                    parse_time(rule.on.time)
                except ValueError as exc:
                    yield SpecIssue(f"dynamics.rules[{i}].on.time", str(exc))
            for j, pred in enumerate(rule.when):
                yield from self._rule(f"dynamics.rules[{i}].when[{j}]", pred)
            for j, effect in enumerate(rule.effects):
                yield from self._effect(f"dynamics.rules[{i}].effects[{j}]", effect)
        for i, stream in enumerate(spec.dynamics.streams):
            if stream.service not in self.ids("services", "services"):
                yield SpecIssue(f"dynamics.streams[{i}].service", f"no service {stream.service!r}")
            for j, pred in enumerate(stream.while_):
                yield from self._rule(f"dynamics.streams[{i}].while[{j}]", pred)
        for i, user_turn in enumerate(spec.turns):
            if isinstance(user_turn.condition, AfterCall):
                yield from self._matcher(f"turns[{i}].condition.call", user_turn.condition.call)
            for j, effect in enumerate(user_turn.changes):
                yield from self._effect(f"turns[{i}].changes[{j}]", effect)

    def _model(self, where: str, app: str, table: str) -> type[Record] | SpecIssue:
        if app not in APPS:
            return SpecIssue(f"{where}.app", f"unknown app {app!r}; apps: {', '.join(APPS)}")
        tables = APPS[app].tables
        if table not in tables:
            return SpecIssue(f"{where}.table", f"app {app} has no table {table!r}; tables: {', '.join(tables)}")
        return tables[table]

    def _field(self, where: str, model: type[Record], field: str) -> Iterator[SpecIssue]:
        head = field.split(".", 1)[0]
        if head not in model.model_fields:
            yield SpecIssue(where, f"{model.__name__} has no field {head!r}; fields: {', '.join(model.model_fields)}")

    def _ref(self, where: str, ref: FieldRef) -> Iterator[SpecIssue]:
        model = self._model(where, ref.app, ref.table)
        if isinstance(model, SpecIssue):
            yield model
            return
        if ref.id not in self.ids(ref.app, ref.table):
            yield SpecIssue(f"{where}.id", f"no record {ref.id!r} in {ref.app}.{ref.table}")
        yield from self._field(f"{where}.field", model, ref.field)

    def _matcher(self, where: str, matcher: CallMatcher) -> Iterator[SpecIssue]:
        tool = self.tools.get(matcher.tool)
        if tool is None:
            yield SpecIssue(f"{where}.tool", f"unknown tool {matcher.tool!r}")
            return
        for key in matcher.args:
            if key not in tool.params.model_fields:
                yield SpecIssue(f"{where}.args.{key}", f"{matcher.tool} has no argument {key!r}")
        for k, cond in enumerate(matcher.where):
            if cond.field.split(".", 1)[0] not in tool.params.model_fields:
                yield SpecIssue(f"{where}.where[{k}].field", f"{matcher.tool} has no argument {cond.field!r}")

    def _rule(self, where: str, rule: Any) -> Iterator[SpecIssue]:
        if isinstance(rule, FieldRule):
            yield from self._ref(f"{where}.target", rule.target)
        elif isinstance(rule, ReplyStatesRule):
            yield from self._ref(f"{where}.source", rule.source)
        elif isinstance(rule, TextRule):
            if rule.number is not None and rule.number.source is not None:
                yield from self._ref(f"{where}.number.source", rule.number.source)
        elif isinstance(rule, TiersRule):
            for k, tier in enumerate(rule.tiers):
                yield from self._rule(f"{where}.tiers[{k}].rule", tier.rule)
        elif isinstance(rule, RecordsRule):
            model = self._model(where, rule.app, rule.table)
            if isinstance(model, SpecIssue):
                yield model
                return
            for k, cond in enumerate(rule.where):
                yield from self._field(f"{where}.where[{k}].field", model, cond.field)
        elif isinstance(rule, PythonRule):
            for k, app in enumerate(rule.apps):
                if app not in APPS:
                    yield SpecIssue(f"{where}.apps[{k}]", f"unknown app {app!r}")
        elif hasattr(rule, "allow"):
            for k, sel in enumerate(rule.allow):
                yield from self._selector(f"{where}.allow[{k}]", sel)
        for name in ("call", "first", "then"):
            matcher = getattr(rule, name, None)
            if isinstance(matcher, CallMatcher):
                yield from self._matcher(f"{where}.{name}", matcher)

    def _selector(self, where: str, sel: Selector) -> Iterator[SpecIssue]:
        if sel.app not in APPS:
            yield SpecIssue(f"{where}.app", f"unknown app {sel.app!r}")
        elif sel.table is not None:
            model = self._model(where, sel.app, sel.table)
            if isinstance(model, SpecIssue):
                yield model
            else:
                for f in sel.fields or []:
                    yield from self._field(f"{where}.fields", model, f)
                for k, cond in enumerate(sel.where):
                    yield from self._field(f"{where}.where[{k}].field", model, cond.field)

    def _effect(self, where: str, effect: Any) -> Iterator[SpecIssue]:
        if isinstance(effect, AppendLog):
            if effect.service not in self.ids("services", "services"):
                yield SpecIssue(f"{where}.service", f"no service {effect.service!r}")
            return
        model = self._model(where, effect.app, effect.table)
        if isinstance(model, SpecIssue):
            yield model
            return
        if isinstance(effect, PutRecord):
            try:
                model.model_validate(effect.record)
            except ValidationError as exc:
                for err in exc.errors():
                    yield SpecIssue(f"{where}.record.{_loc(err['loc'])}", err["msg"])
        elif isinstance(effect, UpdateRecord | DeleteRecord):
            if effect.id not in self.ids(effect.app, effect.table):
                yield SpecIssue(f"{where}.id", f"no record {effect.id!r} in {effect.app}.{effect.table}")
            if isinstance(effect, UpdateRecord):
                for key in effect.set:
                    yield from self._field(f"{where}.set.{key}", model, key)


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(document)"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
