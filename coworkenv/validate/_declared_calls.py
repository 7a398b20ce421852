"""Declared calls seen as the built-in op calls they run, and op calls written back through a declared binding.

Validators that build calls from a built-in tool's own parameters (the harms of `task_mutations`) only know built-in
calls. `as_builtin` gives them the spec with each declared write of the reference as the op call it binds to and those
ops exposed; `through_bindings` writes each mutant's reference back: a call the spec's reference made, as it was made;
an op the agent is given by name, as it is; any other op call through a declared tool bound to that op whose arguments
carry it exactly (None where none does: the agent cannot make that call, so the mutant is dropped).

With `matchers`, only a declared write that is its op renamed is seen so: one carrying each of the op's parameters by
a plain rename (no conversion, value map or default: any route through the op is a call the agent can make through
it) and whose op the agent is not also given by name (a matcher on either tool misses the other's calls: another
route, which the guard validators judge on the declared tool itself). It is given as its op only, and the view's call
matchers (checks, dynamics rules, turn conditions) on it match the op instead, each argument renamed to the op's
parameter (a condition on an argument it does not declare is left out: it only widens the matcher, and a replay built
on the view is still judged on the spec itself). The validators that judge the reference's writes or a guard's routes
by the matchers of built-in tools (guard evasions, undone writes, respellings) then see the declared ones too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import orjson

from coworkenv.apps import TOOLS
from coworkenv.bindings import Binding, DeclaredTool, ToolDecl, bind_arguments, convert
from coworkenv.spec import Check, Dynamics, EnvSpec, ReferenceTurn, ToolCallSpec, UserTurn
from coworkenv.tools import ToolDef, ToolError
from coworkenv.validate._mutation_core import Mutation


def bound_message(bind: Binding, arguments: dict[str, Any], take: set[str]) -> dict[str, Any] | None:
    """The drafting op's arguments a declared call binds to (None values left out), or None where it cannot bind."""
    try:
        bound = bind_arguments(bind, arguments)
    except (ToolError, ValueError, TypeError):
        return None
    return {k: v for k, v in bound.items() if k in take and v is not None}


def as_op(catalog: Mapping[str, ToolDef], call: ToolCallSpec) -> tuple[str, dict[str, Any]]:
    """The op a call runs and its op arguments (a declared tool's carried through its binding; none where they do
    not bind; `catalog` the spec's `spec_catalog`)."""
    tool = catalog.get(call.name)
    if not isinstance(tool, DeclaredTool):
        return call.name, dict(call.arguments)
    return tool.op, bound_message(tool.decl.bind, dict(call.arguments), set(tool.bound.params.model_fields)) or {}


def op_params(tool: ToolDef) -> dict[str, str]:
    """Declared argument -> the op parameter it fills, for each argument of a declared tool that fills one (a
    `reply_to_message_id` bound to `in_reply_to`); empty for a built-in tool, whose arguments are its op's own."""
    if not isinstance(tool, DeclaredTool):
        return {}
    bind = tool.decl.bind
    return {name: arg.to for name in bind.args if (arg := bind.arg(name)) is not None and arg.to is not None}


def declared_arguments(bind: Binding, message: dict[str, Any]) -> dict[str, Any]:
    """Arguments of a declared tool that carry `message` (op arguments) through its renames and conversions: each
    op parameter from the declared argument renamed to it, its value written back as the conversions read it (a
    list as the comma list a `split` reads, a lone item as the item a `to_list` wraps)."""
    out: dict[str, Any] = {}
    for name in bind.args:
        arg = bind.arg(name)
        if arg is None or arg.to not in message or arg.values or name in out:
            continue
        value = message[arg.to]
        forms = [value, ", ".join(map(str, value)), value[0] if len(value) == 1 else None] \
            if isinstance(value, list) else [value]
        for form in forms:
            try:
                back = form
                for conversion in arg.convert:
                    back = convert(back, conversion)
            except (ToolError, ValueError, TypeError):
                continue
            if back == value:
                out[name] = form
                break
    return out


def _key(call: ToolCallSpec) -> bytes:
    return orjson.dumps([call.name, call.arguments], option=orjson.OPT_SORT_KEYS)


@dataclasses.dataclass(frozen=True)
class Builtin:
    """A spec seen through its bindings (see the module docstring): `spec` is the view, `made` the declared call each
    of its op calls stands for."""

    original: EnvSpec
    spec: EnvSpec
    made: dict[bytes, ToolCallSpec]

    def back(self, mutation: Mutation) -> Mutation | None:
        """`mutation` of the view written back through the bindings; None where a call cannot be."""
        turns = self.reference_back(mutation.reference)
        return None if turns is None else dataclasses.replace(mutation, reference=turns)

    def reference_back(self, reference: list[ReferenceTurn]) -> list[ReferenceTurn] | None:
        """A reference of the view written back through the bindings; None where a call cannot be."""
        turns = []
        for turn in reference:
            steps = []
            for step in turn.steps:
                call = self._declared(step.call) if step.call is not None else None
                if step.call is not None and call is None:
                    return None
                steps.append(step if call is None or call is step.call else step.model_copy(update={"call": call}))
            turns.append(turn.model_copy(update={"steps": steps}))
        return turns

    def call(self, turn: int, step: int) -> ToolCallSpec | None:
        """The call of the view's reference at (turn, step): a declared write as the op call it runs."""
        return self.spec.reference[turn].steps[step].call

    def _declared(self, call: ToolCallSpec) -> ToolCallSpec | None:
        if call.name not in TOOLS or (call.name in self.original.tools and
                                      all(d.name != call.name for d in self.original.tool_decls)):
            return call
        made = self.made.get(_key(call))
        if made is not None:
            return made
        return next((c for decl in self.original.tool_decls if (c := _carried(decl, call)) is not None), None)

    def through(self, call: ToolCallSpec, name: str) -> ToolCallSpec | None:
        """The op call `call` made through the declared tool `name`; None where that tool cannot carry it."""
        return declared_call(self.original, call, name)


def declared_call(spec: EnvSpec, call: ToolCallSpec, name: str) -> ToolCallSpec | None:
    """The op call `call` made through `spec`'s declared tool `name`; None where that tool cannot carry it."""
    return next((c for decl in spec.tool_decls if decl.name == name and (c := _carried(decl, call)) is not None), None)


def made_through(spec: EnvSpec, catalog: Mapping[str, ToolDef], op: str, arguments: dict[str, Any],
                 name: str) -> ToolCallSpec | None:
    """The call of `name` (the op itself, or a tool `spec` declares bound to `op`; `catalog` its `spec_catalog`)
    that runs `op` with `arguments`; None where the declared tool cannot carry them."""
    if not isinstance(catalog.get(name), DeclaredTool):
        return ToolCallSpec(name=name, arguments=arguments)
    return declared_call(spec, ToolCallSpec(name=op, arguments=arguments), name)


def _carried(decl: ToolDecl, call: ToolCallSpec) -> ToolCallSpec | None:
    """The call of the declared tool `decl` that makes the op call `call` exactly; None where it cannot."""
    if decl.bind.op != call.name or decl.bind.unserved is not None:
        return None
    want = {k: v for k, v in call.arguments.items() if v is not None}
    take = set(TOOLS[call.name].params.model_fields)
    arguments = declared_arguments(decl.bind, want)
    for name in decl.bind.args:  # a value map read backwards (`pending` for the op's `not_started`)
        arg = decl.bind.arg(name)
        if arg is not None and arg.values and arg.to in want and name not in arguments:
            told = next((k for k, v in arg.values.items() if v == want[arg.to]), None)
            if told is not None:
                arguments[name] = told
    if bound_message(decl.bind, arguments, take) == want:
        return ToolCallSpec(name=decl.name, arguments=arguments)
    return None


def as_builtin(spec: EnvSpec, matchers: bool = False) -> Builtin | None:
    """The spec with each declared write its reference calls as the op call it binds to, and every op a declared
    tool is bound to given by name (with `matchers`, its call matchers on declared writes on their ops: see the module
    docstring); None where the spec declares no write (nothing to see)."""
    decls = {d.name: d for d in spec.tool_decls if d.bind.op in TOOLS and d.bind.unserved is None
             and TOOLS[d.bind.op].kind == "write"}
    if matchers:  # only a declared tool that is its op renamed (see the module docstring); any other kept as it is
        builtin = set(spec.tools) - {d.name for d in spec.tool_decls}
        decls = {name: d for name, d in decls.items() if d.bind.op not in builtin and not d.bind.defaults
                 and not d.bind.windows and set(TOOLS[d.bind.op].params.model_fields) <= set(_plain_renames(d.bind).values())}
    if not decls:
        return None
    made: dict[bytes, ToolCallSpec] = {}
    turns = []
    for turn in spec.reference:
        steps = []
        for step in turn.steps:
            decl = decls.get(step.call.name) if step.call is not None else None
            if step.call is None or decl is None:  # a read (or a built-in call) kept as the reference makes it
                if step.call is not None:
                    made.setdefault(_key(step.call), step.call)
                steps.append(step)
                continue
            try:
                op = ToolCallSpec(name=decl.bind.op, arguments=bind_arguments(decl.bind, step.call.arguments))
            except (ToolError, ValueError, TypeError):
                made.setdefault(_key(step.call), step.call)
                steps.append(step)
                continue
            made.setdefault(_key(op), step.call)
            steps.append(step.model_copy(update={"call": op}))
        turns.append(turn.model_copy(update={"steps": steps}))
    tools = [*spec.tools, *sorted({d.bind.op for d in decls.values()} - set(spec.tools))]
    update: dict[str, Any] = {"reference": turns, "tools": tools}
    if matchers:
        renames = {name: (d.bind.op, _plain_renames(d.bind)) for name, d in decls.items()}
        dumped = {k: _on_ops(getattr(spec, k).model_dump(mode="json", by_alias=True) if k == "dynamics" else
                             [x.model_dump(mode="json", by_alias=True) for x in getattr(spec, k)], renames)
                  for k in ("checks", "dynamics", "turns")}
        update |= {"tool_decls": [d for d in spec.tool_decls if d.name not in decls],  # each stands as its op
                   "checks": [Check.model_validate(c) for c in dumped["checks"]],
                   "dynamics": Dynamics.model_validate(dumped["dynamics"]),
                   "turns": [UserTurn.model_validate(t) for t in dumped["turns"]]}
    return Builtin(spec, spec.model_copy(update=update), made)


def _plain_renames(bind: Binding) -> dict[str, str]:
    """Declared argument -> the op parameter it fills unchanged (no conversion, value map or blank rule, and no
    other argument filling it)."""
    filled: dict[str, int] = {}
    for name in bind.args:
        arg = bind.arg(name)
        if arg is not None and arg.to is not None:
            filled[arg.to] = filled.get(arg.to, 0) + 1
    out = {}
    for name in bind.args:
        arg = bind.arg(name)
        if arg is not None and arg.to is not None and filled[arg.to] == 1 and not arg.convert and not arg.values \
                and not arg.blank and arg.strict_day is None and arg.unmapped_to is None:
            out[name] = arg.to
    return out


def _on_ops(node: Any, renames: dict[str, tuple[str, dict[str, str]]]) -> Any:
    """`node` (a dumped part of a spec) with every call matcher on a declared tool on its op instead."""
    if isinstance(node, list):
        return [_on_ops(v, renames) for v in node]
    if not isinstance(node, dict):
        return node
    tool = node.get("tool")
    if isinstance(tool, str) and tool in renames and set(node) <= {"tool", "args", "where"}:
        op, plain = renames[tool]
        args = {plain[k]: v for k, v in (node.get("args") or {}).items() if k in plain}
        where = [{**c, "field": ".".join([plain[head], *rest])} for c in node.get("where") or []
                 for head, *rest in [str(c.get("field", "")).split(".")] if head in plain]
        return {"tool": op, "args": args, "where": where}
    return {k: _on_ops(v, renames) for k, v in node.items()}
