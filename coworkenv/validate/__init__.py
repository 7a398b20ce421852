"""Validation: the ten soundness gates, near-miss mutations, the repair loop, the funnel, the LLM generator.

    run = validate_and_repair(candidates, reviser=LLMSpecGenerator(backend), max_rounds=3)
    run.funnel.as_dict(); accepted_table(run); rejected_table(run)
"""

from coworkenv.validate.funnel import STAGE_ORDER, Funnel
from coworkenv.validate.gates import GATES, STAGES, GateError, GateResult
from coworkenv.validate.llm_generator import CapabilityLike, LLMSpecGenerator
from coworkenv.validate.mutations import MUTATION_KINDS, EntityIndex, Mutation, near_miss_mutations
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
    ACCEPTED_SCHEMA,
    CANDIDATES_SCHEMA,
    REJECTED_SCHEMA,
    accepted_table,
    candidates_from_table,
    candidates_table,
    rejected_table,
)
from coworkenv.validate.validation import SpecValidation, validate_spec

__all__ = [
    "ACCEPTED_SCHEMA",
    "CANDIDATES_SCHEMA",
    "DEFAULT_MAX_ROUNDS",
    "DUPLICATE_GATE",
    "GATES",
    "GENERATION_GATE",
    "MUTATION_KINDS",
    "REJECTED_SCHEMA",
    "STAGES",
    "STAGE_ORDER",
    "AcceptedEnv",
    "Candidate",
    "CapabilityLike",
    "EntityIndex",
    "Funnel",
    "GateError",
    "GateResult",
    "LLMSpecGenerator",
    "Mutation",
    "Rejection",
    "SpecReviser",
    "SpecValidation",
    "ValidationRun",
    "accepted_table",
    "candidates_from_table",
    "candidates_table",
    "near_miss_mutations",
    "rejected_table",
    "validate_and_repair",
    "validate_spec",
]
