"""A written number a check's `in` list of numbers admits a distance away: the near misses at that distance.

A write passes a number the task determines (a transfer's `quantity` from the published policy, a rollback's
`to_version`), and a check on what it writes compares the result with a list of numbers instead of one
(`quantity in [21, 28]`: the shelf at 3 or 4 times its reorder level, "either reading of the policy"; the warehouse
`in [40, 33]`). The number moved one either way (`mutations._mutate_scalar`) lands between the list's values and
fails; the number that lands on the other value (22 units moved for 15: the draft proposal's level) passes, and so
does the agent that follows the draft.

So for each number a write passes (an int or a float, or an integer written as text) and each `in` list of two or
more numbers of a check on the app the tool writes (a records or field check) or on that argument of a
`called`/`order` matcher of the tool, the distances between the list's numbers are each added to and taken from the
written number (a distance of one is tried already; the sign of a positive number is kept), the nearest first, up
to `_MAX_PER_VALUE`: each must fail a check. A tool that refuses the number fails the write; one that ends where the
reference ends is an equivalent mutant (not counted). Where no such list exists, nothing is made.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from coworkenv.spec import CalledRule, EnvSpec, FieldRule, OrderRule, RecordsRule, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, replaced

_MAX_PER_VALUE = 4  # near misses per written number
_INT_TEXT = re.compile(r"-?\d{1,9}")


def listed_number_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]],
                            tools: Mapping[str, ToolDef]) -> list[Mutation]:
    """One near miss per distance an `in` list of numbers admits, moved onto a written number (see the module)."""
    lists = _number_lists(spec)
    if not lists:
        return []
    out: list[Mutation] = []
    numbers = ((t, s, call, tools[call.name].app, name, value, n) for t, s, call in writes if call.name in tools
               for name, value in call.arguments.items() if (n := _number(value)) is not None)
    for t, s, call, app, name, value, number in numbers:
        found = [(d, check_id) for key in (app, f"call:{call.name}:{name}") for d, check_id in lists.get(key, [])]
        for other, check_id in _moved(value, number, found):
            step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, name: other}))
            out.append(Mutation("change_arg", f"reference[{t}].steps[{s}].call.arguments.{name}",
                                f"{call.name}: {name} {value!r} -> {other!r}, a distance check {check_id}'s list of "
                                "numbers admits: compare the value exactly", replaced(spec.reference, t, s, step)))
    return out


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str) and _INT_TEXT.fullmatch(value):
        return float(value)
    return None


def _distances(values: Any) -> list[float]:
    """The distances (more than one) between the numbers of an `in` list of two or more numbers."""
    if not isinstance(values, list) or len(values) < 2:
        return []
    numbers = sorted({float(v) for v in values if isinstance(v, int | float) and not isinstance(v, bool)})
    if len(numbers) < 2 or len(numbers) != len(values):
        return []
    return sorted({abs(a - b) for i, a in enumerate(numbers) for b in numbers[i + 1:]} - {0.0, 1.0})


def _number_lists(spec: EnvSpec) -> dict[str, list[tuple[float, str]]]:
    """(distance, check id) by the app a records or field check reads, or `call:TOOL:ARG` for a matcher's argument."""
    out: dict[str, list[tuple[float, str]]] = {}

    def add(key: str, op: str, values: Any, check_id: str) -> None:
        if op == "in":
            out.setdefault(key, []).extend((d, check_id) for d in _distances(values))

    for _, check, _, rule in spec_rules(spec.checks):
        if isinstance(rule, RecordsRule):
            for w in rule.where:
                add(rule.app, w.op, w.value, check.id)
        elif isinstance(rule, FieldRule):
            add(rule.target.app, rule.op, rule.value, check.id)
        elif isinstance(rule, CalledRule | OrderRule):
            for m in [rule.call] if isinstance(rule, CalledRule) else [rule.first, rule.then]:
                for w in m.where:
                    add(f"call:{m.tool}:{w.field.rsplit('.', 1)[-1]}", w.op, w.value, check.id)
    return out


def _moved(value: Any, number: float, found: list[tuple[float, str]]) -> Iterator[tuple[Any, str]]:
    """(the written number moved by a listed distance, as the write passes it; the check) for the nearest few."""
    seen = {number}
    made = 0
    for d, check_id in sorted(found):
        for moved in (number + d, number - d):
            if moved in seen or (number > 0 and moved <= 0):
                continue
            seen.add(moved)
            if isinstance(value, str | int) and not moved.is_integer():
                continue  # an integer is moved by whole distances only
            if isinstance(value, str):
                yield str(int(moved)), check_id
            else:
                yield (int(moved) if isinstance(value, int) else moved), check_id
            made += 1
            if made >= _MAX_PER_VALUE:
                return
