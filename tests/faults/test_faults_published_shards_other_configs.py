"""Fault corpus, a published version's specs or trajectories read with one of their shards gone: a `git clone` or
`hf download` of the dataset (or the local dataset repository a publish writes) lays every config out as
`data/<config>/<split>-00000-of-00002.parquet`, and a shard can go missing from it (deleted by hand or by a tool that
cleans or syncs folders, a download stopped part way or narrowed by `--include`). faults59 and faults60 made the SFT
reader refuse such a folder with what became of the shard and the command that restores it; the readers of the other
configs (`read_spec_rows` / `spec_files`: `coworkenv validate`, `rollout --specs`; `trajectory_files`: curate, the
episode readers) read the shards left as if the missing rows had never been there, with no word.

No pipeline runs and no network: small Parquet files of the stages' schemas, committed by plain git as a publish
commits them, and the bookkeeping files huggingface_hub writes for a `--local-dir` download."""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from coworkenv.spec import SCHEMA_VERSION
from coworkenv.store.stages import StageError
from coworkenv.store.stages.specs import SPECS_SCHEMA, SpecSourceError, read_spec_rows
from coworkenv.store.stages.trajectories import TRAJECTORY_SCHEMA, trajectory_files

SHARDS = ("train-00000-of-00002.parquet", "train-00001-of-00002.parquet")
COMMIT = "3f1c0d9e5b7a2c4d6e8f0a1b2c3d4e5f6a7b8c9d"


def _specs(folder: Path) -> None:
    folder.mkdir(parents=True)
    for index, name in enumerate(SHARDS):
        row = {name: None for name in SPECS_SCHEMA.names} | {
            "env_id": f"env-{index}", "spec_json": json.dumps({"env_id": f"env-{index}", "schema_version": SCHEMA_VERSION})}
        pq.write_table(pa.Table.from_pylist([row], schema=SPECS_SCHEMA), folder / name)


def _trajectories(folder: Path) -> None:
    folder.mkdir(parents=True)
    for name in SHARDS:
        pq.write_table(TRAJECTORY_SCHEMA.empty_table(), folder / name)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(repo),
                               "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
                               "GIT_COMMITTER_EMAIL": "t@e", "PATH": "/usr/bin:/bin"}).stdout


def _downloaded(top: Path) -> None:
    """What `hf download ... --local-dir top` records of each file it placed: the commit it came from."""
    for config in ("specs", "trajectories"):
        records = top / ".cache" / "huggingface" / "download" / "data" / config
        records.mkdir(parents=True)
        for name in SHARDS:
            (records / f"{name}.metadata").write_text(f"{COMMIT}\n\"etag-{name}\"\n{time.time()}\n")


def _read(config: str, folder: Path) -> list[object]:
    return list(read_spec_rows(folder)) if config == "specs" else list(trajectory_files(folder))


@pytest.fixture
def version(tmp_path: Path) -> Path:
    top = tmp_path / "dataset"
    _specs(top / "data" / "specs")
    _trajectories(top / "data" / "trajectories")
    (top / "README.md").write_text("# dataset\n")
    return top


@pytest.mark.parametrize("config", ["specs", "trajectories"])
def test_a_shard_deleted_from_a_hub_download_is_named_with_the_download_that_fetches_it(
        version: Path, config: str) -> None:
    _downloaded(version)
    (version / "data" / config / SHARDS[1]).unlink()
    with pytest.raises(StageError) as refused:
        _read(config, version / "data" / config)
    told = str(refused.value)
    assert f"data/{config}/{SHARDS[1]} is missing" in told and "nothing was read" in told, told
    argv = shlex.split("hf download" + told.rsplit("`hf download", 1)[1].split("`", 1)[0])
    assert argv == ["hf", "download", "REPO_ID", f"data/{config}/{SHARDS[1]}", "--repo-type", "dataset",
                    "--revision", COMMIT, "--local-dir", str(version)], told


@pytest.mark.parametrize("config", ["specs", "trajectories"])
def test_a_shard_deleted_from_a_git_version_is_put_back_by_the_command_given(version: Path, config: str) -> None:
    _git(version, "init", "-q", "-b", "main")
    _git(version, "add", "-A")
    _git(version, "commit", "-q", "-m", "Dataset version v1")
    _git(version, "tag", "-a", "v1", "-m", "v1")
    (version / "data" / config / SHARDS[0]).unlink()
    with pytest.raises(StageError) as refused:
        _read(config, version / "data" / config)
    told = str(refused.value)
    assert "has 1 of its 2 shards" in told and "the version v1" in told, told
    command = shlex.split(told.split("put it back with `", 1)[1].split("`", 1)[0])
    assert command == ["git", "-C", str(version), "checkout", "v1", "--", f"data/{config}/{SHARDS[0]}"], told
    subprocess.run(command, check=True, capture_output=True)  # what the message says to do
    assert len(_read(config, version / "data" / config)) == 2


def test_a_shard_missing_from_a_plain_copy_is_refused_not_read_short(version: Path) -> None:
    (version / "data" / "specs" / SHARDS[1]).unlink()
    with pytest.raises(SpecSourceError, match=r"has 1 of its 2 shards \(missing train-00001-of-00002.parquet\).*"
                                              r"leave out the specs of the missing ones.*nothing was read"):
        read_spec_rows(version)


def test_whole_shard_sets_and_files_not_named_as_shards_read_as_before(version: Path) -> None:
    """Regression guard (passes on `main`): a whole version reads; files of other names are no shard set."""
    assert [json.loads(row.text)["env_id"] for row in read_spec_rows(version / "data" / "specs")] == ["env-0", "env-1"]
    assert len(trajectory_files(version / "data" / "trajectories")) == 2
    (version / "data" / "specs" / "mine.parquet").write_bytes((version / "data" / "specs" / SHARDS[0]).read_bytes())
    (version / "data" / "specs" / SHARDS[0]).rename(version / "data" / "specs" / "part-0.parquet")
    (version / "data" / "specs" / SHARDS[1]).rename(version / "data" / "specs" / "part-1.parquet")
    assert len(read_spec_rows(version / "data" / "specs")) == 3
