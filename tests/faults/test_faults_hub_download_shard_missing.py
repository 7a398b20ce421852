"""Fault corpus, a Hub dataset downloaded without git that lacks a shard: `hf download REPO --repo-type dataset
--local-dir DIR` (huggingface_hub keeps `.cache/huggingface/download/<path>.metadata`, the commit of each file it
placed, and a `.incomplete` part while one is on its way), or the Hub cache itself (`datasets--ORG--NAME/snapshots/
<commit>/`, each file a link to a blob). A shard deleted after the download, a download stopped part way, an
`--include` that left one out: `coworkenv train sft --data DIR` and every reader of the shards (`sft_files`) said "an
earlier write was interrupted; write SFT shards with `coworkenv curate TRAJ --out DIR` again", a new curation for a
file the Hub keeps. Now the refusal names the file, what became of it and the `hf download` command that fetches it
from the commit the folder's other shards came from (not `main`, which may hold another version by now). A shard
that is a link to nothing (a blob removed from the cache, a shard folder linked to a disk not mounted) was listed
and read as "gone since: a curate may have replaced the shards meanwhile"; now it is named, with where it points.

No pipeline runs and no network: empty shards of the SFT schema and the bookkeeping files huggingface_hub writes."""

from __future__ import annotations

import base64
import hashlib
import os
import shlex
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from coworkenv.store.stages import SFT_SCHEMA, StageError, sft_files
from coworkenv.store.stages.episode_writers import parquet_files

SHARDS = ("train-00000-of-00002.parquet", "train-00001-of-00002.parquet")
COMMIT = "3f1c0d9e5b7a2c4d6e8f0a1b2c3d4e5f6a7b8c9d"
OTHER = "9" * 40


def _local_dir(top: Path, commits: tuple[str, str] = (COMMIT, COMMIT)) -> Path:
    """What `hf download ... --local-dir top` leaves for a version whose sft split has two shards."""
    (top / "data" / "sft").mkdir(parents=True)
    records = top / ".cache" / "huggingface" / "download" / "data" / "sft"
    records.mkdir(parents=True)
    (top / ".cache" / "huggingface" / ".gitignore").write_text("*")
    for name, commit in zip(SHARDS, commits, strict=True):
        pq.write_table(SFT_SCHEMA.empty_table(), top / "data" / "sft" / name)
        (records / f"{name}.metadata").write_text(f"{commit}\n\"etag-{name}\"\n{time.time()}\n")
    (top / "README.md").write_text("# dataset\n")
    return top


def _interrupted(top: Path, name: str) -> None:
    """The file's download stopped part way: its metadata never written, a `.incomplete` part left."""
    records = top / ".cache" / "huggingface" / "download" / "data" / "sft"
    (records / f"{name}.metadata").unlink()
    part = base64.urlsafe_b64encode(hashlib.sha1(f"{name}.metadata".encode()).digest()).decode()
    (records / f"{part}.etag-{name}.incomplete").write_bytes(b"PAR1")


def _refusal(path: Path) -> str:
    with pytest.raises(StageError) as refused:
        sft_files(path, "train")
    return str(refused.value)


def _argv(told: str) -> list[str]:
    """The `hf download` command the refusal gives (its last), as argv."""
    return shlex.split("hf download" + told.rsplit("`hf download", 1)[1].split("`", 1)[0])


@pytest.mark.parametrize("how", ["deleted after the download", "download interrupted", "never downloaded"])
def test_a_shard_missing_from_a_local_dir_download_is_named_with_the_download_that_fetches_it(
        tmp_path: Path, how: str) -> None:
    top = _local_dir(tmp_path / "dl")
    (top / "data" / "sft" / SHARDS[1]).unlink()
    if how == "download interrupted":
        _interrupted(top, SHARDS[1])
    elif how == "never downloaded":
        (top / ".cache" / "huggingface" / "download" / "data" / "sft" / f"{SHARDS[1]}.metadata").unlink()
    told = _refusal(top if how == "deleted after the download" else top / "data" / "sft")
    assert "curate" not in told, f"a new curation advised for a file the Hub keeps: {told}"
    assert f"data/sft/{SHARDS[1]} is missing" in told, told
    assert {"deleted after the download": "deleted from the folder after its download",
            "download interrupted": "its download was interrupted",
            "never downloaded": "never downloaded"}[how] in told, told
    assert _argv(told) == ["hf", "download", "REPO_ID", f"data/sft/{SHARDS[1]}", "--repo-type", "dataset",
                           "--revision", COMMIT, "--local-dir", str(top)], told
    assert "nothing was read" in told
    assert (top / "data" / "sft" / SHARDS[0]).is_file()


def test_shards_downloaded_at_two_commits_are_not_completed_from_either_alone(tmp_path: Path) -> None:
    """The shard left was downloaded at another commit than the one deleted: fetching the missing one at either
    would mix two versions; the refusal names both commits and fetches the whole split at one."""
    top = _local_dir(tmp_path / "dl", (COMMIT, OTHER))
    (top / "data" / "sft" / SHARDS[0]).unlink()
    told = _refusal(top)
    assert "curate" not in told, told
    assert f"2 different commits ({COMMIT}, {OTHER}" in told, told
    argv = _argv(told)
    assert argv[argv.index("--revision") + 1] in (COMMIT, OTHER) and argv[-2:] == ["--include", "data/sft/*"], told


def _snapshot(hub: Path) -> Path:
    """The Hub cache after `hf download org/name --repo-type dataset` (no --local-dir): links to blobs."""
    repo = hub / "datasets--org--name"
    snapshot = repo / "snapshots" / COMMIT
    (snapshot / "data" / "sft").mkdir(parents=True)
    (repo / "blobs").mkdir()
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(COMMIT)
    for name in SHARDS:
        blob = repo / "blobs" / hashlib.sha256(name.encode()).hexdigest()
        pq.write_table(SFT_SCHEMA.empty_table(), blob)
        (snapshot / "data" / "sft" / name).symlink_to(os.path.relpath(blob, snapshot / "data" / "sft"))
    return snapshot


def test_a_shard_missing_from_a_snapshot_of_the_hub_cache_is_fetched_into_the_same_cache(tmp_path: Path) -> None:
    snapshot = _snapshot(tmp_path / "hub")
    (snapshot / "data" / "sft" / SHARDS[1]).unlink()
    told = _refusal(snapshot)
    assert "curate" not in told, told
    assert "the Hub dataset org/name in the Hugging Face cache" in told, told
    assert _argv(told) == ["hf", "download", "org/name", f"data/sft/{SHARDS[1]}", "--repo-type", "dataset",
                           "--revision", COMMIT, "--cache-dir", str(tmp_path / "hub")], told


def test_a_shard_of_the_hub_cache_whose_blob_is_gone_is_named_before_any_read(tmp_path: Path) -> None:
    """On `main` the dangling link was listed as a shard, and the read that followed said the file was "gone since:
    a curate may have replaced the shards meanwhile"."""
    snapshot = _snapshot(tmp_path / "hub")
    link = snapshot / "data" / "sft" / SHARDS[0]
    link.resolve().unlink()
    told = _refusal(snapshot)
    assert told.startswith(f"{link}: a symbolic link to ../../../../blobs/"), told
    assert "blob is gone" in told
    assert _argv(told) == ["hf", "download", "org/name", f"data/sft/{SHARDS[0]}", "--repo-type", "dataset",
                           "--revision", COMMIT, "--cache-dir", str(tmp_path / "hub")], told


@pytest.mark.parametrize("reader", ["sft_files", "parquet_files"])
def test_a_shard_linked_to_a_disk_not_mounted_is_named_with_where_it_points(tmp_path: Path, reader: str) -> None:
    """A folder of shards whose files are links to another disk (not mounted now): each reader that lists Parquet
    files by name took the link as a file; `sft_files` and the episode readers' `parquet_files` now name it."""
    folder = tmp_path / "sft"
    folder.mkdir()
    pq.write_table(SFT_SCHEMA.empty_table(), folder / SHARDS[0])
    (folder / SHARDS[1]).symlink_to(tmp_path / "mnt" / "big" / SHARDS[1])
    with pytest.raises(StageError) as refused:
        sft_files(folder, "train") if reader == "sft_files" else parquet_files(folder)
    told = str(refused.value)
    assert told.startswith(f"{folder / SHARDS[1]}: a symbolic link to {tmp_path / 'mnt' / 'big' / SHARDS[1]}, "
                           "which does not exist"), told
    assert "mount the disk" in told and "nothing was read" in told


def test_a_whole_download_reads_as_before(tmp_path: Path) -> None:
    """Regression guard (passes on `main`): a download with every shard, in a local dir and in the cache, reads;
    huggingface_hub's bookkeeping is not taken for shards."""
    top = _local_dir(tmp_path / "dl")
    assert [file.name for file in sft_files(top, "train")] == list(SHARDS)
    assert [file.name for file in sft_files(_snapshot(tmp_path / "hub"), "train")] == list(SHARDS)


def test_a_download_above_that_placed_nothing_in_the_folder_says_nothing_of_it(tmp_path: Path) -> None:
    """Regression guard (passes on `main`): shards curated into a folder of the user's, under a folder that once
    took an `hf download --local-dir` of other files (the home folder, say): told as an interrupted write, as before."""
    records = tmp_path / ".cache" / "huggingface" / "download"
    records.mkdir(parents=True)
    (records / "config.json.metadata").write_text(f"{COMMIT}\netag\n{time.time()}\n")
    folder = tmp_path / "project" / "sft"
    folder.mkdir(parents=True)
    pq.write_table(SFT_SCHEMA.empty_table(), folder / SHARDS[0])
    told = _refusal(folder)
    assert "has 1 of its 2 shards (missing train-00001-of-00002.parquet), so an earlier write was interrupted" in told
    assert "hf download" not in told


def _damaged_past_its_footer(path: Path) -> None:
    """A shard with rows whose first data page is zeroed (a disk or copy fault): its footer still reads."""
    import io

    import pyarrow as pa

    from coworkenv.store._parquet import write_parquet

    table = pa.table({name: pa.array(["[]"] * 50) if name == "tools" else pa.nulls(50, SFT_SCHEMA.field(name).type)
                      for name in SFT_SCHEMA.names}, schema=SFT_SCHEMA)
    sink = io.BytesIO()
    write_parquet(table, sink)
    data = bytearray(sink.getvalue())
    column = pq.read_metadata(pa.BufferReader(bytes(data))).row_group(0).column(SFT_SCHEMA.names.index("tools"))
    data[column.data_page_offset:column.data_page_offset + column.total_compressed_size] = \
        bytes(column.total_compressed_size)
    path.write_bytes(bytes(data))
    assert pq.read_metadata(path).num_rows == 50


@pytest.mark.parametrize("where", ["a git version", "a local-dir download"])
def test_a_shard_damaged_past_its_footer_is_fetched_again_not_curated_again(tmp_path: Path, where: str) -> None:
    """The footer reads, a data page does not: on `main` the refusal advised a new curation, for a file the version
    (or the Hub) keeps whole. A git version puts it back (the command is run here); a download is fetched again,
    forced (huggingface_hub takes a file its metadata records as downloaded)."""
    import subprocess

    from coworkenv.store.stages import read_sft

    if where == "a git version":
        top = tmp_path / "repo"
        (top / "data" / "sft").mkdir(parents=True)
        pq.write_table(SFT_SCHEMA.empty_table(), top / "data" / "sft" / SHARDS[0])
        pq.write_table(SFT_SCHEMA.empty_table(), top / "data" / "sft" / SHARDS[1])
        env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@localhost", "GIT_COMMITTER_NAME": "t",
               "GIT_COMMITTER_EMAIL": "t@localhost", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "v1"],
                     ["tag", "-a", "v1", "-m", "v1"]):
            subprocess.run(["git", "-C", str(top), *args], check=True, capture_output=True, env=env)
    else:
        top = _local_dir(tmp_path / "dl")
    _damaged_past_its_footer(top / "data" / "sft" / SHARDS[1])
    with pytest.raises(StageError) as refused:
        read_sft(sft_files(top, "train"))
    told = str(refused.value)
    assert told.startswith(f"{top / 'data' / 'sft' / SHARDS[1]}: damaged Parquet data"), told
    assert "curate" not in told, f"a new curation advised for a file the version keeps: {told}"
    if where == "a git version":
        command = told.split("put it back with `", 1)[1].split("`", 1)[0]
        assert command == f"git -C {top} checkout v1 -- data/sft/{SHARDS[1]}", told
        subprocess.run(shlex.split(command), check=True, capture_output=True, env=env)
        assert read_sft(sft_files(top, "train")).num_rows == 0
    else:
        assert "damaged since the download" in told, told
        assert _argv(told) == ["hf", "download", "REPO_ID", f"data/sft/{SHARDS[1]}", "--repo-type", "dataset",
                               "--revision", COMMIT, "--local-dir", str(top), "--force-download"], told
