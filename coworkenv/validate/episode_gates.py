"""Gates 4, 5, 6, 7, 9 and 10: they judge the episodes of a spec (reference, noop, near-miss mutants)."""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Any

from coworkenv.apps import APPS, TOOLS
from coworkenv.faults import FAILING, robustness
from coworkenv.spec import AfterCall, AppendLog, AtTime, EnvSpec, FrameRule, PythonRule
from coworkenv.validate._check_reads import nested_rules, parts_read, python_rules, rule_kind
from coworkenv.validate._episodes import EpisodeOutcome
from coworkenv.validate._falsifiable import unfalsifiable_reason
from coworkenv.validate._later_records import later_record_literals
from coworkenv.validate._later_state import later_literals, later_state_reads, turn_end_reads
from coworkenv.validate._leaks import readable_text
from coworkenv.validate._mutation_core import turn_of
from coworkenv.validate._pace import quiet_read, reads_left
from coworkenv.validate._pinned_wording import pinned_wording
from coworkenv.validate.gates import GateContext, GateError, GateResult, gate_result
from coworkenv.validate.mutations import is_write
from coworkenv.validate.python_probes import JudgeSpent, Probe, payload, probe_check, run_check, sandbox_code
from coworkenv.world import KEPT_TABLE

# -- 4 oracle ----------------------------------------------------------------------------------------------
_FULL = 0.999  # a check's score the reference must reach (rounding aside)


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
    # A failure the turns_reachable or sandbox gate explains (an unreached follow-up, a Python check whose
    # verdict changes between runs) is reported there: its fix is not a new expected value.
    unreached = first.turn_reached + 1 < len(ctx.spec.turns)
    unstable = _unstable_python(ctx)
    for check in first.result.checks:
        if not check.passed and not check.error and not unreached and check.id not in unstable:
            errors.append(GateError("oracle", "oracle_check_failed", f"checks[{index[check.id]}]",
                                    f"the reference fails check {check.id!r}: {check.reason}"))
        elif (check.passed and check.score is not None and check.score < _FULL and not check.error
              and check.id not in unstable):
            # A check passed from a bar below 1 (`pass_score`: a grader's proportional score over Claw-Eval's 0.75)
            # hides what the reference, the complete solution, loses: a sub-check that wants a wording nobody
            # writes, or a value the task does not have. Either the check or the reference is wrong.
            errors.append(GateError("oracle", "oracle_partial_credit", f"checks[{index[check.id]}]",
                                    f"the reference passes check {check.id!r} with {check.score:.2f} of its score: "
                                    f"part of what it wants the complete solution does not do ({check.reason})"))
    if first.truncated:
        errors.append(GateError("oracle", "oracle_truncated", "reference",
                                f"the reference needs more than {ctx.max_steps} agent steps"))
    for entry, path in zip(first.audit, _call_paths(ctx.spec, first), strict=False):
        if not entry.ok and entry.fault not in FAILING:  # the oracle retries injected faults
            errors.append(GateError("oracle", "reference_call_failed", path,
                                    f"{entry.tool} failed: {entry.error}"))
    again = episodes.oracle_again()
    if again.result is None or again.final_hash != first.final_hash or _verdicts(again, unstable) != _verdicts(
            first, unstable):
        errors.append(GateError("oracle", "nondeterministic", "reference",
                                "a second run of the reference ended in a different state or score"))
    survived = robustness(first.audit)
    return gate_result("oracle", errors, score=first.result.score, final_hash=first.final_hash,
                        steps=len(first.audit), injected_faults=survived.injected,
                        reference_robustness=survived.figure)


def _verdicts(outcome: EpisodeOutcome, unstable: set[str]) -> tuple[Any, ...]:
    result = outcome.result
    assert result is not None
    return tuple((c.id, c.passed, c.reason, c.error) for c in result.checks if c.id not in unstable)


def _unstable_python(ctx: GateContext) -> set[str]:
    """Python checks whose verdict on the reference changes between runs, seeds or clocks."""
    probes = python_probes(ctx)
    return {cid for cid, found in probes.items()
            if any(p.code in ("nondeterministic_check", "clock_dependent") for p in found)}


def python_probes(ctx: GateContext) -> dict[str, list[Probe]]:
    """The probe findings of every Python check (run once per spec; empty when there is none)."""
    if ctx.python_probes is not None:
        return ctx.python_probes
    ctx.python_probes = {}
    episodes = ctx.episodes()
    if episodes is None or episodes.oracle_wire is None:
        return ctx.python_probes
    oracle = episodes.oracle()
    assert oracle.result is not None
    verdicts = {c.id: c.passed for c in oracle.result.checks}
    crashed = {c.id for c in oracle.result.checks if c.error}  # already a defect; probing it says nothing more
    initial = {c.id: c.passed for c in episodes.initial.checks}
    audit = [e.as_dict() for e in oracle.audit]
    with contextlib.ExitStack() as scope:
        if any(r.judge for c in ctx.spec.checks for r in python_rules(c.rule)):
            from coworkenv.checks.judge import judge_budget  # coworkenv.llm loaded only for a judged check

            scope.enter_context(judge_budget())  # the probes of all the spec's judged checks: one budget
        # The backdoor probe tries a check's words the reference never says: with no reference at all, every word
        # would be one, the answer a question-answering task asks for too (an imported task without its reference),
        # and the oracle gate already names what is missing. It needs a reference.
        referenced = any(turn.steps for turn in ctx.spec.reference)
        for check in ctx.spec.checks:
            if isinstance(check.rule, PythonRule) and check.id not in crashed:
                untouched = (payload(check.rule, episodes.initial_wire, [], [])
                             if episodes.initial_wire and referenced else None)
                ctx.python_probes[check.id] = probe_check(
                    check.rule, verdicts[check.id], payload(check.rule, episodes.oracle_wire, audit, oracle.replies),
                    oracle.replies, untouched, initial.get(check.id), repeats=ctx.config.python_repeats,
                    offsets=ctx.config.clock_offsets_s, pass_score=check.pass_score)
            elif check.id not in crashed:  # each Python rule its tiers hold, judged as a tier judges it (score 1)
                for rule in python_rules(check.rule):
                    ctx.python_probes.setdefault(check.id, []).extend(_probe_tier(ctx, rule, audit, oracle.replies,
                                                                                   referenced))
    episodes.python_runs.trust(_clean_code(ctx.spec, ctx.python_probes))
    return ctx.python_probes


def _clean_code(spec: EnvSpec, probes: dict[str, list[Probe]]) -> set[str]:
    """The code of the Python rules whose every check was probed and found sound (a mutant episode may reuse a
    run of theirs on a job already seen: `_run_memo`); a crashed, unprobed or judged check's code is not."""
    clean: set[str] = set()
    doubted: set[str] = set()
    for check in spec.checks:
        for rule in python_rules(check.rule):
            sound = check.id in probes and not probes[check.id] and not rule.judge
            (clean if sound else doubted).add(rule.code)
    return clean - doubted


def _probe_tier(ctx: GateContext, rule: PythonRule, audit: list[dict[str, Any]], replies: list[Any],
                referenced: bool) -> list[Probe]:
    """The probe findings of a Python rule in a check's tiers: its verdicts on the reference's final state and on
    the untouched one are its own runs' (the check's verdict is its best tier's), a verdict its runs differ on is the
    repeated runs' finding, and one it could not give is the check's crash, found on the episodes."""
    episodes = ctx.episodes()
    assert episodes is not None and episodes.oracle_wire is not None
    oracle = payload(rule, episodes.oracle_wire, audit, replies)
    untouched, untouched_verdict = None, None
    try:
        expected, error = run_check(rule, oracle)
        if error or expected is None:
            return []
        if episodes.initial_wire and referenced:
            untouched = payload(rule, episodes.initial_wire, [], [])
            untouched_verdict, _ = run_check(rule, untouched)
    except JudgeSpent:  # the judge budget is spent: as probe_check, stop probing with nothing found
        return []
    return probe_check(rule, expected, oracle, replies, untouched, untouched_verdict,
                       repeats=ctx.config.python_repeats, offsets=ctx.config.clock_offsets_s)


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
    """Gate 10: Python checks run within their sandbox limits on every episode, and are robust and stable.

    Episodes: the initial state, the reference, the noop and every mutant (a crash anywhere is a defect).
    Probes (`python_probes`): repeated runs, random seeds and pinned extremes, clocks years ahead, paraphrased
    replies, and reply words the reference never says.
    """
    blocked = _blocked("sandbox", ctx)
    if blocked is not None:
        return blocked
    episodes = ctx.episodes()
    assert episodes is not None
    python = [i for i, c in enumerate(ctx.spec.checks) if python_rules(c.rule)]  # in tiers too
    if not python:
        return gate_result("sandbox", [], python_checks=0)
    index = {c.id: i for i, c in enumerate(ctx.spec.checks)}
    errors: list[GateError] = []
    probes = python_probes(ctx)
    # A check whose cost is near the sandbox's limits is rejected for it: playing every mutant with it (seconds each)
    # would say nothing more, so only the three episodes every spec plays are looked at for crashes.
    costly = any(p.code == "cost_near_limit" for found in probes.values() for p in found)
    crashed: set[str] = set()

    def crashes(runs: list[tuple[str, Any]]) -> list[GateError]:
        """The first crash of each check not crashed yet, in the order of `runs`."""
        found = []
        for where, result in runs:
            for check in result.checks if result is not None else []:
                if check.error and check.id not in crashed:
                    crashed.add(check.id)
                    found.append(GateError("sandbox", sandbox_code(check.reason),
                                           f"checks[{index[check.id]}].rule.code", f"on {where}: {check.reason}"))
        return found

    def probed(sure: bool) -> list[GateError]:
        """The probes' findings; `sure`: only those a play of every mutant cannot take back (a probe's crash is
        not reported for a check an episode saw crash, and a mutant may be the first to)."""
        return [GateError("sandbox", probe.code, f"checks[{index[check_id]}].rule.code",
                          f"python check {check_id!r}: {probe.message}")
                for check_id, found in probes.items() for probe in found
                if not (probe.code == "python_crash" and (check_id in crashed or sure))]

    errors += crashes([("the initial state", episodes.initial), ("the reference episode", episodes.oracle().result),
                       ("the noop episode", episodes.noop().result)])
    stop = ctx.stop
    if stop is not None and not costly:  # fail-fast (`validate_spec(until=...)`): the mutants only until it is found
        if any(map(stop, found := errors + probed(sure=True))):
            return gate_result("sandbox", found, python_checks=len(python), stopped=True)

        def gives_it(chunk: list[tuple[Any, EpisodeOutcome]]) -> bool:
            errors.extend(crashes([(f"the mutant {m.description}", o.result) for m, o in chunk]))
            return any(map(stop, errors))

        ctx.mutation_outcomes(gives_it)
        if ctx.mutations is None:  # a chunk gave it: the mutants after it are left unplayed
            return gate_result("sandbox", errors + probed(sure=True), python_checks=len(python), stopped=True)
    elif not costly:
        errors += crashes([(f"the mutant {m.description}", o.result) for m, o in ctx.mutation_outcomes()])
    return gate_result("sandbox", errors + probed(sure=False), python_checks=len(python))


# -- 5 noop --------------------------------------------------------------------------------------------------
def noop_gate(ctx: GateContext) -> GateResult:
    """Gate 5: doing nothing fails and earns little; the untouched initial state neither passes nor earns much.

    Partial credit is the weighted share of the task's checks (guards excluded: they hold whenever no harm is
    done) that hold; it must stay at or below `config.noop_score_ceiling`. A spec whose world already satisfies
    every state check, so that only process checks (calls, order) keep the noop failing, is `presolved`.
    """
    blocked = _blocked("noop", ctx)
    if blocked is not None:
        return blocked
    episodes = ctx.episodes()
    assert episodes is not None
    noop = episodes.noop()
    ceiling = ctx.config.noop_score_ceiling
    errors = []
    guards = {c.id for c in ctx.spec.checks if is_guard(c)}
    noop_credit = task_credit(noop.result, guards) if noop.result is not None else None
    initial_credit = task_credit(episodes.initial, guards)
    if noop.result is None:
        errors.append(GateError("noop", "episode_error", "turns", f"the noop episode crashed: {noop.error}"))
    elif noop.result.passed:
        errors.append(GateError("noop", "noop_passes", "checks",
                                "an agent that does nothing passes every required check; add checks on the "
                                "state the task must change"))
    elif noop_credit is not None and noop_credit > ceiling:
        errors.append(GateError("noop", "noop_partial_score", "checks",
                                f"an agent that does nothing earns {noop_credit:.2f} of the task's check weight "
                                f"(ceiling {ceiling:g})"))
    if episodes.initial.passed:
        errors.append(GateError("noop", "initial_state_passes", "checks",
                                "the untouched initial state already passes; the task asks for nothing"))
    elif initial_credit > ceiling and not any(e.code == "noop_partial_score" for e in errors):
        errors.append(GateError("noop", "initial_partial_score", "checks",
                                f"the untouched initial state earns {initial_credit:.2f} of the task's check "
                                f"weight (ceiling {ceiling:g})"))
    errors += _part_credit_untouched(ctx, [episodes.initial, *([noop.result] if noop.result is not None else [])],
                                     guards)
    presolved = _presolved(ctx, guards)
    if presolved is not None:
        errors.append(GateError("noop", "presolved", "checks", presolved))
    errors += _solved_by_world(ctx, guards)
    errors += _left_to_a_job(ctx, guards)
    return gate_result("noop", errors, noop_score=noop.result.score if noop.result else None,
                        initial_score=episodes.initial.score, noop_task_credit=noop_credit,
                        initial_task_credit=initial_credit)


def _part_credit_untouched(ctx: GateContext, results: list[Any], guards: set[str]) -> list[GateError]:
    """A graded check earning part of its credit on the untouched initial state or in the do-nothing episode
    (`results`): one of its parts (a tier, a counted record, a sub-score) holds before the agent does anything, or
    for any reply, so doing nothing (or skipping that part of the task) earns that share whatever the ceiling on the
    whole. A check passed whole there is the other gates' (a preservation check, `presolved`, `solved_by_world`);
    one failed whole earns nothing."""
    where = {c.id: i for i, c in enumerate(ctx.spec.checks)}
    found: dict[str, float] = {}
    for result in results:
        for c in result.checks:
            if c.id not in guards and c.id in where and c.weight > 0 and 0 < (c.score or 0.0) < 1 and not c.error:
                found.setdefault(c.id, c.score or 0.0)
    return [GateError("noop", "initial_partial_check", f"checks[{where[cid]}]",
                      f"check {cid!r} scores {score:g} before the agent does anything (the untouched state or the "
                      "do-nothing episode): a part of it (a tier, a counted record, a sub-score) holds without the "
                      "work") for cid, score in found.items()]


def is_guard(check: Any) -> bool:
    """Whether a check guards against harm (it holds whenever the agent does nothing wrong)."""
    return bool(check.role == "guard")


def task_credit(result: Any, guards: set[str]) -> float:
    """The completion credit of a result: the weighted score of its non-guard checks."""
    task = [c for c in result.checks if c.id not in guards]
    total = sum(c.weight for c in task)
    earned = sum(c.weight * (c.score if c.score is not None else float(c.passed)) for c in task)
    return round(earned / total, 6) if total else 0.0


_STATE_KINDS = frozenset({"field", "records"})
_PROCESS_KINDS = frozenset({"called", "order"})
_REPLY_KINDS = frozenset({"reply_states", "text"})


def _presolved(ctx: GateContext, guards: set[str]) -> str | None:
    """Why the task is already done in the initial state (None when it is not)."""
    episodes = ctx.episodes()
    assert episodes is not None
    if not any(step.call is not None and is_write(step.call.name, ctx.spec) for t in ctx.spec.reference for step in t.steps):
        return None  # a read-and-answer task changes nothing by design
    kinds = {c.id: rule_kind(c.rule) for c in ctx.spec.checks}
    state = [c for c in episodes.initial.checks if kinds[c.id] in _STATE_KINDS and c.id not in guards]
    failing = [c for c in episodes.initial.checks if not c.passed and (c.required or c.safety)]
    process = [c for c in failing if kinds[c.id] in _PROCESS_KINDS]
    # Replies cannot exist before the agent speaks: a failing reply check does not make the world need work.
    if state and all(c.passed for c in state) and process and all(
            kinds[c.id] in _PROCESS_KINDS | _REPLY_KINDS for c in failing):
        names = ", ".join(c.id for c in process)
        return (f"the initial state already satisfies every state check; only process checks ({names}) keep an "
                "agent that does nothing from passing")
    return None


def _solved_by_world(ctx: GateContext, guards: set[str]) -> list[GateError]:
    """`solved_by_world` for each state check (not a guard) that fails on the initial state, or where the noop agent
    leaves the world (the turns' changes broke what held), but holds once the world changes by itself, the clock
    moved as far as an agent that only reads would move it (see `SpecEpisodes.world_only`): it credits the world
    (a job due on the clock), not the agent."""
    episodes = ctx.episodes()
    assert episodes is not None
    alone = episodes.world_only()
    if alone is None:
        return []
    kinds = {c.id: rule_kind(c.rule) for c in ctx.spec.checks}
    index = {c.id: i for i, c in enumerate(ctx.spec.checks)}
    before = {c.id: c.passed for c in episodes.initial.checks}
    noop = episodes.noop().result
    if noop is not None:
        before = {c.id: before.get(c.id, True) and c.passed for c in noop.checks}
    held = {c.id for result in alone for c in result.checks if c.passed}
    return [GateError("noop", "solved_by_world", f"checks[{index[c.id]}]",
                      f"check {c.id!r} fails on the initial state (or where the turns' changes leave it) but holds "
                      "once the turns' changes and the clock's rules apply, the clock moved only as far as an agent "
                      "that reads while the reference works, with no agent action: it credits the world's own change "
                      "(a job due on the clock), not the agent's work")
            for c in ctx.spec.checks if c.id in held and not before.get(c.id, True) and c.id not in guards
            and kinds[c.id] in _STATE_KINDS]


def _left_to_a_job(ctx: GateContext, guards: set[str]) -> list[GateError]:
    """`solved_by_world` for each state check (not a guard) that the reference without one of its writes fails, but
    holds once that agent reads on after the reference's end as far as the step budget lets it (`reads_left`): a job
    of the live world due on the clock, or an action rule's delayed effect, makes the skipped write for the agent,
    set off by what the agent's other writes left (a `when` only the agent's work makes true). Only where a rule runs
    on the clock; the skipped write's replay at the reference's pace is cached with the mutants (`SpecEpisodes.mutant`),
    so the mutation gate's own write-dropping mutant, where it is the same reference, is not played twice."""
    spec = ctx.spec
    if not any(isinstance(r.on, AtTime) or r.delay_s for r in spec.dynamics.rules) or spec.faults is not None:
        return []
    episodes = ctx.episodes()
    assert episodes is not None
    oracle = episodes.oracle()
    read = quiet_read(spec)
    if oracle.result is None or read is None:
        return []
    kinds = {c.id: rule_kind(c.rule) for c in spec.checks}
    index = {c.id: i for i, c in enumerate(spec.checks)}
    passed = {c.id for c in oracle.result.checks if c.passed}
    more = reads_left(spec, ctx.max_steps)
    errors: list[GateError] = []
    flagged: set[str] = set()
    for t, turn in enumerate(spec.reference[:len(spec.turns)]):
        for i, step in enumerate(turn.steps):
            if step.call is None or not is_write(step.call.name, spec):
                continue
            without = [turn_of([s for j, s in enumerate(u.steps) if (k, j) != (t, i)]) for k, u in
                       enumerate(spec.reference)]
            quick = episodes.mutant(without)
            if quick.result is None:
                continue
            missed = {c.id for c in quick.result.checks if not c.passed and c.id in passed
                      and kinds[c.id] in _STATE_KINDS and c.id not in guards and c.id not in flagged}
            if not missed:
                continue
            last = without[-1].steps
            at = len(last) - 1 if last and last[-1].call is None else len(last)
            slow = episodes.mutant([*without[:-1], turn_of([*last[:at], *[read] * more, *last[at:]])])
            if slow.result is None:
                continue
            for c in slow.result.checks:
                if c.id in missed and c.passed:
                    flagged.add(c.id)
                    errors.append(GateError(
                        "noop", "solved_by_world", f"checks[{index[c.id]}]",
                        f"check {c.id!r} fails where the agent skips the reference's {step.call.name} (turn {t}) "
                        f"but holds once that agent reads {more} times more after the reference's end: a job of "
                        "the world due on the clock does the skipped work for it, so the check credits the world"))
    return errors


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
      rule that allows, whole, every app the spec can change can never fail (`unfalsifiable_frame`).
    - a check no episode falsifies (initial state, noop, every mutant) is `unexercised_check` unless it is a
      guard: a preservation check ("the event was moved, not duplicated") must be declared a guard;
    - no check pins the reference's own wording of a free-text field (`wording_pinned`, see `_pinned_wording`);
    - no reply check bound to a turn reads a field a later turn's world change sets, or that holds another value
      when the reference's replay up to that turn ends than at the end (`reads_later_state`, see `_later_state`):
      the reply is judged against a value that did not exist when it was given; nor does a text check bound to a
      turn want, as a literal term, a record field's final value that the field did not hold when the turn ended
      (`later_literals`).
    A guard on a record that does not exist is the references gate's `missing_record`; a forbidden guard its
    own call cannot fire is the mutations gate's `guard_never_fires`.
    """
    blocked = _blocked("reads_state", ctx)
    if blocked is not None:
        return blocked
    spec = ctx.spec
    episodes = ctx.episodes()
    assert episodes is not None
    errors: list[GateError] = []
    guards = [is_guard(c) for c in spec.checks]
    grounded = [c.id for c, guard in zip(spec.checks, guards, strict=True)
                if c.required and not guard and any(_reads_world(r) for _, r in nested_rules(c.rule))]
    if not grounded:
        errors.append(GateError("reads_state", "reply_only_checks", "checks",
                                "no required check reads the world or the agent's actions (only reply or guard "
                                "checks); add a field, records, called or order check"))
    judged = [episodes.initial, episodes.noop().result,
              *(o.result for _, o in ctx.mutation_outcomes())]
    always = {c.id for c in spec.checks}
    for result in judged:
        if result is not None:
            always &= {c.id for c in result.checks if c.passed}
    vacuous, unexercised = [], []
    for i, (check, guard) in enumerate(zip(spec.checks, guards, strict=True)):
        for where, rule in nested_rules(check.rule, f"checks[{i}].rule"):  # a tier's frame too
            if isinstance(rule, FrameRule) and _allows_everything(rule, spec):
                errors.append(GateError("reads_state", "unfalsifiable_frame", f"{where}.allow",
                                        f"frame check {check.id!r} allows every change the spec can make (each app "
                                        "its world, tools and dynamics change, whole), so it can never fail"))
        if guard:
            continue
        # A tier that passes the check alone makes it as vacuous as its rule (a tier below pass_score does not).
        reason = next((found for _, rule in nested_rules(check.rule, reaching=check.pass_score)
                       if (found := unfalsifiable_reason(rule, spec, episodes.oracle_value)) is not None), None)
        if reason is None and python_rules(check.rule):
            reason = ("it holds on the initial state, the noop episode and every near miss"
                      if check.id in always else None)
        elif reason is None and check.id in always:
            unexercised.append(check.id)
            errors.append(GateError("reads_state", "unexercised_check", f"checks[{i}]",
                                    f"check {check.id!r} holds on the initial state, the noop episode and every "
                                    "near miss: no mistake the gates know makes it fail"))
        if reason is not None:
            vacuous.append(check.id)
            errors.append(GateError("reads_state", "vacuous_check", f"checks[{i}]",
                                    f"check {check.id!r} can never fail: {reason}"))
    for i, field, value in pinned_wording(spec, lambda: readable_text(spec)):
        errors.append(GateError("reads_state", "wording_pinned", f"checks[{i}]",
                                f"check {spec.checks[i].id!r} wants {field} to hold {value!r} word for word, "
                                "wording no turn or record states: an agent doing the work in other words fails; "
                                "check the facts it must state (names, numbers, ids: a term each) instead"))
    for i, source, turn, later in later_state_reads(spec):
        errors.append(GateError("reads_state", "reads_later_state", f"checks[{i}]",
                                f"check {spec.checks[i].id!r} judges the reply of turn {turn} by {source.app}."
                                f"{source.table} {source.id} {source.field} in the final state, but turn {later}'s "
                                "changes set that field after the reply: the answer true when given fails; bind the "
                                "check to a turn after the change, or want the value of its own turn as a literal"))
    flagged = {e.path for e in errors if e.code == "reads_later_state"}
    for i, source, turn, then, last in turn_end_reads(spec, episodes.oracle_value):
        if f"checks[{i}]" in flagged:
            continue
        errors.append(GateError("reads_state", "reads_later_state", f"checks[{i}]",
                                f"check {spec.checks[i].id!r} judges the reply of turn {turn} by {source.app}."
                                f"{source.table} {source.id} {source.field} in the final state ({last!r}), but when "
                                f"turn {turn} ended it was {then!r}: a rule of the world or a later write of the "
                                "reference sets it after the reply, so the answer true when given fails; bind the check "
                                "to a turn after the change, or want the value of its own turn as a literal"))
    for i, turn, term, path, then, last in later_literals(spec):
        if f"checks[{i}]" in flagged:
            continue
        flagged.add(f"checks[{i}]")
        errors.append(GateError("reads_state", "reads_later_state", f"checks[{i}]",
                                f"check {spec.checks[i].id!r} wants {term!r} in the reply of turn {turn}, the final "
                                f"value of {path} ({last!r}), but when turn {turn} ended it was {then!r}: the answer "
                                "true when given fails; want the value of its own turn"))
    for i, turn, term, path, then, last in later_record_literals(spec):
        if f"checks[{i}]" in flagged:
            continue
        flagged.add(f"checks[{i}]")
        errors.append(GateError("reads_state", "reads_later_state", f"checks[{i}]",
                                f"check {spec.checks[i].id!r} wants {term!r} in a record the reference wrote by the end "
                                f"of turn {turn}, the final value of {path} ({last!r}), but when turn {turn} ended it "
                                f"was {then!r}: what the agent writes true then fails; want the value of its own turn"))
    return gate_result("reads_state", errors, grounded_checks=grounded, vacuous_checks=vacuous,
                        unexercised=unexercised, episodes_judged=sum(r is not None for r in judged) + 1)


def _reads_world(rule: Any) -> bool:
    if isinstance(rule, PythonRule):
        return bool(parts_read(rule.code, rule.entrypoint) & {"state", "audit"})
    return rule.kind in ("field", "records", "called", "order")


def _allows_everything(rule: FrameRule, spec: EnvSpec) -> bool:
    """Whether a frame allows every change the spec can make: each app its world holds, its tools write or its
    dynamics change is allowed whole (app-wide, or each of its tables table-wide, with no id, fields or where)."""
    whole = {(s.app, s.table) for s in rule.allow if s.id is None and s.fields is None and not s.where}
    if not whole:
        return False
    return all((app, None) in whole or all((app, t) in whole for t in _changeable_tables(spec, app))
               for app in changeable_apps(spec) if app in APPS)


def _changeable_tables(spec: EnvSpec, app: str) -> tuple[str, ...]:
    """The tables of `app` an episode of the spec can change: all but the `kept` table (the values a service keeps
    as written), which only a declared tool that keeps values writes, unless the world holds kept records already.
    A frame allowing every other table whole allows everything this spec can change there."""
    keeps = any(d.bind.keeps and TOOLS[d.bind.op].app == app for d in spec.tool_decls) or bool(
        getattr(getattr(spec.world.apps, app, None), KEPT_TABLE, None))
    return tuple(t for t in APPS[app].tables if t != KEPT_TABLE or keeps)


def changeable_apps(spec: EnvSpec) -> set[str]:
    """The apps an episode of the spec can change: those its world holds records of, those its exposed tools
    write to, and those its dynamics rules and log streams change."""
    held = {app for app in APPS if any(getattr(getattr(spec.world.apps, app, None), t, None)
                                       for t in APPS[app].tables)}
    ops = [*spec.tools, *(d.bind.op for d in spec.tool_decls)]  # a declared tool writes where its operation does
    written = {TOOLS[op].app for op in ops if is_write(op)}
    moved = {e.app for r in spec.dynamics.rules for e in r.effects if hasattr(e, "app")}
    logged = {"logs"} if spec.dynamics.streams or any(isinstance(e, AppendLog) for r in spec.dynamics.rules
                                                       for e in r.effects) else set()
    return held | written | moved | logged
