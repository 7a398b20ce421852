"""Acting before the answer: a write the reference makes only once a later user turn allowed it still passes when
it is made a turn early, before that turn came.

A later turn gates the writes the reference makes in it when the turn brings something the earlier turn did not
have: an answer to a question (the reference closed the earlier turn asking the user something, its closing reply
has a `?`, and wrote nothing in it: which person, which document, go ahead or not), the world's changes the turn
announces or puts (a colleague's clash, an owner on leave), or the world's reaction to the reference's earlier calls
(a rule the reference triggered in the earlier turn puts or changes a record after a delay: the manager's approval,
the delegate's answer). An agent that guesses and acts at once, before the answer, must fail even when its guess was right;
otherwise the checks reward the guess. For each such pair of turns the gated turn's first write, and then all its
writes, are moved into the earlier turn, before its closing reply; the mutations gate reports `acts_before_answer`
when that replay still passes.

A check that the write waited is often a window on its stamp (the ticket's last change, the message's `ts`, the config
version's `created_at` not before some time): its end must be the news, not the reference's pace. A window that ends a
minute after the reference's earlier turn (its last call, its reply) fails the agent that acts early at the
reference's pace, yet passes one that reads a few times more, then guesses and acts, still before the news. So each
gated turn is also replayed slowly (`slow_early_actions`): the earlier turn's quiet read (`_pace.quiet_read`) made as
many times as the clock allows before the news (the reference's first call of the gated turn, or the landing of a
delayed reaction the earlier turn's calls set off, less two ticks; at most the step budget left), then each of the
gated turn's writes alone, and all of them, before the closing reply. Only a slow replay that passes where the same
writes moved at the reference's pace fail is reported: what passes at any pace is the plain replay's finding, which
moves the first write and all writes only (a single later write made early, an incident's note naming the cause
before the cause came back, is left as before).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from coworkenv.checks.primitives import call_matches
from coworkenv.checks.results import AuditEntry
from coworkenv.spec import EnvSpec, OnAction, ReferenceStep, ReferenceTurn, Rule
from coworkenv.validate._pace import quiet_read, reads_left
from coworkenv.validate.mutations import is_write
from coworkenv.world import parse_time


@dataclass(frozen=True)
class EarlyAction:
    """The reference with one gated turn's first (or every) write made before the turn that allows it came."""

    path: str  # the moved write's path in the spec
    description: str
    reference: list[ReferenceTurn]
    # For a slow replay: the same writes moved at the reference's pace. Only a slow replay that passes where this one
    # fails is a finding of its own (the window ends at the reference's pace, not at the news).
    plain: list[ReferenceTurn] | None = None


def early_actions(spec: EnvSpec) -> Iterator[EarlyAction]:
    """For each turn gated by what it brings (`_gate`), the reference with that turn's first write moved before the
    earlier turn's closing reply and, where the turn writes more than once, with all its writes moved."""
    reference = spec.reference
    for t in range(1, min(len(reference), len(spec.turns))):
        asking, answered = reference[t - 1].steps, reference[t].steps
        brings = _gate(spec, t)
        if brings is None:
            continue
        closing = max((j for j, step in enumerate(asking) if step.say), default=None)
        writes = [j for j, step in enumerate(answered) if _writes(spec, step)]
        if closing is None or not writes:
            continue
        for moving in ([writes[0]], writes) if len(writes) > 1 else ([writes[0]],):
            moved = [answered[j] for j in moving]
            early = ReferenceTurn(steps=[*asking[:closing], *moved, *asking[closing:]])
            rest = ReferenceTurn(steps=[step for j, step in enumerate(answered) if j not in moving])
            names = ", ".join(step.call.name for step in moved if step.call is not None)
            yield EarlyAction(f"reference[{t}].steps[{moving[0]}]",
                              f"{names} made in turn {t - 1}, before {brings}",
                              [*reference[:t - 1], early, rest, *reference[t + 1:]])


def slow_early_actions(spec: EnvSpec, audit: list[AuditEntry]) -> Iterator[EarlyAction]:
    """For each gated turn t, the reference with the quiet read made as many times as the clock leaves before the news
    (`news_reads`) at the end of turn t-1, then each of turn t's writes alone, and all of them, before the closing
    reply: an agent slower than the reference that still acts before the news (`audit`: the reference's episode)."""
    read = quiet_read(spec)
    if read is None or read.call is None or spec.faults is not None:
        return  # faults are drawn per call: extra reads move every later fault
    reference = spec.reference
    for t in range(1, min(len(reference), len(spec.turns))):
        brings = _gate(spec, t)
        reads = news_reads(spec, audit, t) if brings is not None else 0
        asking, answered = reference[t - 1].steps, reference[t].steps
        closing = max((j for j, step in enumerate(asking) if step.say), default=None)
        writes = [j for j, step in enumerate(answered) if _writes(spec, step)]
        if reads < 2 or closing is None or not writes:
            continue  # no clock left before the news that the plain early replay does not already reach
        sets = [[j] for j in writes] + ([writes] if len(writes) > 1 else [])
        for moving in sets:
            moved = [answered[j] for j in moving]
            rest = ReferenceTurn(steps=[step for j, step in enumerate(answered) if j not in moving])
            names = ", ".join(step.call.name for step in moved if step.call is not None)
            slow, plain = (ReferenceTurn(steps=[*asking[:closing], *[read] * n, *moved, *asking[closing:]])
                           for n in (reads, 0))
            yield EarlyAction(f"reference[{t}].steps[{moving[0]}]",
                              f"{names} made in turn {t - 1} after {read.call.name} {reads} more times "
                              f"({reads * spec.world.tick_s} s of clock), still before {brings}",
                              [*reference[:t - 1], slow, rest, *reference[t + 1:]],
                              plain=[*reference[:t - 1], plain, rest, *reference[t + 1:]])


def news_reads(spec: EnvSpec, audit: list[AuditEntry], t: int) -> int:
    """How many reads an agent can make at the end of turn t-1 and still act before turn t's news, on the reference's
    clock: up to two ticks before the reference's first call of turn t, or, where the news is a delayed reaction the
    reference's calls of turn t-1 set off (`_gate`), before its earliest landing, counted from its last call of turn t-1; at most `reads_left`."""
    before = [e for e in audit if e.turn == t - 1]
    after = [e for e in audit if e.turn == t]
    if not before or not after:
        return 0
    news = parse_time(after[0].time)
    rule = None if _turn_brings(spec, t) else _reaction(spec, t)
    if rule is not None:  # the news is the world's delayed reaction, not the turn
        assert isinstance(rule.on, OnAction)
        news = min([news, *(parse_time(e.time) + rule.delay_s for e in before
                            if e.ok and call_matches(rule.on.call, e.tool, e.args))])
    tick = max(1, spec.world.tick_s)
    return max(0, min(reads_left(spec), (news - parse_time(before[-1].time)) // tick - 2))


def _gate(spec: EnvSpec, t: int) -> str | None:
    """What turn `t` brings that its writes depend on, in words; None where it brings nothing the earlier turn lacked
    (a plain further request: doing it early is only eager)."""
    brings = _turn_brings(spec, t)
    if brings is not None:
        return brings
    rule = _reaction(spec, t)
    return None if rule is None else f"the world's reaction to the earlier calls (rule {rule.id}) came"


def _turn_brings(spec: EnvSpec, t: int) -> str | None:
    """What turn `t` itself brings, in words: the user's answer to the question closing turn t-1 (a reply with a `?`
    and no write), or the changes the turn announces or puts; None where it brings neither."""
    asking = spec.reference[t - 1].steps
    closing = max((j for j, step in enumerate(asking) if step.say), default=None)
    if closing is not None and "?" in (asking[closing].say or "") and not any(_writes(spec, step) for step in asking):
        return "the user answered its question"
    if spec.turns[t].changes:
        return "the changes the user's next turn announces arrived"
    return None


def _reaction(spec: EnvSpec, t: int) -> Rule | None:
    """The first rule with effects that a reference call of turn t-1 sets off with a delay: a reaction that comes in
    the wait before turn t (the manager's approval, the delegate's answer)."""
    earlier = [step.call for step in spec.reference[t - 1].steps if step.call is not None]
    for rule in spec.dynamics.rules:
        if not rule.effects or not isinstance(rule.on, OnAction) or rule.delay_s <= 0:
            continue
        on = rule.on.call
        if any(call_matches(on, call.name, call.arguments) for call in earlier):
            return rule
    return None


def _writes(spec: EnvSpec, step: ReferenceStep) -> bool:
    return step.call is not None and is_write(step.call.name, spec)  # a declared write too
