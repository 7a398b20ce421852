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

Where no stream sets the pace, each turn with a write is replayed with the read made `STAMP_READS` (2) times at its
start: the turn's writes then carry stamps a minute later (a ticket's `created_at`, a deployment's `at`, a config
version's `created_at`, a message's `ts`), and a check that wants the very time the reference's call was stamped at
(a records check copied from the reference's final record, stamps and all) is pinned to its pace.

The world's jobs move with the clock too: a rule due at a set time, or a delayed effect of an action rule, can undo
the agent's fix a minute after the reference is done (the reconciler rolls the config back), so an honest agent that
checks its work a few more times after the fix fails, though the reference passes. For a spec with such a rule, each
turn with a write is also replayed with the quiet read repeated right after the turn's last write, as many times as
the episode's step budget leaves an agent that makes one call a message (`reads_left`, at least `EXTRA_READS`): the
fix made, the clock moved on as far as an agent may take before the turn's remaining calls and its reply (a job due
a quarter of an hour after the reference is as much the agent's pace as one due a minute after it).

An agent may also be quicker than the reference: where an action rule's effect is delayed (the fix is queued and
lands a while after the call), the reference is replayed without the quiet reads after the first call that starts
such a rule (reads no check, turn or rule sees): the agent that acts and replies. A check the reference passes that
then fails waits on the delay the reference's later reads happened to cover. A replay in which a call fails that the
reference made is not counted (the later call needed what the delay brings: no agent could be that quick).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from coworkenv.apps import TOOLS
from coworkenv.checks import call_matches
from coworkenv.env import DEFAULT_MAX_STEPS
from coworkenv.spec import AtTime, EnvSpec, OnAction, ReferenceStep, ReferenceTurn
from coworkenv.validate._mutation_core import turn_of
from coworkenv.validate._reads import seen_reads
from coworkenv.validate.mutations import is_write, read_op

EXTRA_READS = 20  # extra reads per turn: ten minutes of clock at the default 30 s per call
# Extra reads at a turn's start where no stream sets the pace: the turn's writes stamped a minute later (the time a tool
# writes on the record it creates or changes, `created_at`, `at`, `ts`, is the agent's pace, not the task's).
STAMP_READS = 2
_MARKS = ("read_message", "read_thread", "mark", "open")  # reads that change what they read


@dataclass(frozen=True)
class Paced:
    """The reference with a read repeated at the start of one turn."""

    path: str
    description: str
    reference: list[ReferenceTurn]
    tool: str | None = None  # (no tool's text is rewritten: the replay's reads are the reference's own)
    # Not counted where a call the reference made fails in the replay (a quicker agent acting on what is not there).
    calls_must_succeed: bool = False


def quiet_read(spec: EnvSpec) -> ReferenceStep | None:
    """The reference's first read that changes nothing, a logs or services read first."""
    reads = [(step, op) for turn in spec.reference for step in turn.steps if step.call is not None
             and (op := read_op(step.call.name, spec)) is not None  # a declared read too
             and not any(m in op for m in _MARKS)]
    preferred = [s for s, op in reads if TOOLS[op].app in ("logs", "services")]
    return next(iter(preferred or [s for s, _ in reads]), None)


def _clock_jobs(spec: EnvSpec) -> bool:
    """Whether the world changes on the clock by a rule: one due at a set time, or an action rule's delayed effect."""
    return any(isinstance(r.on, AtTime) or r.delay_s for r in spec.dynamics.rules)


def reads_left(spec: EnvSpec, max_steps: int = DEFAULT_MAX_STEPS) -> int:
    """How many reads more than the reference an agent may make in the episode, one call a message: the step budget
    less the reference's messages (calls and replies), at least `EXTRA_READS`."""
    return max(EXTRA_READS, max_steps - sum(len(turn.steps) for turn in spec.reference))


def slower_agents(spec: EnvSpec, max_steps: int = DEFAULT_MAX_STEPS) -> Iterator[Paced]:
    """One replay per turn with a write: the reference with a quiet read repeated at the turn's start (as often as the
    slowest stream takes to add a line, or `STAMP_READS` times where no stream runs); where a rule runs on the clock, one with the read repeated after the turn's last write as far as the
    step budget lets an agent go; and, where an action rule's effect is delayed, the quicker agent (`quicker_agent`)."""
    yield from _slower_agents(spec, reads_left(spec, max_steps))
    quicker = quicker_agent(spec)
    if quicker is not None:
        yield quicker


def quicker_agent(spec: EnvSpec) -> Paced | None:
    """The reference without the quiet reads no check, turn or rule sees after the first call that starts an action
    rule with a delayed effect; None where there is none, nothing to leave out, a fault plan or a Python check."""
    delayed = [r.on.call for r in spec.dynamics.rules if isinstance(r.on, OnAction) and r.delay_s]
    seen = seen_reads(spec)
    if not delayed or seen is None or spec.faults is not None:
        return None
    start: tuple[int, int] | None = None
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        for i, step in enumerate(turn.steps):
            c = step.call
            if start is None and c is not None and any(call_matches(m, c.name, dict(c.arguments)) for m in delayed):
                start = (t, i)
    if start is None:
        return None
    dropped = 0
    turns = []
    for t, turn in enumerate(spec.reference):
        kept = []
        for i, step in enumerate(turn.steps):
            c = step.call
            if (t, i) > start and c is not None and read_op(c.name, spec) is not None and not any(
                    call_matches(m, c.name, dict(c.arguments)) for m in seen):
                dropped += 1
                continue
            kept.append(step)
        turns.append(turn_of(kept))
    if not dropped:
        return None
    t, i = start
    call = spec.reference[t].steps[i].call
    assert call is not None
    return Paced(f"reference[{t}].steps[{i}]",
                 f"the reference without its {dropped} quiet read(s) after {call.name} (turn {t}), which starts a "
                 "delayed effect: an agent that acts and replies", turns, calls_must_succeed=True)


def _slower_agents(spec: EnvSpec, reads: int) -> Iterator[Paced]:
    streams = spec.dynamics.streams
    jobs = _clock_jobs(spec)
    if spec.faults is not None:
        return
    read = quiet_read(spec)
    if read is None or read.call is None:
        return
    times = min(EXTRA_READS, math.ceil(max(s.every_s for s in streams) / spec.world.tick_s)) if streams else STAMP_READS
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        writes = [i for i, step in enumerate(turn.steps) if step.call is not None and is_write(step.call.name, spec)]
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
            steps = [*turn.steps[:at], *[read] * reads, *turn.steps[at:]]
            yield Paced(f"reference[{t}].steps[{writes[-1]}]",
                        f"the reference with {read.call.name} made {reads} more times after the last write of "
                        f"turn {t} ({reads * spec.world.tick_s} s of clock, within the episode's step budget: a "
                        "job due on the clock runs after the fix)",
                        [*spec.reference[:t], turn_of(steps), *spec.reference[t + 1:]])
