"""validate_spec: run the ten gates stage by stage and say how far a spec got and why it stopped."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from coworkenv.env import DEFAULT_MAX_STEPS
from coworkenv.sandbox import requiring_layers
from coworkenv.spec import EnvSpec, ReferenceTurn
from coworkenv.validate.episode_gates import (
    noop_gate,
    oracle_gate,
    reads_state_gate,
    sandbox_gate,
    turns_reachable_gate,
)
from coworkenv.validate.gates import (
    GATES,
    STAGES,
    GateContext,
    GateError,
    GateResult,
    check_gates,
    exposed_tools_gate,
    isolation_gate,
    references_gate,
    schema_gate,
)
from coworkenv.validate.mutation_gate import mutations_gate
from coworkenv.validate.mutations import step_of
from coworkenv.validate.policy import BLOCKING_CODES, Policy, ValidationConfig, check_policy

_GATE_FUNCTIONS: dict[str, Callable[[GateContext], GateResult]] = {
    "references": references_gate,
    "exposed_tools": exposed_tools_gate,
    "isolation": isolation_gate,
    "oracle": oracle_gate,
    "turns_reachable": turns_reachable_gate,
    "sandbox": sandbox_gate,
    "noop": noop_gate,
    "mutations": mutations_gate,
    "reads_state": reads_state_gate,
}
STAGE_NAMES: tuple[str, ...] = ("generated", *(name for name, _ in STAGES))
# When several gates fail, the one whose failure explains the others is the reason for the rejection: an
# unreached follow-up makes the reference fail the follow-up's checks; a Python check that crashes or changes
# its verdict makes the reference fail it too.
CAUSE_ORDER: tuple[str, ...] = (
    "schema", "references", "exposed_tools", "isolation", "turns_reachable", "sandbox", "oracle", "noop",
    "mutations", "reads_state",
)


@dataclass
class SpecValidation:
    """The verdict on one spec: `stage` is the last stage whose gates all passed ("generated": none).

    `findings` lists what the gates found that did not reject the spec: under `report` every gate error,
    under `strict` the incidental reference writes that were trimmed (then `spec` is the trimmed spec).
    `selection` is the gates asked for (all ten, GATES, unless `validate_spec(gates=...)` chose fewer). A partial
    validation (`partial`) never passes: `passed` is False whatever its gates found, so it cannot be taken for an
    accepted spec (the repair loop and the dataset tables refuse it); `selection_passed` says whether every gate
    it asked for ran and passed (for a full validation it is `passed`).
    """

    passed: bool
    stage: str
    gates: list[GateResult]
    mutation_score: float | None
    spec: EnvSpec | None
    policy: Policy = "strict"
    findings: list[GateError] = field(default_factory=list)
    selection: tuple[str, ...] = GATES
    selection_passed: bool | None = None  # None: `passed` (a full validation)
    stopped: bool = False  # `validate_spec(until=...)` stopped at the error asked for: the rest was not looked at

    def __post_init__(self) -> None:
        if self.partial and self.passed:
            what = ("a validation stopped at the error asked for" if self.stopped else
                    f"a validation of only the gates {', '.join(self.selection)}")
            raise ValueError(f"{what} cannot pass: a spec is accepted only by all ten gates, run to the end")
        if self.selection_passed is None:
            self.selection_passed = self.passed

    @property
    def partial(self) -> bool:
        """Whether only some gates were asked for (`validate_spec(gates=...)`), or the validation stopped at the
        error asked for (`validate_spec(until=...)`)."""
        return self.selection != GATES or self.stopped

    def errors(self) -> list[GateError]:
        """Every error of every failed gate, in gate order."""
        return [e for g in self.gates for e in g.errors]

    def failed_gates(self) -> list[str]:
        return [g.gate for g in self.gates if not g.passed]

    @property
    def first_failed_gate(self) -> str | None:
        """The failed gate that explains the others (the reason a spec is rejected), see CAUSE_ORDER."""
        failed = set(self.failed_gates())
        return next((g for g in CAUSE_ORDER if g in failed), None)

    def gate(self, name: str) -> GateResult | None:
        return next((g for g in self.gates if g.gate == name), None)

    def _selection(self) -> dict[str, Any]:
        """What a partial validation asked for and left out (nothing for a full one: its report is unchanged)."""
        if not self.partial:
            return {}
        stopped = {"stopped": True} if self.stopped else {}
        return {"partial": True, **stopped, "gates_selected": list(self.selection),
                "gates_skipped": [g for g in GATES if g not in self.selection],
                "selection_passed": self.selection_passed}

    def report(self) -> dict[str, Any]:
        """The structured error report a reviser gets: failed gates with codes, paths, messages and hints."""
        return {**self._selection(),
            "spec_id": self.spec.id if self.spec is not None else None,
            "passed": self.passed,
            "policy": self.policy,
            "stage_reached": self.stage,
            "first_failed_gate": self.first_failed_gate,
            "passed_gates": [g.gate for g in self.gates if g.passed],
            "failed_gates": [
                {"gate": g.gate, "errors": [e.as_dict() for e in g.errors]} for g in self.gates if not g.passed
            ],
            "findings": [e.as_dict() for e in self.findings],
            "mutation_score": self.mutation_score,
        }

    def as_dict(self) -> dict[str, Any]:
        return {**self._selection(), "passed": self.passed, "stage": self.stage,
                "mutation_score": self.mutation_score,
                "spec_id": self.spec.id if self.spec is not None else None, "policy": self.policy,
                "gates": [g.as_dict() for g in self.gates], "findings": [e.as_dict() for e in self.findings]}


def validate_spec(
    spec: EnvSpec | str | bytes | dict[str, Any], *, policy: Policy | str = "strict",
    config: ValidationConfig | None = None, max_steps: int = DEFAULT_MAX_STEPS,
    timings: dict[str, float] | None = None, gates: Iterable[str] | str | None = None,
    until: Until | None = None,
) -> SpecValidation:
    """Run the gates on a spec (object, JSON text or dict) under a policy (`strict` or `report`).

    `strict`: later stages run only if earlier ones passed, and any error rejects; incidental reference writes
    are trimmed from the reference and listed in `findings`. `report`: every gate runs, and the spec is accepted
    unless it cannot be parsed or run; every error is listed in `findings`.
    `timings`, when given, accumulates the CPU seconds each gate took (for profiling a pipeline).
    `gates`, when given, names the gates to run (a list, or names separated by commas: "sandbox,references"), for
    iterating on one gate's findings. Schema always runs (the spec must be parsed), and so do the episode gates a
    full validation runs before a chosen one (`check_gates`: what a gate builds from the shared Env depends on the
    episodes played before it). The gates run stage by stage as in a full validation (under `strict` a later stage
    only when the gates of the earlier ones passed), so a gate finds alone what it finds in a full validation that
    runs it (tests/test_validate_gate_selection.py). A
    partial validation does not trim the reference (the incidental writes the mutations gate found are listed in
    `findings`) and never passes: see `SpecValidation.partial` and `selection_passed`. An unknown gate name is a
    ValueError listing the gates.
    `until`, when given, stops the validation as soon as a gate reports an error it picks (a predicate on GateError,
    or a `(gate, code)` pair): for a caller that needs only whether the spec is rejected, or whether a gate reports
    a code (`coworkenv validate --fail-fast`, the corpus's reject test). The gates after it do not run, and the
    gates that play the mutants (sandbox, mutations) stop inside (`GateContext.stop`): the mutants are played in
    chunks, and the rest are not played once a chunk gives the error. Each error a stopped validation reports is the
    one a validation run to the end reports (gate, code, path, message; tests/test_validate_fail_fast.py); it may
    report fewer. A stopped validation (`stopped`) is partial: it never passes, and `selection_passed` is False.
    Where no error is picked, the validation runs to the end and is the full one.
    """
    chosen = check_policy(policy)
    selection = check_gates(gates)
    stop = stop_at(until)
    config = config or ValidationConfig()
    started = time.process_time() if timings is not None else 0.0  # the CPU clock costs a system call: only if asked
    schema, parsed = schema_gate(spec)
    if timings is not None:
        timings["schema"] = timings.get("schema", 0.0) + time.process_time() - started
    if parsed is None:
        return SpecValidation(False, "generated", [schema], None, None, chosen, selection=selection,
                              selection_passed=False, stopped=stop is not None and any(map(stop, schema.errors)))
    if chosen == "report":
        return _run_stages(parsed, chosen, config, max_steps, timings, [schema], selection, stop)
    with requiring_layers(config.sandbox_layers):  # spec code never runs with fewer layers than configured
        result = _run_stages(parsed, chosen, config, max_steps, timings, [schema], selection, stop)
        if result.partial:
            return _incidental_listed(result)
        if config.minimise_reference:
            return _minimised(result, config, max_steps, timings)
        return result


def _run_stages(spec: EnvSpec, policy: Policy, config: ValidationConfig, max_steps: int,
                timings: dict[str, float] | None, results: list[GateResult],
                selection: tuple[str, ...] = GATES, stop: Callable[[GateError], bool] | None = None) -> SpecValidation:
    """The gates of `selection` stage by stage; `stage` is the last stage whose every gate ran and passed; with
    `stop`, none after the gate that reports an error it picks."""
    ctx = GateContext(spec, max_steps, policy, config, stop=stop)
    stage = STAGES[0][0]
    reached = True  # schema passed: the spec is parsed
    stopped = False
    for name, gates in STAGES[1:]:
        chosen = [gate for gate in gates if gate in selection]
        stage_results = []
        for gate in chosen:
            stage_results.append(_run_gate(gate, ctx, timings))
            stopped = stop is not None and any(map(stop, stage_results[-1].errors))
            if stopped:
                break
        results.extend(stage_results)
        failed = not all(r.passed for r in stage_results)
        if stopped or (failed and policy == "strict"):
            break
        reached = reached and not failed and len(chosen) == len(gates)
        if reached:
            stage = name
    results.sort(key=lambda r: GATES.index(r.gate))
    mutations = next((r for r in results if r.gate == "mutations"), None)
    score = mutations.details.get("score") if mutations is not None else None
    errors = [e for r in results for e in r.errors]
    partial = selection != GATES or stopped
    if policy == "report":
        runnable = not any(e.code in BLOCKING_CODES for e in errors) and not stopped
        return SpecValidation(runnable and not partial, stage, results, score, spec, policy, errors, selection,
                              runnable, stopped)
    ran = {r.gate for r in results} >= set(selection) and all(r.passed for r in results) and not stopped
    return SpecValidation(ran and not partial, stage, results, score, spec, policy, selection=selection,
                          selection_passed=ran, stopped=stopped)


Until = Callable[[GateError], bool] | tuple[str, str]


def stop_at(until: Until | None) -> Callable[[GateError], bool] | None:
    """The predicate `validate_spec(until=...)` stops at: `until` itself, or for a `(gate, code)` pair an error of
    that gate with that code; a ValueError for anything else (an unknown gate named)."""
    if until is None or callable(until):
        return until
    if not (isinstance(until, tuple) and len(until) == 2 and all(isinstance(x, str) for x in until)):
        raise ValueError(f"until={until!r}: pass a predicate on GateError or a (gate, code) pair, e.g. "
                         "('sandbox', 'python_crash')")
    gate, code = until
    if gate not in GATES:
        raise ValueError(f"until={until!r}: unknown gate {gate!r}; the gates are {', '.join(GATES)}")
    return lambda e: e.gate == gate and e.code == code


def first_blocking(policy: Policy) -> Callable[[GateError], bool]:
    """The error `coworkenv validate --fail-fast` stops at: any under strict (every error rejects), one of
    BLOCKING_CODES under report (the only errors that keep a spec out there)."""
    return (lambda e: True) if policy == "strict" else (lambda e: e.code in BLOCKING_CODES)


def _incidental(result: SpecValidation) -> list[str]:
    mutations = result.gate("mutations")
    return list(mutations.details.get("incidental", [])) if mutations is not None else []


def _incidental_listed(result: SpecValidation) -> SpecValidation:
    """A partial strict validation: the incidental reference writes the mutations gate found, as findings (a full
    validation would trim them and judge the trimmed spec again, which only all ten gates can accept)."""
    result.findings = [_incidental_write(path) for path in _incidental(result)] + result.findings
    return result


def _incidental_write(path: str) -> GateError:
    return GateError("mutations", "incidental_write", path,
                     "no check fails when this reference write is left out; nothing concerns what it changes")


def _minimised(result: SpecValidation, config: ValidationConfig, max_steps: int,
               timings: dict[str, float] | None) -> SpecValidation:
    """Under strict: the spec with its incidental reference writes dropped, validated again.

    The trimmed spec replaces the original only when it passes every gate too; the trimmed writes are listed
    as `incidental_write` findings either way.
    """
    spec = result.spec
    incidental = _incidental(result)
    if not incidental or spec is None:
        return result
    findings = [_incidental_write(path) for path in incidental]
    drop = {step_of(path) for path in incidental}
    reference = [ReferenceTurn(steps=[step for s, step in enumerate(turn.steps) if (t, s) not in drop])
                 for t, turn in enumerate(spec.reference)]
    trimmed = spec.model_copy(update={"reference": reference})
    trimmed = EnvSpec.model_validate(trimmed.model_dump(mode="json", by_alias=True))  # a fresh id and hashes
    again = _run_stages(trimmed, "strict", config, max_steps, timings, [GateResult("schema", True)])
    kept = again if again.passed else result
    kept.findings = findings + kept.findings
    return kept


def _run_gate(gate: str, ctx: GateContext, timings: dict[str, float] | None) -> GateResult:
    started = time.process_time() if timings is not None else 0.0
    try:
        return _GATE_FUNCTIONS[gate](ctx)
    except Exception as exc:  # a gate must judge, never crash a run; the error names the gate
        return GateResult(gate, False, [GateError(gate, "internal_error", "(gate)",
                                                  f"the gate itself failed: {type(exc).__name__}: {exc}")])
    finally:
        if timings is not None:
            timings[gate] = timings.get(gate, 0.0) + time.process_time() - started
