"""The dataset card (README.md): Hub metadata derived from the data, then the facts a reader needs."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import orjson
from datasets import DatasetInfo, Features, SplitDict, SplitInfo
from datasets.info import DatasetInfosDict
from datasets.utils.metadata import MetadataConfigs
from huggingface_hub import DatasetCard, DatasetCardData

from coworkenv.store._release import (
    DatasetRelease,
    config_schema,
    published_configs,
    split_pattern,
)

# The Hub's size buckets, by the largest config's example count.
_SIZE_CATEGORIES = (
    (1_000, "n<1K"),
    (10_000, "1K<n<10K"),
    (100_000, "10K<n<100K"),
    (1_000_000, "100K<n<1M"),
    (10_000_000, "1M<n<10M"),
    (100_000_000, "10M<n<100M"),
    (1_000_000_000, "100M<n<1B"),
    (10_000_000_000, "1B<n<10B"),
)


def render_dataset_card(release: DatasetRelease) -> str:
    """README.md for a release: YAML front matter (`configs`, `dataset_info`, license, ...) and Markdown.

    The YAML is what `datasets.load_dataset` and the Hub read: each config's `data_files`
    per split, and features derived from the config's Arrow schema.
    """
    configs = published_configs(release)
    info = release.card
    card_data = DatasetCardData(
        pretty_name=info.pretty_name,
        license=info.license,
        language=list(info.language) or None,
        task_categories=list(info.task_categories) or None,
        tags=list(info.tags) or None,
        size_categories=_size_category(configs),
    )
    # The same helpers `Dataset.push_to_hub` uses, so the YAML has exactly the shape `datasets` parses.
    DatasetInfosDict(
        {config: _dataset_info(config, splits) for config, splits in configs.items()}
    ).to_dataset_card_data(card_data)
    MetadataConfigs(
        {config: _config_metadata(config, splits, release.default_config) for config, splits in configs.items()}
    ).to_dataset_card_data(card_data)
    card = DatasetCard(f"---\n{card_data.to_yaml()}\n---\n\n{_markdown(release, configs)}")
    return str(card)


def _config_metadata(config: str, splits: dict[str, list[Any]], default_config: str | None) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "data_files": [{"split": split, "path": split_pattern(config, split)} for split in splits]
    }
    if config == default_config:
        metadata["default"] = True
    return metadata


def _dataset_info(config: str, splits: dict[str, list[Any]]) -> DatasetInfo:
    schema = config_schema(config, splits)
    split_dict = SplitDict()
    for split, shards in splits.items():
        split_dict.add(
            SplitInfo(
                name=split,
                num_bytes=sum(shard.nbytes for shard in shards),
                num_examples=sum(shard.num_rows for shard in shards),
            )
        )
    return DatasetInfo(
        features=Features.from_arrow_schema(schema),
        splits=split_dict,
        dataset_size=sum(split.num_bytes for split in split_dict.values()),
    )


def _size_category(configs: dict[str, dict[str, list[Any]]]) -> str:
    largest = max(sum(shard.num_rows for shards in splits.values() for shard in shards) for splits in configs.values())
    for bound, name in _SIZE_CATEGORIES:
        if largest < bound:
            return name
    return "other"


def _markdown(release: DatasetRelease, configs: dict[str, dict[str, list[Any]]]) -> str:
    info = release.card
    sections = [f"# {info.pretty_name}", info.description.strip(), f"Dataset version: `{release.version}`"]
    sections.append("## Configs\n\n" + _table(("config", "split", "rows", "shards"), _config_rows(configs)))
    sections.append(
        'Load one config with `datasets.load_dataset(<this repository>, "<config>")`; '
        "each config's files are under `data/<config>/`."
    )
    with_specs = [config for config, splits in configs.items() if "spec_json" in config_schema(config, splits).names]
    if with_specs:
        sections.append(_SPEC_JSON.format(configs=", ".join(f"`{c}`" for c in with_specs)))
    if info.funnel:
        sections.append(
            "## Acceptance funnel\n\n" + _table(("stage", "count", "of first stage"), _funnel_rows(info.funnel))
        )
    if info.generation_settings:
        sections.append("## Generation settings\n\n" + _table(("setting", "value"), _pairs(info.generation_settings)))
    if info.models:
        sections.append("## Models\n\n" + _table(("role", "model"), _pairs(info.models)))
    if info.versions:
        sections.append("## Versions\n\n" + _table(("component", "version"), _pairs(info.versions)))
    if info.extra_markdown.strip():
        sections.append(info.extra_markdown.strip())
    return "\n\n".join(section for section in sections if section) + "\n"


_SPEC_JSON = """## The `spec_json` column

In {configs}, each environment spec is stored **sealed**: one JSON object
`{{"coworkenv_sealed_spec":1,"sha256":"<seal>","key":"<schema fingerprint>","spec_id":"env-...","tables":{{...}},"spec":{{...}}}}`,
whose `spec` member is the spec itself (`coworkenv env schema` prints its JSON Schema). `coworkenv.parse_spec` and
`coworkenv.load_spec` check the seal (a SHA-256 of the bytes after it, keyed by the spec schema) and, when it holds,
load the spec without validating every record again; a row whose seal does not hold (an edited row, or a spec schema
other than the one it was sealed under) is validated in full. Releases before this format hold the plain spec JSON;
both load the same way. Rows the validate gates could not load in full stay plain spec JSON."""


def _config_rows(configs: dict[str, dict[str, list[Any]]]) -> list[list[str]]:
    return [
        [config, split, str(sum(shard.num_rows for shard in shards)), str(len(shards))]
        for config, splits in configs.items()
        for split, shards in splits.items()
    ]


def _funnel_rows(funnel: dict[str, int | float]) -> list[list[str]]:
    first = next(iter(funnel.values()))
    return [[stage, f"{count:g}", f"{100 * count / first:.1f}%" if first else "n/a"] for stage, count in funnel.items()]


def _pairs(mapping: dict[str, Any]) -> list[list[str]]:
    return [[key, value if isinstance(value, str) else orjson.dumps(value).decode()] for key, value in mapping.items()]


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    def cell(text: str) -> str:
        # A raw '|' or newline would break the Markdown table.
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)
