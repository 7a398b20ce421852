"""One table contract per pipeline stage, used by the CLI, the Dagster assets and the trainers alike.

| stage        | schema              | written by                      | read by                                    |
|--------------|---------------------|---------------------------------|--------------------------------------------|
| specs        | `SPECS_SCHEMA`      | `write_specs` / `SPECS.store`   | `read_spec_rows`, `read_specs` (also JSON) |
| envs         | `ENVS_SCHEMA`       | `ENVS.write` / `ENVS.store`     | `read_envs`, `read_specs`                  |
| trajectories | `TRAJECTORY_SCHEMA` | `write_trajectories` / `TRAJECTORIES.store` | `read_trajectories`, `TrajectorySource` |
| sft          | `SFT_SCHEMA`        | `ShardWriter` / `SFT.store`     | `sft_files` + `read_sft`                   |

Every writer uses the deterministic Parquet settings (`coworkenv.store.PARQUET_WRITE_OPTIONS`): the command line
and the pipeline write byte-identical files for equal tables. Readers migrate files of older releases (renamed
columns, columns added since) and name the file and row of anything they cannot read.

Episode files (trajectories, rl_rollouts) record who wrote them, `coworkenv.written_by` = rollout / eval / rl in their
Parquet metadata (`episode_writers`): readers of the teacher's episodes refuse an eval's or a student's RL episodes.
"""

from coworkenv.store.stages._stage import WRITTEN_BY, Stage, StageError, file_written_by, missing_path
from coworkenv.store.stages.envs import ENVS, ENVS_SCHEMA, REJECTED, REJECTED_SCHEMA, read_envs
from coworkenv.store.stages.sft import (
    SFT,
    SFT_REQUIRED_COLUMNS,
    SFT_SCHEMA,
    SFT_SOURCE_COLUMNS,
    ShardRead,
    ShardWriter,
    read_sft,
    read_sft_column,
    read_sft_files,
    sft_files,
    sft_rows,
    sft_table,
    shard_name,
    shard_set_mark,
    shard_split,
)
from coworkenv.store.stages.specs import (
    SPEC_COLUMN,
    SPECS,
    SPECS_SCHEMA,
    SpecCandidate,
    SpecRow,
    SpecSourceError,
    read_spec_rows,
    read_specs,
    spec_files,
    specs_table,
    write_specs,
)
from coworkenv.store.stages.trajectories import (
    EPISODE_WRITERS,
    RL_ROLLOUTS,
    TRAJECTORIES,
    TRAJECTORY_SCHEMA,
    TrajectorySource,
    check_trajectory_file,
    damaged_trajectory_file,
    episode_output_problem,
    mark_episode_files,
    read_trajectories,
    stored_trajectories_table,
    trajectory_columns,
    trajectory_env_ids,
    trajectory_files,
    without_measurements,
    write_trajectories,
)

__all__ = [
    "ENVS",
    "ENVS_SCHEMA",
    "EPISODE_WRITERS",
    "REJECTED",
    "REJECTED_SCHEMA",
    "RL_ROLLOUTS",
    "SFT",
    "SFT_REQUIRED_COLUMNS",
    "SFT_SCHEMA",
    "SFT_SOURCE_COLUMNS",
    "SPECS",
    "SPECS_SCHEMA",
    "SPEC_COLUMN",
    "TRAJECTORIES",
    "TRAJECTORY_SCHEMA",
    "WRITTEN_BY",
    "ShardRead",
    "ShardWriter",
    "SpecCandidate",
    "SpecRow",
    "SpecSourceError",
    "Stage",
    "StageError",
    "TrajectorySource",
    "check_trajectory_file",
    "damaged_trajectory_file",
    "episode_output_problem",
    "file_written_by",
    "mark_episode_files",
    "missing_path",
    "read_envs",
    "read_sft",
    "read_sft_column",
    "read_sft_files",
    "read_spec_rows",
    "read_specs",
    "read_trajectories",
    "sft_files",
    "sft_rows",
    "sft_table",
    "shard_name",
    "shard_set_mark",
    "shard_split",
    "spec_files",
    "specs_table",
    "stored_trajectories_table",
    "trajectory_columns",
    "trajectory_env_ids",
    "trajectory_files",
    "without_measurements",
    "write_specs",
    "write_trajectories",
]
