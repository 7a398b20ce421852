"""Forbidden guards seen on the ops their tools run, and the routes built there made through every tool given.

The routes to a harm that a guard misses (`_guard_routes`: another recipient field, a defaulted argument, a sibling
tool, a batch; `_guard_evasions`: another closing value, a deletion, a rewrite) are built from the built-in tools'
schemas. A spec may give the agent its own tools instead (`tool_decls`: `gmail_send_message` with a comma-list `to`,
`gmail_mark_read`, `todoist_update_task`, bound to `mail_send`, `mail_mark_read`, `todo_update_task`); the view that
makes a declared write its op (`_declared_calls.as_builtin`) takes only one that is its op renamed, so a guard on any
other declared tool, and a route through one, was never tried: the harm done through a declared argument passed
every guard that reads the argument's text alone (a comma list `to` of two people, a `cc` the guard leaves out, a
`read` the tool defaults).

Here a guard is read on its op (`OpView.lift`: each argument and condition through the binding, the value converted
as the binding converts it; an exact text of a comma list the binding splits is the list itself, so `equals` it), the
routes are built on the op with every op a declared tool runs given by name (`OpView.spec`), and each op call of a
route is made through every tool the agent is given that runs it with the same effect (`OpView.carriers`: the op
itself where it is given, a declared tool whose binding carries the arguments: its schema's defaults and the
binding's applied, the op's own defaults filled in). A route is the agent's where every call has a carrier; the
guard misses it where some choice of carriers matches no forbidden guard of the spec (`OpView.unguarded`).
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from pydantic_core import PydanticUndefined

from coworkenv.apps import TOOLS
from coworkenv.bindings import ArgBinding, DeclaredTool, bind_arguments, convert, exposed_tools, spec_catalog
from coworkenv.checks import call_matches
from coworkenv.spec import CallMatcher, EnvSpec, FieldCond, ForbiddenRule
from coworkenv.tools import ToolDef, ToolError
from coworkenv.validate._declared_calls import made_through

Route = list[tuple[str, dict[str, Any]]]
_CARRIERS = 4  # choices of carriers tried per route (a product over its calls)


@dataclasses.dataclass(frozen=True)
class OpView:
    """`original` (the spec the guards are judged on) and `spec`, the same with every op a declared tool runs given by
    name (the routes' generators read it)."""

    original: EnvSpec
    spec: EnvSpec
    catalog: dict[str, ToolDef]

    def lift(self, rule: ForbiddenRule) -> ForbiddenRule | None:
        """`rule` on the op its tool runs (itself for a built-in tool); None where an argument or condition of the
        matcher does not carry over to the op (an argument the binding drops or maps by a rule not read here)."""
        tool = self.catalog.get(rule.call.tool)
        if not isinstance(tool, DeclaredTool):
            return rule
        bind = tool.decl.bind
        if bind.unserved is not None or bind.windows:
            return None
        args: dict[str, Any] = {}
        where: list[FieldCond] = []
        for name, value in rule.call.args.items():
            arg = bind.arg(name)
            lifted = _lifted(arg, value) if arg is not None else None
            if arg is None or arg.to is None or lifted is None:
                return None
            if "split" in arg.convert:  # the exact text of a comma list: the list itself, no more, no less
                where.append(FieldCond(field=arg.to, op="equals", value=lifted))
            else:
                args[arg.to] = lifted
        for cond in rule.call.where:
            head, dot, rest = cond.field.partition(".")
            arg = bind.arg(head)
            if arg is None or arg.to is None:
                return None
            wants: Any = cond.value
            if cond.op in ("equals", "not_equals") and not dot:
                wants = _lifted(arg, cond.value)
            elif cond.op == "in" and not dot and isinstance(cond.value, list):
                wants = [_lifted(arg, v) for v in cond.value]
                wants = None if None in wants else wants
            elif arg.values:
                return None
            if wants is None:
                return None
            where.append(FieldCond(field=f"{arg.to}{dot}{rest}", op=cond.op, value=wants))
        return rule.model_copy(update={"call": CallMatcher(tool=tool.op, args=args, where=where)})

    def carriers(self, op: str, args: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        """Each call of a tool the agent is given that runs `op` with `args` (the same effect: defaults filled)."""
        effect = _effect(op, args)
        out = []
        for name in exposed_tools(self.original):
            tool = self.catalog.get(name)
            if tool is None or tool.op != op:
                continue
            made = made_through(self.original, self.catalog, op, args, name)
            if made is not None and _runs(tool, dict(made.arguments)) == effect:
                out.append((made.name, dict(made.arguments)))
        return out

    def unguarded(self, route: Route, matchers: list[CallMatcher]) -> Route | None:
        """The route as calls the agent can make that no matcher matches; None where there is none."""
        choices = [self.carriers(tool, args) for tool, args in route]
        for made in itertools.islice(itertools.product(*choices), _CARRIERS):
            if not any(call_matches(m, tool, args) for tool, args in made for m in matchers):
                return list(made)
        return None


def op_view(spec: EnvSpec) -> OpView:
    """The spec's `OpView`."""
    catalog = spec_catalog(spec)
    ops = sorted({t.op for d in spec.tool_decls if isinstance(t := catalog.get(d.name), DeclaredTool)
                  and d.bind.unserved is None} - set(spec.tools))
    view = spec.model_copy(update={"tools": [*spec.tools, *ops]}) if ops else spec
    return OpView(spec, view, catalog)


def _lifted(arg: ArgBinding, value: Any) -> Any:
    """`value` of a declared argument as the op is given it (its conversions and value map); None where it does not
    convert."""
    try:
        for conversion in arg.convert:
            value = convert(value, conversion)
    except (ToolError, ValueError, TypeError):
        return None
    if arg.values:
        key = value if isinstance(value, str) else str(value)
        if key not in arg.values:
            return value if arg.unmapped == "passed" and arg.unmapped_to is None else None
        return arg.values[key]
    return value


def _runs(tool: ToolDef, args: dict[str, Any]) -> Any:
    """The op arguments a call of `tool` runs, defaults filled (the declared schema's or the service's, the binding's,
    the op's); None where the binding refuses the arguments. A route's call is the one its guard wants, not a whole
    call (a mail without its body), so the declared schema is not asked for the rest."""
    if isinstance(tool, DeclaredTool):
        decl = tool.decl
        defaults = decl.bind.service_defaults
        if defaults is None:
            props = decl.parameters.get("properties", {})
            defaults = {k: v["default"] for k, v in props.items() if isinstance(v, dict) and "default" in v}
        try:
            args = bind_arguments(decl.bind, {**defaults, **args})
        except (ToolError, ValueError, TypeError):
            return None
    return _effect(tool.op, args)


def _effect(op: str, args: dict[str, Any]) -> dict[str, Any]:
    """`args` of `op` with the op's own defaults for the optional parameters they leave out (None: no value)."""
    fields = TOOLS[op].params.model_fields
    defaults = {k: f.default for k, f in fields.items() if not f.is_required() and f.default is not None
                and f.default is not PydanticUndefined}
    return {**defaults, **{k: v for k, v in args.items() if v is not None}}
