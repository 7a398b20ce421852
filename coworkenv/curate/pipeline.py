"""Curation: from trajectory records to SFT splits, with a report of what each filter removed.

Row filters run on the scalar columns only (polars, streaming), so memory does not grow with transcript size;
near-duplicate clustering, splitting and decontamination run per environment; the selected rows are then
streamed from the source into TRL shards.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import polars as pl
import pyarrow as pa

from coworkenv.curate.config import FILTERS, TRAIN, CurationConfig
from coworkenv.curate.shards import META_COLUMNS, NEEDED_COLUMNS, selected_rows, write_selected_shards
from coworkenv.curate.splits import split_requests
from coworkenv.rollout.record import normalized_transcript_hash
from coworkenv.spec import EnvSpec
from coworkenv.store.stages import TrajectorySource, sft_rows

Trajectories: TypeAlias = Path | str | pa.Table | pl.DataFrame | pl.LazyFrame


@dataclass
class CurationResult:
    """Which input rows went to which split, the curation report, and the planned shard count per split.

    `selection[i]` is the split index (into `split_names`) of input row i, or -1 if a filter removed it.
    `splits` materialises the TRL rows of every split in memory; `write_shards` streams them to disk instead.
    """

    report: dict[str, Any]
    shards: dict[str, int]
    selection: np.ndarray
    split_names: tuple[str, ...]
    config: CurationConfig
    source: TrajectorySource = field(repr=False)

    @cached_property
    def splits(self) -> dict[str, pa.Table]:
        """TRL SFT rows per split (messages, tools, env_id, capability, turns, split)."""
        return {name: sft_rows(selected_rows(self.source, self.selection, code), name)
                for code, name in enumerate(self.split_names)}


def write_shards(result: CurationResult, out_dir: Path, max_rows_per_shard: int | None = None) -> list[Path]:
    """Write every split as `<split>-00000-of-0000N.parquet` shards of at most `max_rows_per_shard` rows."""
    rows = max_rows_per_shard or result.config.max_rows_per_shard
    return write_selected_shards(result.source, result.selection, result.split_names, Path(out_dir), rows)


def _row_filters(meta: pl.DataFrame, config: CurationConfig, removed: dict[str, int]) -> pl.DataFrame:
    tokens = (pl.col("transcript_chars") / config.chars_per_token).ceil()
    error_rate = pl.col("tool_errors") / pl.max_horizontal(pl.col("tool_calls"), pl.lit(1))
    drops = {
        "not_passed": ~pl.col("passed"),
        "malformed": pl.col("malformed_calls") > 0,
        "tool_errors": (pl.col("tool_errors") > config.max_tool_errors) | (error_rate > config.max_tool_error_rate),
        "too_long": tokens > config.max_tokens,
    }
    for name, drop in drops.items():
        mask = meta.select(drop.fill_null(True)).to_series()
        removed[name] = int(mask.sum())
        meta = meta.filter(~mask)
    first = meta.select(pl.col("transcript_hash").is_first_distinct()).to_series()
    removed["exact_duplicate"] = int((~first).sum())
    return meta.filter(first)


def _requests(source: TrajectorySource, envs: pl.Series, specs_by_env: Mapping[str, EnvSpec] | None) -> dict[str, str]:
    wanted = source.lazy().filter(pl.col("env_id").is_in(envs.implode())).group_by("env_id").agg(
        pl.col("request").first())
    texts = dict(source.collect(wanted).iter_rows())
    for env_id, spec in (specs_by_env or {}).items():
        if env_id in texts:
            texts[env_id] = "\n\n".join(t.content for t in spec.turns)
    return texts


def _quota(meta: pl.DataFrame, key: str, limit: int | None, where: pl.Expr) -> pl.DataFrame:
    """At most `limit` rows per `key` among the rows `where` holds; the other rows are untouched."""
    if limit is None:
        return meta
    # Ranked within the rows the quota applies to; the transcript hash orders them pseudo-randomly but reproducibly.
    meta = meta.with_columns(where.alias("_quota"))
    rank = pl.col("transcript_hash").rank("ordinal").over([key, "_quota"])
    return meta.filter(~pl.col("_quota") | (rank <= limit)).drop("_quota")


def curate(
    trajectories: Trajectories, *, specs_by_env: Mapping[str, EnvSpec] | None = None,
    config: CurationConfig | None = None,
) -> CurationResult:
    """Keep passing, well-formed, distinct trajectories; split them by env; balance; report every removal.

    `trajectories`: a folder or file of trajectory Parquet (streamed), an Arrow table or a polars frame.
    `specs_by_env`: optional specs by env id; their user turns replace the stored request text.
    """
    config = config or CurationConfig()
    source = TrajectorySource(trajectories, NEEDED_COLUMNS)
    meta = source.collect(source.lazy().select("row", *META_COLUMNS))
    input_rows, input_envs = meta.height, meta["env_id"].n_unique()
    removed: dict[str, int] = dict.fromkeys(FILTERS, 0)
    meta = _row_filters(meta, config, removed)

    # Per environment: near-duplicate requests, request families, splits by family, decontamination.
    per_env = meta.group_by("env_id").agg(pl.len().alias("rows"), pl.col("capability").first())
    texts = _requests(source, per_env["env_id"], specs_by_env)
    order = per_env.sort(["rows", "env_id"], descending=[True, False])["env_id"].to_list()
    splits = split_requests(texts, order, dict(per_env.select("env_id", "capability").iter_rows()), config)
    kept_envs, dirty, split_of = set(splits.split), splits.contaminated, splits.split

    before = meta.height
    meta = meta.filter(pl.col("env_id").is_in(list(kept_envs)))
    removed["near_duplicate"] = before - meta.height
    before = meta.height
    meta = meta.filter(~pl.col("env_id").is_in(list(dirty)))
    removed["decontaminated"] = before - meta.height
    meta = meta.with_columns(pl.col("env_id").replace_strict(split_of, return_dtype=pl.String).alias("split"))

    before = meta.height
    meta = _quota(meta, "env_id", config.max_rows_per_env, pl.lit(True))
    removed["over_env_cap"] = before - meta.height
    before = meta.height
    meta = _quota(meta, "capability", config.max_rows_per_capability, pl.col("split") == TRAIN)
    removed["over_capability_quota"] = before - meta.height

    names = config.split_names
    selection = np.full(input_rows, -1, dtype=np.int8)
    codes = meta["split"].replace_strict({n: i for i, n in enumerate(names)}, return_dtype=pl.Int8).to_numpy()
    selection[meta["row"].to_numpy()] = codes
    report = _report(meta, config, input_rows, input_envs, removed)
    report["request_families"] = len(set(splits.family.values()))
    shards = {name: -(-report["splits"][name]["rows"] // config.max_rows_per_shard) for name in names}
    return CurationResult(report, shards, selection, names, config, source)


def _report(meta: pl.DataFrame, config: CurationConfig, input_rows: int, input_envs: int,
            removed: dict[str, int]) -> dict[str, Any]:
    splits: dict[str, Any] = {}
    for name in config.split_names:
        part = meta.filter(pl.col("split") == name)
        by_capability = part.group_by("capability").agg(pl.len()).sort("capability")
        splits[name] = {"rows": part.height, "envs": part["env_id"].n_unique(),
                        "capabilities": dict(by_capability.iter_rows())}
    return {
        "input_rows": input_rows,
        "input_envs": input_envs,
        "removed": removed,
        "removed_total": sum(removed.values()),
        "kept_rows": meta.height,
        "kept_envs": meta["env_id"].n_unique(),
        "splits": splits,
        "train_by_capability": splits[TRAIN]["capabilities"],
        "heldout_capabilities": list(config.heldout_capabilities),
        "config": config.as_dict(),
    }


def count_duplicate_rows(table: pa.Table) -> int:
    """Rows of a TRL table whose normalised transcript repeats an earlier row's (0 after curation)."""
    seen: set[str] = set()
    duplicates = 0
    for messages in table.column("messages").to_pylist():
        digest = normalized_transcript_hash(messages)
        duplicates += digest in seen
        seen.add(digest)
    return duplicates
