"""Teacher and student runs in environments: the episode loop every episode runs through (`agent_loop`: the
validation gates, `coworkenv env run`, teachers, RL rollouts, evaluation), user simulators, teachers, the canonical
trajectory record and its Parquet row codec (files: `coworkenv.store.stages`), the ATIF exporter and re-scoring."""

from coworkenv.rollout.agent_loop import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_TOKENS_TOTAL,
    DEFAULT_SAMPLING,
    ENV_ERROR,
    INFRASTRUCTURE_STOP_REASONS,
    REPLY_TRUNCATED,
    TIME_LIMIT,
    Episode,
    arun_agent,
    run_agent,
    run_episode,
)
from coworkenv.rollout.export import ATIF_SCHEMA_VERSION, to_atif, validate_atif
from coworkenv.rollout.narration import NarratedOracle
from coworkenv.rollout.outcomes import (
    InfrastructureFailure,
    error_kinds,
    is_infrastructure_failure,
    split_outcomes,
)
from coworkenv.rollout.record import (
    MESSAGE_TYPE,
    TRAJECTORY_SCHEMA,
    StepRecord,
    Timings,
    TokenCounts,
    TrajectoryRecord,
    environment_hash,
    normalized_transcript_hash,
    trajectories_table,
)
from coworkenv.rollout.rescore import ReplayError, needs_rescore, replay, rescore, rescore_all
from coworkenv.rollout.teachers import (
    DEFAULT_LLM_K,
    DEFAULT_ORACLE_K,
    DEFAULT_SAMPLED_TEMPERATURE,
    LLMTeacher,
    OracleTeacher,
    Teacher,
    rollout_specs,
)
from coworkenv.rollout.users import HiddenFact, LLMUser, ScriptedUser, UserPersona, UserReply, UserSimulator

__all__ = [
    "ATIF_SCHEMA_VERSION",
    "DEFAULT_LLM_K",
    "DEFAULT_MAX_STEPS",
    "DEFAULT_MAX_TOKENS_TOTAL",
    "DEFAULT_ORACLE_K",
    "DEFAULT_SAMPLED_TEMPERATURE",
    "DEFAULT_SAMPLING",
    "ENV_ERROR",
    "INFRASTRUCTURE_STOP_REASONS",
    "MESSAGE_TYPE",
    "REPLY_TRUNCATED",
    "TIME_LIMIT",
    "TRAJECTORY_SCHEMA",
    "Episode",
    "HiddenFact",
    "InfrastructureFailure",
    "LLMTeacher",
    "LLMUser",
    "NarratedOracle",
    "OracleTeacher",
    "ReplayError",
    "ScriptedUser",
    "StepRecord",
    "Teacher",
    "Timings",
    "TokenCounts",
    "TrajectoryRecord",
    "UserPersona",
    "UserReply",
    "UserSimulator",
    "arun_agent",
    "environment_hash",
    "error_kinds",
    "is_infrastructure_failure",
    "needs_rescore",
    "normalized_transcript_hash",
    "replay",
    "rescore",
    "rescore_all",
    "rollout_specs",
    "run_agent",
    "run_episode",
    "split_outcomes",
    "to_atif",
    "trajectories_table",
    "validate_atif",
]
