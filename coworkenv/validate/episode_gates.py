"""Gates 4, 5, 6, 7, 9 and 10: they judge the episodes of a spec (reference, noop, near-miss mutants)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from coworkenv.apps import APPS
from coworkenv.faults import FAILING, robustness
from coworkenv.spec import AfterCall, EnvSpec, FrameRule, PythonRule
from coworkenv.validate._episodes import EpisodeOutcome
from coworkenv.validate._falsifiable import unfalsifiable_reason
from coworkenv.validate.gates import GUARD_KINDS, GateContext, GateError, GateResult, gate_result
from coworkenv.validate.mutations import Mutation, near_miss_mutations

_SANDBOX_KIND = re.compile(r"check error \(([a-z_]+)\)")


# -- 4 oracle ----------------------------------------------------------------------------------------------
def oracle_gate(ctx: GateContext) -> GateResult:
    """Gate 4: the reference scores 1.0, its calls all succeed, and a second run ends in the same state.

    A check that could not run (sandbox error) is the sandbox gate's failure, not this one's.
    """
    episodes = ctx.episodes()
    if episodes is None:
        return gate_result("oracle", [GateError("oracle", "env_error", "world", f"the runtime rejects the spec: "
                                                                                  f"{ctx.env_error}")])
    first = episodes.oracle()
    if first.result is None:
        return gate_result("oracle", [GateError("oracle", "episode_error", "reference",
                                                 f"the reference episode crashed: {first.error}")])
    errors: list[GateError] = []
    index = {c.id: i for i, c in enumerate(ctx.spec.checks)}
    for check in first.result.checks:
        if not check.passed and not check.error:
            errors.append(GateError("oracle", "oracle_check_failed", f"checks[{index[check.id]}]",
                                    f"the reference fails check {check.id!r}: {check.reason}"))
    if first.truncated:
        errors.append(GateError("oracle", "oracle_truncated", "reference",
                                f"the reference needs more than {ctx.max_steps} agent steps"))
    for entry, path in zip(first.audit, _call_paths(ctx.spec, first), strict=False):
        if not entry.ok and entry.fault not in FAILING:  # the oracle retries injected faults
            errors.append(GateError("oracle", "reference_call_failed", path,
                                    f"{entry.tool} failed: {entry.error}"))
    again = episodes.oracle_again()
    if again.result is None or again.final_hash != first.final_hash or _verdicts(again) != _verdicts(first):
        errors.append(GateError("oracle", "nondeterministic", "reference",
                                "a second run of the reference ended in a different state or score"))
    survived = robustness(first.audit)
    return gate_result("oracle", errors, score=first.result.score, final_hash=first.final_hash,
                        steps=len(first.audit), injected_faults=survived.injected,
                        reference_robustness=survived.figure)


def _verdicts(outcome: EpisodeOutcome) -> tuple[Any, ...]:
    result = outcome.result
    assert result is not None
    return result.score, tuple((c.id, c.passed, c.reason, c.error) for c in result.checks)


def _call_paths(spec: EnvSpec, outcome: EpisodeOutcome) -> list[str]:
    """The reference step path of each audited oracle call, in audit order."""
    per_turn = [[f"reference[{t}].steps[{s}]" for s, step in enumerate(turn.steps) if step.call is not None]
                for t, turn in enumerate(spec.reference)]
    seen = Counter[int]()
    paths = []
    for entry in outcome.audit:
        if entry.fault in FAILING:  # a retried call repeats its reference step
            paths.append(f"reference[{entry.turn}] (injected {entry.fault})")
            continue
        calls = per_turn[entry.turn] if entry.turn < len(per_turn) else []
        k = seen[entry.turn]
        seen[entry.turn] += 1
        paths.append(calls[k] if k < len(calls) else f"reference[{entry.turn}]")
    return paths


def _blocked(gate: str, ctx: GateContext) -> GateResult | None:
    episodes = ctx.episodes()
    if episodes is None or episodes.oracle().result is None:
        return gate_result(gate, [GateError(gate, "blocked", "reference",
                                             "not judged: the reference episode could not run (see gate oracle)")])
    return None


# -- 9 turns reachable -----------------------------------------------------------------------------------------
def turns_reachable_gate(ctx: GateContext) -> GateResult:
    """Gate 9: the reference reaches every user turn (each follow-up's condition holds when it is due)."""
    blocked = _blocked("turns_reachable", ctx)
    if blocked is not None:
        return blocked
    oracle = ctx.episodes().oracle()  # type: ignore[union-attr]
    errors = []
    for i in range(oracle.turn_reached + 1, len(ctx.spec.turns)):
        condition = ctx.spec.turns[i].condition
        what = (f"a successful {condition.call.tool} call matching {condition.call.args}"
                if isinstance(condition, AfterCall) else "the agent's reply")
        errors.append(GateError("turns_reachable", "turn_not_reached", f"turns[{i}].condition",
                                f"the reference never reaches turn {i} (it waits for {what})"))
    return gate_result("turns_reachable", errors, turns=len(ctx.spec.turns), reached=oracle.turn_reached + 1)


# -- 10 sandbox ------------------------------------------------------------------------------------------------
def sandbox_gate(ctx: GateContext) -> GateResult:
    """Gate 10: Python checks run inside their sandbox limits on the initial state, the oracle and the noop."""
    blocked = _blocked("sandbox", ctx)
    if blocked is not None:
        return blocked
    episodes = ctx.episodes()
    assert episodes is not None
    python = [i for i, c in enumerate(ctx.spec.checks) if isinstance(c.rule, PythonRule)]
    if not python:
        return gate_result("sandbox", [], python_checks=0)
    index = {c.id: i for i, c in enumerate(ctx.spec.checks)}
    errors: list[GateError] = []
    runs = [("the initial state", episodes.initial), ("the reference episode", episodes.oracle().result),
            ("the noop episode", episodes.noop().result)]
    for where, result in runs:
        for check in result.checks if result is not None else []:
            if check.error:
                found = _SANDBOX_KIND.search(check.reason)
                code = f"sandbox_{found.group(1)}" if found else "sandbox_error"
                errors.append(GateError("sandbox", code, f"checks[{index[check.id]}].rule.code",
                                        f"on {where}: {check.reason}"))
    return gate_result("sandbox", errors, python_checks=len(python))


# -- 5 noop --------------------------------------------------------------------------------------------------
def noop_gate(ctx: GateContext) -> GateResult:
    """Gate 5: doing nothing fails, and the untouched initial state (no replies) does not already pass."""
    blocked = _blocked("noop", ctx)
    if blocked is not None:
        return blocked
    episodes = ctx.episodes()
    assert episodes is not None
    noop = episodes.noop()
    errors = []
    if noop.result is None:
        errors.append(GateError("noop", "episode_error", "turns", f"the noop episode crashed: {noop.error}"))
    elif noop.result.passed:
        errors.append(GateError("noop", "noop_passes", "checks",
                                "an agent that does nothing passes every required check; add checks on the "
                                "state the task must change"))
    if episodes.initial.passed:
        errors.append(GateError("noop", "initial_state_passes", "checks",
                                "the untouched initial state already passes; the task asks for nothing"))
    return gate_result("noop", errors, noop_score=noop.result.score if noop.result else None,
                        initial_score=episodes.initial.score)


# -- 6 mutations ---------------------------------------------------------------------------------------------
def mutations_gate(ctx: GateContext) -> GateResult:
    """Gate 6: every core near-miss mutation of the reference fails a required check (mutation score 1.0).

    A mutant whose outcome equals the reference's (same records modulo clock stamps, same replies) is an
    equivalent mutant: reported, not counted. Surviving context mutants (an optional link to another record
    changed) are reported as `unchecked_context`, not failed.
    """
    blocked = _blocked("mutations", ctx)
    if blocked is not None:
        return blocked
    episodes = ctx.episodes()
    assert episodes is not None and episodes.oracle_entities is not None
    oracle = episodes.oracle()
    mutations = near_miss_mutations(ctx.spec, episodes.oracle_entities)
    results: list[tuple[Mutation, EpisodeOutcome]] = [(m, episodes.mutant(m.reference)) for m in mutations]
    ctx.mutations = results
    errors: list[GateError] = []
    equivalent: list[str] = []
    unchecked_context: list[str] = []
    killed = 0
    by_kind: dict[str, list[int]] = {}
    for mutation, outcome in results:
        survived = outcome.result is not None and outcome.passed
        if survived and outcome.signature == oracle.signature:
            equivalent.append(mutation.description)
            continue
        if not mutation.core:
            if survived:
                unchecked_context.append(f"{mutation.path}: {mutation.description}")
            continue
        tally = by_kind.setdefault(mutation.kind, [0, 0])
        tally[1] += 1
        if not survived:
            killed += 1
            tally[0] += 1
        else:
            errors.append(GateError("mutations", "mutant_survived", mutation.path,
                                    f"near miss ({mutation.kind}) passes every required check: "
                                    f"{mutation.description}; add or tighten a check that catches it"))
    total = sum(t[1] for t in by_kind.values())
    score = killed / total if total else 1.0
    return gate_result("mutations", errors, score=round(score, 6), total=total, killed=killed,
                        by_kind={k: {"killed": v[0], "total": v[1]} for k, v in by_kind.items()},
                        equivalent=equivalent, unchecked_context=unchecked_context)


# -- 7 reads state ---------------------------------------------------------------------------------------------
def reads_state_gate(ctx: GateContext) -> GateResult:
    """Gate 7: checks read the world, and none of them holds on every state.

    Rules:
    - at least one required check that is not a guard reads the world or the agent's actions (field, records,
      called, order, or a python check whose body reads `state` or `audit`): reply checks alone are rejected
      (`reply_only_checks`);
    - no check is vacuous (`vacuous_check`). A declarative check is vacuous when no typed world falsifies it
      (see `_falsifiable`: a type-mismatched comparison, `count gte 0`, `min_times 0`, an impossible record
      condition under an `equals 0` count, a reply that must state an empty value). A python check cannot be
      analysed, so it is vacuous when it holds in every episode the gates ran: the untouched initial state,
      the noop episode, the reference and every near-miss mutant;
    - guards (frame and forbidden rules, checks marked `safety`) hold unless the agent does harm; a frame
      rule that allows every app to change can never fail (`unfalsifiable_frame`).
    Declarative checks that held in every episode are listed in `details.unexercised` (informative: a
    preservation check such as "the event was moved, not duplicated" is meant to hold in them).
    """
    blocked = _blocked("reads_state", ctx)
    if blocked is not None:
        return blocked
    spec = ctx.spec
    episodes = ctx.episodes()
    assert episodes is not None
    errors: list[GateError] = []
    guards = [c.safety or c.rule.kind in GUARD_KINDS for c in spec.checks]
    grounded = [c.id for c, guard in zip(spec.checks, guards, strict=True)
                if c.required and not guard and _reads_world(c.rule)]
    if not grounded:
        errors.append(GateError("reads_state", "reply_only_checks", "checks",
                                "no required check reads the world or the agent's actions (only reply or guard "
                                "checks); add a field, records, called or order check"))
    judged = [episodes.initial, episodes.noop().result,
              *(o.result for _, o in ctx.mutations or [])]
    always = {c.id for c in spec.checks}
    for result in judged:
        if result is not None:
            always &= {c.id for c in result.checks if c.passed}
    vacuous, unexercised = [], []
    for i, (check, guard) in enumerate(zip(spec.checks, guards, strict=True)):
        if isinstance(check.rule, FrameRule) and _allows_everything(check.rule):
            errors.append(GateError("reads_state", "unfalsifiable_frame", f"checks[{i}].rule.allow",
                                    f"frame check {check.id!r} allows every app to change, so it can never fail"))
        if guard:
            continue
        if isinstance(check.rule, PythonRule):
            reason = ("it holds on the initial state, the noop episode and every near miss"
                      if check.id in always else None)
        else:
            reason = unfalsifiable_reason(check.rule, spec, episodes.oracle_value)
            if reason is None and check.id in always:
                unexercised.append(check.id)
        if reason is not None:
            vacuous.append(check.id)
            errors.append(GateError("reads_state", "vacuous_check", f"checks[{i}]",
                                    f"check {check.id!r} can never fail: {reason}"))
    return gate_result("reads_state", errors, grounded_checks=grounded, vacuous_checks=vacuous,
                        unexercised=unexercised, episodes_judged=sum(r is not None for r in judged) + 1)


def _reads_world(rule: Any) -> bool:
    if isinstance(rule, PythonRule):
        body = rule.code.split("\n", 1)[1] if "\n" in rule.code else ""
        return re.search(r"\b(state|audit)\b", body) is not None
    return rule.kind in ("field", "records", "called", "order")


def _allows_everything(rule: FrameRule) -> bool:
    whole = {s.app for s in rule.allow if s.table is None and s.id is None and s.fields is None}
    return whole >= set(APPS)
