"""A made record checked only by the call that made it: the right call, then the record edited otherwise.

A completion `called` (or `order`) check reads the audit: the call with the asked arguments happened
(`calendar_create_event` with `timezone: Asia/Kolkata`). Where no check reads the record the call made, an agent that
makes it right and then edits it (`calendar_update_event` setting another time zone on the event it just made) passes
every check, and the record ends wrong: the check reads the tool's input, not the world's output. The redone-write
near misses (`_redone_writes`) leave out a write that makes a record (made again, it is another record), and the
in-place near misses are caught by the call check itself, so nothing tried the later edit (found by the outsider
hunt, `benchmarks/hunt_mutants.py --family d135` kind `state_to_call_args`: the event's time zone checked as the
create call's argument, 5 accepted mutants witnessed unsound by a later `calendar_update_event`).

`made_edits_unchecked` plays, for each write of the reference that makes a record and that a completion call check
matches, each argument that check names which the made record holds (its field of that name), where the agent is given
a write tool of the record's app taking the record's id and that field (no other argument required) and a record of
the table holds another value there: the reference with that edit made right after the write (at most `_PER_SPEC` in
all). A mutant that passes every required check is reported `made_edit_unchecked`; the fix is a state check on the
made record's field (a records check on the table with the field's value).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.bindings import exposed_tools
from coworkenv.checks import call_matches
from coworkenv.spec import CalledRule, EnvSpec, OrderRule, ReferenceStep, ToolCallSpec
from coworkenv.spec_regex import PatternRefused, PatternTimeout
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._episodes import SpecEpisodes
from coworkenv.validate._mutation_core import turn_of
from coworkenv.validate.gates import GateError

_PER_SPEC = 6  # edits played per spec: a spec makes few records that a call check matches


def made_edits_unchecked(spec: EnvSpec, episodes: SpecEpisodes) -> list[GateError]:
    """`made_edit_unchecked` errors (see the module docstring)."""
    oracle = episodes.oracle()
    if oracle.result is None or not episodes.made:
        return []
    exposed = set(exposed_tools(spec))
    errors: list[GateError] = []
    played = 0
    for (t, s), (app, table, rid) in sorted(episodes.made.items()):
        call = spec.reference[t].steps[s].call if s < len(spec.reference[t].steps) else None
        made = episodes.created_values.get((app, table, rid))
        if call is None or made is None:
            continue
        for field in _checked_fields(spec, call):
            held = made.get(field)
            if not isinstance(held, str):
                continue
            edit = _edit(spec, app, table, rid, field, held, exposed)
            if edit is None:
                continue
            if played >= _PER_SPEC:
                return errors
            played += 1
            steps = [*spec.reference[t].steps[:s + 1], ReferenceStep(call=edit), *spec.reference[t].steps[s + 1:]]
            outcome = episodes.mutant([*spec.reference[:t], turn_of(steps), *spec.reference[t + 1:]], lazy=True)
            if outcome.result is not None and outcome.passed:
                errors.append(GateError("mutations", "made_edit_unchecked", f"reference[{t}].steps[{s}]", (
                    f"{call.name} at reference[{t}].steps[{s}] makes {app}.{table}[{rid}] with {field} {held!r}, and "
                    f"a check reads that argument of the call; the record edited right after it ({edit.name} "
                    f"{edit.arguments}) still passes every required check: no check reads the record's {field}, "
                    "only the call that made it; check the made record's field (a records check on the table with "
                    f"{field} equals {held!r})")))
                break
    return errors


def _checked_fields(spec: EnvSpec, call: ToolCallSpec) -> Iterator[str]:
    """The arguments a completion `called`/`order` check matching the call names (its `args` and `where` fields)."""
    seen: set[str] = set()
    for _, check, _, rule in spec_rules(spec.checks):
        if check.is_guard:
            continue
        matchers = [rule.call] if isinstance(rule, CalledRule) else [rule.first, rule.then] \
            if isinstance(rule, OrderRule) else []
        for m in matchers:
            try:
                if m.tool != call.name or not call_matches(m, call.name, call.arguments):
                    continue
            except (PatternTimeout, PatternRefused):
                continue
            for name in [*m.args, *(c.field for c in m.where)]:
                if "." not in name and name not in seen:
                    seen.add(name)
                    yield name


def _edit(spec: EnvSpec, app: str, table: str, rid: str, field: str, held: str, exposed: set[str]
          ) -> ToolCallSpec | None:
    """The call of an exposed write tool of the app setting the record's field to another value a record of the
    table holds there, or None."""
    rows = getattr(getattr(spec.world.apps, app, None), table, None) or []
    others = [v for r in rows if isinstance(v := getattr(r, field, None), str) and v.strip().lower()
              != held.strip().lower()]
    if not others:
        return None
    for name in sorted(exposed):
        tool = TOOLS.get(name)
        if tool is None or tool.app != app or tool.kind != "write":
            continue
        params = tool.params.model_fields
        id_param = next((p for p in params if p == "id" or p.endswith("_id")), None)
        if id_param is None or field not in params or any(
                f.is_required() and p != id_param for p, f in params.items()):
            continue
        args: dict[str, Any] = {id_param: rid, field: others[0]}
        try:
            tool.params.model_validate(args)
        except ValueError:
            continue
        return ToolCallSpec(name=name, arguments=args)
    return None
