"""Storage: one table contract per pipeline stage (`coworkenv.store.stages`: specs, envs, trajectories, SFT rows), content-addressed Parquet, dataset releases and cards, and publishers to the Hub or local git."""

from coworkenv.store._hf_hub import TOKEN_ENV, HfHubPublisher
from coworkenv.store._hub_environment import hub_environment_problem, hub_repo_id_problem
from coworkenv.store._lfs import lfs_pointer_problem
from coworkenv.store._local_git import LocalGitPublisher
from coworkenv.store._manifest import pointer_problem
from coworkenv.store._parquet import (
    PARQUET_WRITE_OPTIONS,
    StoredTable,
    check_bytes,
    file_sha256,
    latest,
    parquet_bytes,
    read_table,
    shard_table,
    write_rows,
    write_table,
)
from coworkenv.store._publisher import HubPublisher, PublishError, PublishResult
from coworkenv.store._publisher_config import publisher_from_config
from coworkenv.store._release import (
    DatasetCardInfo,
    DatasetRelease,
    release_version,
    shard_path,
)
from coworkenv.store.stages import SpecRow, SpecSourceError, read_spec_rows, read_specs


def render_dataset_card(release: DatasetRelease) -> str:
    """README.md for a release: YAML front matter (`configs`, `dataset_info`, license, ...) and Markdown."""
    # Imported on use: `datasets` takes about a second to import, which every Dagster code location load would pay.
    from coworkenv.store._card import render_dataset_card as render

    return render(release)


__all__ = [
    "PARQUET_WRITE_OPTIONS",
    "TOKEN_ENV",
    "DatasetCardInfo",
    "DatasetRelease",
    "HfHubPublisher",
    "HubPublisher",
    "LocalGitPublisher",
    "PublishError",
    "PublishResult",
    "SpecRow",
    "SpecSourceError",
    "StoredTable",
    "check_bytes",
    "file_sha256",
    "hub_environment_problem",
    "hub_repo_id_problem",
    "latest",
    "lfs_pointer_problem",
    "parquet_bytes",
    "pointer_problem",
    "publisher_from_config",
    "read_spec_rows",
    "read_specs",
    "read_table",
    "release_version",
    "render_dataset_card",
    "shard_path",
    "shard_table",
    "write_rows",
    "write_table",
]
