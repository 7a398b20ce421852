"""Acting a turn late: a turn's result that the world puts back between the user's turns, checked only at the end.

In a task of several turns the world may undo what the agent did in one turn before the next comes: a reconciler
rolls the bad release out again, a bot re-applies the bad config, and the user's next turn asks to fix it again. The
state checks read the final state, where the second fix hides the first; only a check on the first turn's result (a
`called` check wanting the fix twice, a stamp, a trace the world leaves) tells the agent that fixed the problem when
asked from the one that only said so and did the work once, after the user came back. An agent that skips the first
turn's writes and makes them at the start of the next turn, once, passes a spec without such a check.

A later turn `u` puts back a turn `t`'s result where one of its `changes` sets a field of a record that a write of
turn t names among its arguments, and that the reference's replay up to the end of turn t left changed from the
initial world's value, to another value again (the service `degraded` again, the release the initial world ran, or a
newer bad config version). `late_turns` yields, for each such pair, the reference with turn t's writes taken
out of turn t and made at the start of turn u (after the world's change), with turn u's writes that repeat one of
them (same tool, same arguments) left out: the work done once, a turn late. The mutations gate reports
`acts_late` when that replay still passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from coworkenv.agents import OraclePolicy
from coworkenv.checks import MISSING, resolve
from coworkenv.env import Env
from coworkenv.rollout import run_episode
from coworkenv.spec import EnvSpec, FieldRef, PutRecord, ReferenceStep, ReferenceTurn, UpdateRecord
from coworkenv.validate._mutation_core import turn_of
from coworkenv.validate.entities import leaves
from coworkenv.validate.mutations import is_write

_MISSING = object()


@dataclass(frozen=True)
class LateTurn:
    """The reference with one turn's writes made at the start of a later turn that puts their result back."""

    path: str
    description: str
    reference: list[ReferenceTurn]


def late_turns(spec: EnvSpec) -> Iterator[LateTurn]:
    """For each turn t whose result the next turn's changes put back (`_put_back`), the reference with turn t's
    writes made once at the start of turn t+1 instead."""
    reference = spec.reference
    for t in range(min(len(reference), len(spec.turns)) - 1):
        steps = reference[t].steps
        writes = [j for j, step in enumerate(steps) if _writes(spec, step)]
        if not writes:
            continue
        put_back = _put_back(spec, t + 1, [steps[j] for j in writes])
        if put_back is None:
            continue
        moved = [steps[j] for j in writes]
        keys = {_key(step) for step in moved}
        later = [step for step in reference[t + 1].steps if not (_writes(spec, step) and _key(step) in keys)]
        rest = turn_of([step for j, step in enumerate(steps) if j not in writes])
        names = ", ".join(step.call.name for step in moved if step.call is not None)
        yield LateTurn(f"reference[{t}].steps[{writes[0]}]",
                       f"{names} made once, at the start of turn {t + 1} instead of in turn {t} (the world "
                       f"overwrites {put_back} before turn {t + 1})",
                       [*reference[:t], rest, turn_of([*moved, *later]), *reference[t + 2:]])


def _put_back(spec: EnvSpec, u: int, writes: list[ReferenceStep]) -> str | None:
    """The field (`app.table id field`) that turn u's changes set to another value than the reference left it at the
    end of turn u-1, where turn u-1 changed it from the initial world's value on a record one of `writes` names (the
    world undoing the turn's result); None where turn u overwrites nothing of theirs. One replay, up to turn u-1's
    end, only where turn u changes a record those writes name."""
    named = {str(v) for step in writes if step.call is not None for v in leaves(step.call.arguments)}
    sets: list[tuple[str, str, str, dict[str, Any]]] = []
    for change in spec.turns[u].changes:
        if isinstance(change, UpdateRecord):
            sets.append((change.app, change.table, change.id, change.set))
        elif isinstance(change, PutRecord) and str(change.record.get("id")) in named:
            sets.append((change.app, change.table, str(change.record["id"]), change.record))
    sets = [s for s in sets if s[2] in named]
    if not sets:
        return None
    ended = _turn_end(spec, u - 1)
    if ended is None:
        return None
    for app, table, record_id, values in sets:
        record = _initial_record(spec, app, table, record_id)
        for field, value in values.items():
            if field == "id":
                continue
            then = resolve(ended, FieldRef(app=app, table=table, id=record_id, field=field))
            before = _MISSING if record is None else getattr(record, field, _MISSING)
            if then is not MISSING and then != before and then != value:
                return f"{app}.{table} {record_id} {field}"
    return None


def _turn_end(spec: EnvSpec, t: int) -> Any:
    """The world the reference leaves at the end of turn t (None where it cannot run: the oracle gate's to report)."""
    cut = spec.model_copy(update={"turns": spec.turns[:t + 1], "reference": spec.reference[:t + 1]})
    env = Env(cut)
    try:
        run_episode(env, OraclePolicy(cut))
    except Exception:
        return None
    return env.state


def _initial_record(spec: EnvSpec, app: str, table: str, record_id: str) -> Any:
    for rec in getattr(getattr(spec.world.apps, app, None), table, None) or []:
        if getattr(rec, "id", None) == record_id:
            return rec
    return None


def _key(step: ReferenceStep) -> tuple[str, str]:
    assert step.call is not None
    return step.call.name, repr(sorted(step.call.arguments.items()))


def _writes(spec: EnvSpec, step: ReferenceStep) -> bool:
    return step.call is not None and is_write(step.call.name, spec)
