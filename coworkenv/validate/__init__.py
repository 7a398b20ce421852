"""Validation: the ten soundness gates, near-miss mutations, the repair loop and the funnel.

    validate_spec(spec, policy="strict")   # training data: any defect rejects; incidental writes are trimmed
    validate_spec(spec, policy="report")   # imported tasks: accepted, every defect listed in `.findings`
    run = validate_and_repair(candidates, reviser=synth.LLMSpecGenerator(backend), max_rounds=3)
    run.funnel.as_dict(); accepted_table(run); rejected_table(run)
"""

from coworkenv.validate._mutation_core import MUTATION_KINDS
from coworkenv.validate.entities import EntityIndex
from coworkenv.validate.funnel import STAGE_ORDER, Funnel
from coworkenv.validate.gates import GATES, STAGES, GateError, GateResult
from coworkenv.validate.hints import HINTS, hint_for
from coworkenv.validate.mutations import Mutation, near_miss_mutations
from coworkenv.validate.policy import POLICIES, Policy, ValidationConfig
from coworkenv.validate.repair import (
    DEFAULT_MAX_ROUNDS,
    DUPLICATE_GATE,
    GENERATION_GATE,
    AcceptedEnv,
    Candidate,
    Rejection,
    SpecReviser,
    ValidationRun,
    validate_and_repair,
)
from coworkenv.validate.tables import (
    accepted_candidates,
    accepted_table,
    candidates_from_rows,
    procedural_candidates,
    rejected_table,
)
from coworkenv.validate.task_mutations import task_mutations
from coworkenv.validate.validation import CAUSE_ORDER, SpecValidation, validate_spec

__all__ = [
    "CAUSE_ORDER",
    "DEFAULT_MAX_ROUNDS",
    "DUPLICATE_GATE",
    "GATES",
    "GENERATION_GATE",
    "HINTS",
    "MUTATION_KINDS",
    "POLICIES",
    "STAGES",
    "STAGE_ORDER",
    "AcceptedEnv",
    "Candidate",
    "EntityIndex",
    "Funnel",
    "GateError",
    "GateResult",
    "Mutation",
    "Policy",
    "Rejection",
    "SpecReviser",
    "SpecValidation",
    "ValidationConfig",
    "ValidationRun",
    "accepted_candidates",
    "accepted_table",
    "candidates_from_rows",
    "hint_for",
    "near_miss_mutations",
    "procedural_candidates",
    "rejected_table",
    "task_mutations",
    "validate_and_repair",
    "validate_spec",
]
