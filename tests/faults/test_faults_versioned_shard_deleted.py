"""Fault corpus, a shard deleted by hand from a dataset version's folder: the local dataset repository a publish
writes (or a `git clone` of the Hub dataset), whose checked-out version holds `data/sft/train-00001-of-00002.parquet`,
loses that file (an `rm` aimed at another file, a clean-up tool, a sync that left it out). `coworkenv train sft --data
REPO` and every reader of the shards (`sft_files`) refused the folder, rightly, but said "an earlier write was
interrupted; write SFT shards with `coworkenv curate TRAJ --out DIR` again": a new curation, for a file the version
keeps and git puts back in a second. Now the refusal says that the repository's version (its tag) holds the file and
gives the command that puts it back; a folder no git version vouches for is told as before.

No pipeline runs: the shards are empty tables of the SFT schema (the check reads names, then footers), committed by
plain git as a publish commits them."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from coworkenv.store.stages import SFT_SCHEMA, StageError, sft_files

SHARDS = ("train-00000-of-00002.parquet", "train-00001-of-00002.parquet")
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@localhost", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@localhost", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV}).stdout


def _shards(folder: Path) -> None:
    folder.mkdir(parents=True)
    for name in SHARDS:
        pq.write_table(SFT_SCHEMA.empty_table(), folder / name)


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    """A dataset repository on its version v1, the Hub layout: data/sft/ shards and a card."""
    repo = tmp_path / "repo"
    _shards(repo / "data" / "sft")
    (repo / "README.md").write_text("# v1\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Dataset version v1")
    _git(repo, "tag", "-a", "v1", "-m", "v1")
    return repo


def _refusal(path: Path) -> str:
    with pytest.raises(StageError) as refused:
        sft_files(path, "train")
    return str(refused.value)


@pytest.mark.parametrize("given", ["the repository", "its shard folder"])
def test_a_shard_deleted_from_a_published_version_is_named_with_the_command_that_puts_it_back(
        repo: Path, given: str) -> None:
    (repo / "data" / "sft" / SHARDS[1]).unlink()
    told = _refusal(repo if given == "the repository" else repo / "data" / "sft")
    assert "data/sft/train-00001-of-00002.parquet" in told
    assert f"the version v1 of the repository {repo} holds" in told, told
    assert "curate" not in told, f"a new curation advised for a file the version keeps: {told}"
    command = told.split("put it back with `", 1)[1].split("`", 1)[0]
    subprocess.run(shlex.split(command), check=True, capture_output=True, env={**os.environ, **GIT_ENV})
    assert [file.name for file in sft_files(repo, "train")] == list(SHARDS)
    assert _git(repo, "status", "--porcelain") == ""


def test_a_shard_the_version_never_held_is_told_as_an_interrupted_write(tmp_path: Path, repo: Path) -> None:
    """Regression guard (passes on `main`): shards written into a folder of a git repository but never committed
    (a curate into the user's project): git cannot put them back, the advice stays a new curation."""
    loose = repo / "scratch" / "sft"
    _shards(loose)
    (loose / SHARDS[1]).unlink()
    told = _refusal(loose)
    assert "has 1 of its 2 shards (missing train-00001-of-00002.parquet), so an earlier write was interrupted" in told
    assert "curate" in told and "git" not in told


def test_a_shard_missing_from_a_plain_folder_is_told_as_before(tmp_path: Path) -> None:
    """Regression guard (passes on `main`): no git anywhere."""
    _shards(tmp_path / "sft")
    (tmp_path / "sft" / SHARDS[0]).unlink()
    told = _refusal(tmp_path / "sft")
    assert "has 1 of its 2 shards (missing train-00000-of-00002.parquet), so an earlier write was interrupted" in told
