"""Wrong routes to a state: the task's record deleted or cancelled instead of changed.

A check written as "the old state is gone" (no enabled failing job, no open to-do for the request, no confirmed
meeting in the old slot) is also met by destroying the record. For each reference write, the app's destructive
tools the agent is given (`*_delete_*`, `*_cancel_*`) that take the same record argument are called on it
instead; a sound verifier fails that mutant (a check that the record still exists with its new value, or a
guard on the destructive call).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from coworkenv.bindings import exposed_tools
from coworkenv.spec import EnvSpec, ReferenceStep, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._mutation_core import Mutation, replaced

_DESTROYS = re.compile(r"(^|_)(delete|cancel)(_|$)")


def wrong_route_mutations(spec: EnvSpec, tools: Mapping[str, ToolDef],
                          writes: list[tuple[int, int, ToolCallSpec]]) -> Iterator[Mutation]:
    """Each reference write replaced by an exposed destructive tool of its app on the same record."""
    exposed = [tools[n] for n in exposed_tools(spec) if n in tools]
    for t, s, call in writes:
        tool = tools[call.name]
        if _DESTROYS.search(tool.method) or _DESTROYS.search(call.name):
            continue
        for other in exposed:
            if other.app != tool.app or other.kind != "write" or not (
                    _DESTROYS.search(other.method) or _DESTROYS.search(other.name)):
                continue
            fields = other.params.model_fields
            required = [n for n, f in fields.items() if f.is_required()]
            if not required or not all(n in call.arguments for n in required):
                continue
            args = {n: call.arguments[n] for n in fields if n in call.arguments}
            try:
                other.params.model_validate(args)
            except Exception:
                continue
            where = f"reference[{t}].steps[{s}]"
            step = ReferenceStep(call=ToolCallSpec(name=other.name, arguments=args))
            yield Mutation("wrong_route", where, f"{other.name} {args} instead of {call.name} at {where}",
                           replaced(spec.reference, t, s, step), code="wrong_route", targets=(other.name,))
