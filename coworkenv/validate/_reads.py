"""Which read calls can be left out of mutant episodes: those invisible to the verifier and the runtime.

Reads never change the world, but they are audited (call checks, Python checks), tick the clock (timed rules,
log streams, delayed effects) and can open a follow-up turn or fire an action rule. When the clock drives
nothing and no Python check reads the audit, a read that no call matcher of a check, turn condition or action
rule matches can be left out: the mutant ends in the same records (clock stamps aside), the same replies and
the same audited calls that any check looks at, so every check gives the same verdict. With a fault plan every
read is played too: faults are drawn per call, so leaving reads out would move them onto other calls. The mutation gate plays
mutants without such reads (about half the calls of a typical reference).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from coworkenv.apps import TOOLS
from coworkenv.checks import call_matches
from coworkenv.spec import AfterCall, AtTime, CallMatcher, EnvSpec, OnAction, ReferenceTurn
from coworkenv.tools import ToolDef
from coworkenv.validate.mutations import is_write, turn_of


def read_matchers(spec: EnvSpec) -> list[CallMatcher] | None:
    """The call matchers that can see a read, or None when every read must be played (see the module doc)."""
    if spec.dynamics.streams or any(isinstance(r.on, AtTime) or r.delay_s for r in spec.dynamics.rules):
        return None
    if spec.faults is not None and spec.faults.rules:
        return None  # injected faults are drawn call by call: without the reads, the writes would fail otherwise
    return seen_reads(spec)


def seen_reads(spec: EnvSpec) -> list[CallMatcher] | None:
    """The call matchers of the checks, turn conditions and action rules that can see a read, whatever the clock
    drives; None when a check may read the whole audit (a Python check)."""
    matchers = [r.on.call for r in spec.dynamics.rules if isinstance(r.on, OnAction)]
    matchers += [t.condition.call for t in spec.turns if isinstance(t.condition, AfterCall)]
    for check in spec.checks:
        found = _matchers(check.rule)
        if found is None:
            return None
        matchers += found
    return [m for m in matchers if not is_write(m.tool)]


def _matchers(rule: Any) -> list[CallMatcher] | None:
    kind = rule.kind
    if kind in ("field", "records", "frame", "reply_states", "text"):
        return []
    if kind == "tiers":
        out: list[CallMatcher] = []
        for tier in rule.tiers:
            found = _matchers(tier.rule)
            if found is None:
                return None
            out += found
        return out
    if kind == "order":
        return [rule.first, rule.then]
    if kind in ("called", "forbidden"):
        return [rule.call]
    return None  # python, and any kind this module does not know: assume it reads the whole audit


def without_reads(reference: list[ReferenceTurn], keep: list[CallMatcher],
                  tools: Mapping[str, ToolDef] = TOOLS) -> list[ReferenceTurn]:
    """The reference without the read calls that no matcher in `keep` matches; `tools`: the spec's catalogue (a
    declared tool bound to a write, `gmail_send_message` -> `mail_send`, is a write: it stays)."""
    def visible(step: Any) -> bool:
        call = step.call
        return call is None or is_write(call.name, tools) or any(
            call_matches(m, call.name, dict(call.arguments)) for m in keep)

    return [turn_of([s for s in turn.steps if visible(s)]) for turn in reference]
