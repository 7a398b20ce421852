"""Wrong routes to a state: the task's record deleted or cancelled instead of changed.

A check written as "the old state is gone" (no enabled failing job, no open to-do for the request, no confirmed
meeting in the old slot) is also met by destroying the record. For each reference write, the app's destructive
tools the agent is given (`*_delete_*`, `*_cancel_*`) that take the same record argument are called on it
instead; a sound verifier fails that mutant (a check that the record still exists with its new value, or a
guard on the destructive call).

A check written as "the record is no longer in its old state" is also met by another tool of the app acting on
the same record (`mail_move` for `mail_label`, `tickets_update(status=...)` for `tickets_comment`). From the tool
catalogue: each exposed write tool of the app (not a creating one) whose first required argument names, by the
same name or its singular/plural, a record of the app the reference write's first required argument names; its
other required arguments are filled from the reference call's arguments of the same name, from an enum or
bool, a number from the call's own number (taken away, then added: `inventory_adjust` for `inventory_transfer`), or
free text from the call's own text or a stand-in (a reason, a comment: `tickets_comment` for `tickets_update`); a
tool that would set nothing else, given a made-up label or tag (`mail_label` with `add: ["handled"]` for
`mail_move`). A tool with enum or bool arguments is tried with each of the last two values of its first such argument
(status and folder enums list their end states last); a record named in a list is acted on one call each.
"""

from __future__ import annotations

import re
import types
import typing
from collections.abc import Iterator, Mapping
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.bindings import exposed_tools
from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._declared_calls import as_op, made_through
from coworkenv.validate._mutation_core import Mutation, replaced, turn_of
from coworkenv.validate._pinned_wording import FREE_TEXT
from coworkenv.validate.entities import EntityIndex

_DESTROYS = re.compile(r"(^|_)(delete|cancel)(_|$)")
_CREATES = re.compile(r"(^|_)(create|add|send|post|save|submit|publish|notify|export)(_|$)")
_SIBLING_VALUES = 2  # values tried of a sibling tool's first enum or bool argument (each costs an episode)


def wrong_route_mutations(spec: EnvSpec, tools: Mapping[str, ToolDef],
                          writes: list[tuple[int, int, ToolCallSpec]],
                          index: EntityIndex | None = None) -> Iterator[Mutation]:
    """Each reference write replaced by an exposed destructive tool of its app on the same record, and (given the
    world's index) by each other exposed write tool of the app acting on that record."""
    exposed = [tools[n] for n in exposed_tools(spec) if n in tools]
    if index is not None:
        yield from _sibling_routes(spec, tools, writes, exposed, index)
    for t, s, call in writes:
        tool = tools[call.name]
        if _DESTROYS.search(tool.method) or _DESTROYS.search(tool.op):
            continue
        op_call = _op_call(tools, call)
        for other in exposed:
            if other.app != tool.app or other.kind != "write" or not (
                    _DESTROYS.search(other.method) or _DESTROYS.search(other.op)):
                continue
            fields = TOOLS[other.op].params.model_fields  # by the ops' parameters (a declared `id` is a `job_id`)
            required = [n for n, f in fields.items() if f.is_required()]
            if not required or not all(n in op_call.arguments for n in required):
                continue
            made = _made(spec, tools, other, {n: op_call.arguments[n] for n in fields if n in op_call.arguments})
            if made is None:
                continue
            where = f"reference[{t}].steps[{s}]"
            step = ReferenceStep(call=made)
            yield Mutation("wrong_route", where, f"{other.name} {made.arguments} instead of {call.name} at {where}",
                           replaced(spec.reference, t, s, step), code="wrong_route", targets=(other.name,))


def _op_call(tools: Mapping[str, ToolDef], call: ToolCallSpec) -> ToolCallSpec:
    """The op call `call` runs (a declared tool's arguments through its binding: `id` as the op's `job_id`)."""
    op, args = as_op(tools, call)
    return ToolCallSpec(name=op, arguments=args)


def _made(spec: EnvSpec, tools: Mapping[str, ToolDef], other: ToolDef, args: dict[str, Any]) -> ToolCallSpec | None:
    """The call of `other` that runs its op with `args` (in a declared tool's own words); None where the op refuses
    them or `other` cannot carry them."""
    try:
        TOOLS[other.op].params.model_validate(args)
    except Exception:
        return None
    return made_through(spec, tools, other.op, args, other.name)


def _first_required(tool: ToolDef) -> str | None:
    return next((n for n, f in tool.params.model_fields.items() if f.is_required()), None)


def _choices(annotation: Any) -> list[Any] | None:
    """The values of an enum or bool argument (None for any other type)."""
    if annotation is bool:
        return [True, False]
    for arg in (annotation, *typing.get_args(annotation)):
        if typing.get_origin(arg) is typing.Literal:
            return list(typing.get_args(arg))
        if arg is bool:
            return [True, False]
    return None


def _record_values(call: ToolCallSpec, tool: ToolDef, other: ToolDef) -> tuple[str, list[str]] | None:
    """The sibling's record argument and the records the reference call names with its own."""
    mine, theirs = _first_required(tool), _first_required(other)
    if mine is None or theirs is None or mine.rstrip("s") != theirs.rstrip("s"):
        return None
    value = call.arguments.get(mine)
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, str) for v in values):
        return None
    return theirs, [str(v) for v in values]


def _sibling_args(call: ToolCallSpec, other: ToolDef, record_arg: str) -> list[dict[str, Any]] | None:
    """Argument sets (without the record) for the sibling: required ones from the call or an enum/bool, and
    the last values of its first enum or bool argument; None when a required argument cannot be filled."""
    fixed: dict[str, Any] = {}
    varied: tuple[str, list[Any]] | None = None
    for name, field in other.params.model_fields.items():
        if name == record_arg:
            continue
        choices = _choices(field.annotation)
        if name in call.arguments and field.is_required():
            fixed[name] = call.arguments[name]
        elif choices is not None and varied is None:
            varied = (name, choices[-_SIBLING_VALUES:][::-1])
        elif field.is_required() and choices is not None:
            fixed[name] = choices[-1]
        elif field.is_required():
            filled = _filled(call, name, field.annotation)
            if filled is None:
                return None
            if len(filled) > 1 and varied is None:
                varied = (name, filled)
            else:
                fixed[name] = filled[0]
    if varied is None and not fixed:  # a call setting nothing changes nothing, unless given a made-up label
        label = next((n for n, f in other.params.model_fields.items() if n in _LABEL_ARGS and
                      typing.get_origin(_optional(f.annotation)) is list), None)
        if label is not None:
            return [{label: [_STAND_IN_LABEL]}]
    if varied is None:
        return [fixed] if fixed or len(other.params.model_fields) == 1 else None
    return [{**fixed, varied[0]: v} for v in varied[1]]


# Arguments that take words the agent makes up (labels, tags): any one word is accepted, so one is invented.
_LABEL_ARGS = frozenset({"add", "labels", "tags"})
_STAND_IN_LABEL = "handled"


def _optional(annotation: Any) -> Any:
    """`X` of `X | None` (the annotation itself otherwise)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return args[0] if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1 else annotation


_STAND_IN = "done as asked"  # a free-text argument (a reason, a comment) no check of a right solution reads


def _filled(call: ToolCallSpec, name: str, annotation: Any) -> list[Any] | None:
    """Values for a required argument of a sibling that the reference call does not share: a number from the call's
    own numbers (taken away first, then added: the units moved, written off), free text (a reason, a comment body:
    `FREE_TEXT`) from the call's own text (a value with a space in it) or a stand-in; None for anything else."""
    if annotation is int:
        numbers = [v for v in call.arguments.values() if isinstance(v, int) and not isinstance(v, bool) and v]
        return [-abs(numbers[0]), abs(numbers[0])] if numbers else None
    if annotation is str and name in FREE_TEXT:
        text = [v for v in call.arguments.values() if isinstance(v, str) and " " in v.strip()]
        return [text[0] if text else _STAND_IN]
    return None  # a name, version or key: a made-up one is refused, so the episode would prove nothing


def _sibling_routes(spec: EnvSpec, tools: Mapping[str, ToolDef], writes: list[tuple[int, int, ToolCallSpec]],
                    exposed: list[ToolDef], index: EntityIndex) -> Iterator[Mutation]:
    for t, s, call in writes:
        tool = tools[call.name]
        if _DESTROYS.search(tool.op) or _CREATES.search(tool.method):
            continue
        # by the ops' parameters (a declared tool's `id` pairs with a built-in `job_id`), each call made back through
        # the tool the agent is given (a declared one in its own words)
        op_call = _op_call(tools, call)
        for other in exposed:
            if other.name == tool.name or other.app != tool.app or other.kind != "write" or \
                    _DESTROYS.search(other.op) or _CREATES.search(other.method):
                continue
            theirs = TOOLS[other.op]
            named = _record_values(op_call, TOOLS[tool.op], theirs)
            if named is None or not all(index.table_of.get(v, ("",))[0] == tool.app for v in named[1]):
                continue
            record_arg, records = named
            plural = typing.get_origin(theirs.params.model_fields[record_arg].annotation) is list
            for extra in _sibling_args(op_call, theirs, record_arg) or []:
                calls = [{record_arg: records, **extra}] if plural else [{record_arg: r, **extra} for r in records]
                made = [_made(spec, tools, other, a) for a in calls]
                if any(m is None for m in made):
                    continue
                steps = [ReferenceStep(call=m) for m in made if m is not None]
                where = f"reference[{t}].steps[{s}]"
                turn = list(spec.reference[t].steps)
                turn[s:s + 1] = steps
                reference = [*spec.reference[:t], turn_of(turn), *spec.reference[t + 1:]]
                yield Mutation("wrong_route", where, f"{other.name} {[m.arguments for m in made if m is not None]} "
                               f"instead of {call.name} at {where}", reference, code="wrong_route",
                               targets=(other.name,))
