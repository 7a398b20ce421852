"""Curation of trajectories into SFT shards: quality filters, exact and near-duplicate removal,
decontamination, splits by request family (plus a held-out-capability split), capability quotas, sharding."""

from coworkenv.curate.config import FILTERS, TEST, TRAIN, VALIDATION, CurationConfig
from coworkenv.curate.neardup import jaccard, shingles
from coworkenv.curate.pipeline import CurationResult, count_duplicate_rows, curate, write_shards
from coworkenv.curate.shards import envs_in_several_splits
from coworkenv.curate.splits import RequestSplits, assign_split, split_requests
from coworkenv.store.stages import TrajectorySource, shard_name

__all__ = [
    "FILTERS", "TEST", "TRAIN", "VALIDATION", "CurationConfig", "CurationResult", "RequestSplits", "TrajectorySource",
    "assign_split", "count_duplicate_rows", "curate", "envs_in_several_splits", "jaccard", "shard_name", "shingles",
    "split_requests", "write_shards",
]
