"""Fault corpus, an input file replaced while a command reads it: curate reads its trajectory files in several passes
(a scan that chooses rows by their position, then the chosen rows, then the rows again to write them), and
`coworkenv train sft`'s loader reads the shards, then hashes them for the training record. A file replaced in between
(a newer copy put over it with `cp` or `rsync` from another machine, `mark-episodes` or a rerun writing it, a script
regenerating it) gave the later pass other rows than the first chose, or the record another file's hash than the
rows trained on. Each command must work on one version of each file, or refuse naming the file and what to do, and
write nothing then.

Every case runs in this process: the file is replaced between two passes by running the replacement there (an order
a second process could take).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import coworkenv.curate.pipeline as curate_pipeline
from coworkenv.cli import app
from coworkenv.curate import CurationConfig, curate, write_shards
from coworkenv.store.stages import StageError, read_sft, sft_files
from tests.faults.harness import example_names, spec_folder

CONFIG = CurationConfig(validation_fraction=0.0, test_fraction=0.0, max_rows_per_shard=2)
REPLACED = r"was (replaced|changed|removed) while curate read it.*nothing was written.*run (curate|it) again"


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two rollouts' files of other envs (`rollout --k 3` of two example specs each), and their curations."""
    root = tmp_path_factory.mktemp("inputs_replaced")
    made: dict[str, Path] = {}
    for name, specs in (("old", example_names()[:2]), ("new", example_names()[2:4])):
        folder = root / name
        done = CliRunner().invoke(app, ["rollout", str(spec_folder(root / f"specs-{name}", specs)), "--out",
                                        str(folder), "--k", "3"])
        assert done.exit_code == 0, done.output
        (made[name],) = folder.glob("*.parquet")
        write_shards(curate(folder, config=CONFIG), root / f"sft-{name}")
        made[f"sft-{name}"] = root / f"sft-{name}"
    return made


def _folder_of(made: dict[str, Path], tmp_path: Path) -> tuple[Path, Path]:
    """A trajectories folder T holding a copy of the old rollout's file; (T, the file)."""
    folder = tmp_path / "T"
    folder.mkdir()
    target = folder / made["old"].name
    shutil.copyfile(made["old"], target)
    return folder, target


def _swap(made: dict[str, Path], target: Path, how: str) -> None:
    """Put the other rollout's rows where `target` is, as a writer would."""
    if how == "renamed over":  # rsync, an atomic writer, `mark-episodes`
        temp = target.with_name(".incoming.parquet")
        shutil.copyfile(made["new"], temp)
        os.replace(temp, target)
    elif how == "copied over":  # `cp new.parquet T/...`: the same file, rewritten in place
        shutil.copyfile(made["new"], target)
    else:
        target.unlink()


def _envs(folder: Path) -> set[str]:
    return {str(e) for e in read_sft(sft_files(folder)).column("env_id").to_pylist()}


@pytest.mark.parametrize("how", ["renamed over", "copied over", "removed"])
def test_curate_refuses_a_file_replaced_after_its_scan(made: dict[str, Path], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """On main: the scan chose rows 0..5 of the old file by position and the shards were written from the new file's
    rows 0..5 (other envs, split by the old envs' families), without a word; a removed file raised a bare
    FileNotFoundError."""
    folder, target = _folder_of(made, tmp_path)
    split = curate_pipeline.split_requests

    def split_then_swap(*args: Any, **kwargs: Any) -> Any:  # after the scan, before any row is read again
        _swap(made, target, how)
        return split(*args, **kwargs)

    monkeypatch.setattr(curate_pipeline, "split_requests", split_then_swap)
    out = tmp_path / "sft"
    with pytest.raises(StageError, match=REPLACED) as refused:
        write_shards(curate(folder, config=CONFIG), out)
    assert str(target) in str(refused.value)
    assert not out.exists() or not list(out.glob("*.parquet"))


@pytest.mark.parametrize("how", ["renamed over", "copied over", "removed"])
def test_write_shards_refuses_a_file_replaced_after_curate(made: dict[str, Path], tmp_path: Path, how: str) -> None:
    """`curate()` then `write_shards()` (the library's two steps, the CLI's scan and write): on main the new file's
    rows were written under the old file's selection."""
    folder, target = _folder_of(made, tmp_path)
    result = curate(folder, config=CONFIG)
    _swap(made, target, how)
    out = tmp_path / "sft"
    with pytest.raises(StageError, match=REPLACED) as refused:
        write_shards(result, out)
    assert str(target) in str(refused.value)
    assert not out.exists() or not list(out.glob("*.parquet"))


def test_the_curate_command_names_the_file_replaced_and_a_rerun_curates_it(made: dict[str, Path], tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """`coworkenv curate T --out D` with T's file replaced during the run: one error line, D untouched; on main exit
    0 with shards of the new file's envs under the old selection."""
    folder, target = _folder_of(made, tmp_path)
    out = tmp_path / "sft"
    shutil.copytree(made["sft-old"], out)  # an earlier curation the failed run must leave whole
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    split = curate_pipeline.split_requests

    def split_then_swap(*args: Any, **kwargs: Any) -> Any:
        _swap(made, target, "renamed over")
        return split(*args, **kwargs)

    args = ["curate", str(folder), "--out", str(out), "--validation-fraction", "0", "--test-fraction", "0",
            "--max-rows-per-shard", "2"]
    with monkeypatch.context() as patch:
        patch.setattr(curate_pipeline, "split_requests", split_then_swap)
        done = CliRunner().invoke(app, args)
    assert done.exit_code == 2, done.output
    assert "Traceback" not in done.output and done.output.count("error:") == 1, done.output
    assert str(target) in done.output
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert _envs(out) == _envs(made["sft-new"])


def test_a_file_added_beside_during_curate_is_left_for_the_next_run(made: dict[str, Path], tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Guard (passes on main): a `rollout --add` ending during curate adds a file; curate works on the files it
    listed, unchanged, and the next curate takes the new one."""
    folder, _ = _folder_of(made, tmp_path)
    split = curate_pipeline.split_requests

    def split_then_add(*args: Any, **kwargs: Any) -> Any:
        shutil.copyfile(made["new"], folder / made["new"].name)
        return split(*args, **kwargs)

    monkeypatch.setattr(curate_pipeline, "split_requests", split_then_add)
    out = tmp_path / "sft"
    write_shards(curate(folder, config=CONFIG), out)
    assert _envs(out) == _envs(made["sft-old"])


def _read_then(swap: Callable[[], None]) -> Callable[..., Any]:
    read, done = pq.read_table, []

    def read_then_swap(*args: Any, **kwargs: Any) -> Any:
        table = read(*args, **kwargs)
        if not done:
            done.append(swap())
        return table

    return read_then_swap


@pytest.mark.parametrize("how", ["renamed over", "copied over"])
def test_the_trainers_loader_records_the_hash_of_the_bytes_it_read(made: dict[str, Path], tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    """`load_train_split` (what `coworkenv train sft` and the checkpoint asset record as the data trained on): a shard
    replaced right after it was read. On main it hashed and counted the files again afterwards, so the training
    record named the new shard's hash for the old shard's rows."""
    from trainers.sft_data import load_train_split

    out = tmp_path / "sft"
    shutil.copytree(made["sft-old"], out)
    first = sorted(out.glob("train-*"))[0]
    old_hash = hashlib.sha256(first.read_bytes()).hexdigest()
    new_shard = made["sft-new"] / first.name
    assert new_shard.is_file() and hashlib.sha256(new_shard.read_bytes()).hexdigest() != old_hash

    def swap() -> None:
        if how == "renamed over":
            shutil.copyfile(new_shard, first.with_name(".incoming"))
            os.replace(first.with_name(".incoming"), first)
        else:
            shutil.copyfile(new_shard, first)

    monkeypatch.setattr(pq, "read_table", _read_then(swap))
    rows, files = load_train_split(out)
    recorded = {Path(f.path).name: f for f in files}
    assert recorded[first.name].sha256 == old_hash  # the bytes whose rows were read
    assert sum(f.rows for f in files) == len(rows)


def test_a_file_replaced_while_the_shards_are_written_puts_none_in_place(
        made: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file rewritten in place after the first shard is complete: refused, no shard put in place; a rerun
    curates the file as it is now (on main: no word, the later shards of the new file's rows)."""
    import coworkenv.store.stages.sft as sft_stage

    folder, target = _folder_of(made, tmp_path)
    result = curate(folder, config=CONFIG)
    commit, calls = sft_stage.commit_file, []

    def commit_then_swap(temp: Path, final: Path) -> None:
        commit(temp, final)
        if not calls:
            calls.append(_swap(made, target, "copied over"))

    monkeypatch.setattr(sft_stage, "commit_file", commit_then_swap)
    out = tmp_path / "sft"
    with pytest.raises(StageError, match=REPLACED):
        write_shards(result, out)
    assert not list(out.glob("*.parquet"))
    monkeypatch.undo()
    write_shards(curate(folder, config=CONFIG), out)
    assert _envs(out) == _envs(made["sft-new"])
