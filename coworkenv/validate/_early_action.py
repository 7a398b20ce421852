"""Acting before the answer: a write the reference makes only once the user answered a question still passes when
it is made before the question is answered.

When the reference ends a turn asking the user something (its closing reply has a `?`) and writes nothing in that
turn, the next turn's writes depend on the answer: which person, which document, go ahead or not. An agent that
guesses and acts at once, before the answer, must fail even when its guess was right; otherwise the checks reward
the guess (right half the time between two candidates). For each such pair of turns the first write of the answered
turn is moved into the asking turn, before its closing reply; the mutations gate reports `acts_before_answer` when
that replay still passes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from coworkenv.spec import EnvSpec, ReferenceStep, ReferenceTurn
from coworkenv.validate.mutations import is_write


@dataclass(frozen=True)
class EarlyAction:
    """The reference with one answered turn's first write made before the user answered."""

    path: str  # the moved write's path in the spec
    description: str
    reference: list[ReferenceTurn]


def early_actions(spec: EnvSpec) -> Iterator[EarlyAction]:
    """For each turn answering a question the previous turn asked (closing reply with `?`, no write), the reference
    with that turn's first write moved before the question's reply."""
    reference = spec.reference
    for t in range(1, len(reference)):
        asking, answered = reference[t - 1].steps, reference[t].steps
        if any(_writes(step) for step in asking):
            continue
        closing = max((j for j, step in enumerate(asking) if step.say), default=None)
        if closing is None or "?" not in (asking[closing].say or ""):
            continue
        s = next((j for j, step in enumerate(answered) if _writes(step)), None)
        if s is None:
            continue
        moved = answered[s]
        early = ReferenceTurn(steps=[*asking[:closing], moved, *asking[closing:]])
        rest = ReferenceTurn(steps=[step for j, step in enumerate(answered) if j != s])
        assert moved.call is not None
        yield EarlyAction(f"reference[{t}].steps[{s}]",
                          f"{moved.call.name} made in turn {t - 1}, before the user answered its question",
                          [*reference[:t - 1], early, rest, *reference[t + 1:]])


def _writes(step: ReferenceStep) -> bool:
    return step.call is not None and is_write(step.call.name)
