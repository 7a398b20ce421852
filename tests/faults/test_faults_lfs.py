"""Fault corpus, Git LFS pointers where data was expected: a dataset repository (the Hub's, or a copy of ours)
cloned without Git LFS holds a 130-byte pointer in place of each Parquet file. Every reader said "not a readable
Parquet file ... corrupted" and told the user to write the file again; nothing is damaged, the data was only not
fetched. Each is refused with one line naming the file, saying it is an LFS pointer and to run `git lfs pull`."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from coworkenv.store import latest, read_table, write_table
from coworkenv.store.stages import StageError, read_sft, read_specs, read_trajectories, sft_files
from tests.faults.harness import refused, snapshot, stage_inputs


def _as_lfs_pointer(path: Path) -> Path:
    """Replace `path` by the pointer `git lfs` checks out without its object (the spec's exact form)."""
    data = path.read_bytes()
    path.write_text(f"version https://git-lfs.github.com/spec/v1\noid sha256:{hashlib.sha256(data).hexdigest()}\n"
                    f"size {len(data)}\n")
    return path


@pytest.fixture(scope="module")
def stage_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return stage_inputs(tmp_path_factory.mktemp("lfs"))


def _pointer_copy(stage_files: dict[str, Path], stage: str, where: Path) -> tuple[Path, Path]:
    """A copy of a stage's input, cloned without LFS: (what to pass, the first pointer a reader meets)."""
    source = stage_files[stage]
    if source.is_file():
        copy = where / source.name
        copy.write_bytes(source.read_bytes())
        return copy, _as_lfs_pointer(copy)
    folder = where / stage
    folder.mkdir()
    for file in source.glob("*.parquet"):
        (folder / file.name).write_bytes(file.read_bytes())
        _as_lfs_pointer(folder / file.name)
    first = (sft_files(source) if stage == "sft" else sorted(source.glob("*.parquet")))[0]
    return folder, folder / first.name


COMMANDS: dict[str, tuple[str, Callable[[Path, Path], list[str]]]] = {
    "env run": ("specs", lambda given, out: ["env", "run", str(given)]),
    "rollout": ("specs", lambda given, out: ["rollout", str(given), "--out", str(out)]),
    "validate": ("specs", lambda given, out: ["validate", str(given), "--out", str(out)]),
    "curate": ("traj", lambda given, out: ["curate", str(given), "--out", str(out)]),
}


def _says_lfs(line: str, pointer: Path) -> None:
    assert str(pointer) in line and "Git LFS pointer" in line and "git lfs pull" in line, line
    assert "damaged" not in line and "corrupted" not in line, line


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_says_a_pointer_is_an_lfs_pointer_and_writes_nothing(
        stage_files: dict[str, Path], tmp_path: Path, command: str) -> None:
    stage, args = COMMANDS[command]
    given, pointer = _pointer_copy(stage_files, stage, tmp_path)
    out = tmp_path / "out"
    _says_lfs(refused(args(given, out)), pointer)
    assert snapshot(out) == {}


@pytest.mark.parametrize(("stage", "read"), [("specs", read_specs), ("traj", read_trajectories),
                                             ("sft", lambda folder: read_sft(sft_files(folder)))])
def test_library_readers_say_a_pointer_is_an_lfs_pointer(stage_files: dict[str, Path], tmp_path: Path, stage: str,
                                                         read: Callable[[Path], object]) -> None:
    given, pointer = _pointer_copy(stage_files, stage, tmp_path)
    with pytest.raises(StageError) as caught:
        read(given)
    _says_lfs(str(caught.value), pointer)


def test_a_stored_table_that_is_a_pointer_is_named_by_both_store_readers(tmp_path: Path) -> None:
    stored = write_table(pa.table({"text": ["a", "b"]}), tmp_path, "table")
    _as_lfs_pointer(stored.path)
    for read in (lambda: latest(tmp_path, "table"), lambda: read_table(stored.path)):
        with pytest.raises(ValueError) as caught:
            read()
        _says_lfs(str(caught.value), stored.path)


def test_a_damaged_file_that_only_starts_like_a_pointer_is_still_called_damaged(tmp_path: Path) -> None:
    stored = write_table(pa.table({"text": ["a", "b"]}), tmp_path, "table")
    stored.path.write_bytes(b"version https://git-lfs.github.com/spec/v1\n" + b"\0" * 2000)
    with pytest.raises(ValueError, match="damaged Parquet file"):
        read_table(stored.path)
