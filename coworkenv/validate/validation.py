"""validate_spec: run the ten gates stage by stage and say how far a spec got and why it stopped."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coworkenv.env import DEFAULT_MAX_STEPS
from coworkenv.spec import EnvSpec
from coworkenv.validate.episode_gates import (
    mutations_gate,
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
    exposed_tools_gate,
    isolation_gate,
    references_gate,
    schema_gate,
)

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


@dataclass
class SpecValidation:
    """The verdict on one spec: `stage` is the last stage whose gates all passed ("generated": none)."""

    passed: bool
    stage: str
    gates: list[GateResult]
    mutation_score: float | None
    spec: EnvSpec | None

    def errors(self) -> list[GateError]:
        """Every error of every failed gate, in gate order."""
        return [e for g in self.gates for e in g.errors]

    def failed_gates(self) -> list[str]:
        return [g.gate for g in self.gates if not g.passed]

    @property
    def first_failed_gate(self) -> str | None:
        """The failed gate that comes first in the canonical order (the reason a spec is rejected)."""
        failed = set(self.failed_gates())
        return next((g for g in GATES if g in failed), None)

    def gate(self, name: str) -> GateResult | None:
        return next((g for g in self.gates if g.gate == name), None)

    def report(self) -> dict[str, Any]:
        """The structured error report a reviser gets: failed gates with codes, paths and messages."""
        return {
            "spec_id": self.spec.id if self.spec is not None else None,
            "passed": self.passed,
            "stage_reached": self.stage,
            "passed_gates": [g.gate for g in self.gates if g.passed],
            "failed_gates": [
                {"gate": g.gate, "errors": [{"code": e.code, "path": e.path, "message": e.message} for e in g.errors]}
                for g in self.gates if not g.passed
            ],
            "mutation_score": self.mutation_score,
        }

    def as_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "stage": self.stage, "mutation_score": self.mutation_score,
                "spec_id": self.spec.id if self.spec is not None else None,
                "gates": [g.as_dict() for g in self.gates]}


def validate_spec(
    spec: EnvSpec | str | bytes | dict[str, Any], *, max_steps: int = DEFAULT_MAX_STEPS,
    timings: dict[str, float] | None = None,
) -> SpecValidation:
    """Run the gates on a spec (object, JSON text or dict); later stages run only if earlier ones passed.

    `timings`, when given, accumulates the CPU seconds each gate took (for profiling a pipeline).
    """
    started = time.process_time()
    schema, parsed = schema_gate(spec)
    if timings is not None:
        timings["schema"] = timings.get("schema", 0.0) + time.process_time() - started
    results = [schema]
    if parsed is None:
        return SpecValidation(False, "generated", results, None, None)
    ctx = GateContext(parsed, max_steps)
    stage = STAGES[0][0]
    for name, gates in STAGES[1:]:
        stage_results = [_run_gate(gate, ctx, timings) for gate in gates]
        results.extend(stage_results)
        if not all(r.passed for r in stage_results):
            break
        stage = name
    results.sort(key=lambda r: GATES.index(r.gate))
    mutations = next((r for r in results if r.gate == "mutations"), None)
    score = mutations.details.get("score") if mutations is not None else None
    return SpecValidation(stage == STAGES[-1][0], stage, results, score, parsed)


def _run_gate(gate: str, ctx: GateContext, timings: dict[str, float] | None) -> GateResult:
    started = time.process_time()
    try:
        return _GATE_FUNCTIONS[gate](ctx)
    except Exception as exc:  # a gate must judge, never crash a run; the error names the gate
        return GateResult(gate, False, [GateError(gate, "internal_error", "(gate)",
                                                  f"the gate itself failed: {type(exc).__name__}: {exc}")])
    finally:
        if timings is not None:
            timings[gate] = timings.get(gate, 0.0) + time.process_time() - started
