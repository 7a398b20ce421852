"""Fault corpus, a dataset's version pointer (`LATEST` in its folder of the store) that is not what the store wrote:
a folder by that name, a looping or dangling symbolic link (the pointer's, the dataset folder's or the store's own:
a disk not mounted, a folder moved), a file where the dataset folder goes, or a row count edited to a negative,
fractional, boolean, text or wrong number. `store.latest` and an asset reading the dataset name the pointer (or the
link) and what to do, instead of a traceback, of reading the data as never written (a dangling link hid it), or of
reporting a row count the file does not hold; doing what the message says brings the same data back."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import orjson
import pyarrow as pa
import pytest

from assets.envs import validated_envs
from coworkenv import store
from coworkenv.store import StoredTable
from pipelines.staleness import sync_partitions
from tests.faults.harness import CAPABILITY
from tests.faults.test_faults_store_version import failure_message, materialize, one_capability, specs_and_envs


def _edit_rows(value: object) -> Callable[[Path, Path], Path]:
    def edit(folder: Path, moved: Path) -> Path:
        pointer = folder / "LATEST"
        pointer.write_bytes(orjson.dumps({**orjson.loads(pointer.read_bytes()), "num_rows": value}))
        return pointer
    return edit


def _latest_a_folder(folder: Path, moved: Path) -> Path:
    (folder / "LATEST").unlink()
    (folder / "LATEST").mkdir()  # `mkdir -p .../LATEST`, a tool's cache, an unpacked archive
    return folder / "LATEST"


def _latest_dangling(folder: Path, moved: Path) -> Path:
    shutil.move(folder / "LATEST", moved / "LATEST")
    (folder / "LATEST").symlink_to(moved / "not-mounted" / "LATEST")  # a copy on a disk not mounted now
    return folder / "LATEST"


def _latest_looping(folder: Path, moved: Path) -> Path:
    (folder / "LATEST").unlink()
    (folder / "LATEST").symlink_to("LATEST")
    return folder / "LATEST"


def _dataset_folder_looping(folder: Path, moved: Path) -> Path:
    shutil.move(folder, moved / folder.name)
    folder.symlink_to(folder.name)  # `ln -s NAME NAME`: meant for another folder
    return folder


def _dataset_folder_dangling(folder: Path, moved: Path) -> Path:
    shutil.move(folder, moved / folder.name)
    folder.symlink_to(moved / "not-mounted" / folder.name)
    return folder


def _store_dangling(folder: Path, moved: Path) -> Path:
    # The datasets moved to another disk and were linked back; the disk is not mounted.
    shutil.move(folder.parent, moved / folder.parent.name)
    folder.parent.symlink_to(moved / "not-mounted" / folder.parent.name)
    return folder.parent


def _dataset_folder_a_file(folder: Path, moved: Path) -> Path:
    shutil.move(folder, moved / folder.name)
    folder.write_text("notes\n")
    return folder


BROKEN: dict[str, tuple[Callable[[Path, Path], Path], str]] = {
    "latest-a-folder": (_latest_a_folder, "is a folder, not the pointer file"),
    "latest-a-dangling-link": (_latest_dangling, "does not exist"),
    "latest-a-looping-link": (_latest_looping, "loops"),
    "dataset-folder-a-looping-link": (_dataset_folder_looping, "loops"),
    "dataset-folder-a-dangling-link": (_dataset_folder_dangling, "does not exist"),
    "datasets-folder-a-dangling-link": (_store_dangling, "does not exist"),
    "dataset-folder-a-file": (_dataset_folder_a_file, "is a file, not the dataset folder"),
    "rows-negative": (_edit_rows(-5), "row count -5 is not a whole number from 0 up"),
    "rows-fractional": (_edit_rows(2.5), "row count 2.5 is not a whole number"),
    "rows-a-boolean": (_edit_rows(True), "row count True is not a whole number"),
    "rows-as-text": (_edit_rows("5"), "row count '5' is not a whole number"),
    "rows-not-the-files": (_edit_rows(7), "records 7 rows, but"),
}
DANGLING = ["latest-a-dangling-link", "dataset-folder-a-dangling-link", "datasets-folder-a-dangling-link"]


def _broken(tmp_path: Path, case: str) -> tuple[Path, StoredTable, Path]:
    """A dataset `ds` written under tmp_path/store, then broken as `case` says; the store root, what was stored and
    the path the message must name."""
    root, moved = tmp_path / "store", tmp_path / "elsewhere"
    moved.mkdir()
    stored = store.write_table(pa.table({"x": list(range(5))}), root, "ds")
    return root, stored, BROKEN[case][0](root / "ds", moved)


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_version_pointer_is_named_not_a_traceback_nor_never_written(tmp_path: Path, case: str) -> None:
    root, _stored, named = _broken(tmp_path, case)
    with pytest.raises(ValueError) as caught:  # not an OSError traceback, and not None ("never written")
        store.latest(root, "ds")
    message = str(caught.value)
    assert message.startswith(str(named)) and BROKEN[case][1] in message, message
    assert re.search(r"re-materialize|fix the link", message), message


@pytest.mark.parametrize("case", DANGLING)
def test_a_dangling_link_fixed_as_the_message_says_gives_the_same_data_back(tmp_path: Path, case: str) -> None:
    root, stored, link = _broken(tmp_path, case)
    with pytest.raises(ValueError, match="fix the link"):
        store.latest(root, "ds")
    target = Path(os.readlink(link))
    target.parent.mkdir(parents=True)
    shutil.move(target.parent.parent / link.name, target)  # the disk is mounted again
    assert store.latest(root, "ds") == stored


@pytest.mark.parametrize("case", ["latest-a-folder", "rows-negative", "rows-not-the-files"])
def test_a_broken_pointer_moved_out_as_the_message_says_is_rewritten_for_the_same_file(tmp_path: Path,
                                                                                      case: str) -> None:
    """Regression guard (held on main): what the message asks for works, and gives the same data version."""
    root, stored, _named = _broken(tmp_path, case)
    shutil.move(root / "ds" / "LATEST", tmp_path / "aside")  # "move it out" / "delete it", then re-materialize
    assert store.write_table(pa.table({"x": list(range(5))}), root, "ds") == stored
    assert store.latest(root, "ds") == stored


def test_a_pointer_that_is_a_link_to_a_good_pointer_is_followed(tmp_path: Path) -> None:
    """Regression guard (held on main): a working link is the user's choice, not a fault."""
    root = tmp_path / "store"
    stored = store.write_table(pa.table({"x": list(range(5))}), root, "ds")
    pointer = root / "ds" / "LATEST"
    shutil.move(pointer, tmp_path / "LATEST")
    pointer.symlink_to(tmp_path / "LATEST")
    assert store.latest(root, "ds") == stored
    assert store.latest(root, "never-written") is None


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", ["latest-a-folder", "latest-a-dangling-link", "rows-negative"])
def test_an_asset_reading_a_broken_pointer_fails_naming_it_and_replaces_nothing(tmp_path: Path, case: str) -> None:
    settings = one_capability(tmp_path)
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    with dg.instance_for_test() as instance:
        _specs, envs = specs_and_envs(instance, settings)
        named = BROKEN[case][0](settings.store_root / "task_specs" / CAPABILITY, moved)
        sync_partitions(instance, settings.taxonomy())
        failed = materialize(instance, settings, validated_envs)
        assert not failed.success
        message = failure_message(failed)
        assert str(named) in message and BROKEN[case][1] in message, message
        assert store.latest(settings.store_root, "validated_envs", CAPABILITY) == envs  # nothing replaced


@pytest.mark.timeout(300)
@pytest.mark.parametrize("case", ["latest-a-dangling-link", "rows-negative", "latest-a-looping-link"])
def test_make_run_finds_a_broken_pointer_and_the_rerun_rewrites_it(tmp_path: Path, case: str) -> None:
    """`make run` checks each partition by the files Dagster recorded: a broken pointer read as complete ("ok",
    nothing done) while every later reader of the dataset failed on it. Now the partition is stale, naming the
    pointer, and materializing it again rewrites the pointer to the same file."""
    from assets.specs import task_specs
    from pipelines.staleness import partition_state

    settings = one_capability(tmp_path)
    capability = settings.taxonomy()[CAPABILITY]
    moved = tmp_path / "elsewhere"
    moved.mkdir()
    with dg.instance_for_test() as instance:
        specs, envs = specs_and_envs(instance, settings)
        named = BROKEN[case][0](settings.store_root / "task_specs" / CAPABILITY, moved)
        state = partition_state(instance, capability, settings)
        assert not state.complete and state.reason.startswith(f"task_specs: {named}"), state.reason
        assert materialize(instance, settings, task_specs, validated_envs).success
        assert store.latest(settings.store_root, "task_specs", CAPABILITY) == specs  # the same file, pointed at
        assert store.latest(settings.store_root, "validated_envs", CAPABILITY) == envs
