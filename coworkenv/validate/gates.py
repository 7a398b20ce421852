"""The ten validation gates. Each returns a GateResult whose errors are machine-readable (gate, code, path).

Order and stages (a stage runs only when every earlier stage passed):
  schema_valid: 1 schema
  coherent:     2 references, 3 exposed_tools, 8 isolation
  solvable:     4 oracle, 9 turns_reachable, 10 sandbox
  sound:        5 noop, 6 mutations, 7 reads_state
This module has the gate types and the gates that read the spec alone (1, 2, 3, 8); the gates that judge
episodes (4, 5, 6, 7, 9, 10) are in `episode_gates`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson
from pydantic import ValidationError

from coworkenv.apps import APPS, TOOLS
from coworkenv.bindings import exposed_tools, spec_catalog
from coworkenv.env import DEFAULT_MAX_STEPS, system_prompt
from coworkenv.loading import SpecIssue, reference_issues
from coworkenv.spec import (
    AfterCall,
    CalledRule,
    EnvSpec,
    ForbiddenRule,
    OrderRule,
)
from coworkenv.spec_seal import is_sealed, open_sealed
from coworkenv.tools import ToolError
from coworkenv.validate._attempt_words import forbidden_attempts
from coworkenv.validate._check_reads import spec_rules
from coworkenv.validate._episodes import EpisodeOutcome, SpecEpisodes
from coworkenv.validate._guard_values import unreal_guard_values
from coworkenv.validate._held_values import (
    never_held,
    respelled_keys,
    uncounted_attempts,
    underpriced_harms,
    unscored_failures,
)
from coworkenv.validate._leaks import find_leaks
from coworkenv.validate._python_times import python_times
from coworkenv.validate._python_utc_reads import python_utc_reads
from coworkenv.validate._text_membership import text_membership
from coworkenv.validate._text_negations import text_negations
from coworkenv.validate._textual_times import textual_times
from coworkenv.validate._time_spellings import time_spellings
from coworkenv.validate.hints import hint_for
from coworkenv.validate.mutations import Mutation, near_miss_mutations
from coworkenv.validate.policy import Policy, ValidationConfig
from coworkenv.validate.python_probes import Probe

GATES: tuple[str, ...] = (
    "schema", "references", "exposed_tools", "oracle", "noop", "mutations", "reads_state", "isolation",
    "turns_reachable", "sandbox",
)
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("schema_valid", ("schema",)),
    ("coherent", ("references", "exposed_tools", "isolation")),
    ("solvable", ("oracle", "turns_reachable", "sandbox")),
    ("sound", ("noop", "mutations", "reads_state")),
)
_MAX_ERRORS_PER_GATE = 50
# Mutants played (and played ahead) at a time where a validation may stop at an error (`GateContext.stop`): a chunk
# that gives it spares the rest, and each keeps the few threads that play ahead (`_run_memo.AHEAD_WIDTH`) busy.
MUTANT_CHUNK = 12


# The gates that read the spec alone. Every other gate judges episodes played on the one Env a validation shares, and
# what a gate builds from it depends on the episodes played before: the near misses' "another record" values are
# drawn from the world the last episode left (the EntityIndex holds the live world), so the mutations gate alone drew
# other alternatives than after the oracle's and the noop's episodes (written_name_unchanged/paused-entry-version-14:
# killed alone, survived in a full validation). A gate chosen alone therefore runs after the episode gates a full
# validation runs before it, in its order.
SPEC_GATES: tuple[str, ...] = ("schema", "references", "exposed_tools")
RUN_ORDER: tuple[str, ...] = tuple(g for _, gates in STAGES for g in gates)


def check_gates(names: Iterable[str] | str | None) -> tuple[str, ...]:
    """The gates a validation runs, in GATES order: all ten for None, else the gates named (a list, or one string of
    names separated by commas), schema, and the episode gates a full validation runs before a named one (see
    SPEC_GATES). A ValueError says which name is unknown and lists the gates."""
    if names is None:
        return GATES
    asked = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
    unknown = [n for n in asked if n not in GATES]
    if unknown:
        raise ValueError(f"unknown gate {unknown[0]!r} in the gate selection; the gates are {', '.join(GATES)}: "
                         "name one or more of them, or none to run all ten")
    if not asked:
        raise ValueError(f"the gate selection names no gate; name one or more of {', '.join(GATES)}, or pass none "
                         "to run all ten")
    last = max((RUN_ORDER.index(g) for g in asked if g not in SPEC_GATES), default=0)
    before = {g for g in RUN_ORDER[:last] if g not in SPEC_GATES}
    return tuple(g for g in GATES if g in asked or g in before or g == "schema")  # the spec is parsed first


@dataclass(frozen=True)
class GateError:
    """One reason a gate failed: which gate, a stable code, the spec field path, and what to do."""

    gate: str
    code: str
    path: str
    message: str
    hint: str = ""  # what a repair LLM should change (filled from the code when empty)

    def __post_init__(self) -> None:
        if not self.hint:
            object.__setattr__(self, "hint", hint_for(self.code))

    def as_dict(self) -> dict[str, str]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.gate}/{self.code} at {self.path}: {self.message}"


@dataclass
class GateResult:
    """A gate's verdict, its errors and gate-specific details (scores, counts)."""

    gate: str
    passed: bool
    errors: list[GateError] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"gate": self.gate, "passed": self.passed, "errors": [e.as_dict() for e in self.errors],
                "details": self.details}


def gate_result(gate: str, errors: list[GateError], **details: Any) -> GateResult:
    """A GateResult that passes when there are no errors (at most 50 kept; the rest counted in details)."""
    kept = errors[:_MAX_ERRORS_PER_GATE]
    if len(errors) > len(kept):
        details["errors_omitted"] = len(errors) - len(kept)
    return GateResult(gate, not errors, kept, details)


class GateContext:
    """A parsed spec and the episodes its gates share (built lazily, run once)."""

    def __init__(self, spec: EnvSpec, max_steps: int = DEFAULT_MAX_STEPS, policy: Policy = "strict",
                 config: ValidationConfig | None = None, stop: Callable[[GateError], bool] | None = None) -> None:
        self.spec = spec
        # The errors the validation stops at (`validate_spec(until=...)`): a gate that finds one may return the errors
        # found so far, each as it would report it had it run to the end, and leave the rest unplayed.
        self.stop = stop
        self.max_steps = max_steps if spec.max_steps is None else min(max_steps, spec.max_steps)  # as the Env's
        self.policy = policy
        self.config = config or ValidationConfig()
        self._episodes: SpecEpisodes | None = None
        self.env_error: str | None = None
        self.mutations: list[tuple[Mutation, EpisodeOutcome]] | None = None
        self._mutants: list[Mutation] | None = None  # every mutant, built once; `_played` the first ones' episodes
        self._played: list[tuple[Mutation, EpisodeOutcome]] = []
        self.python_probes: dict[str, list[Probe]] | None = None

    def mutation_outcomes(self, enough: Callable[[list[tuple[Mutation, EpisodeOutcome]]], bool] | None = None,
                          ) -> list[tuple[Mutation, EpisodeOutcome]]:
        """Every near-miss and task mutant with its episode (played once, shared by the gates).

        `enough`: the mutants are played in chunks (`MUTANT_CHUNK`), each chunk's episodes handed to `enough` as they
        are played; once it answers True the episodes played so far are returned, the rest left unplayed (a later
        call plays them on, in the same order: the episodes, and the world the last one leaves, are a full play's).
        """
        if self.mutations is not None:
            return self.mutations
        episodes = self.episodes()
        if episodes is None or episodes.oracle().result is None or episodes.oracle_entities is None:
            self.mutations = []
            return self.mutations
        if self._mutants is None:
            self._mutants = near_miss_mutations(self.spec, episodes.oracle_entities,
                                                max_alternatives=self.config.max_alternatives,
                                                values=episodes.oracle_value)
            self._mutants += episodes.task_mutants
        while len(self._played) < len(self._mutants):
            at = len(self._played)
            chunk = self._mutants[at:at + MUTANT_CHUNK] if enough is not None else self._mutants[at:]
            episodes.play_ahead([m.reference for m in chunk])  # their sandboxed runs started, a few at once
            try:
                played = [(m, episodes.mutant(m.reference)) for m in chunk]
            finally:
                episodes.python_runs.drop_ahead()
            self._played += played
            if enough is not None and enough(played) and len(self._played) < len(self._mutants):
                return list(self._played)
        self.mutations = self._played
        return self.mutations

    def episodes(self) -> SpecEpisodes | None:
        """The shared episodes, or None when the spec cannot even be turned into an Env."""
        if self._episodes is None and self.env_error is None:
            try:
                self._episodes = SpecEpisodes(self.spec, self.max_steps)
            except Exception as exc:  # e.g. a record the runtime rejects; reported by the oracle gate
                self.env_error = f"{type(exc).__name__}: {exc}"
        return self._episodes


# -- 1 schema ------------------------------------------------------------------------------------------------
def schema_gate(data: EnvSpec | str | bytes | dict[str, Any]) -> tuple[GateResult, EnvSpec | None]:
    """Gate 1: the payload is JSON and matches the EnvSpec schema."""
    if isinstance(data, EnvSpec):
        return GateResult("schema", True, details={"source": "object"}), data
    if isinstance(data, str | bytes) and is_sealed(data):  # a stored spec (coworkenv.spec_seal)
        opened = open_sealed(data, "the payload")
        if isinstance(opened, EnvSpec):  # its seal holds: it passed the schema when it was sealed
            return GateResult("schema", True, details={"source": "sealed"}), opened
        data = opened.payload if opened.payload is not None else data  # validated in full below
    try:
        raw = orjson.loads(data) if isinstance(data, str | bytes) else data
    except orjson.JSONDecodeError as exc:
        return gate_result("schema", [GateError("schema", "invalid_json", "(document)",
                                                 f"not valid JSON: {exc}; send one JSON object")]), None
    if not isinstance(raw, dict):
        return gate_result("schema", [GateError("schema", "not_an_object", "(document)",
                                                 f"expected a JSON object, got {type(raw).__name__}")]), None
    try:
        return GateResult("schema", True), EnvSpec.model_validate(raw)
    except ValidationError as exc:
        errors = [GateError("schema", _schema_code(err["type"]), _loc(err["loc"]), err["msg"])
                  for err in exc.errors()]
        return gate_result("schema", errors), None


def _schema_code(kind: str) -> str:
    if kind == "missing":
        return "missing_field"
    if kind == "extra_forbidden":
        return "unknown_field"
    if kind.endswith(("_type", "_parsing")) or kind in ("model_attributes_type", "union_tag_invalid"):
        return "wrong_type"
    return "invalid_value"


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(document)"


# -- 2 references --------------------------------------------------------------------------------------------
def references_gate(ctx: GateContext) -> GateResult:
    """Gate 2: every id, person, service, file, app, table, field and tool the spec names exists."""
    spec = ctx.spec
    errors = [GateError("references", _reference_code(issue), issue.path, issue.message)
              for issue in reference_issues(spec)]
    for app_name, app in APPS.items():
        state = getattr(spec.world.apps, app_name)
        for table in app.tables:
            counts = Counter(r.id for r in getattr(state, table))
            for record_id, n in sorted(counts.items()):
                if n > 1:
                    errors.append(GateError("references", "duplicate_id", f"world.apps.{app_name}.{table}",
                                            f"id {record_id!r} is used by {n} records; ids must be unique"))
    for what, ids in (("checks", [c.id for c in spec.checks]), ("dynamics.rules", [r.id for r in spec.dynamics.rules]),
                      ("dynamics.streams", [s.id for s in spec.dynamics.streams])):
        for ident, n in sorted(Counter(ids).items()):
            if n > 1:
                errors.append(GateError("references", "duplicate_id", what, f"id {ident!r} is used {n} times"))
    errors += [GateError("references", "value_never_held", path, message) for path, message in never_held(spec)]
    errors += [GateError("references", "key_respelled", path, message) for path, message in respelled_keys(spec)]
    errors += [GateError("references", "in_text_value", path, message) for path, message in text_membership(spec)]
    errors += [GateError("references", "not_equals_text", path, message) for path, message in text_negations(spec)]
    errors += [GateError("references", "time_compared_as_text", path, message) for path, message in textual_times(spec)]
    errors += [GateError("references", "time_compared_as_text", path, message) for path, message in time_spellings(spec)]
    errors += [GateError("references", "time_compared_as_text", path, message) for path, message in python_times(spec)]
    errors += [GateError("references", "time_read_in_utc", path, message) for path, message in python_utc_reads(spec)]
    errors += [GateError("references", "guard_value_unreal", path, message)
               for path, message in unreal_guard_values(spec)]
    errors += [GateError("references", "failure_unscored", path, message) for path, message in unscored_failures(spec)]
    errors += [GateError("references", "harm_underpriced", path, message) for path, message in underpriced_harms(spec)]
    errors += [GateError("references", "attempt_uncounted", path, message) for path, message in uncounted_attempts(spec)]
    errors += [GateError("references", "attempt_uncounted", path, message) for path, message in forbidden_attempts(spec)]
    return gate_result("references", errors)


def _reference_code(issue: SpecIssue) -> str:
    path, msg = issue.path, issue.message
    tail = path.rsplit(".", 1)[-1]
    if "unknown tool" in msg:
        return "unknown_tool"
    if path == "user":
        return "unknown_person"
    if path == "reference":
        return "turn_count_mismatch"
    if "exactly one of" in msg:
        return "invalid_step"
    if "has no argument" in msg:
        return "unknown_argument"
    if ".record." in path:
        return "invalid_record"
    if path == "world.start" or path.endswith(".on.time"):
        return "invalid_time"
    if "unknown app" in msg:
        return "unknown_app"
    if "has no table" in msg:
        return "unknown_table"
    if "has no field" in msg:
        return "unknown_field"
    if tail == "service" and "no service" in msg:
        return "unknown_service"
    if tail == "id" and "no record" in msg:
        return "missing_record"
    return "unresolved_reference"


# -- 3 exposed tools -----------------------------------------------------------------------------------------
def exposed_tools_gate(ctx: GateContext) -> GateResult:
    """Gate 3: the reference calls only exposed tools with valid arguments; checks and turns match exposed tools."""
    spec = ctx.spec
    exposed = set(exposed_tools(spec))
    catalog = spec_catalog(spec)
    errors: list[GateError] = []
    for t, turn in enumerate(spec.reference):
        for s, step in enumerate(turn.steps):
            if step.call is None:
                continue
            where = f"reference[{t}].steps[{s}].call"
            if step.call.name not in exposed:
                errors.append(GateError("exposed_tools", "reference_tool_not_exposed", f"{where}.name",
                                        f"the reference calls {step.call.name!r}, which is not in tools; "
                                        "add it to tools or change the step"))
            tool = catalog.get(step.call.name)
            if tool is not None:
                try:
                    tool.validate(step.call.arguments)
                except ToolError as exc:
                    errors.append(GateError("exposed_tools", "invalid_reference_arguments", f"{where}.arguments",
                                            str(exc)))
                except ValidationError as exc:
                    for err in exc.errors():
                        errors.append(GateError("exposed_tools", "invalid_reference_arguments",
                                                f"{where}.arguments.{_loc(err['loc'])}",
                                                f"{step.call.name}: {err['msg']}"))
    for i, check, _, rule in spec_rules(spec.checks):  # a tier's rule too
        matchers = {"call": rule.call} if isinstance(rule, CalledRule | ForbiddenRule) else (
            {"first": rule.first, "then": rule.then} if isinstance(rule, OrderRule) else {})
        for name, matcher in matchers.items():
            if matcher.tool not in exposed:
                errors.append(GateError("exposed_tools", "check_tool_not_exposed", f"checks[{i}].rule.{name}.tool",
                                        f"check {check.id!r} matches {matcher.tool!r}, which the agent cannot call"))
    for i, user_turn in enumerate(spec.turns):
        condition = user_turn.condition
        if isinstance(condition, AfterCall) and condition.call.tool not in exposed:
            errors.append(GateError("exposed_tools", "condition_tool_not_exposed", f"turns[{i}].condition.call.tool",
                                    f"turn {i} waits for {condition.call.tool!r}, which the agent cannot call"))
    return gate_result("exposed_tools", errors)


# -- 8 isolation ---------------------------------------------------------------------------------------------
def isolation_gate(ctx: GateContext) -> GateResult:
    """Gate 8: no tool reaches outside the app catalog; neither world nor prompt carries checks or reference."""
    spec = ctx.spec
    errors = [GateError("isolation", "tool_outside_catalog", f"tools[{i}]",
                        f"{name!r} is not a workplace app tool; agents may only get app tools")
              for i, name in enumerate(spec.tools) if name not in TOOLS]
    prompts = [("the context", spec.context)]
    episodes = ctx.episodes() if not errors else None  # the system prompt names the apps of the tools
    if episodes is not None:
        prompts.append(("the system prompt", system_prompt(spec, episodes.env.state)))
    for i, turn in enumerate(spec.turns):
        prompts.append((f"turns[{i}].content", turn.content))
        if turn.announce:
            prompts.append((f"turns[{i}].announce", turn.announce))
    audit = episodes.oracle().audit if episodes is not None else None
    for code, path, message in find_leaks(spec, prompts, audit):
        errors.append(GateError("isolation", code, path, message + "; the agent must not see the verifier"))
    return gate_result("isolation", errors)
