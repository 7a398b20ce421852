"""Checks that name a record the agent creates by the id the reference's run happened to give it.

Ids of new records are handed out in creation order (`World.new_id`: task-17, task-18, mv-12, chat-53), so they
belong to the run, not to the task: an honest agent that creates the same records in another order, or one
record more first (a draft, a note to itself), gets other ids and fails a check on `task-17`. A check on a new
record must find it by what the task fixes (its list, title, item, channel), a records check with conditions.
Ids the task itself names (a file path it asks for, an id in a user turn) are the task's, not the run's.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from coworkenv.spec import EnvSpec, FieldRule, RecordsRule, ReplyStatesRule
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate.episode_gates import is_guard
from coworkenv.validate.gates import GateError

_COUNTED_ID = re.compile(r"^[A-Za-z]+-\d+$")  # what `World.new_id` hands out: prefix-N


def pinned_created_ids(spec: EnvSpec, created: set[tuple[str, str, str]]) -> Iterator[GateError]:
    """A `created_id_pinned` error for each completion check that names a record the reference created by its
    counted id, where no turn or the context names that id."""
    counted = {(app, table, rid) for app, table, rid in created if _COUNTED_ID.match(rid)}
    if not counted:
        return
    said = " ".join([spec.context, *(t.content for t in spec.turns), *(t.announce or "" for t in spec.turns)]).lower()
    for i, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        if is_guard(check):
            continue
        named: list[tuple[str, str, str]] = []
        if isinstance(rule, FieldRule | ReplyStatesRule):
            ref = rule.target if isinstance(rule, FieldRule) else rule.source
            if ref.field != "id":  # stating a new record's id back (a reply naming the new ticket) is its output
                named.append((ref.app, ref.table, ref.id))
        elif isinstance(rule, RecordsRule):
            for cond in rule.where:
                values = cond.value if isinstance(cond.value, list) else [cond.value]
                if cond.field == "id" and cond.op in ("equals", "in"):
                    named += [(rule.app, rule.table, str(v)) for v in values]
        for key in named:
            if key in counted and key[2].lower() not in said:
                yield GateError("mutations", "created_id_pinned", f"checks[{i}]",
                                f"check {check.id!r} finds the new record {key[1]}/{key[2]} by the id the reference's "
                                "run gave it; an agent creating records in another order (or one more first) gets "
                                "another id and fails: find it by its fields (a records check with conditions)")
