"""Frames that allow a record the agent creates by the id the reference's run gave it, beside a selector that
admits the table's records by their values (`frame_created_id`).

Ids of new records are handed out in creation order (`World.new_id`), so a frame selector `{table: tickets, id:
TCK-105}` allows whatever record the agent makes first, not the record the task asks for. Alone it is sound: a
wrong record made first takes the id and the right one, made second, falls outside the frame. Beside a selector
admitting the table's records by their values (the records an exact count counts) it is not: the wrong record (a
P1 ticket filed by mistake) takes the id, the right P3 one is admitted by the values, and a count by the asked
values still finds one. Where a frame has both, each creating write of that app is also made first with one of its
near misses (another value, time or person), then as the reference makes it; a survivor is `frame_created_id`
(allow the new record by its values, or count every new record of the table). `created_id_pinned` is the same
numbering read by a completion check.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from coworkenv.spec import EnvSpec, FrameRule, ReferenceStep, ReferenceTurn, ToolCallSpec
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._mutation_core import Mutation, turn_of

_COUNTED_ID = re.compile(r"^[A-Za-z]+-\d+$")  # what `World.new_id` hands out: prefix-N
_KINDS = ("change_arg", "time_shift", "text_alter", "wrong_recipient")  # a record made with another value
_FIRSTS = 2  # near misses made first, per creating write


def frame_pinned_created(spec: EnvSpec, app: str) -> str | None:
    """'table/id' of a frame selector of `app` naming a counted id no turn or the context names, where the same
    frame also admits that table's records by another selector (by values, or the whole table); else None."""
    frames = [rule for _, _, _, rule in spec_rules(spec.checks) if isinstance(rule, FrameRule)]
    if not any(sel.app == app and sel.id is not None and _COUNTED_ID.match(sel.id) for f in frames for sel in f.allow):
        return None
    said = " ".join([spec.context, *(t.content for t in spec.turns), *(t.announce or "" for t in spec.turns)]).lower()
    held = spec.world.apps.model_dump_json()  # a record the world starts with is the task's, not the run's
    for rule in frames:
        for sel in rule.allow:
            if sel.app != app or sel.table is None or sel.id is None or not _COUNTED_ID.match(sel.id) \
                    or sel.id.lower() in said or f'"{sel.id}"' in held:
                continue
            if any(o.app == app and o.id is None and o.table in (None, sel.table) for o in rule.allow):
                return f"{sel.table}/{sel.id}"
    return None


def frame_created_id_mutations(reference: list[ReferenceTurn], t: int, s: int, call: ToolCallSpec, pinned: str,
                               arg_mutations: Iterable[tuple[str, str, dict[str, Any], str, bool]]) -> list[Mutation]:
    """The creating write at `reference[t].steps[s]` first made with one of its near misses from `arg_mutations`
    (`_argument_mutations`' (kind, path, arguments, what, core)), then as the reference makes it: at most `_FIRSTS`,
    one per kind first. `pinned`: the frame's selector by the reference's id ('table/id')."""
    wrong = [(kind, new, what) for kind, _, new, what, core in arg_mutations if core and kind in _KINDS]
    firsts = [w for i, w in enumerate(wrong) if w[0] not in {k for k, _, _ in wrong[:i]}]
    firsts += [w for w in wrong if w not in firsts]
    where = f"reference[{t}].steps[{s}]"
    out = []
    for kind, new, what in firsts[:_FIRSTS]:
        steps = list(reference[t].steps)
        steps.insert(s, ReferenceStep(call=ToolCallSpec(name=call.name, arguments=new)))
        out.append(Mutation("duplicate_write", where, f"{call.name} at {where} first made with {what} ({kind}), "
                            f"then right, where the frame allows {pinned} by the id the reference's run gave it: "
                            "the wrong record takes that id and stays", [*reference[:t], turn_of(steps),
                                                                          *reference[t + 1:]],
                            code="frame_created_id"))
    return out
