"""Fault corpus, a dataset folder of the store that is a symbolic link into another store written before the store
marker existed (the thirtieth round's `.coworkenv-store`; such a store is marked only by its next write): the other
store's dataset or partition linked (absolute or relative), its root, a backup copy of one, a dataset of it whose
partition this store writes for the first time. With no mark above it, the link was followed as a folder on a bigger
disk: a write moved the other store's LATEST onto this store's rows (that project then read them without a word), a
read gave the other store's rows under this name.

Each store now also marks every LATEST it writes (a `writer` key readers leave alone), and a link out of the store
whose target holds LATEST pointers none of which is marked is refused before any write or read, naming
the link, the unmarked pointer and what to do. A dataset this store wrote, moved to another disk and linked back, is
followed as before (guard), and so is unmarked data marked by hand as the message says."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest

from coworkenv.store import latest, write_table
from tests.faults.test_faults_store_other_store import LINKS, _stores, _table

STORE_MARKER = ".coworkenv-store"


def _unmark(folder: Path) -> None:
    """`folder` as a store written before the marks existed left it: no root marker, pointers of three keys."""
    for marker in folder.rglob(STORE_MARKER):
        marker.unlink()
    for pointer in folder.rglob("LATEST"):
        payload = orjson.loads(pointer.read_bytes())
        old = {key: payload[key] for key in ("content_hash", "file", "num_rows")}
        pointer.write_bytes(orjson.dumps(old, option=orjson.OPT_SORT_KEYS) + b"\n")


def _other_partition(mine: Path, other: Path) -> None:
    """The other store's task_specs holds another partition only; this store writes `cap` there first."""
    shutil.rmtree(other / "task_specs" / "cap")
    write_table(_table("a"), other, "task_specs", "cap2")
    (mine / "task_specs").symlink_to(other / "task_specs")


CASES = {**LINKS, "the dataset linked to the other store's, a partition new there": _other_partition}


@pytest.mark.parametrize("link", sorted(CASES))
def test_a_write_through_a_link_into_an_unmarked_store_is_refused(tmp_path: Path, link: str) -> None:
    mine, other = _stores(tmp_path)
    CASES[link](mine, other)
    _unmark(other)
    _unmark(mine.parent / "store-backup") if (mine.parent / "store-backup").exists() else None
    target = Path(os.path.realpath(mine / "task_specs"))
    before = sorted((path, path.read_bytes()) for path in target.rglob("*") if path.is_file())
    with pytest.raises(ValueError, match="holds store data with no store's mark") as refused:
        write_table(_table("b"), mine, "task_specs", "cap")
    assert "nothing was written" in str(refused.value) and str(mine / "task_specs") in str(refused.value)
    assert sorted((path, path.read_bytes()) for path in target.rglob("*") if path.is_file()) == before


def test_a_read_through_a_link_into_an_unmarked_store_is_refused(tmp_path: Path) -> None:
    """On main: the other store's rows under this store's name."""
    mine, other = _stores(tmp_path)
    LINKS["the dataset linked to the other store's (absolute)"](mine, other)
    _unmark(other)
    with pytest.raises(ValueError, match="holds store data with no store's mark"):
        latest(mine, "task_specs", "cap")


def test_guard_a_dataset_of_this_store_moved_to_another_disk_is_followed(tmp_path: Path) -> None:
    """Regression guard (holds on main): this store's own dataset, moved and linked back; and unmarked data the user
    marked as this store's, as the refusal says."""
    mine, other = _stores(tmp_path)
    big = tmp_path / "big-disk"
    big.mkdir()
    shutil.move(mine / "validated_envs", big / "validated_envs")
    (mine / "validated_envs").symlink_to(big / "validated_envs")
    assert latest(mine, "validated_envs", "cap") is not None
    write_table(_table("c"), mine, "validated_envs", "cap")
    (mine / "task_specs").symlink_to(other / "task_specs")
    _unmark(other)
    (other / "task_specs" / "cap" / ".coworkenv-dataset").touch()  # "this store's own data moved to another disk"
    assert latest(mine, "task_specs", "cap") is not None


def test_guard_links_between_nested_stores_are_refused(tmp_path: Path) -> None:
    """Regression guard (holds on main): a store inside another store's folder (a data folder set inside another
    project's store; a copy of the store kept inside it) linking into the outer or the inner one is refused, by the
    marker walk above the link's target or by the check of links between folders of one store."""
    outer = tmp_path / "store"
    write_table(_table("a"), outer, "task_specs", "cap")
    inner = outer / "task_specs" / "data" / "store"
    write_table(_table("b"), inner, "validated_envs", "cap")
    (inner / "task_specs").symlink_to(outer / "task_specs")
    with pytest.raises(ValueError, match="symbolic link into another store"):
        write_table(_table("b"), inner, "task_specs", "cap")
    backup = outer / "backup"
    shutil.copytree(inner, backup, symlinks=True)
    shutil.rmtree(outer / "task_specs" / "cap")
    (outer / "task_specs" / "cap").symlink_to(backup / "validated_envs" / "cap")
    with pytest.raises(ValueError, match="another folder of the store"):
        write_table(_table("a"), outer, "task_specs", "cap")
    assert latest(backup, "validated_envs", "cap") is not None
