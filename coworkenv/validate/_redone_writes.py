"""A write checked only by its call: the right call made, then the same write made again with another value.

A completion `called` or `order` check reads the audit: the call with the asked arguments happened. Where no check
reads the record the write changes (its state check moved onto the message that reports it, `chat text contains
4.16.2`, or dropped as redundant with the call checks), an agent that makes the right call and then the same write
again with another value (`services_deploy 4.16.2`, then `4.16.1`) passes every check, and the record ends wrong.
The in-place near miss (`change_arg`) is caught by the call checks themselves, so nothing tried the redone write
(found by the outsider hunt, `benchmarks/hunt_mutants.py --family d123` kind `msg_for_record`: adapt_silent_change,
the deployed release's check as the announcement mentioning it, witnessed by a later deploy of another release).

`redone_write_mutations` adds, for each write of an existing record (not one that makes a record or a message) that a
completion call check matches, the write made once more right after it with one argument changed: a release a patch
down, then the other values the in-place near misses give the arguments but those naming records (an id, a list of
ids), in their order, at most `_PER_WRITE` per write (one up and one down, where the one up is the value a guard
forbids); not where a later write of the reference names the same record with the same tool (that one decides what
the record holds at the end). A survivor is reported `redone_write_unchecked`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from coworkenv.checks import call_matches
from coworkenv.spec import CalledRule, EnvSpec, OrderRule, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, turn_of

_PER_WRITE = 2
_VERSION = re.compile(r"v?\d+(\.\d+){1,3}")
_MAKES = re.compile(r"(^|_)(create|add|send|post|save|reply|forward|comment|write|upload|book|invite)(_|$)")

ArgMutations = Callable[[ToolCallSpec, ToolDef], Iterable[tuple[str, str, dict[str, Any], str, bool]]]


def _patch_down(value: Any) -> str | None:
    if not isinstance(value, str) or not _VERSION.fullmatch(value):
        return None
    head, last = value.rsplit(".", 1)
    return f"{head}.{int(last) - 1}" if int(last) > 0 else None


def _call_checked(spec: EnvSpec, call: ToolCallSpec) -> bool:
    """Whether a completion `called` or `order` check matches the call (by its tool and arguments)."""
    for _, check, _, rule in spec_rules(spec.checks):
        if check.is_guard:
            continue
        matchers = [rule.call] if isinstance(rule, CalledRule) else [rule.first, rule.then] \
            if isinstance(rule, OrderRule) else []
        if any(m.tool == call.name and call_matches(m, call.name, call.arguments) for m in matchers):
            return True
    return False


def _redos(call: ToolCallSpec, tool: ToolDef, arg_mutations: ArgMutations, ids: set[str]
           ) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, value in call.arguments.items():
        if (down := _patch_down(value)) is not None:
            yield f"{name} {value!r} -> {down!r} (a patch down)", {**call.arguments, name: down}
    for kind, arg, new, what, core in arg_mutations(call, tool):
        value = call.arguments.get(re.split(r"[.\[]", arg)[0])
        if core and kind in ("change_arg", "time_shift") and not _names_record(value, ids):
            yield what, new


def _names_record(value: Any, ids: set[str]) -> bool:
    """Whether an argument names a record (an id, or a list holding one): another value is another record's write."""
    items = value if isinstance(value, list | tuple) else [value]
    return any(isinstance(v, str) and v in ids for v in items)


def redone_write_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]],
                           tools: Mapping[str, ToolDef], arg_mutations: ArgMutations, ids: set[str]
                           ) -> list[Mutation]:
    """The redone-write near misses of `spec.reference` (see the module docstring); `ids`: the ids of the world's
    records (an argument naming the record is not changed: that is another record's write)."""
    out: list[Mutation] = []
    for k, (t, s, call) in enumerate(writes):
        tool = tools[call.name]
        if _MAKES.search(tool.op) or not _call_checked(spec, call):
            continue
        named = {v for v in call.arguments.values() if isinstance(v, str) and v in ids}
        if any(c.name == call.name and all(v in c.arguments.values() for v in named) for _, _, c in writes[k + 1:]):
            continue  # a later write of the same record decides what it holds at the end
        for what, new in list(_redos(call, tool, arg_mutations, ids))[:_PER_WRITE]:
            steps = list(spec.reference[t].steps)
            steps.insert(s + 1, ReferenceStep(call=ToolCallSpec(name=call.name, arguments=new)))
            where = f"reference[{t}].steps[{s}]"
            out.append(Mutation("change_arg", where, f"{call.name} at {where} made again after it with {what}: the "
                                "call checks see the right call, and no check reads the record it leaves",
                                [*spec.reference[:t], turn_of(steps), *spec.reference[t + 1:]],
                                code="redone_write_unchecked"))
    return out
