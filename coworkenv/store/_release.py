"""A dataset release: configs of split shards, its card facts, and its file layout in a Hub repository."""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import pyarrow as pa

from coworkenv.store._manifest import version_from_hashes
from coworkenv.store._parquet import parquet_bytes

logger = logging.getLogger(__name__)

DATA_DIR = "data"
CARD_NAME = "README.md"
# `datasets` accepts only these split names in a card's `data_files` (datasets.naming._split_re).
_SPLIT_NAME = re.compile(r"^\w+(\.\w+)*$")
_CONFIG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


@dataclass
class DatasetCardInfo:
    """The facts a dataset card states besides what the data itself tells."""

    pretty_name: str
    description: str
    license: str = "apache-2.0"
    task_categories: list[str] = field(default_factory=lambda: ["text-generation"])
    tags: list[str] = field(default_factory=list)
    funnel: dict[str, int | float] = field(default_factory=dict)  # stage -> count, in funnel order
    generation_settings: dict[str, Any] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)  # role (teacher, generator) -> model id
    versions: dict[str, str] = field(default_factory=dict)  # package or data -> version
    extra_markdown: str = ""
    language: list[str] = field(default_factory=lambda: ["en"])


@dataclass
class DatasetRelease:
    """One version of the dataset: config -> split -> shards, plus its card."""

    version: str
    configs: dict[str, dict[str, list[pa.Table]]]
    card: DatasetCardInfo
    default_config: str | None = None  # what `load_dataset(repo)` loads without a config name


def shard_path(config: str, split: str, index: int, count: int) -> str:
    """Path of one shard in the repository: `data/<config>/<split>-00000-of-00002.parquet`."""
    return f"{DATA_DIR}/{config}/{split}-{index:05d}-of-{count:05d}.parquet"


def split_pattern(config: str, split: str) -> str:
    """The `data_files` glob the card declares for one split."""
    return f"{DATA_DIR}/{config}/{split}-*.parquet"


def config_schema(config: str, splits: dict[str, list[pa.Table]]) -> pa.Schema:
    """The one schema every shard of a config shares; mismatches are an error naming the shard."""
    schema: pa.Schema | None = None
    for split, shards in splits.items():
        for index, shard in enumerate(shards):
            if schema is None:
                schema = shard.schema
            elif not shard.schema.equals(schema, check_metadata=False):
                raise ValueError(
                    f"config {config!r}, split {split!r}, shard {index}: schema {shard.schema} differs from "
                    f"the config's first shard {schema}; cast all shards of a config to one schema"
                )
    if schema is None:
        raise ValueError(f"config {config!r} has no shards; give every split at least one (possibly empty) table")
    return schema


def validate_release(release: DatasetRelease) -> None:
    """Raise a ValueError naming the first config or split the Hub layout cannot represent."""
    if not release.configs:
        raise ValueError(f"release {release.version!r} has no configs")
    if release.default_config is not None and release.default_config not in release.configs:
        raise ValueError(
            f"default_config {release.default_config!r} is not one of the configs {sorted(release.configs)}"
        )
    for config, splits in release.configs.items():
        if not _CONFIG_NAME.match(config):
            raise ValueError(f"config name {config!r}: use letters, digits, '_', '.', '-' (not first)")
        if not splits:
            raise ValueError(f"config {config!r} has no splits")
        for split, shards in splits.items():
            if not _SPLIT_NAME.match(split):
                raise ValueError(
                    f"config {config!r}: split name {split!r} is not accepted by `datasets`; "
                    "use word characters only (e.g. 'train', 'validation')"
                )
            if not shards:
                raise ValueError(f"config {config!r}, split {split!r} has no shards")
        config_schema(config, splits)


def published_configs(release: DatasetRelease) -> dict[str, dict[str, list[pa.Table]]]:
    """The configs and splits a release publishes: every split with at least one row.

    `datasets.load_dataset` fails on a split without rows ("corresponds to no data"), so empty
    splits are left out (with a warning); a config without any rows is an error.
    """
    validate_release(release)
    published: dict[str, dict[str, list[pa.Table]]] = {}
    for config, splits in sorted(release.configs.items()):
        kept = {split: shards for split, shards in splits.items() if sum(shard.num_rows for shard in shards)}
        for split in splits.keys() - kept.keys():
            logger.warning("release %s: config %r split %r has no rows; leaving it out", release.version, config, split)
        if not kept:
            raise ValueError(
                f"release {release.version!r}: config {config!r} has no rows in any split; "
                "leave the config out of the release or fix the stage that produced it"
            )
        published[config] = kept
    return published


def release_files(release: DatasetRelease) -> Iterator[tuple[str, bytes]]:
    """Each data file of a release, as (path in the repository, deterministic Parquet bytes), one at a time."""
    for config, splits in published_configs(release).items():
        for split, shards in splits.items():
            for index, shard in enumerate(shards):
                yield shard_path(config, split, index, len(shards)), parquet_bytes(shard)


def release_version(configs: dict[str, dict[str, list[pa.Table]]], on: date | None = None) -> str:
    """A version name derived from the data of `configs`: same data -> same version.

    With `on` the name carries the date (`v2026.11.30-1a2b3c4d`), otherwise only the content (`v1a2b3c4d5e6f`).
    """
    probe = DatasetRelease(version="probe", configs=configs, card=DatasetCardInfo(pretty_name="", description=""))
    hashes = {path: hashlib.sha256(data).hexdigest() for path, data in release_files(probe)}
    return version_from_hashes(hashes, on=on)
