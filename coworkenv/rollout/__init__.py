"""Teacher and student runs in environments: the agent loop, user simulators, teachers, the canonical
trajectory record (Parquet), exporters (TRL SFT rows, ATIF) and re-scoring."""

from coworkenv.rollout.agent_loop import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_TOKENS_TOTAL,
    DEFAULT_SAMPLING,
    arun_agent,
    run_agent,
)
from coworkenv.rollout.export import ATIF_SCHEMA_VERSION, TRL_SCHEMA, to_atif, to_trl_rows, trl_table, validate_atif
from coworkenv.rollout.narration import NarratedOracle
from coworkenv.rollout.record import (
    MESSAGE_TYPE,
    TRAJECTORY_SCHEMA,
    StepRecord,
    Timings,
    TokenCounts,
    TrajectoryRecord,
    environment_hash,
    normalized_transcript_hash,
    read_trajectories,
    trajectories_table,
    trajectory_files,
    write_trajectories,
)
from coworkenv.rollout.rescore import ReplayError, needs_rescore, replay, rescore, rescore_all
from coworkenv.rollout.teachers import LLMTeacher, OracleTeacher, Teacher, rollout_specs
from coworkenv.rollout.users import HiddenFact, LLMUser, ScriptedUser, UserPersona, UserReply, UserSimulator

__all__ = [
    "ATIF_SCHEMA_VERSION", "DEFAULT_MAX_STEPS", "DEFAULT_MAX_TOKENS_TOTAL", "DEFAULT_SAMPLING", "MESSAGE_TYPE",
    "TRAJECTORY_SCHEMA", "TRL_SCHEMA", "HiddenFact", "LLMTeacher", "LLMUser", "NarratedOracle", "OracleTeacher",
    "ReplayError", "ScriptedUser", "StepRecord", "Teacher", "Timings", "TokenCounts", "TrajectoryRecord",
    "UserPersona", "UserReply", "UserSimulator", "arun_agent", "environment_hash", "needs_rescore",
    "normalized_transcript_hash", "read_trajectories", "replay", "rescore", "rescore_all", "rollout_specs",
    "run_agent", "to_atif", "to_trl_rows", "trajectories_table", "trajectory_files", "trl_table", "validate_atif",
    "write_trajectories",
]
