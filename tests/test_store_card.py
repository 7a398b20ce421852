"""The dataset card: Hub metadata `datasets` parses back to the data's features and splits, and readable facts."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
import yaml

from coworkenv.store import DatasetCardInfo, DatasetRelease, render_dataset_card, shard_table

_MESSAGES = pa.list_(pa.struct([pa.field("role", pa.string()), pa.field("content", pa.string())]))


def _sft(n: int) -> pa.Table:
    return pa.table(
        {
            "messages": pa.array([[{"role": "user", "content": f"q{i}"}] for i in range(n)], _MESSAGES),
            "tools_json": [json.dumps([{"name": "mail_send"}])] * n,
        }
    )


def _release(**card: object) -> DatasetRelease:
    info = DatasetCardInfo(
        pretty_name="CoworkEnv",
        description="Synthetic workplace environments.",
        tags=["agents"],
        funnel={"generated": 200, "valid": 150, "accepted": 50},
        generation_settings={"seed": 7, "capabilities": ["mail.triage", "deploy.rollback"]},
        models={"teacher": "Qwen/Qwen3-8B", "generator": "procedural"},
        versions={"coworkenv": "0.1.0", "task_specs": "abc123"},
        **card,  # type: ignore[arg-type]
    )
    return DatasetRelease(
        version="v2026.11.30-1a2b3c4d",
        configs={
            "sft": {"train": shard_table(_sft(5), 2), "validation": [_sft(1)]},
            "specs": {"train": [pa.table({"spec_id": ["s1", "s2"], "difficulty": pa.array([1, 2], pa.int32())})]},
        },
        card=info,
        default_config="sft",
    )


def _front_matter(card: str) -> dict:
    assert card.startswith("---\n")
    return yaml.safe_load(card.split("---\n")[1])


def test_front_matter_has_the_shape_datasets_and_the_hub_read() -> None:
    from datasets import Features
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    release = _release()
    card = render_dataset_card(release)
    meta = _front_matter(card)

    assert meta["license"] == "apache-2.0"
    assert meta["task_categories"] == ["text-generation"]
    assert meta["pretty_name"] == "CoworkEnv"
    assert meta["tags"] == ["agents"]
    assert meta["size_categories"] == "n<1K"
    assert meta["configs"] == [
        {
            "config_name": "sft",
            "data_files": [
                {"split": "train", "path": "data/sft/train-*.parquet"},
                {"split": "validation", "path": "data/sft/validation-*.parquet"},
            ],
            "default": True,
        },
        {"config_name": "specs", "data_files": [{"split": "train", "path": "data/specs/train-*.parquet"}]},
    ]
    sft_info = next(info for info in meta["dataset_info"] if info["config_name"] == "sft")
    assert sft_info["features"] == [
        {"name": "messages", "list": [{"name": "role", "dtype": "string"}, {"name": "content", "dtype": "string"}]},
        {"name": "tools_json", "dtype": "string"},
    ]
    assert [(s["name"], s["num_examples"]) for s in sft_info["splits"]] == [("train", 5), ("validation", 1)]

    # What `datasets` itself parses from the card.
    card_data = DatasetCard(card).data
    infos = DatasetInfosDict.from_dataset_card_data(card_data)
    assert infos["sft"].features == Features.from_arrow_schema(_sft(1).schema)
    assert infos["specs"].features["difficulty"].dtype == "int32"
    assert infos["sft"].splits["train"].num_examples == 5
    configs = MetadataConfigs.from_dataset_card_data(card_data)
    assert configs.get_default_config_name() == "sft"


def test_markdown_states_the_funnel_settings_models_and_versions() -> None:
    card = render_dataset_card(_release(extra_markdown="## Citation\n\nCoworkEnv."))
    body = card.split("---\n", 2)[2]
    assert "# CoworkEnv" in body and "Synthetic workplace environments." in body
    assert "`v2026.11.30-1a2b3c4d`" in body
    assert "| sft | train | 5 | 3 |" in body
    assert "| valid | 150 | 75.0% |" in body and "| accepted | 50 | 25.0% |" in body
    assert '| capabilities | ["mail.triage","deploy.rollback"] |' in body
    assert "| teacher | Qwen/Qwen3-8B |" in body
    assert "| task_specs | abc123 |" in body
    assert body.rstrip().endswith("CoworkEnv.")


def test_card_is_deterministic() -> None:
    assert render_dataset_card(_release()) == render_dataset_card(_release())


def test_split_names_datasets_rejects_are_refused() -> None:
    release = _release()
    release.configs["sft"]["held-out"] = [_sft(1)]
    with pytest.raises(ValueError, match="split name 'held-out'"):
        render_dataset_card(release)


def test_shards_of_one_config_must_share_a_schema() -> None:
    release = _release()
    release.configs["sft"]["validation"] = [pa.table({"messages": ["not a list"]})]
    with pytest.raises(ValueError, match="split 'validation', shard 0: schema"):
        render_dataset_card(release)


def test_unknown_default_config_is_refused() -> None:
    release = _release()
    release.default_config = "envs"
    with pytest.raises(ValueError, match="default_config 'envs'"):
        render_dataset_card(release)


def test_the_spec_json_format_is_described_where_a_config_holds_specs() -> None:
    assert "spec_json" not in render_dataset_card(_release())
    release = _release()
    release.configs["envs"] = {"train": [pa.table({"env_id": ["env-1"], "spec_json": ['{"coworkenv_sealed_spec":1}']})]}
    body = render_dataset_card(release).split("---\n", 2)[2]
    assert "## The `spec_json` column" in body and "In `envs`, each environment spec is stored **sealed**" in body
    assert "coworkenv.parse_spec" in body and "validated in full" in body
