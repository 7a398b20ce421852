"""The embedded publisher: a local git repository with the Hub layout that `datasets.load_dataset` reads."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from coworkenv.store import (
    DatasetCardInfo,
    DatasetRelease,
    LocalGitPublisher,
    PublishError,
    release_version,
    shard_table,
)

# --- representative tables of the four configs, with nested list<struct> and JSON-string columns ----------------

_MESSAGE = pa.struct([pa.field("role", pa.string()), pa.field("content", pa.string())])
_TOOL_CALL = pa.struct([pa.field("name", pa.string()), pa.field("arguments_json", pa.string())])

SPECS_SCHEMA = pa.schema(
    [
        pa.field("spec_id", pa.string()),
        pa.field("capability", pa.string()),
        pa.field("difficulty", pa.int32()),
        pa.field("apps", pa.list_(pa.string())),
        pa.field("checks", pa.list_(pa.struct([pa.field("kind", pa.string()), pa.field("weight", pa.float64())]))),
        pa.field("spec_json", pa.string()),
    ]
)
ENVS_SCHEMA = pa.schema(
    [
        pa.field("env_id", pa.string()),
        pa.field("spec_id", pa.string()),
        pa.field("accepted", pa.bool_()),
        pa.field(
            "gates",
            pa.struct(
                [
                    pa.field("oracle_passes", pa.bool_()),
                    pa.field("noop_fails", pa.bool_()),
                    pa.field("near_miss_failures", pa.int32()),
                ]
            ),
        ),
        pa.field("repair_rounds", pa.int32()),
        pa.field("world_json", pa.string()),
    ]
)
TRAJECTORIES_SCHEMA = pa.schema(
    [
        pa.field("trajectory_id", pa.string()),
        pa.field("env_id", pa.string()),
        pa.field(
            "turns",
            pa.list_(
                pa.struct(
                    [
                        pa.field("role", pa.string()),
                        pa.field("content", pa.string()),
                        pa.field("tool_calls", pa.list_(_TOOL_CALL)),
                    ]
                )
            ),
        ),
        pa.field("reward", pa.float64()),
        pa.field("verifier_hash", pa.string()),
    ]
)
SFT_SCHEMA = pa.schema(
    [pa.field("messages", pa.list_(_MESSAGE)), pa.field("tools_json", pa.string()), pa.field("env_id", pa.string())]
)


def _specs(n: int, tag: str = "") -> pa.Table:
    rows = [
        {
            "spec_id": f"spec-{tag}{i}",
            "capability": ["mail.triage", "deploy.rollback"][i % 2],
            "difficulty": i % 3 + 1,
            "apps": ["mail", "calendar"][: i % 2 + 1],
            "checks": [{"kind": "state", "weight": 0.75}, {"kind": "frame", "weight": 0.25}][: i % 2 + 1],
            "spec_json": json.dumps({"goal": f"task {tag}{i}", "seed": i}, sort_keys=True),
        }
        for i in range(n)
    ]
    return pa.Table.from_pylist(rows, schema=SPECS_SCHEMA)


def _envs(n: int) -> pa.Table:
    rows = [
        {
            "env_id": f"env-{i}",
            "spec_id": f"spec-{i}",
            "accepted": i % 4 != 0,
            "gates": {"oracle_passes": True, "noop_fails": i % 4 != 0, "near_miss_failures": 3},
            "repair_rounds": i % 2,
            "world_json": json.dumps({"mail": {"inbox": [f"m{i}"]}}),
        }
        for i in range(n)
    ]
    return pa.Table.from_pylist(rows, schema=ENVS_SCHEMA)


def _trajectories(n: int) -> pa.Table:
    rows = [
        {
            "trajectory_id": f"traj-{i}",
            "env_id": f"env-{i}",
            "turns": [
                {"role": "user", "content": "Roll back the failing deploy.", "tool_calls": []},
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [
                        {"name": "services_rollback", "arguments_json": json.dumps({"service": f"api-{i}"})}
                    ],
                },
            ],
            "reward": 1.0 if i % 3 else 0.5,
            "verifier_hash": f"{i:064x}",
        }
        for i in range(n)
    ]
    return pa.Table.from_pylist(rows, schema=TRAJECTORIES_SCHEMA)


def _sft(n: int, offset: int = 0) -> pa.Table:
    rows = [
        {
            "messages": [
                {"role": "user", "content": f"q{offset + i}"},
                {"role": "assistant", "content": f"a{offset + i}"},
            ],
            "tools_json": json.dumps([{"type": "function", "function": {"name": "mail_send"}}]),
            "env_id": f"env-{offset + i}",
        }
        for i in range(n)
    ]
    return pa.Table.from_pylist(rows, schema=SFT_SCHEMA)


def _release(version: str | None = None, sft_train_rows: int = 5, shard_rows: int = 2) -> DatasetRelease:
    configs = {
        "specs": {"train": shard_table(_specs(6), 4)},
        "envs": {"train": [_envs(4)]},
        "trajectories": {"train": [_trajectories(3)]},
        "sft": {
            "train": shard_table(_sft(sft_train_rows), shard_rows),
            "validation": [_sft(2, offset=100)],
            "test": [_sft(0)],
        },
    }
    card = DatasetCardInfo(
        pretty_name="CoworkEnv synthetic environments",
        description="Executable workplace environments, teacher trajectories and SFT rows.",
        tags=["agents", "tool-use", "synthetic"],
        funnel={"generated": 12, "valid": 10, "sound": 8, "accepted": 6},
        generation_settings={"generator": "procedural", "seed": 7, "repair_rounds": 2},
        models={"teacher": "oracle", "generator": "procedural"},
        versions={"coworkenv": "0.1.0"},
    )
    return DatasetRelease(version=version or release_version(configs), configs=configs, card=card, default_config="sft")


# --- helpers ------------------------------------------------------------------------------------------------------


@pytest.fixture
def offline_hf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HF cache, offline mode, and no sockets except loopback: nothing reaches the network."""
    home = tmp_path / "hf-home"
    for name, value in {
        "HF_HOME": str(home),
        "HF_DATASETS_CACHE": str(home / "datasets"),
        "HF_HUB_CACHE": str(home / "hub"),
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
    }.items():
        monkeypatch.setenv(name, value)
    import datasets.config
    import huggingface_hub.constants

    # `datasets` may already have been imported by another test with other settings.
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", home / "datasets")
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    real_connect = socket.socket.connect

    def loopback_only(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if self.family in (socket.AF_INET, socket.AF_INET6) and host not in ("127.0.0.1", "::1", "localhost"):
            raise OSError(f"test tried to reach {address}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", loopback_only)
    return home


def _load(repo: Path, config: str, cache: Path) -> Any:
    import datasets

    datasets.disable_progress_bars()
    return datasets.load_dataset(str(repo), config, cache_dir=str(cache / "datasets"))


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(repo / ".git"), "--work-tree", str(repo), *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


# --- tests --------------------------------------------------------------------------------------------------------


def test_load_dataset_reads_every_config_with_its_features_and_splits(tmp_path: Path, offline_hf: Path) -> None:
    from datasets import Features

    release = _release()
    LocalGitPublisher(tmp_path / "repo").publish(release)

    for config, splits in release.configs.items():
        loaded = _load(tmp_path / "repo", config, offline_hf)
        with_rows = {split: shards for split, shards in splits.items() if sum(s.num_rows for s in shards)}
        assert list(loaded) == list(with_rows), config  # `datasets` cannot load an empty split: it is left out
        for split, shards in with_rows.items():
            expected = pa.concat_tables(shards)
            assert loaded[split].features == Features.from_arrow_schema(expected.schema), (config, split)
            assert loaded[split].num_rows == expected.num_rows
            assert loaded[split].to_list() == expected.to_pylist()
    # JSON columns stay strings a reader parses.
    sft_train = _load(tmp_path / "repo", "sft", offline_hf)["train"]
    assert json.loads(sft_train[0]["tools_json"])[0]["function"]["name"] == "mail_send"


def test_default_config_loads_without_a_name(tmp_path: Path, offline_hf: Path) -> None:
    import datasets

    LocalGitPublisher(tmp_path / "repo").publish(_release())
    loaded = datasets.load_dataset(str(tmp_path / "repo"), cache_dir=str(offline_hf / "datasets"))
    assert loaded["validation"][0]["messages"][0]["content"] == "q100"


def test_two_versions_give_two_commits_and_tags_and_the_second_replaces_the_data(
    tmp_path: Path, offline_hf: Path
) -> None:
    repo = tmp_path / "repo"
    publisher = LocalGitPublisher(repo)
    first = _release(sft_train_rows=5, shard_rows=2)  # 3 train shards
    second = _release(sft_train_rows=3, shard_rows=10)  # 1 train shard
    assert first.version != second.version

    one = publisher.publish(first)
    two = publisher.publish(second)

    assert _git(repo, "rev-list", "main").split() == [two.revision, one.revision]
    assert publisher.published_versions() == [first.version, second.version]
    assert _git(repo, "rev-parse", f"{first.version}^{{commit}}").strip() == one.revision
    assert _git(repo, "cat-file", "-t", first.version).strip() == "tag"
    old_tree = set(_git(repo, "ls-tree", "-r", "--name-only", first.version).split())
    new_tree = set(_git(repo, "ls-tree", "-r", "--name-only", second.version).split())
    assert "data/sft/train-00002-of-00003.parquet" in old_tree
    assert {p for p in new_tree if p.startswith("data/sft/train")} == {"data/sft/train-00000-of-00001.parquet"}
    assert new_tree == set(two.files)
    # The working tree is the second version, exactly.
    on_disk = {p.relative_to(repo).as_posix() for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert on_disk == new_tree
    assert _git(repo, "status", "--porcelain") == ""
    assert _load(repo, "sft", offline_hf)["train"].num_rows == 3
    assert second.version in (repo / "README.md").read_text()


def test_publishing_the_same_version_twice_adds_nothing(tmp_path: Path) -> None:
    publisher = LocalGitPublisher(tmp_path / "repo")
    release = _release()
    first = publisher.publish(release)
    again = publisher.publish(release)
    assert again == first
    assert _git(tmp_path / "repo", "rev-list", "--count", "main").strip() == "1"


def test_same_data_gives_the_same_version_and_bytes(tmp_path: Path) -> None:
    one = LocalGitPublisher(tmp_path / "a").publish(_release())
    two = LocalGitPublisher(tmp_path / "b").publish(_release())
    assert one.tag == two.tag
    for path in one.files:
        assert (tmp_path / "a" / path).read_bytes() == (tmp_path / "b" / path).read_bytes(), path


def test_publish_folder_replaces_the_previous_checkpoint(tmp_path: Path) -> None:
    repo = tmp_path / "model-repo"
    publisher = LocalGitPublisher(repo)
    first = tmp_path / "ckpt-1"
    (first / "tokenizer").mkdir(parents=True)
    (first / "model-00001-of-00002.safetensors").write_bytes(b"w1")
    (first / "model-00002-of-00002.safetensors").write_bytes(b"w2")
    (first / "tokenizer" / "tokenizer.json").write_text("{}")
    second = tmp_path / "ckpt-2"
    second.mkdir()
    (second / "model.safetensors").write_bytes(b"w")

    publisher.publish_folder(first, "step-100", "# PocketWorker\n\nstep 100\n")
    result = publisher.publish_folder(second, "step-200", "# PocketWorker\n\nstep 200\n")

    assert result.files == ["README.md", "model.safetensors"]
    assert set(_git(repo, "ls-tree", "-r", "--name-only", "step-200").split()) == {"README.md", "model.safetensors"}
    assert not (repo / "tokenizer").exists()
    assert (repo / "README.md").read_text().endswith("step 200\n")
    assert publisher.published_versions() == ["step-100", "step-200"]


def test_never_touches_an_enclosing_repository(tmp_path: Path) -> None:
    outer = tmp_path / "project"
    outer.mkdir()
    subprocess.run(["git", "init", "-q", str(outer)], check=True)
    LocalGitPublisher(outer / "data" / "hub").publish(_release())
    assert (outer / "data" / "hub" / ".git").is_dir()
    assert _git(outer, "rev-list", "--all") == ""  # the project repository got no commit


def test_refuses_a_non_empty_directory_that_is_not_a_repository(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(PublishError, match="not empty and is not a git repository"):
        LocalGitPublisher(tmp_path).publish(_release())
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_bad_version_names_are_refused(tmp_path: Path) -> None:
    with pytest.raises(PublishError, match="cannot be a tag"):
        LocalGitPublisher(tmp_path / "repo").publish(_release(version="v1 final"))
    assert LocalGitPublisher(tmp_path / "repo").published_versions() == []


def test_a_config_without_rows_is_refused(tmp_path: Path) -> None:
    release = _release()
    release.configs["trajectories"] = {"train": [_trajectories(0)]}
    with pytest.raises(ValueError, match="'trajectories' has no rows"):
        LocalGitPublisher(tmp_path / "repo").publish(release)


def test_a_published_envs_stage_loads_with_datasets_and_its_specs_on_the_sealed_path(
    tmp_path: Path, offline_hf: Path
) -> None:
    from coworkenv import parse_spec
    from coworkenv.examples import example_names, load_example
    from coworkenv.spec_seal import sealed_table_hashes
    from coworkenv.validate import Candidate, accepted_table, validate_and_repair

    spec = load_example(example_names()[0])
    envs = accepted_table(validate_and_repair([Candidate(spec.capability, spec)]))
    release = _release()
    release.configs["envs"] = {"train": [envs]}
    LocalGitPublisher(tmp_path / "repo").publish(release)
    row = _load(tmp_path / "repo", "envs", offline_hf)["train"][0]
    loaded = parse_spec(row["spec_json"])  # as the README's example reads a dataset row
    assert loaded == spec and loaded.id == row["env_id"] and sealed_table_hashes(loaded) is not None
