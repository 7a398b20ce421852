"""Fault corpus, a published dataset repository whose files are not the version its card describes: a Parquet file
put by hand beside a version's shards (`data/sft/train-extra.parquet`, its name matching the card's `data_files`
glob `data/sft/train-*.parquet`), a shard of the version overwritten by hand, a card edited to list its files one by
one (`data_files: [data/sft/train-00000-of-00001.parquet]`).

`sft_files(path, split)` (what `coworkenv train sft --data REPO`, `find_train_files` and a reader of `read_sft` use)
chose the files of a Hub-layout repository by their names alone. Measured on `main`: the hand-placed file's 5 rows
were read with the version's 3 as the `train` split, without a word, and so were a shard's rows replaced by hand,
where `datasets.load_dataset(REPO, "sft", split="train")` on the same folder refuses both
(`NonMatchingSplitsSizesError`: the card records 3 rows); a card listing its files one by one was not followed (the
8 rows read again where `load_dataset` reads the listed file's 3). Now the card's `data_files` choose the files, and
their rows are checked against the rows its `dataset_info` records: refused, naming the file that is no part of the
version and what to do. Guards: the version's splits read as before; a folder of shards without a card (a copy of
`data/sft/`) is read by names as before."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from coworkenv.store import DatasetCardInfo, DatasetRelease, LocalGitPublisher
from coworkenv.store.stages import StageError, read_sft, sft_files
from tests.faults.test_faults_split_files import _rows


@pytest.fixture(scope="module")
def version(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local dataset repository holding one version: sft train (3 rows) and validation (2 rows)."""
    repo = tmp_path_factory.mktemp("card") / "repo"
    configs = {"sft": {"train": [_rows("train", 3)], "validation": [_rows("validation", 2)]}}
    LocalGitPublisher(repo).publish(DatasetRelease("v1", configs, DatasetCardInfo("t", "d"), default_config="sft"))
    return repo


@pytest.fixture
def repo(version: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(version, copy, ignore=shutil.ignore_patterns(".git"))
    return copy


def _read(path: Path, split: str = "train") -> int:
    return read_sft(sft_files(path, split), split).num_rows


def test_a_file_put_by_hand_beside_the_shards_is_refused_naming_it(repo: Path) -> None:
    pq.write_table(_rows("train", 5), repo / "data" / "sft" / "train-extra.parquet")
    with pytest.raises(StageError) as caught:
        _read(repo)
    said = str(caught.value)
    assert "data/sft/train-extra.parquet" in said and "records 3 'train' rows" in said, said
    assert "move it out" in said and "nothing was read" in said, said
    assert _read(repo, "validation") == 2  # the other split's files are the version's


def test_a_shard_overwritten_by_hand_is_refused(repo: Path) -> None:
    pq.write_table(_rows("train", 4), repo / "data" / "sft" / "train-00000-of-00001.parquet")
    with pytest.raises(StageError) as caught:
        _read(repo)
    said = str(caught.value)
    assert "hold 4 rows" in said and "records 3" in said and "nothing was read" in said, said


def test_a_card_listing_its_files_one_by_one_chooses_them(repo: Path) -> None:
    card = repo / "README.md"
    text = card.read_text()
    assert "path: data/sft/train-*.parquet" in text
    card.write_text(text.replace("path: data/sft/train-*.parquet", "path:\n    - data/sft/train-00000-of-00001.parquet"))
    pq.write_table(_rows("train", 5), repo / "data" / "sft" / "train-extra.parquet")
    assert _read(repo) == 3


def test_the_version_and_a_folder_without_a_card_read_as_before(version: Path, repo: Path) -> None:
    """Guard (holds on `main`)."""
    assert (_read(version), _read(version, "validation")) == (3, 2)
    shards = repo / "data" / "sft"
    pq.write_table(_rows("train", 5), shards / "train-extra.parquet")
    assert _read(shards) == 8  # no card: every `train-*` file, as before
