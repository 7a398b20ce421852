"""Declared calls seen as the built-in op calls they run, and op calls written back through a declared binding.

Validators that build calls from a built-in tool's own parameters (the harms of `task_mutations`) only know built-in
calls. `as_builtin` gives them the spec with each declared write of the reference as the op call it binds to and those
ops exposed; `through_bindings` writes each mutant's reference back: a call the spec's reference made, as it was made;
an op the agent is given by name, as it is; any other op call through a declared tool bound to that op whose arguments
carry it exactly (None where none does: the agent cannot make that call, so the mutant is dropped).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import orjson

from coworkenv.apps import TOOLS
from coworkenv.bindings import Binding, bind_arguments, convert
from coworkenv.spec import EnvSpec, ToolCallSpec
from coworkenv.tools import ToolError
from coworkenv.validate._mutation_core import Mutation


def bound_message(bind: Binding, arguments: dict[str, Any], take: set[str]) -> dict[str, Any] | None:
    """The drafting op's arguments a declared call binds to (None values left out), or None where it cannot bind."""
    try:
        bound = bind_arguments(bind, arguments)
    except (ToolError, ValueError, TypeError):
        return None
    return {k: v for k, v in bound.items() if k in take and v is not None}


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
        turns = []
        for turn in mutation.reference:
            steps = []
            for step in turn.steps:
                call = self._declared(step.call) if step.call is not None else None
                if step.call is not None and call is None:
                    return None
                steps.append(step if call is None or call is step.call else step.model_copy(update={"call": call}))
            turns.append(turn.model_copy(update={"steps": steps}))
        return dataclasses.replace(mutation, reference=turns)

    def _declared(self, call: ToolCallSpec) -> ToolCallSpec | None:
        if call.name not in TOOLS or (call.name in self.original.tools and
                                      all(d.name != call.name for d in self.original.tool_decls)):
            return call
        made = self.made.get(_key(call))
        if made is not None:
            return made
        want = {k: v for k, v in call.arguments.items() if v is not None}
        take = set(TOOLS[call.name].params.model_fields)
        for decl in self.original.tool_decls:
            if decl.bind.op != call.name or decl.bind.unserved is not None:
                continue
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


def as_builtin(spec: EnvSpec) -> Builtin | None:
    """The spec with each declared write its reference calls as the op call it binds to, and every op a declared
    tool is bound to given by name; None where the spec declares no write (nothing to see)."""
    decls = {d.name: d for d in spec.tool_decls if d.bind.op in TOOLS and d.bind.unserved is None
             and TOOLS[d.bind.op].kind == "write"}
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
    return Builtin(spec, spec.model_copy(update={"reference": turns, "tools": tools}), made)
