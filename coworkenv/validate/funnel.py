"""The acceptance funnel: how many specs reached each stage, why the others stopped, and what they cost."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from coworkenv.llm import is_infrastructure_error

STAGE_ORDER: tuple[str, ...] = ("generated", "schema_valid", "coherent", "solvable", "sound", "accepted")


@dataclass
class Funnel:
    """Counts per stage (a spec counts in every stage it reached), overall and per capability.

    `generated` counts candidates that carried a spec; LLM calls that failed before producing one are in
    `generation_failures` (by error kind), so `requested` = `generated` + those. `llm_failures` counts every
    failed LLM call (generation and repair) by kind; `as_dict` splits them into infrastructure failures (the
    server: timeouts, refused connections, HTTP 4xx/5xx, unreadable bodies) and model failures (answers cut off
    at max_tokens). Every generated spec ends accepted or in `rejected_by_gate` under the first gate it failed
    (or `duplicate`), so their sum is `generated`.
    """

    stages: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGE_ORDER, 0))
    rejected_by_gate: dict[str, int] = field(default_factory=dict)
    repair_rounds: dict[int, int] = field(default_factory=dict)  # rounds needed -> accepted specs
    tokens_total: int = 0
    llm_failures: dict[str, int] = field(default_factory=dict)
    generation_failures: dict[str, int] = field(default_factory=dict)
    mutation_score_sum: float = 0.0
    by_capability: dict[str, Funnel] = field(default_factory=dict)
    llm: dict[str, Any] | None = None  # the LLM backend's own counters (requests, retries, cache hits)

    def record(self, capability: str, stage: str, *, rejected_by: str | None = None, rounds: int = 0,
               mutation_score: float | None = None, tokens: int = 0) -> None:
        """Count one generated spec that got as far as `stage` ("accepted" or a validation stage)."""
        for funnel in (self, self._capability(capability)):
            for name in STAGE_ORDER[: STAGE_ORDER.index(stage) + 1]:
                funnel.stages[name] += 1
            funnel.tokens_total += tokens
            if stage == "accepted":
                funnel.repair_rounds[rounds] = funnel.repair_rounds.get(rounds, 0) + 1
                funnel.mutation_score_sum += mutation_score if mutation_score is not None else 0.0
            elif rejected_by is not None:
                funnel.rejected_by_gate[rejected_by] = funnel.rejected_by_gate.get(rejected_by, 0) + 1

    def record_llm_failure(self, capability: str, kind: str, tokens: int = 0, *, during: str = "repair") -> None:
        """Count one LLM call that failed after its retries, `during` "generation" (no spec) or "repair"."""
        for funnel in (self, self._capability(capability)):
            funnel.llm_failures[kind] = funnel.llm_failures.get(kind, 0) + 1
            if during == "generation":
                funnel.generation_failures[kind] = funnel.generation_failures.get(kind, 0) + 1
            funnel.tokens_total += tokens

    def _capability(self, capability: str) -> Funnel:
        found = self.by_capability.get(capability)
        if found is None:
            found = self.by_capability[capability] = Funnel()
        return found

    @property
    def generated(self) -> int:
        return self.stages["generated"]

    @property
    def accepted(self) -> int:
        return self.stages["accepted"]

    def merge(self, other: Funnel) -> Funnel:
        """A new funnel counting both (e.g. the partitions of several capabilities)."""
        out = Funnel()
        for src in (self, other):
            _add(out, src)
            for cap, sub in src.by_capability.items():
                _add(out._capability(cap), sub)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Funnel:
        """The funnel back from its `as_dict()` (JSON-decoded): every count, so funnels recorded apart (one per
        capability partition) merge into the same figures as the run that counted them all."""
        funnel = _counts(data)
        funnel.by_capability = {cap: _counts(sub) for cap, sub in (data.get("by_capability") or {}).items()}
        return funnel

    def as_dict(self, per_capability: bool = True) -> dict[str, Any]:
        """JSON-ready figures: stage counts, acceptance rate, mean mutation score, rejections, rounds, cost."""
        accepted, generated = self.accepted, self.generated
        out: dict[str, Any] = {"requested": generated + sum(self.generation_failures.values()), **self.stages}
        out.update({
            "acceptance_rate": round(accepted / generated, 6) if generated else 0.0,
            "mutation_score": round(self.mutation_score_sum / accepted, 6) if accepted else None,
            "rejected_by_gate": dict(sorted(self.rejected_by_gate.items())),
            "repair_rounds": {str(k): v for k, v in sorted(self.repair_rounds.items())},
            "tokens_total": self.tokens_total,
            "tokens_per_accepted": round(self.tokens_total / accepted, 3) if accepted else None,
            "llm_failures": dict(sorted(self.llm_failures.items())),
            "generation_failures": dict(sorted(self.generation_failures.items())),
            "infrastructure_failures": {k: n for k, n in sorted(self.llm_failures.items())
                                        if is_infrastructure_error(k)},
            "model_failures": {k: n for k, n in sorted(self.llm_failures.items()) if not is_infrastructure_error(k)},
        })
        if self.llm is not None:
            out["llm"] = self.llm
        if per_capability:
            out["by_capability"] = {cap: sub.as_dict(False) for cap, sub in sorted(self.by_capability.items())}
        return out


def _counts(data: Mapping[str, Any]) -> Funnel:
    accepted = int(data.get("accepted", 0))
    llm = data.get("llm")
    return Funnel(
        stages={stage: int(data.get(stage, 0)) for stage in STAGE_ORDER},
        rejected_by_gate={k: int(v) for k, v in (data.get("rejected_by_gate") or {}).items()},
        repair_rounds={int(k): int(v) for k, v in (data.get("repair_rounds") or {}).items()},
        tokens_total=int(data.get("tokens_total", 0)),
        llm_failures={k: int(v) for k, v in (data.get("llm_failures") or {}).items()},
        generation_failures={k: int(v) for k, v in (data.get("generation_failures") or {}).items()},
        mutation_score_sum=float(data.get("mutation_score") or 0.0) * accepted,
        llm=dict(llm) if isinstance(llm, Mapping) else None,
    )


def _add(into: Funnel, src: Funnel) -> None:
    for name, n in src.stages.items():
        into.stages[name] += n
    _sum_into(into.rejected_by_gate, src.rejected_by_gate.items())
    _sum_into(into.repair_rounds, src.repair_rounds.items())
    _sum_into(into.llm_failures, src.llm_failures.items())
    _sum_into(into.generation_failures, src.generation_failures.items())
    into.tokens_total += src.tokens_total
    into.mutation_score_sum += src.mutation_score_sum


def _sum_into(into: dict[Any, int], items: Iterable[tuple[Any, int]]) -> None:
    for key, n in items:
        into[key] = into.get(key, 0) + n


def llm_counters(stats: Any) -> dict[str, Any] | None:
    """The counters of an `LLMStats` (or anything with `as_dict`), for the funnel's `llm` block."""
    as_dict = getattr(stats, "as_dict", None)
    data = as_dict() if callable(as_dict) else None
    return dict(data) if isinstance(data, Mapping) else None
