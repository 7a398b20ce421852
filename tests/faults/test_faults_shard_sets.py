"""Fault corpus, SFT shards of two curations in one folder: a `coworkenv curate T --out D` run again into D (other
trajectories, the same shard count) replaces the shards one by one, so a rerun stopped part way (a full disk, a kill)
leaves `train-00000-of-00006` of the new rows beside `train-00001-of-00006` of the old, a whole set by its names; and a
reader (`coworkenv train sft`'s loader, `read_sft`) meets the same mix while a rerun runs. Readers must refuse a set of
two writes, naming the folder and what to do, and never train on the mix; a rerun completes the folder.

Every case runs in this process: a full disk is an OSError at the named shard's rename (the complete shards stay, as
after a kill: `test_faults_kill.py` kills between shards), and a reader meets the rerun by running it between two of
its shard reads (an order a second process could take).
"""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import coworkenv.store.stages.sft as sft_stage
from coworkenv.cli import app
from coworkenv.store.stages import SFT_SCHEMA, StageError, read_sft, sft_files
from tests.faults.harness import example_names, spec_folder, temp_files

SFT = "coworkenv.store.stages.sft"
# Every row in train, one row a shard: six shards of either trajectory set (three episodes of two envs).
SHARDS = 6
WRITES = r"the 'train' shards come from 2 different writes .* stopped part way.* or is running now.*mix their rows.*" \
         r"run it again \(`coworkenv curate TRAJ --out .*`\); nothing was read"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two trajectory folders of other envs but the same row count, made by `rollout`."""
    root = tmp_path_factory.mktemp("shard_sets")
    made = {}
    for name, specs in (("old", example_names()[:2]), ("new", example_names()[2:4])):
        made[name] = root / name
        done = CliRunner().invoke(app, ["rollout", str(spec_folder(root / f"specs-{name}", specs)), "--out",
                                        str(made[name]), "--k", "3"])
        assert done.exit_code == 0, done.output
    return made


def _args(trajectories: Path, out: Path, max_rows: int = 1) -> list[str]:
    return ["curate", str(trajectories), "--out", str(out), "--validation-fraction", "0", "--test-fraction", "0",
            "--max-rows-per-shard", str(max_rows)]


def _curate(trajectories: Path, out: Path, max_rows: int = 1) -> None:
    done = CliRunner().invoke(app, _args(trajectories, out, max_rows))
    assert done.exit_code == 0, done.output


def _envs(out: Path) -> set[str]:
    return set(read_sft(sft_files(out)).column("env_id").to_pylist())


@pytest.fixture(scope="module")
def envs(made: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[str]]:
    """The env ids each trajectory set curates to on its own (they share none)."""
    found, root = {}, tmp_path_factory.mktemp("alone")
    for name in ("old", "new"):
        _curate(made[name], root / name)
        found[name] = _envs(root / name)
        assert len(list((root / name).glob("train-*"))) == SHARDS
    assert not found["old"] & found["new"]
    return found


def _disk_full_at(rename: int) -> Callable[[Path, Path], None]:
    calls = [0]
    commit = sft_stage.commit_file

    def commit_or_full(temp: Path, final: Path) -> None:
        calls[0] += 1
        if calls[0] == rename:
            raise OSError(errno.ENOSPC, "No space left on device", str(final))
        commit(temp, final)

    return commit_or_full


@pytest.mark.parametrize("rename", [2, 4, SHARDS])
def test_a_rerun_stopped_by_a_full_disk_leaves_the_earlier_set_then_completes(
        made: dict[str, Path], envs: dict[str, set[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        rename: int) -> None:
    """Changed in the twenty-fifth round: the shards are put in place only once all are written
    (`coworkenv.atomic.files_together`), so the full disk leaves the earlier curation whole instead of a mix that
    readers refuse (the mix a kill during the renames leaves is still refused: `test_faults_kill.py`)."""
    out = tmp_path / "sft"
    _curate(made["old"], out)
    with monkeypatch.context() as patch:
        patch.setattr(sft_stage, "commit_file", _disk_full_at(rename))
        stopped = CliRunner().invoke(app, _args(made["new"], out))
    assert stopped.exit_code != 0 and "No space left on device" in stopped.output
    assert "every file of the earlier run is as it was" in stopped.output
    assert len(list(out.glob("train-*"))) == SHARDS and temp_files(out) == []
    assert _envs(out) == envs["old"]  # on main: refused, the six shards of both curations
    _curate(made["new"], out)
    assert _envs(out) == envs["new"]


def test_a_rerun_stopped_part_way_leaves_the_trainers_loader_the_earlier_set(made: dict[str, Path],
                                                                             envs: dict[str, set[str]], tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Changed in the twenty-fifth round, as above: the loader reads the earlier curation, whole."""
    from trainers.sft_data import load_train_split

    out = tmp_path / "sft"
    _curate(made["old"], out)
    with monkeypatch.context() as patch:
        patch.setattr(sft_stage, "commit_file", _disk_full_at(3))
        assert CliRunner().invoke(app, _args(made["new"], out)).exit_code != 0
    assert set(load_train_split(out)[0]["env_id"]) == envs["old"]  # on main: refused (a mix), before: trained on it
    _curate(made["new"], out)
    assert set(load_train_split(out)[0]["env_id"]) == envs["new"]


@contextlib.contextmanager
def _reader_meets(rerun: Callable[[], None], after_reads: int = 1) -> Iterator[None]:
    """Patch the shard reader to run `rerun` once, after `after_reads` shards were read."""
    reads = [0]
    read_table = pq.read_table

    def read_then_rerun(path: Any, *args: Any, **kwargs: Any) -> pa.Table:
        table = read_table(path, *args, **kwargs)
        reads[0] += 1
        if reads[0] == after_reads:
            rerun()
        return table

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sft_stage.pq, "read_table", read_then_rerun)
        yield


@pytest.mark.parametrize("after_reads", [1, SHARDS - 1])
def test_a_reader_while_a_rerun_replaces_the_shards_is_refused(made: dict[str, Path], tmp_path: Path,
                                                               after_reads: int) -> None:
    out = tmp_path / "sft"
    _curate(made["old"], out)
    listed = sft_files(out)
    # on main: the old rows of the first shards, the new of the rest
    with _reader_meets(lambda: _curate(made["new"], out), after_reads), pytest.raises(StageError, match=WRITES):
        read_sft(listed)


def test_a_reader_while_a_rerun_removes_the_listed_shards_is_refused_naming_the_file(made: dict[str, Path],
                                                                                    tmp_path: Path) -> None:
    out = tmp_path / "sft"
    _curate(made["old"], out)
    listed = sft_files(out)
    removed = (r"train-00001-of-00006\.parquet: no such file \(where it was listed from its folder just before, it is "
               r"gone since: a curate into .* may have replaced the shards meanwhile\); list and read the folder again")
    # the rerun writes two shards and removes the six; on main: "damaged Parquet data", of a file never damaged
    with _reader_meets(lambda: _curate(made["new"], out, max_rows=4)), pytest.raises(StageError, match=removed):
        read_sft(listed)


def test_a_reader_while_the_same_curation_runs_again_reads_it(made: dict[str, Path], envs: dict[str, set[str]],
                                                              tmp_path: Path) -> None:
    """Regression guard: the same rows again give the same marks (and bytes); the reader is not refused."""
    out = tmp_path / "sft"
    _curate(made["old"], out)
    before = {p.name: p.read_bytes() for p in out.glob("train-*")}
    listed = sft_files(out)
    with _reader_meets(lambda: _curate(made["old"], out)):
        assert set(read_sft(listed).column("env_id").to_pylist()) == envs["old"]
    assert {p.name: p.read_bytes() for p in out.glob("train-*")} == before


def test_an_unmarked_shard_of_an_older_release_beside_marked_ones_is_refused(made: dict[str, Path],
                                                                             tmp_path: Path) -> None:
    out = tmp_path / "sft"
    _curate(made["old"], out)
    shard = out / f"train-00003-of-{SHARDS:05d}.parquet"
    pq.write_table(pq.read_table(shard).replace_schema_metadata(None).cast(SFT_SCHEMA), shard)
    with pytest.raises(StageError, match=WRITES):
        sft_files(out)


def test_shards_of_an_older_release_all_unmarked_read_as_before(made: dict[str, Path], envs: dict[str, set[str]],
                                                                tmp_path: Path) -> None:
    """Regression guard: shards written before the mark (none carries one) are one set, as they were read before."""
    out = tmp_path / "sft"
    _curate(made["old"], out)
    for shard in out.glob("train-*"):
        pq.write_table(pq.read_table(shard).replace_schema_metadata(None), shard)
    assert _envs(out) == envs["old"]
