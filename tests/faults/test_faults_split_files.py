"""Fault corpus, a split asked of a published dataset (or a folder of shards) that holds no files of that split: a
version whose `test` split had no rows (the release leaves an empty split out, and its card lists `train` and
`validation` only), a download of some of its files (`huggingface-cli download --include 'data/sft/validation-*'`),
a folder of another tool's shards named by their splits (`test-00000-of-00001.parquet`, no `split` column).

`sft_files(path, split)` (what `coworkenv train sft --data`, `find_train_files` and a reader calling `read_sft`
use) took every Parquet file when none was named `<split>-*`: the other splits' shards were read as the one asked
for. Measured on `main`: the `test` split of a published version read as 0 rows, without a word (its shards'
`split` column filtered the train and validation rows out); the `train` rows of a folder holding only `test` and
`validation` shards of another tool were the held-out rows (trained on). Now a folder whose shards are named by
their splits, none of the one asked for, is refused naming the splits it holds and what to do. Regression guards:
the splits a version has read as before, and a folder of shards not named by split (`part-0.parquet`) is still read
whole."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from coworkenv.store import DatasetCardInfo, DatasetRelease, LocalGitPublisher
from coworkenv.store.stages import SFT_SCHEMA, StageError, read_sft, sft_files


def _rows(split: str, n: int, with_split: bool = True) -> pa.Table:
    rows = [{"messages": [{"role": "user", "content": f"{split} q{i}"}, {"role": "assistant", "content": "a"}],
             "tools": "[]", "env_id": f"env-{split}-{i}", "capability": "mail", "turns": "single", "split": split}
            for i in range(n)]
    table = pa.Table.from_pylist(rows, schema=SFT_SCHEMA)
    return table if with_split else table.drop_columns(["split"])


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A local dataset repository holding one version whose sft config has train (3 rows) and validation (2) rows,
    and a test split without rows (left out of the files and the card)."""
    repo = tmp_path_factory.mktemp("published") / "repo"
    configs = {"sft": {"train": [_rows("train", 3)], "validation": [_rows("validation", 2)], "test": [_rows("test", 0)]}}
    LocalGitPublisher(repo).publish(DatasetRelease("v1", configs, DatasetCardInfo("t", "d"), default_config="sft"))
    assert sorted(p.name for p in (repo / "data" / "sft").iterdir()) == [
        "train-00000-of-00001.parquet", "validation-00000-of-00001.parquet"]
    return repo


def _refused(path: Path, split: str, holds: list[str]) -> str:
    with pytest.raises(StageError) as caught:
        read_sft(sft_files(path, split), split)
    said = str(caught.value)
    assert f"no {split!r} shards" in said and str(path) in said, said
    assert all(repr(other) in said for other in holds), said
    assert "nothing was read" in said, said
    return said


def test_a_split_the_published_version_left_out_is_refused(published: Path) -> None:
    said = _refused(published, "test", ["train", "validation"])
    assert "README.md" in said, said  # the card lists the splits a version has


def test_a_download_of_some_splits_is_refused_for_the_split_not_downloaded(published: Path, tmp_path: Path) -> None:
    """`huggingface-cli download REPO --include 'data/sft/validation-*'`, then `train sft --data` on it."""
    (tmp_path / "data" / "sft").mkdir(parents=True)
    only = tmp_path / "data" / "sft" / "validation-00000-of-00001.parquet"
    only.write_bytes((published / "data" / "sft" / only.name).read_bytes())
    _refused(tmp_path, "train", ["validation"])


def test_another_tools_shards_without_a_split_column_are_not_read_as_train(tmp_path: Path) -> None:
    for split in ("test", "validation"):
        pq.write_table(_rows(split, 2, with_split=False), tmp_path / f"{split}-00000-of-00001.parquet")
    _refused(tmp_path, "train", ["test", "validation"])


def test_the_splits_a_version_has_read_as_before(published: Path) -> None:
    """Guard (holds on `main`)."""
    assert read_sft(sft_files(published, "train"), "train").num_rows == 3
    assert read_sft(sft_files(published, "validation"), "validation").num_rows == 2


def test_shards_not_named_by_split_are_read_whole_as_before(tmp_path: Path) -> None:
    """Guard (holds on `main`): another tool's `part-*.parquet`, rows kept by their `split` column."""
    pq.write_table(pa.concat_tables([_rows("train", 2), _rows("test", 1)]), tmp_path / "part-0.parquet")
    pq.write_table(_rows("train", 1), tmp_path / "part-1.parquet")
    assert read_sft(sft_files(tmp_path, "train"), "train").num_rows == 3
