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

The world's jobs move with the clock too: a rule due at a set time, or a delayed effect of an action rule, can undo
the agent's fix a minute after the reference is done (the reconciler rolls the config back), so an honest agent that
checks its work a few more times after the fix fails, though the reference passes. For a spec with such a rule, each
turn with a write is also replayed with the quiet read repeated `EXTRA_READS` times right after the turn's last write:
the fix made, the clock moved ten minutes on before the turn's remaining calls and its reply.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from coworkenv.apps import TOOLS
from coworkenv.spec import AtTime, EnvSpec, ReferenceStep, ReferenceTurn
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
    # Check kinds whose failure this replay does not count: a frame fails on any log line a job writes on the clock
    # (the world's own line, not the agent's change; a separate hole), so a job's replay judges the other checks.
    uncounted: frozenset[str] = frozenset()


def _quiet_read(spec: EnvSpec) -> ReferenceStep | None:
    """The reference's first read that changes nothing, a logs or services read first."""
    reads = [step for turn in spec.reference for step in turn.steps if step.call is not None
             and step.call.name in TOOLS and not is_write(step.call.name)
             and not any(m in step.call.name for m in _MARKS)]
    preferred = [s for s in reads if s.call is not None and TOOLS[s.call.name].app in ("logs", "services")]
    return next(iter(preferred or reads), None)


def _clock_jobs(spec: EnvSpec) -> bool:
    """Whether the world changes on the clock by a rule: one due at a set time, or an action rule's delayed effect."""
    return any(isinstance(r.on, AtTime) or r.delay_s for r in spec.dynamics.rules)


def slower_agents(spec: EnvSpec) -> Iterator[Paced]:
    """One replay per turn with a write of a spec with a stream: the reference with a quiet read repeated at the
    turn's start; and, where a rule runs on the clock, one with the read repeated after the turn's last write."""
    streams = spec.dynamics.streams
    jobs = _clock_jobs(spec)
    if not (streams or jobs) or spec.faults is not None:
        return
    read = _quiet_read(spec)
    if read is None or read.call is None:
        return
    times = min(EXTRA_READS, math.ceil(max(s.every_s for s in streams) / spec.world.tick_s)) if streams else 0
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        writes = [i for i, step in enumerate(turn.steps) if step.call is not None and is_write(step.call.name)]
        if not writes:
            continue  # a turn without a write: nothing the world's pace could change comes after it
        if times:
            steps = [read] * times + list(turn.steps)
            yield Paced(f"reference[{t}].steps[0]",
                        f"the reference with {read.call.name} made {times} more times at the start of turn {t} "
                        f"({times * spec.world.tick_s} s of clock)",
                        [*spec.reference[:t], turn_of(steps), *spec.reference[t + 1:]])
        if jobs:
            at = writes[-1] + 1
            steps = [*turn.steps[:at], *[read] * EXTRA_READS, *turn.steps[at:]]
            yield Paced(f"reference[{t}].steps[{writes[-1]}]",
                        f"the reference with {read.call.name} made {EXTRA_READS} more times after the last write of "
                        f"turn {t} ({EXTRA_READS * spec.world.tick_s} s of clock: a job due on the clock runs "
                        "after the fix)",
                        [*spec.reference[:t], turn_of(steps), *spec.reference[t + 1:]], uncounted=frozenset({"frame"}))
