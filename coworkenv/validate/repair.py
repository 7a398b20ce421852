"""The repair loop: validate candidates, send failures back to a reviser with a structured report, repeat.

Each candidate ends exactly once: accepted (its spec passed every gate and is not a duplicate of an earlier
accepted spec) or rejected (with the first failed gate and every reason). A failed LLM call never ends a
run: a failed generation is recorded as a rejection at gate `generation`; a failed repair call uses up its
round and leaves the spec as it was.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from coworkenv.limits import DEFAULT_REPAIR_ROUNDS
from coworkenv.llm import LLMError
from coworkenv.spec import EnvSpec
from coworkenv.validate.funnel import Funnel, llm_counters
from coworkenv.validate.policy import Policy, ValidationConfig
from coworkenv.validate.validation import SpecValidation, validate_spec

DEFAULT_MAX_ROUNDS = DEFAULT_REPAIR_ROUNDS  # coworkenv.limits
GENERATION_GATE = "generation"  # rejection gate of a candidate whose LLM call failed before it had a spec
DUPLICATE_GATE = "duplicate"


@dataclass(frozen=True)
class Candidate:
    """A spec to validate: an EnvSpec (procedural), raw JSON from an LLM, or a failed generation (`error`)."""

    capability: str
    payload: EnvSpec | str
    source: str = "procedural"  # "procedural" or the model that wrote it
    tokens: int = 0
    error: str | None = None  # LLMError kind when the generation request failed; payload is then ""
    error_message: str = ""
    origin: str = ""  # where it came from (generator, capability, seed, index): kept in the output tables


@runtime_checkable
class SpecReviser(Protocol):
    """Fixes a spec given the validation report; raises LLMError when its model cannot be reached."""

    def revise(self, capability: str, payload: str, report: dict[str, Any]) -> tuple[str, int]:
        """Return (new payload, tokens used)."""
        ...


@dataclass
class AcceptedEnv:
    """A spec that passed every gate."""

    spec: EnvSpec
    validation: SpecValidation
    repair_rounds: int
    tokens: int
    capability: str
    source: str = "procedural"
    origin: str = ""

    def __post_init__(self) -> None:
        refuse_partial(self.validation, f"the accepted env {self.spec.id}")


def refuse_partial(validation: SpecValidation, what: str) -> None:
    """A ValueError where `validation` ran only some gates: no dataset row, funnel count or repair is made of one."""
    if validation.stopped:
        raise ValueError(f"{what} has a validation stopped at the error asked for; the funnel and the datasets take "
                         "only validations run to the end: call validate_spec without `until`")
    if validation.partial:
        raise ValueError(f"{what} has a partial validation (only the gates {', '.join(validation.selection)}); "
                         "the funnel and the datasets take only validations by all ten gates: call validate_spec "
                         "without `gates`")


@dataclass
class Rejection:
    """A spec (or failed generation) discarded, with the first failed gate and every reason."""

    capability: str
    spec_id: str | None
    gate: str
    reasons: list[str]
    repair_rounds: int
    last_payload: str
    source: str = "procedural"
    tokens: int = 0
    origin: str = ""
    errors: list[dict[str, str]] = field(default_factory=list)


@dataclass
class ValidationRun:
    """The outcome of `validate_and_repair`."""

    accepted: list[AcceptedEnv]
    rejected: list[Rejection]
    funnel: Funnel


@dataclass
class _Work:
    candidate: Candidate
    payload: EnvSpec | str
    tokens: int
    validation: SpecValidation
    rounds: int = 0
    llm_errors: list[str] = field(default_factory=list)


def validate_and_repair(
    candidates: Iterable[Candidate], reviser: SpecReviser | None = None, max_rounds: int = DEFAULT_MAX_ROUNDS,
    *, policy: Policy = "strict", config: ValidationConfig | None = None,
) -> ValidationRun:
    """Validate every candidate under `policy`; let `reviser` repair failures for at most `max_rounds` rounds.

    Revisions of one round are sent together through `reviser.revise_batch` when it has one (an LLM backend
    then answers them concurrently), else one by one through `reviser.revise`. Accepted and rejected keep
    the candidates' order.
    """
    funnel = Funnel()
    work: list[_Work | Rejection] = []
    for candidate in candidates:
        if candidate.error is not None:
            funnel.record_llm_failure(candidate.capability, candidate.error, candidate.tokens, during="generation")
            work.append(Rejection(candidate.capability, None, GENERATION_GATE,
                                  [f"generation failed ({candidate.error}): {candidate.error_message}"], 0, "",
                                  candidate.source, candidate.tokens, candidate.origin))
        else:
            work.append(_Work(candidate, candidate.payload, candidate.tokens,
                              validate_spec(candidate.payload, policy=policy, config=config)))
    pending = [w for w in work if isinstance(w, _Work)]
    for _ in range(max_rounds if reviser is not None else 0):
        failing = [w for w in pending if not w.validation.passed]
        if not failing:
            break
        assert reviser is not None
        for w, answer in zip(failing, _revise_all(reviser, failing), strict=True):
            w.rounds += 1
            if isinstance(answer, LLMError):
                w.llm_errors.append(f"repair round {w.rounds} failed ({answer.kind}): {answer.message}")
                funnel.record_llm_failure(w.candidate.capability, answer.kind)
                continue
            payload, tokens = answer
            w.tokens += tokens
            if payload != _text(w.payload):  # an unchanged answer needs no second validation
                w.payload = payload
                w.validation = validate_spec(payload, policy=policy, config=config)
    accepted: list[AcceptedEnv] = []
    rejected: list[Rejection] = []
    seen: set[str] = set()
    for item in work:
        if isinstance(item, Rejection):
            rejected.append(item)
            continue
        outcome = _conclude(item, seen, funnel)
        (accepted if isinstance(outcome, AcceptedEnv) else rejected).append(outcome)  # type: ignore[arg-type]
    funnel.llm = llm_counters(getattr(reviser, "stats", None))
    return ValidationRun(accepted, rejected, funnel)


def _revise_all(reviser: SpecReviser, failing: Sequence[_Work]) -> list[tuple[str, int] | LLMError]:
    requests = [(w.candidate.capability, _text(w.payload), w.validation.report()) for w in failing]
    batch = getattr(reviser, "revise_batch", None)
    if callable(batch):
        return list(batch(requests))
    out: list[tuple[str, int] | LLMError] = []
    for capability, payload, report in requests:
        try:
            out.append(reviser.revise(capability, payload, report))
        except LLMError as exc:
            out.append(exc)
    return out


def _conclude(w: _Work, seen: set[str], funnel: Funnel) -> AcceptedEnv | Rejection:
    v, c, spec = w.validation, w.candidate, w.validation.spec
    refuse_partial(v, f"the candidate of {c.capability}")
    if v.passed and spec is not None and spec.id not in seen:
        seen.add(spec.id)
        funnel.record(c.capability, "accepted", rounds=w.rounds, mutation_score=v.mutation_score, tokens=w.tokens)
        return AcceptedEnv(spec, v, w.rounds, w.tokens, c.capability, c.source, c.origin)
    if v.passed:
        same = spec.id if spec is not None else ""
        gate, reasons, errors = DUPLICATE_GATE, [f"the same spec as an earlier accepted one ({same})"], []
    else:
        gate = v.first_failed_gate or "schema"
        errors = [e.as_dict() for e in v.errors()]
        reasons = [str(e) for e in v.errors()]
    funnel.record(c.capability, v.stage, rejected_by=gate, tokens=w.tokens)
    return Rejection(c.capability, spec.id if spec else None, gate, [*reasons, *w.llm_errors], w.rounds,
                     _text(w.payload), c.source, w.tokens, c.origin, errors)


def _text(payload: EnvSpec | str) -> str:
    return payload.to_json() if isinstance(payload, EnvSpec) else payload
