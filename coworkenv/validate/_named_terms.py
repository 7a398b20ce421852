"""A record the agent makes, its text copied from a sibling record's: a check that reads the text as set at all passes.

Completion `records` checks find each record the agent makes by several conditions, one of them a term its text must
hold (`title contains "vendor shortlist"` beside `due == 15:00` and the list). A hand-written check that keeps the
other conditions and reads the term as the field being set (`title matches .`, "the to-do has a title") passes a
to-do titled for another request: the in-place near misses change numbers, codes and facts, not the words a check
names, and the duplicate's copy keeps the title, so nothing tried it (found by the outsider hunt,
`benchmarks/hunt_mutants.py --family d129` kind `cond_present`: todo_track_mail_requests' three to-dos, each
witnessed by a title cut before its request's words).

`named_term_mutations` adds, for each write that makes a record (a to-do, a ticket, a message) whose text argument
names a field some completion `records` check of that app reads with a condition, the write with that argument
copied from another write of the same tool in the reference (the sibling to-do's title). A sound spec checks each
made record's text and fails it; a survivor is reported `sibling_text_unchecked`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from coworkenv.spec import EnvSpec, RecordsRule, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, replaced

_MIN_TEXT = 3
_PER_ARG = 3  # term swaps per argument
_MAKES = re.compile(r"(^|_)(create|add|send|post|save|reply|comment|write|book|invite)(_|$)")


def _terms(spec: EnvSpec) -> dict[tuple[str, str], set[str]]:
    """(app, field) -> the terms completion records checks name there with `contains` (case folded)."""
    out: dict[tuple[str, str], set[str]] = {}
    for _, check, _, rule in spec_rules(spec.checks):
        if check.is_guard or not isinstance(rule, RecordsRule) or rule.count_op == "lte" or rule.count < 1:
            continue
        for cond in rule.where:
            values: list[Any] = cond.value if isinstance(cond.value, list) else [cond.value]
            if cond.op == "contains":
                out.setdefault((rule.app, cond.field), set()).update(
                    v.casefold() for v in values if isinstance(v, str) and len(v.strip()) >= _MIN_TEXT)
    return out


def named_term_mutations(spec: EnvSpec, writes: list[tuple[int, int, ToolCallSpec]],
                         tools: Mapping[str, ToolDef]) -> list[Mutation]:
    """The sibling-text near misses of `spec.reference` (see the module docstring)."""
    terms = _terms(spec)
    if not terms:
        return []
    out: list[Mutation] = []
    for k, (t, s, call) in enumerate(writes):
        tool = tools[call.name]
        if not _MAKES.search(tool.op):
            continue
        for arg, value in call.arguments.items():
            named = terms.get((tool.app, arg))
            if not isinstance(value, str) or len(value.strip()) < _MIN_TEXT or not named:
                continue
            held = {x for x in named if x in value.casefold()}
            # a sibling's text the checks tell apart from this one (it holds other named terms): a copy the sound
            # checks fail; texts that hold the same terms (two DMs both naming the ticket) are no such mistake
            other = next((c.arguments[arg] for j, (_, _, c) in enumerate(writes) if j != k and c.name == call.name
                          and isinstance(c.arguments.get(arg), str)
                          and {x for x in named if x in c.arguments[arg].casefold()} != held), None)
            where = f"reference[{t}].steps[{s}].call.arguments.{arg}"
            if other is not None:
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, arg: other}))
                out.append(Mutation("text_alter", where, f"{call.name}: {arg} copied from another {call.name} of "
                                    f"the reference ({other[:60]!r})", replaced(spec.reference, t, s, step),
                                    code="sibling_text_unchecked"))
            for swapped in _term_swaps(value, named, [c.arguments.get(arg) for j, (_, _, c) in enumerate(writes)
                                                      if j != k and c.name == call.name])[:_PER_ARG]:
                if swapped == other:
                    continue
                step = ReferenceStep(call=ToolCallSpec(name=call.name, arguments={**call.arguments, arg: swapped}))
                out.append(Mutation("text_alter", where, f"{call.name}: {arg} states a sibling's term where its own "
                                    f"stands ({swapped[:60]!r})", replaced(spec.reference, t, s, step),
                                    code="sibling_text_unchecked"))
    return out


def _term_swaps(value: str, named: set[str], siblings: list[Any]) -> list[str]:
    """`value` with the words where a sibling text (written alike, word for word) holds a named term it lacks
    replaced by the sibling's, one term at a time: `Fix <this page> (HTTP 301)` as `Fix <the other page> (HTTP
    301)` and as `Fix <this page> (HTTP 410)`."""
    mine, out = value.split(" "), []
    for other in siblings:
        theirs = other.split(" ") if isinstance(other, str) else []
        if len(theirs) != len(mine) or other == value:
            continue
        for term in sorted(x for x in named if x in other.casefold() and x not in value.casefold()):
            start = other.casefold().index(term)
            first = other[:start].count(" ")
            last = other[:start + len(term)].count(" ")
            if mine[first:last + 1] == theirs[first:last + 1]:
                continue
            new = " ".join([*mine[:first], *theirs[first:last + 1], *mine[last + 1:]])
            if new not in out:
                out.append(new)
    return out
