"""A write whose result the checks read only in the reply: "ops/paused-jobs is now a,b" stated, never written.

A dropped reference write that no check concerns (no state check reads the record it changes, no call check matches
its tool) is incidental, and the strict policy trims it from the reference. But when a completion text check asks
the reply to state the very value the write puts on a record (the config entry's new text, the new quantity), the
check stands in for the record: the author checked what the agent says it wrote, not what it wrote, and an agent
that only claims the write passes. Found by the outsider hunt (`benchmarks/hunt_mutants.py --family d119` kind
`state_to_reply_value`: scheduler_pause_failing_jobs 1-5, the config entry's check turned into the reply stating its
value; main trimmed the write as incidental and accepted the spec, witnessed by the reference without `config_set`).

`claimed_write` names such a value: an argument of the write, held by a record the write changes after it (so the
write put it there), that a completion text check's term states in whole (a text of 3 characters or more that the
untouched world holds nowhere, or a number a `number` target asks for).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from coworkenv.spec import EnvSpec, TextRule, ToolCallSpec
from coworkenv.validate._check_reads import spec_rules


def _terms(rule: TextRule) -> Iterator[str]:
    for term in [*rule.all_of, *rule.any_of]:
        yield from [term] if isinstance(term, str) else term


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def claimed_write(spec: EnvSpec, call: ToolCallSpec, changed: Mapping[tuple[str, str, str], Mapping[str, Any]]
                  ) -> str | None:
    """Why dropping `call` is not incidental (None where it is): a completion text check asks the reply to state a
    value the call puts on a record it changes (`changed`: each changed record's fields as the reference leaves
    them)."""
    held = {_fold(str(v)) if not isinstance(v, int | float) or isinstance(v, bool) else v
            for fields in changed.values() for v in fields.values() if isinstance(v, str | int | float)}
    values = [v for v in call.arguments.values() if isinstance(v, str | int | float) and not isinstance(v, bool)
              and (_fold(v) if isinstance(v, str) else v) in held]
    if not values:
        return None
    world = _fold(spec.world.model_dump_json())
    texts = [_fold(v) for v in values if isinstance(v, str) and len(v.strip()) >= 3 and _fold(v) not in world]
    numbers = [float(v) for v in values if not isinstance(v, str)]
    for _, check, where, rule in spec_rules(spec.checks):
        if check.is_guard or not isinstance(rule, TextRule):
            continue
        for term in _terms(rule):
            said = next((v for v in texts if v in _fold(term)), None)
            if said is not None:
                return (f"dropping {call.name} passes every required check, though {check.id!r} ({where}) wants the "
                        f"reply to state {said!r}, the value the write puts on the record: the check reads what the "
                        "agent says it wrote, not what it wrote; check the record itself (a field or records check)")
        number = rule.number
        if number is not None and number.value is not None and float(number.value) in numbers:
            return (f"dropping {call.name} passes every required check, though {check.id!r} ({where}) wants the "
                    f"reply to state {number.value:g}, the value the write puts on the record: the check reads what "
                    "the agent says it wrote, not what it wrote; check the record itself")
    return None
