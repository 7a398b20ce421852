"""The agent's pace: the world's clock moves with every call the agent makes (`tick_s`), and a log stream adds a line
every `every_s` seconds while its condition holds (an incident's errors, until the fix). A check on the records a
stream adds is pinned to the reference's pace when it wants what the reference's calls left ("at most 9 ERROR lines":
the errors stopped): an honest agent that reads the logs a few more times before it acts leaves more lines and fails,
though the task sets no deadline.

For each turn of a spec with a stream, the reference is replayed with one of its reads repeated at the start of that
turn, as many times as the slowest stream needs to add a line (`ceil(every_s / tick_s)`, at most `EXTRA_READS`). A read
that changes nothing is chosen: one whose tool names neither reading a message (which marks it read) nor a write, the
reference's first such call of a logs or services tool if it has one. Specs with a fault plan are left alone (faults
are drawn per call, so extra calls move every later fault).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from coworkenv.apps import TOOLS
from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn
from coworkenv.validate._mutation_core import turn_of
from coworkenv.validate.mutations import is_write

EXTRA_READS = 20  # extra reads per turn: ten minutes of clock at the default 30 s per call
_MARKS = ("read_message", "read_thread", "mark", "open")  # reads that change what they read


@dataclass(frozen=True)
class Paced:
    """The reference with a read repeated at the start of one turn."""

    path: str
    description: str
    reference: list[ReferenceTurn]
    tool: str | None = None  # (no tool's text is rewritten: the replay's reads are the reference's own)


def _quiet_read(spec: EnvSpec) -> ReferenceStep | None:
    """The reference's first read that changes nothing, a logs or services read first."""
    reads = [step for turn in spec.reference for step in turn.steps if step.call is not None
             and step.call.name in TOOLS and not is_write(step.call.name)
             and not any(m in step.call.name for m in _MARKS)]
    preferred = [s for s in reads if s.call is not None and TOOLS[s.call.name].app in ("logs", "services")]
    return next(iter(preferred or reads), None)


def slower_agents(spec: EnvSpec) -> Iterator[Paced]:
    """One replay per turn of a spec with a stream: the reference with a quiet read repeated at the turn's start."""
    streams = spec.dynamics.streams
    if not streams or spec.faults is not None:
        return
    read = _quiet_read(spec)
    if read is None or read.call is None:
        return
    times = min(EXTRA_READS, math.ceil(max(s.every_s for s in streams) / spec.world.tick_s))
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        if not any(step.call is not None and is_write(step.call.name) for step in turn.steps):
            continue  # a turn without a write: nothing the world's pace could change comes after it
        steps = [read] * times + list(turn.steps)
        yield Paced(f"reference[{t}].steps[0]",
                    f"the reference with {read.call.name} made {times} more times at the start of turn {t} "
                    f"({times * spec.world.tick_s} s of clock)",
                    [*spec.reference[:t], turn_of(steps), *spec.reference[t + 1:]])
