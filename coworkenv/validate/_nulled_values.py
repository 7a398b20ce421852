"""A written value admitted "or null": a check that takes the value the task sets, or no value at all.

An author who allows for a record the tool made without the field writes the value's check as `in_reply_to in
["msg-819", null]` (a records check on the sent reply, or a call matcher's condition), or a call matcher's
`priority not_equals p4` ("not the old value", which a missing argument meets). The agent that leaves the optional
argument out, or passes it as `null`, passes: a reply sent outside the thread it answers, a ticket filed with no
service. The outsider's hunt (`--family d159`, `value_or_null`) found it accepted and witnessed on draft_only_reply,
refuse_forbidden_action, access_request_approval and inbox_triage_reply seed 2. The `emptied_values` probe writes
`""`, which `in [v, null]` refuses: no near miss of the mutation gate wrote a null.

Probed as pairs (the `_emptied_values` way): for each optional argument of a write holding a text or a number the
checks name (not the argument's own default: a tool that fills it in makes the same record), the value with its last
character changed (the control: another value) and the argument passed as `null` (the probe: the tool stores no
value, as when it is left out; a tool that refuses a null fails the probe and says nothing). Where the control fails
a check (the checks read the value) but the probe passes every check and ends in another world than the reference's
(a tool that fills the null in with the value written, an `expected_version` lock left out: the same world, nothing
admitted), the checks admit the argument left out (`null_value_admitted`, `nulled_reads`). A required argument is not probed (the tool refuses it null). At most
`_MAX_VALUES` values, the first ones.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from coworkenv.spec import EnvSpec, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate._emptied_values import _alnum
from coworkenv.validate._mutation_core import Mutation
from coworkenv.validate._padded_values import changed_pairs

if TYPE_CHECKING:  # the episodes import the mutations that import this
    from coworkenv.validate._episodes import EpisodeOutcome

NULLED_GROUP = "nulled "  # a probe pair's group: this, then the path of the argument it nulls
_MAX_VALUES = 8  # optional written values probed per spec


def _optional(tool: ToolDef, arg: str, value: Any) -> bool:
    """Whether `arg` is an optional argument of `tool` set to a value other than its default."""
    field = tool.params.model_fields.get(arg)
    return field is not None and not field.is_required() and field.default != value


def nulled_probes(spec: EnvSpec, writes: Iterable[tuple[int, int, ToolCallSpec]],
                  tools: Mapping[str, ToolDef]) -> Iterator[Mutation]:
    """For each optional text or number argument of a write whose value the checks name: the value changed in its
    last character, and the argument passed as null, as one group (`nulled_reads` judges it)."""
    named = _alnum(json.dumps([c.rule.model_dump(mode="json") for c in spec.checks]))

    def keep(tool: ToolDef, arg: str, value: Any) -> bool:
        if isinstance(value, bool) or not isinstance(value, str | int | float) or not _optional(tool, arg, value):
            return False
        text = _alnum(str(value))
        return bool(text) and text in named

    yield from changed_pairs(spec, writes, tools, keep, _MAX_VALUES, NULLED_GROUP, "null_value_admitted",
                             lambda value: ("left out (passed as null)", None))


def nulled_reads(results: Iterable[tuple[Mutation, EpisodeOutcome]], oracle: EpisodeOutcome
                 ) -> list[tuple[Mutation, str]]:
    """(probe, message) for each `nulled ` pair of `results` whose control fails a check while its probe passes every
    check and ends otherwise than the reference (a null the tool fills in as the value written, or a lock argument
    such as `expected_version` left out, makes the same world: nothing admitted)."""
    pairs: dict[str, list[tuple[Mutation, EpisodeOutcome]]] = {}
    for m, o in results:
        if m.group.startswith(NULLED_GROUP):
            pairs.setdefault(m.group, []).append((m, o))
    out: list[tuple[Mutation, str]] = []
    for pair in pairs.values():
        if len(pair) != 2:
            continue
        (control, co), (probe, po) = pair
        if co.passed or not po.passed or po.signature == oracle.signature:
            continue
        out.append((probe, f"near miss passes every required check: {probe.description}, while "
                           f"{control.description.split(': ', 1)[-1]} fails one: the checks admit the optional "
                           "argument left out beside the value the task sets (`in [v, null]`, `not_equals` the old "
                           "value, which a missing argument meets); compare the value alone"))
    return out
