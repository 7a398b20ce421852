"""Like writes, one of them unchecked: the reference makes the same write on several records (pauses two jobs,
`scheduler_update_job` with `enabled: false` on `job-842` and on `job-843`; labels two mails; restocks two items by
the same amount), and the checks read what some of them change but not one. Dropping that one fails no check and
nothing concerns what it changes, so it looked incidental and the strict policy trimmed it from the reference: the
spec shipped passing an agent that pauses one failing job of two (the outsider's sixth hunt, `check.drop` of one
job's check on scheduler_pause_failing_jobs 1).

A write the task makes alike on another record, where that other write is checked, is part of the task: the same
call with the same arguments but the record is no side effect of it. Only a write whose drop some check notices
(a killed `drop_write`) stands for the task; two like writes neither of which is checked stay incidental.
"""

from __future__ import annotations

from collections.abc import Iterable

from coworkenv.bindings import spec_catalog
from coworkenv.env import base_world
from coworkenv.spec import EnvSpec, ToolCallSpec
from coworkenv.tools import ToolDef
from coworkenv.validate.gates import GateError
from coworkenv.validate.mutations import step_of
from coworkenv.world import World


def _alike(a: ToolCallSpec, b: ToolCallSpec, tool: ToolDef | None, world: World) -> str | None:
    """The argument naming the record where `a` and `b` are one write on two records (the same tool and arguments
    but one, naming a record of one table of the tool's app in both); None otherwise (two assignees of one ticket,
    `in_progress` then `resolved`: two steps on one record, the first of which a later one may overwrite)."""
    if tool is None or a.name != b.name or set(a.arguments) != set(b.arguments):
        return None
    differ = [k for k in a.arguments if a.arguments[k] != b.arguments[k]]
    if len(differ) != 1:
        return None
    x, y = a.arguments[differ[0]], b.arguments[differ[0]]
    if not (isinstance(x, str) and isinstance(y, str)):
        return None
    same = any(tb.app == tool.app and tb.get(x) is not None and tb.get(y) is not None for tb in world.tables())
    return differ[0] if same else None


def like_writes_unchecked(spec: EnvSpec, incidental: list[str], killed: Iterable[str]) -> list[GateError]:
    """An error for each incidental write (a path of `incidental`) made alike on another record by a write whose drop
    fails a check (a path of `killed`)."""
    def call_at(path: str) -> ToolCallSpec | None:
        t, s = step_of(path)
        return spec.reference[t].steps[s].call

    checked = [(p, c) for p in killed if (c := call_at(p)) is not None]
    if not incidental or not checked:
        return []
    tools, world = spec_catalog(spec), base_world(spec)
    out = []
    for path in incidental:
        call = call_at(path)
        if call is None:
            continue
        for _, other in checked:
            arg = _alike(call, other, tools.get(call.name), world)
            if arg is None:
                continue
            out.append(GateError(
                "mutations", "like_write_unchecked", path,
                f"dropping {call.name} ({arg} {call.arguments[arg]!r}) passes every required check, while the same "
                f"write on {other.arguments[arg]!r} is checked: the task makes it on both records, so check what it "
                "changes on each"))
            break
    return out
