"""The episodes the gates judge a spec by: oracle (twice), noop, the untouched initial state and mutants.

All episodes of one spec share one `Env`: `Env.reset` rewinds the world through its change journal, so each
extra episode costs O(records touched), not O(world).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coworkenv.agents import NoopPolicy, OraclePolicy, Policy
from coworkenv.bindings import spec_catalog
from coworkenv.checks import MISSING, AuditEntry, Reply, VerifierResult, render_value, resolve
from coworkenv.dynamics import Dynamics
from coworkenv.env import DEFAULT_MAX_STEPS, Action, Env, base_world
from coworkenv.rollout import run_episode
from coworkenv.spec import (
    AtTime,
    EnvSpec,
    FieldRef,
    FieldRule,
    OnAction,
    ReferenceTurn,
    ReplyStatesRule,
    TextRule,
)
from coworkenv.validate._check_reads import python_rules, spec_rules
from coworkenv.validate._mutation_core import turn_of
from coworkenv.validate._pace import quiet_read, reads_left
from coworkenv.validate._reads import read_matchers, without_reads
from coworkenv.validate._run_memo import RunMemo
from coworkenv.validate.dependencies import call_times, made_by_step
from coworkenv.validate.entities import EntityIndex, check_choices, check_values
from coworkenv.validate.mutations import Mutation, is_write
from coworkenv.validate.task_mutations import task_mutations
from coworkenv.world import World

# Fields the world stamps with its clock: a mutant that only shifts them did the same work at another time.
CLOCK_FIELDS = frozenset({"ts", "sent_at", "created_at", "updated_at", "modified_at", "at"})
# Logs are written by dynamics and streams as the clock moves, never by the agent directly.
_UNOBSERVED_APPS = frozenset({"logs"})

Signature = tuple[tuple[tuple[str, str, str, Any], ...], tuple[tuple[int, str], ...]]


@dataclass
class EpisodeOutcome:
    """What one episode produced; `error` is set (and `result` is None) when the episode itself crashed."""

    policy: str
    result: VerifierResult | None
    error: str | None = None
    final_hash: str = ""
    turn_reached: int = 0
    truncated: bool = False
    audit: list[AuditEntry] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    signature: Signature | None = None
    # The world's changes (as `outcome_signature` sees them) at the end of each turn but the last, kept with the
    # signature: a turn's result that a later turn overwrites leaves the final state as it was, not these.
    turn_ends: tuple[Any, ...] | None = None

    # Played with `lazy=True` and failed before its sandboxed checks ran: `result` holds only the other checks'
    # results (its `passed` is exact; its score and per-check results are not the episode's).
    partial: bool = False

    @property
    def passed(self) -> bool:
        return self.result is not None and self.result.passed

    def check_passed(self) -> dict[str, bool]:
        """Check id -> passed (empty when the episode crashed)."""
        if self.partial:
            raise ValueError(f"{self.policy}: the episode was played for its verdict only (lazy), not every check's")
        return {c.id: c.passed for c in self.result.checks} if self.result is not None else {}


def _mutant_key(reference: list[ReferenceTurn]) -> str:
    """What makes two mutant episodes one (`SpecEpisodes.mutant`): their calls and sayings, turn by turn."""
    return repr([[(s.call.name, s.call.arguments) if s.call else s.say for s in t.steps] for t in reference])


def outcome_signature(world: World, replies: list[Reply]) -> Signature:
    """What an episode changed (records modulo clock stamps, logs excluded) and what the agent said.

    Two episodes with equal signatures had the same observable outcome, so no verifier of outcomes can (or
    should) tell them apart.
    """
    changed = []
    for change in world.changes():
        if change.app in _UNOBSERVED_APPS:
            continue
        record = world.table(change.app, change.table).get(change.id)
        value = None if record is None else _timeless(record.model_dump(mode="json"))
        changed.append((change.app, change.table, change.id, _freeze(value)))
    return tuple(changed), tuple((r.turn, r.text) for r in replies)


def _timeless(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("<clock>" if k in CLOCK_FIELDS else _timeless(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_freeze(v) for v in value)
    return value


class _TurnEnds:
    """A policy as it is, noting the world's changes whenever it ends a turn (a message without tool calls)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.name = policy.name
        self.ends: list[Any] = []

    def act(self, env: Env) -> Action:
        action = self.policy.act(env)
        if not action.tool_calls:
            self.ends.append(outcome_signature(env.state, [])[0])
        return action


class SpecEpisodes:
    """Runs and caches the episodes of one spec on one shared Env."""

    def __init__(self, spec: EnvSpec, max_steps: int = DEFAULT_MAX_STEPS) -> None:
        self.spec = spec
        self.env = Env(spec, max_steps=max_steps)
        # Every reset hands out the tool schemas; the gates never read them, so build them once, not per episode.
        schemas = self.env.toolbox.openai_tools()
        self.env.toolbox.openai_tools = lambda: schemas  # type: ignore[method-assign]
        # The sandboxed runs of every episode, kept for the mutants to reuse where the job is the same (`_run_memo`).
        self.python_runs = RunMemo()
        self.env.verifier.python_runs = self.python_runs
        # Scored before any episode: the world is still exactly the spec's initial state.
        self.initial: VerifierResult = self.env.verifier.score(self.env.state, [], [])
        has_python = any(python_rules(c.rule) for c in spec.checks)  # in tiers too
        self.initial_wire: dict[str, Any] | None = self.env.state.to_wire() if has_python else None
        self._oracle: EpisodeOutcome | None = None
        self._oracle_again: EpisodeOutcome | None = None
        self._noop: EpisodeOutcome | None = None
        self._world_only: list[VerifierResult] | None = None
        # People, channels and ids of the oracle's final world (records the reference creates included).
        self.oracle_entities: EntityIndex | None = None
        # The reference's final value of every field a check reads (the vacuity analysis probes them).
        self.oracle_values: dict[FieldRef, Any] = {}
        # Records the reference changed / added, and the task-level mutants built from its final world.
        self.touched: set[tuple[str, str, str]] = set()
        self.created: set[tuple[str, str, str]] = set()
        self.made: dict[tuple[int, int], tuple[str, str, str]] = {}  # (turn, step) -> the record that call created
        # The final field values of each record the reference creates (what a deactivating replay would change).
        self.created_values: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.task_mutants: list[Mutation] = []
        # The reference's final world as the sandbox sees it (only kept when a Python check exists).
        self.oracle_wire: dict[str, Any] | None = None
        self._mutants: dict[str, EpisodeOutcome] = {}
        self.read_matchers = read_matchers(spec)
        self.catalog = spec_catalog(spec)  # a declared write is a write: mutants keep it

    def oracle(self) -> EpisodeOutcome:
        """The reference solution's episode (the first one on this Env: its world was freshly built)."""
        if self._oracle is None:
            self._oracle = self.run(OraclePolicy(self.spec), keep_signature=True)
            if self._oracle.result is not None:  # read the final world before the next reset rewinds it
                world = self.env.state
                facts = check_values(self.spec)
                for _, _, _, rule in spec_rules(self.spec.checks):  # what the reply checks expect stated
                    if isinstance(rule, ReplyStatesRule):
                        value = resolve(world, rule.source)
                        if value is not MISSING:
                            facts.update(t.lower() for t in render_value(value, rule.format) if t.strip())
                self.oracle_entities = EntityIndex(world, facts, check_choices(self.spec))
                for change in world.changes():
                    self.touched.add((change.app, change.table, change.id))
                    if change.kind == "changed":  # as the reference left it (the world is rewound later)
                        changed = world.table(change.app, change.table).get(change.id)
                        if changed is not None:
                            self.oracle_entities.changed[(change.app, change.table, change.id)] = \
                                changed.model_dump(mode="json")
                    if change.kind == "added":
                        self.created.add((change.app, change.table, change.id))
                        record = world.table(change.app, change.table).get(change.id)
                        if record is not None:
                            self.created_values[(change.app, change.table, change.id)] = record.model_dump()
                            self.oracle_entities.created[(change.app, change.table, change.id)] = \
                                record.model_dump(mode="json")
                made = self.made = made_by_step(self.spec.reference, self._oracle.audit, world, self.created)
                self.oracle_entities.call_times = call_times(self.spec.reference, self._oracle.audit)
                self.task_mutants = task_mutations(self.spec, world, self.oracle_entities, self.touched,
                                                   self.created, made, self._oracle.audit)
                if any(python_rules(c.rule) for c in self.spec.checks):
                    self.oracle_wire = world.to_wire()
                for _, _, _, rule in spec_rules(self.spec.checks):
                    ref = rule.target if isinstance(rule, FieldRule) else (
                        rule.source if isinstance(rule, ReplyStatesRule) else (
                            rule.number.source if isinstance(rule, TextRule) and rule.number is not None else None))
                    if ref is not None:
                        self.oracle_values[ref] = resolve(self.env.state, ref)
        return self._oracle

    def world_only(self) -> list[VerifierResult] | None:
        """The verdicts on the world left to itself: every turn's announced or silent changes applied and the clock
        moved by each turn's `advance_s`, first with no other time passing (the noop agent's clock), then once per
        turn k with the clock also moved, in each turn, as far as an agent that only reads while the reference works
        there would move it (a tick per reference call of the turn) and, in turn k, as many reads more as the
        episode's step budget leaves (`reads_left`, at least `EXTRA_READS`: the pace an agent may take, as in
        `_pace`). Rules due on the clock fire; rules that answer an action do not: a job due after the reference is
        done that makes the change the checks want credits an agent that waits for it. Where an action rule answers
        a read, also the verdicts on an agent that only reads (`_reads_only`): a job its look starts is the world's
        work too. None when the spec's world changes only in answer to the agent's writes."""
        if self._world_only is None:
            rules = self.spec.dynamics.rules
            read_rules = any(isinstance(r.on, OnAction) and not is_write(r.on.call.tool, self.spec) for r in rules)
            if not any(t.changes for t in self.spec.turns) and not read_rules and not any(
                    isinstance(r.on, AtTime) for r in rules):
                return None
            paces: list[list[int] | None] = [None]
            more = reads_left(self.spec, self.env.max_steps)
            if any(isinstance(r.on, AtTime) for r in rules):
                calls = [sum(step.call is not None for step in turn.steps) for turn in self.spec.reference]
                calls += [0] * (len(self.spec.turns) - len(calls))
                paces += [[n + (more if t == k else 0) for t, n in enumerate(calls)]
                          for k in range(len(self.spec.turns))]
            self._world_only = [self._world_alone(pace) for pace in paces]
            if read_rules:
                self._world_only += self._reads_only(more)
        return self._world_only

    def _reads_only(self, more: int) -> list[VerifierResult]:
        """The verdicts on an agent that only reads: the reference without its writes, once per turn k with the
        quiet read (`_pace`) made `more` times more at the end of turn k's calls."""
        read = quiet_read(self.spec)
        if read is None:
            return []
        reads = [[s for s in turn.steps if s.call is None or not is_write(s.call.name, self.spec)] for turn in self.spec.reference]
        found = []
        for k in range(len(reads)):
            turns = []
            for t, steps in enumerate(reads):
                if t == k:
                    at = len(steps) - 1 if steps and steps[-1].call is None else len(steps)
                    steps = [*steps[:at], *[read] * more, *steps[at:]]
                turns.append(turn_of(steps))
            outcome = self.run(OraclePolicy(self.spec, reference=turns))
            if outcome.result is not None:
                found.append(outcome.result)
        return found

    def _world_alone(self, pace: list[int] | None) -> VerifierResult:
        """The verdict on the world with the turns' changes applied, `pace[t]` ticks of clock spent in turn t."""
        world = base_world(self.spec).fork()
        dynamics = Dynamics(self.spec, world)
        for t, turn in enumerate(self.spec.turns):
            if t:
                dynamics.advance(turn.advance_s)
                dynamics.apply(turn.changes)
            if pace is not None:
                dynamics.advance(pace[t] * self.spec.world.tick_s)
        return self.env.verifier.score(world, [], [])

    def oracle_value(self, ref: FieldRef) -> Any:
        """A checked field's value at the end of the reference episode (the verifier's missing marker if none)."""
        self.oracle()
        return self.oracle_values.get(ref, MISSING)

    def oracle_again(self) -> EpisodeOutcome:
        """The reference solution once more, on the rewound world: it must end in the same state."""
        self.oracle()
        if self._oracle_again is None:
            self._oracle_again = self.run(OraclePolicy(self.spec))
        return self._oracle_again

    def noop(self) -> EpisodeOutcome:
        """An agent that answers every turn without touching a tool."""
        if self._noop is None:
            self._noop = self.run(NoopPolicy())
        return self._noop

    def mutant(self, reference: list[ReferenceTurn], keep_reads: bool = False, lazy: bool = False) -> EpisodeOutcome:
        """The oracle playing a mutated reference; the signature is kept only when the verifier passes it.

        Two mutants with the same reference (e.g. two operators reaching the same mistake) share one episode;
        read calls are left out when no check, turn or rule can tell (`read_matchers`), unless `keep_reads`: a replay
        whose reads are there to move the clock (every call is a tick, and a check on a stamp sees the time).
        `lazy`: for a caller that reads only whether the mutant passed (and its audit), or every check's result only
        where it passed: a sandboxed check is not run where the other checks already fail it (see `run`).
        """
        if self.read_matchers is not None and not keep_reads:
            reference = without_reads(reference, self.read_matchers, self.catalog)
        key = _mutant_key(reference)
        found = self._mutants.get(key)
        if found is None or (found.partial and not lazy):  # a lazy one played again in full (episodes are replays)
            self.python_runs.replaying = True  # a trusted check's run of a job already seen is not repeated
            try:
                found = self._mutants[key] = self.run(OraclePolicy(self.spec, reference=reference),
                                                      keep_signature=None, lazy=lazy)
            finally:
                self.python_runs.replaying = False
        return found

    def play_ahead(self, references: list[list[ReferenceTurn]]) -> None:
        """Start the sandboxed runs the mutants of `references` will ask for, before they are played (`mutant`): a
        dry pass plays each one not played yet with its runs started on a few threads, not waited for, its outcome
        thrown away (`RunMemo.start`); the pass that counts takes each run started for its exact job
        (`RunMemo.take`). Call `python_runs.drop_ahead()` after that pass. Nothing is started where no check runs
        unjudged sandboxed code, nor for fewer than two episodes."""
        if not any(not r.judge for c in self.spec.checks for r in python_rules(c.rule)):
            return
        todo: dict[str, list[ReferenceTurn]] = {}
        for reference in references:
            if self.read_matchers is not None:
                reference = without_reads(reference, self.read_matchers, self.catalog)
            key = _mutant_key(reference)
            found = self._mutants.get(key)
            if found is None or found.partial:
                todo.setdefault(key, reference)
        if len(todo) < 2:
            return
        self.python_runs.collecting = self.python_runs.replaying = True
        try:
            for reference in todo.values():
                self.run(OraclePolicy(self.spec, reference=reference))
        finally:
            self.python_runs.collecting = self.python_runs.replaying = False

    def run(self, policy: Policy, keep_signature: bool | None = False, lazy: bool = False) -> EpisodeOutcome:
        """Play one episode; `keep_signature` True: always, None: only if it passed, False: never.

        `lazy`: the spec's sandboxed (Python) checks run only where the other checks leave the verdict open
        (`Verifier.lazy_python`); where they do not, the outcome is `partial`: its `passed` is exact, its per-check
        results are not there (the sandbox gate, which looks for a crash on every mutant, reads full outcomes)."""
        if keep_signature is not False and self.spec.multi_turn:
            policy = _TurnEnds(policy)
        verifier = self.env.verifier
        verifier.lazy_python = lazy
        try:
            episode = run_episode(self.env, policy)
        except Exception as exc:  # a spec can make the runtime fail (e.g. an effect writing a bad record)
            return EpisodeOutcome(policy.name, None, f"{type(exc).__name__}: {exc}")
        finally:
            verifier.lazy_python = False
        env = self.env
        outcome = EpisodeOutcome(
            policy.name, episode.result, None, episode.final_hash, env.turn, env.truncated,
            list(env.audit), list(env.replies), partial=len(episode.result.checks) < len(self.spec.checks),
        )
        if keep_signature or (keep_signature is None and episode.result.passed):
            outcome.signature = outcome_signature(env.state, env.replies)
            if isinstance(policy, _TurnEnds):
                outcome.turn_ends = tuple(policy.ends[:len(self.spec.turns) - 1])
        return outcome
