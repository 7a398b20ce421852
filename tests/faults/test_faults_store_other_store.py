"""Fault corpus, a dataset folder of the store that is a symbolic link into another store: a second project seeded by
linking the first one's `task_specs` (absolute or relative, the dataset or one partition), a link to another store's
root, a link into a backup copy of this store. The store refused links to its own folders only; a link out of it was
followed as a dataset on a bigger disk, so a write moved the other store's LATEST onto this store's rows (the other
project then read them without a word) and a read gave the other store's rows under this name.

Each store now marks its root (`.coworkenv-store`, written by its first write), and a link leading into a folder under
another store's mark is refused before any write or read, naming the link, the other store and what to do. A link to a
folder on a bigger disk (no mark) and a whole store reached through a link are followed as before (guards)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from coworkenv.store import latest, write_table


def _table(label: str) -> pa.Table:
    return pa.table({"env_id": [f"{label}-1", f"{label}-2"]})


def _stores(tmp_path: Path) -> tuple[Path, Path]:
    """(this project's store, another project's store holding task_specs/cap)."""
    other = tmp_path / "project-a" / "data" / "store"
    write_table(_table("a"), other, "task_specs", "cap")
    mine = tmp_path / "project-b" / "data" / "store"
    write_table(_table("b"), mine, "validated_envs", "cap")  # this store has been written before
    return mine, other


def _dataset_absolute(mine: Path, other: Path) -> None:
    (mine / "task_specs").symlink_to(other / "task_specs")


def _partition_relative(mine: Path, other: Path) -> None:
    (mine / "task_specs").mkdir()
    (mine / "task_specs" / "cap").symlink_to(os.path.relpath(other / "task_specs" / "cap", mine / "task_specs"))


def _to_the_other_root(mine: Path, other: Path) -> None:
    (mine / "task_specs").symlink_to(other)


def _into_a_backup_copy(mine: Path, other: Path) -> None:
    backup = mine.parent / "store-backup"
    write_table(_table("a"), mine, "task_specs", "cap")
    shutil.copytree(mine, backup, symlinks=True)
    shutil.rmtree(mine / "task_specs")
    (mine / "task_specs").symlink_to(backup / "task_specs")


LINKS: dict[str, Callable[[Path, Path], None]] = {
    "the dataset linked to the other store's (absolute)": _dataset_absolute,
    "a partition linked to the other store's (relative)": _partition_relative,
    "the dataset linked to the other store's root": _to_the_other_root,
    "the dataset linked into a backup copy of this store": _into_a_backup_copy,
}


@pytest.mark.parametrize("link", sorted(LINKS))
def test_a_write_through_a_link_into_another_store_is_refused(tmp_path: Path, link: str) -> None:
    mine, other = _stores(tmp_path)
    LINKS[link](mine, other)
    target = Path(os.path.realpath(mine / "task_specs" / "cap"))
    before = latest(target.parent.parent, target.parent.name, "cap") if (target / "LATEST").exists() else None
    with pytest.raises(ValueError, match="symbolic link into another store") as refused:
        write_table(_table("b"), mine, "task_specs", "cap")
    assert "nothing was written" in str(refused.value) and str(mine / "task_specs") in str(refused.value)
    if before is not None:  # the other store's version is where it was
        assert latest(target.parent.parent, target.parent.name, "cap") == before


def test_a_read_through_a_link_into_another_store_is_refused(tmp_path: Path) -> None:
    """On main: the other store's rows under this store's name."""
    mine, other = _stores(tmp_path)
    _dataset_absolute(mine, other)
    with pytest.raises(ValueError, match="symbolic link into another store"):
        latest(mine, "task_specs", "cap")


def test_guard_a_dataset_on_a_bigger_disk_and_a_store_reached_through_a_link_are_followed(tmp_path: Path) -> None:
    """Regression guard (held on main): links out of the store to folders no store marks."""
    mine, _ = _stores(tmp_path)
    big = tmp_path / "big-disk" / "task_specs"
    big.mkdir(parents=True)
    (mine / "task_specs").symlink_to(big)
    written = write_table(_table("b"), mine, "task_specs", "cap")
    assert latest(mine, "task_specs", "cap") == written and (big / "cap" / written.path.name).is_file()
    linked = tmp_path / "store-link"
    linked.symlink_to(mine)  # the whole store moved to another disk, linked where it was
    assert latest(linked, "validated_envs", "cap") is not None
    write_table(_table("c"), linked, "validated_envs", "cap")
