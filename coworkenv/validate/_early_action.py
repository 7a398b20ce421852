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
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from coworkenv.checks.primitives import call_matches
from coworkenv.spec import EnvSpec, OnAction, ReferenceStep, ReferenceTurn
from coworkenv.validate.mutations import is_write


@dataclass(frozen=True)
class EarlyAction:
    """The reference with one gated turn's first (or every) write made before the turn that allows it came."""

    path: str  # the moved write's path in the spec
    description: str
    reference: list[ReferenceTurn]


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
        writes = [j for j, step in enumerate(answered) if _writes(step)]
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


def _gate(spec: EnvSpec, t: int) -> str | None:
    """What turn `t` brings that its writes depend on, in words; None where it brings nothing the earlier turn lacked
    (a plain further request: doing it early is only eager)."""
    asking = spec.reference[t - 1].steps
    closing = max((j for j, step in enumerate(asking) if step.say), default=None)
    if closing is not None and "?" in (asking[closing].say or "") and not any(_writes(step) for step in asking):
        return "the user answered its question"
    turn = spec.turns[t]
    if turn.changes:
        return "the changes the user's next turn announces arrived"
    earlier = [step.call for step in asking if step.call is not None]
    for rule in spec.dynamics.rules:  # a reaction due later than the call that triggers it: it comes in the wait
        if not rule.effects or not isinstance(rule.on, OnAction) or rule.delay_s <= 0:
            continue
        on = rule.on.call
        if any(call_matches(on, call.name, call.arguments) for call in earlier):
            return f"the world's reaction to the earlier calls (rule {rule.id}) came"
    return None


def _writes(step: ReferenceStep) -> bool:
    return step.call is not None and is_write(step.call.name)
