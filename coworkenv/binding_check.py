"""Validation of spec-declared tools: every binding names a real op, maps every argument, and types line up."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator, SchemaError
from pydantic import TypeAdapter, ValidationError

from coworkenv.apps import APPS, SERVICE_TOOLS, TOOLS
from coworkenv.bindings import CONVERSIONS, ToolDecl, value_key
from coworkenv.tools import ToolDef
from coworkenv.world import KEPT_TABLE

if TYPE_CHECKING:
    from coworkenv.spec import EnvSpec


@dataclass(frozen=True)
class BindingIssue:
    """One problem with a declared tool: the spec field path, a stable code and what to do."""

    path: str
    code: str
    message: str

    def as_dict(self) -> dict[str, str]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.path}: {self.message} [{self.code}]"


def binding_issues(spec: EnvSpec) -> list[BindingIssue]:
    """Every problem with the spec's declared tools (empty when all bindings are sound)."""
    issues: list[BindingIssue] = []
    seen = set(spec.tools)
    for i, decl in enumerate(spec.tool_decls):
        where = f"tool_decls[{i}]"
        if decl.name in seen:
            issues.append(BindingIssue(f"{where}.name", "duplicate_tool",
                                       f"{decl.name!r} is already a tool of this spec; give it another name"))
        seen.add(decl.name)
        issues.extend(_decl_issues(where, decl))
    issues.extend(_fault_issues(spec, seen))
    return issues


def _fault_issues(spec: EnvSpec, tools: set[str]) -> Iterator[BindingIssue]:
    """Fault rules must name a tool the agent can call or an app it reaches (else they never fire)."""
    if spec.faults is None:
        return
    catalog = {d.name: d.bind.op for d in spec.tool_decls}
    apps = {TOOLS[catalog.get(t, t)].app for t in tools if catalog.get(t, t) in TOOLS}
    for i, rule in enumerate(spec.faults.rules):
        if rule.tool is not None and rule.tool not in tools:
            yield BindingIssue(f"faults.rules[{i}].tool", "unknown_fault_target",
                               f"{rule.tool!r} is not a tool of this spec; tools: {', '.join(sorted(tools))}")
        if rule.app is not None and rule.app not in apps:
            yield BindingIssue(f"faults.rules[{i}].app", "unknown_fault_target",
                               f"no tool of this spec reaches app {rule.app!r}; apps: {', '.join(sorted(apps))}")


def _decl_issues(where: str, decl: ToolDecl) -> Iterator[BindingIssue]:
    params = decl.parameters
    try:
        Draft202012Validator.check_schema(params)
    except SchemaError as exc:
        yield BindingIssue(f"{where}.parameters", "invalid_schema", f"not a valid JSON Schema: {exc.message}")
        return
    if params.get("type") != "object":
        yield BindingIssue(f"{where}.parameters.type", "invalid_schema", "tool parameters must be of type object")
        return
    op = SERVICE_TOOLS.get(decl.bind.op)  # a declared tool may fill the op's service arguments
    if op is None:
        app = decl.bind.op.split("_", 1)[0]
        known = sorted(n for n, t in TOOLS.items() if t.app == app) or sorted({t.app for t in TOOLS.values()})
        yield BindingIssue(f"{where}.bind.op", "unknown_op",
                           f"{decl.bind.op!r} is not an app operation; choose one of: {', '.join(known)}")
        return
    props: dict[str, Any] = {**{n: {} for n in decl.bind.undeclared}, **params.get("properties", {})}
    required = set(params.get("required", []) if decl.bind.schema_required else []) | set(decl.bind.requires)
    for name in decl.bind.requires:
        if name not in props:
            yield BindingIssue(f"{where}.bind.requires", "unknown_argument",
                               f"{name!r} is neither a property of the declared parameters nor undeclared")
    op_props = _op_properties(op)
    op_required = set(op.openai_schema()["function"]["parameters"].get("required", []))
    filled: dict[str, str] = {}  # op parameter -> declared argument
    lists: set[str] = set()  # op parameters filled by lists that add up
    yield from _window_issues(where, decl, props, required, op, op_props, op_required, filled)
    for name in props:
        if name not in decl.bind.args:
            yield BindingIssue(f"{where}.bind.args", "argument_not_mapped",
                               f"declared argument {name!r} is not mapped; map it to a parameter of {op.name} "
                               f"({', '.join(op_props)}) or to null to accept and drop it")
    for name in decl.bind.args:
        arg = decl.bind.arg(name)
        path = f"{where}.bind.args.{name}"
        if name not in props:
            yield BindingIssue(path, "unknown_argument", f"{name!r} is not a property of the declared parameters")
            continue
        if arg is None or arg.to is None:
            continue
        if arg.to not in op_props:
            yield BindingIssue(f"{path}.to", "unknown_op_parameter",
                               f"{op.name} has no parameter {arg.to!r}; it takes {', '.join(op_props)}")
            continue
        if arg.unmapped_to is not None and arg.unmapped_to not in op_props:
            yield BindingIssue(f"{path}.unmapped_to", "unknown_op_parameter",
                               f"{op.name} has no parameter {arg.unmapped_to!r}; it takes {', '.join(op_props)}")
        adds_up = bool(arg.convert) and arg.convert[-1] in ("to_list", "split") and not arg.values
        if arg.to in filled and not (adds_up and arg.to in lists):
            yield BindingIssue(f"{path}.to", "duplicate_target",
                               f"{arg.to!r} is already filled by {filled[arg.to]!r}")
        if arg.to not in filled and adds_up:
            lists.add(arg.to)  # lists from several declared arguments add up (bind_arguments)
        elif not adds_up:
            lists.discard(arg.to)
        filled[arg.to] = name
        yield from _type_issues(path, props[name], arg.convert, arg.values, op.name, arg.to, op_props[arg.to])
        if arg.to in op_required and name not in required and arg.to not in decl.bind.defaults \
                and decl.bind.unserved is None:
            yield BindingIssue(path, "optional_to_required",
                               f"optional {name!r} fills required {op.name}.{arg.to}; make {name!r} required "
                               f"or add bind.defaults.{arg.to}")
    yield from _kept_issues(where, decl, op)
    yield from _named_issues(where, decl, props)
    for param, value in decl.bind.defaults.items():
        if param not in op_props:
            yield BindingIssue(f"{where}.bind.defaults.{param}", "unknown_op_parameter",
                               f"{op.name} has no parameter {param!r}; it takes {', '.join(op_props)}")
            continue
        try:
            TypeAdapter(op.params.model_fields[param].annotation or Any).validate_python(value)
        except ValidationError as exc:
            yield BindingIssue(f"{where}.bind.defaults.{param}", "schema_mismatch",
                               f"{value!r} does not fit {op.name}.{param}: {exc.errors()[0]['msg']}")
    for param in sorted(op_required - set(filled) - set(decl.bind.defaults) if decl.bind.unserved is None else ()):
        yield BindingIssue(f"{where}.bind", "op_parameter_missing",
                           f"{op.name} requires {param!r} but no argument maps to it and bind.defaults lacks it")


def _named_issues(where: str, decl: ToolDecl, props: dict[str, Any]) -> Iterator[BindingIssue]:
    """`cut`, `item_filters` and the `{name}`s of `not_found` name declared (or undeclared) arguments."""
    if decl.bind.cut is not None and decl.bind.cut.argument not in props:
        yield BindingIssue(f"{where}.bind.cut.argument", "unknown_argument",
                           f"{decl.bind.cut.argument!r} is neither a property of the declared parameters nor "
                           "undeclared")
    for name in decl.bind.item_filters:
        if name not in props:
            yield BindingIssue(f"{where}.bind.item_filters.{name}", "unknown_argument",
                               f"{name!r} is neither a property of the declared parameters nor undeclared")
    for name in re.findall(r"\{(\w+)\}", decl.bind.not_found or ""):
        if name not in props:
            yield BindingIssue(f"{where}.bind.not_found", "unknown_argument",
                               f"{{{name}}} is neither a property of the declared parameters nor undeclared")


def _kept_issues(where: str, decl: ToolDecl, op: ToolDef) -> Iterator[BindingIssue]:
    """Values kept as written (`ArgBinding.kept`, `Binding.kept_stamp`) need a write op of an app with a `kept`
    table; kept values are shown by a shape with `fields`."""
    if decl.bind.keeps and (op.kind != "write" or KEPT_TABLE not in APPS[op.app].tables):
        yield BindingIssue(f"{where}.bind", "kept_unheld",
                           f"{op.name} cannot keep values as written: it must be a write of an app with a "
                           f"{KEPT_TABLE!r} table")


def _window_issues(
    where: str, decl: ToolDecl, props: dict[str, Any], required: set[str], op: ToolDef,
    op_props: dict[str, set[str]], op_required: set[str], filled: dict[str, str],
) -> Iterator[BindingIssue]:
    """Day windows read declared arguments and fill op parameters (recorded in `filled`)."""
    for j, window in enumerate(decl.bind.windows):
        path = f"{where}.bind.windows[{j}]"
        for field, name in (("day", window.day), ("days", window.days)):
            if name is not None and name not in props:
                yield BindingIssue(f"{path}.{field}", "unknown_argument",
                                   f"{name!r} is not a property of the declared parameters")
        for field, param in (("start", window.start), ("end", window.end)):
            if param not in op_props:
                yield BindingIssue(f"{path}.{field}", "unknown_op_parameter",
                                   f"{op.name} has no parameter {param!r}; it takes {', '.join(op_props)}")
            elif param in filled:
                yield BindingIssue(f"{path}.{field}", "duplicate_target",
                                   f"{param!r} is already filled by {filled[param]!r}")
            else:
                filled[param] = window.day
                if param in op_required and window.day not in required and param not in decl.bind.defaults:
                    yield BindingIssue(f"{path}.day", "optional_to_required",
                                       f"optional {window.day!r} fills required {op.name}.{param}; make it required")


def _op_properties(op: ToolDef) -> dict[str, set[str]]:
    """Each op parameter and the JSON types it accepts."""
    props = op.openai_schema()["function"]["parameters"].get("properties", {})
    return {name: _types(schema) for name, schema in props.items()}


def _types(schema: dict[str, Any]) -> set[str]:
    if "anyOf" in schema:
        return set().union(*(_types(s) for s in schema["anyOf"]))
    if "enum" in schema and "type" not in schema:
        return {_json_type(v) for v in schema["enum"]}
    kind = schema.get("type")
    if kind is None:
        return set()  # any
    return set(kind) if isinstance(kind, list) else {kind}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    return {float: "number", str: "string", list: "array", dict: "object"}.get(type(value), "null")


def _type_issues(
    path: str, declared: dict[str, Any], conversions: Sequence[str], values: dict[str, Any], op: str, param: str,
    accepted: set[str],
) -> Iterator[BindingIssue]:
    current = _types(declared) - {"null"}
    for conversion in conversions:
        needs, makes = CONVERSIONS[conversion]
        if needs is not None and current and needs not in current:
            yield BindingIssue(f"{path}.convert", "schema_mismatch",
                               f"{conversion} needs a {needs}, the declared argument is {'/'.join(sorted(current))}")
            return
        if makes is not None:
            current = {makes}
        elif conversion == "first":
            current = _types(declared.get("items", {})) - {"null"}
    if values:
        mapped = {_json_type(v) for v in values.values()}
        enum = declared.get("enum")
        covers = isinstance(enum, list) and all(value_key(v) in values for v in enum)
        current = mapped if covers else current | mapped
    if not current or not accepted:
        return
    fits = current & accepted or ("integer" in current and "number" in accepted)
    if not fits:
        hint = {("string", "array"): 'add convert: ["to_list"] (or ["split"] for a comma list)',
                ("array", "string"): 'add convert: ["join"] or ["first"]'}.get(
            (sorted(current)[0], sorted(accepted - {"null"})[0] if accepted - {"null"} else ""), "add a conversion")
        yield BindingIssue(path, "schema_mismatch",
                           f"declared {'/'.join(sorted(current))}, but {op}.{param} takes "
                           f"{'/'.join(sorted(accepted))}; {hint}")
