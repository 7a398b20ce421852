"""When read calls can be left out of mutant episodes: they are invisible to the verifier and the runtime.

Reads never change the world, but they are audited (call checks, Python checks), tick the clock (timed rules,
log streams, delayed effects) and can open a follow-up turn or fire an action rule. When a spec has none of
those on reads, a mutant played without its reads ends in the same records (clock stamps aside), the same
replies and the same audited writes as with them, so every check gives the same verdict: the mutation gate
plays mutants without their reads (about half the calls of a typical reference).
"""

from __future__ import annotations

from typing import Any

from coworkenv.spec import AfterCall, AtTime, EnvSpec, OnAction, ReferenceTurn
from coworkenv.validate.mutations import is_write, turn_of

# Rules over the final state and the replies only; call rules are safe when they match writes only.
_STATE_KINDS = frozenset({"field", "records", "frame", "reply_states", "text"})
_CALL_KINDS = frozenset({"called", "order", "forbidden"})


def reads_are_invisible(spec: EnvSpec) -> bool:
    """Whether leaving read calls out of an episode cannot change any check's verdict (see the module doc)."""
    if spec.dynamics.streams:
        return False
    for rule in spec.dynamics.rules:
        if isinstance(rule.on, AtTime) or rule.delay_s or (isinstance(rule.on, OnAction)
                                                           and not is_write(rule.on.call.tool)):
            return False
    if any(isinstance(t.condition, AfterCall) and not is_write(t.condition.call.tool) for t in spec.turns):
        return False
    return all(_rule_ignores_reads(c.rule) for c in spec.checks)


def _rule_ignores_reads(rule: Any) -> bool:
    kind = rule.kind
    if kind in _STATE_KINDS:
        return True
    if kind == "tiers":
        return all(_rule_ignores_reads(t.rule) for t in rule.tiers)
    if kind in _CALL_KINDS:
        matchers = [rule.first, rule.then] if kind == "order" else [rule.call]
        return all(is_write(m.tool) for m in matchers)
    return False  # python and any kind this module does not know: assume it reads the audit


def without_reads(reference: list[ReferenceTurn]) -> list[ReferenceTurn]:
    """The reference with its read calls left out."""
    return [turn_of([s for s in turn.steps if s.call is None or is_write(s.call.name)]) for turn in reference]
