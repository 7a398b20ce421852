"""A record the agent writes in one turn, checked for a value only a later turn brings.

The user asks in the first turn for a value put into something the agent writes (the ticket's priority in the
#incidents update, the colleague's role in a mail), and the world changes that value between the turns (someone
escalates the ticket, the colleague goes on leave). The writer's `records` check wants the message's text to contain
the final value (`text contains "priority: p1"`): the message written in the first turn with the value true then
fails, and only a reference that knew the future passes. `later_literals` (`_later_state`) judges the text checks
bound to a turn; a records check on what the agent wrote is bound to no turn, so nothing read it.

`later_record_literals` replays the reference up to the end of each turn but the last: where a records check (not a
guard's `lte`) already holds there on a record the episode made (the message written in that turn), and a `contains`
term of its conditions states the final value of a record field that the field did not hold when the turn ended
(`_moved_fields`, `_states_only_later`), the record is judged against a value that did not exist when it was written.
Only multi-turn specs with such a check pay: one replay of the whole reference and one cut after each earlier turn.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from coworkenv.checks import record_matches
from coworkenv.spec import EnvSpec, RecordsRule
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._later_state import _moved_fields, _replayed, _states_only_later


def later_record_literals(spec: EnvSpec) -> Iterator[tuple[int, int, str, str, Any, Any]]:
    """(check index, turn, term, the changed field's path, its value when turn t ended, its final value) for each
    `contains` term of a records check that holds at the end of turn t on a record made in the episode, where the
    term states a field's final value which the field did not hold when turn t ended."""
    last = min(len(spec.turns), len(spec.reference)) - 1
    if last < 1:
        return
    judged: list[tuple[int, RecordsRule, list[str]]] = []
    for i, check, _, rule in spec_rules(spec.checks):
        if isinstance(rule, RecordsRule) and rule.count_op != "lte" and check.required:
            terms = [c.value for c in rule.where if c.op == "contains" and isinstance(c.value, str) and c.value]
            if terms:
                judged.append((i, rule, terms))
    if not judged:
        return
    initial = {(app, table) : {str(getattr(r, "id", "")) for r in records}
               for app, table, records in _initial_tables(spec, {(r.app, r.table) for _, r, _ in judged})}
    final = _replayed(spec)
    if final is None:
        return
    flagged: set[int] = set()
    for turn in range(last):
        then = _replayed(spec.model_copy(update={"turns": spec.turns[:turn + 1],
                                                 "reference": spec.reference[:turn + 1]}))
        if then is None:
            continue
        moved = list(_moved_fields(then, final))
        if not moved:
            continue
        for i, rule, terms in judged:
            if i in flagged:
                continue
            old = initial.get((rule.app, rule.table), set())
            made = [r for r in then.table(rule.app, rule.table) if str(getattr(r, "id", "")) not in old]
            if not any(record_matches(r, rule) for r in made):
                continue  # not written by the end of this turn
            for path, before, after in moved:
                term = next((t for t in terms if _states_only_later(t, before, after)), None)
                if term is not None:
                    flagged.add(i)
                    yield i, turn, term, path, before, after
                    break


def _initial_tables(spec: EnvSpec, tables: set[tuple[str, str]]) -> Iterator[tuple[str, str, list[Any]]]:
    for app, table in tables:
        yield app, table, list(getattr(getattr(spec.world.apps, app, None), table, None) or [])
