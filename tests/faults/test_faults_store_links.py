"""Fault corpus, a dataset's or partition's folder in the store that is a symbolic link to another folder of the
same store: a capability's folder linked to a sibling's to seed it (`ln -s cap_a cap_b`), to the same capability of
another dataset, to the dataset folder itself (`ln -s . cap_b`); a dataset folder left as a link to another dataset
after a rename, or linked to the store root; the same through a link to the store. On main the store followed the
link: writing the one dataset moved the other's LATEST onto its own rows (the other dataset then read, without a
word, rows of another schema or capability), and reading the one gave the other's rows under its name. Now both are
refused naming the link, where it leads and what to do, and nothing is written. A link that leads out of the store
(a dataset kept on a bigger disk, the whole store a link) is still followed (regression guards)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pytest

from assets.envs import validated_envs
from coworkenv import store
from tests.faults.harness import CAPABILITY
from tests.faults.test_faults_store_version import failure_message, materialize, one_capability, specs_and_envs

# Each: (the store root) -> (dataset, partition) of the linked folder, after making the link; the target holds data.
Link = Callable[[Path], tuple[str, str | None]]
TARGET = pa.table({"x": [1, 2, 3]})
OURS = pa.table({"y": ["a", "b"]})


def _sibling_relative(root: Path) -> tuple[str, str | None]:
    store.write_table(TARGET, root, "specs", "cap_a")
    (root / "specs" / "cap_b").symlink_to("cap_a")  # seeding a new capability with an old one's specs
    return "specs", "cap_b"


def _sibling_absolute(root: Path) -> tuple[str, str | None]:
    store.write_table(TARGET, root, "specs", "cap_a")
    (root / "specs" / "cap_b").symlink_to(root / "specs" / "cap_a")
    return "specs", "cap_b"


def _other_dataset_same_capability(root: Path) -> tuple[str, str | None]:
    store.write_table(TARGET, root, "task_specs", "cap")
    (root / "validated_envs").mkdir(parents=True)
    (root / "validated_envs" / "cap").symlink_to(Path("..") / "task_specs" / "cap")
    return "validated_envs", "cap"


def _the_dataset_folder_itself(root: Path) -> tuple[str, str | None]:
    store.write_table(TARGET, root, "specs")  # an unpartitioned write left LATEST in the dataset folder
    (root / "specs" / "cap_b").symlink_to(".")
    return "specs", "cap_b"


def _dataset_renamed_with_a_link(root: Path) -> tuple[str, str | None]:
    store.write_table(TARGET, root, "envs")
    (root / "trajectories").symlink_to("envs")
    return "trajectories", None


def _dataset_to_the_store_root(root: Path) -> tuple[str, str | None]:
    store.write_table(TARGET, root, "specs")
    (root / "sft").symlink_to(".")  # meant `ln -s . data/sft` somewhere else
    return "sft", "specs"  # its partition "specs" is the specs dataset's folder


def _through_a_link_to_the_store(root: Path) -> tuple[str, str | None]:
    store.write_table(TARGET, root, "envs")
    alias = root.parent / "store-alias"
    alias.symlink_to(root)
    (root / "trajectories").symlink_to(alias / "envs")  # absolute, by another spelling of the store
    return "trajectories", None


LINKS: dict[str, Link] = {
    "partition to a sibling, relative": _sibling_relative,
    "partition to a sibling, absolute": _sibling_absolute,
    "partition to another dataset's": _other_dataset_same_capability,
    "partition to its dataset folder": _the_dataset_folder_itself,
    "dataset renamed, a link left": _dataset_renamed_with_a_link,
    "dataset to the store root": _dataset_to_the_store_root,
    "dataset through a link to the store": _through_a_link_to_the_store,
}


def _linked(tmp_path: Path, case: str) -> tuple[Path, str, str | None, Path, bytes]:
    """The store root, the linked dataset and partition, the link, and the bytes of the target's LATEST."""
    root = tmp_path / "store"
    root.mkdir()
    dataset, partition = LINKS[case](root)
    folder = root.joinpath(dataset, *([partition] if partition else []))
    link = folder if folder.is_symlink() else folder.parent
    assert link.is_symlink()
    return root, dataset, partition, link, (Path(os.path.realpath(folder)) / "LATEST").read_bytes()


def _says(message: str, link: Path) -> None:
    assert message.startswith(str(link)) and "symbolic link" in message and "another folder of the store" in message, \
        message
    assert "remove the link" in message, message


@pytest.mark.parametrize("case", sorted(LINKS))
def test_writing_through_a_link_to_another_folder_of_the_store_is_refused(tmp_path: Path, case: str) -> None:
    root, dataset, partition, link, pointer = _linked(tmp_path, case)
    target = Path(os.path.realpath(root.joinpath(dataset, *([partition] if partition else []))))
    before = sorted(p.name for p in target.iterdir())
    with pytest.raises(ValueError) as caught:
        store.write_table(OURS, root, dataset, partition)
    _says(str(caught.value), link)
    assert (target / "LATEST").read_bytes() == pointer  # the other dataset's version is where it was
    assert sorted(p.name for p in target.iterdir()) == before


@pytest.mark.parametrize("case", sorted(LINKS))
def test_reading_through_a_link_to_another_folder_of_the_store_is_refused(tmp_path: Path, case: str) -> None:
    root, dataset, partition, link, _pointer = _linked(tmp_path, case)
    with pytest.raises(ValueError) as caught:  # not the other dataset's rows under this one's name
        store.latest(root, dataset, partition)
    _says(str(caught.value), link)


def test_the_link_removed_as_the_message_says_writes_and_reads_its_own_data(tmp_path: Path) -> None:
    root, dataset, partition, link, _pointer = _linked(tmp_path, "partition to a sibling, relative")
    link.unlink()
    stored = store.write_table(OURS, root, dataset, partition)
    assert store.latest(root, dataset, partition) == stored
    assert store.read_table(store.latest(root, "specs", "cap_a")).equals(TARGET)  # type: ignore[arg-type]


def test_a_dataset_folder_kept_on_another_disk_is_followed(tmp_path: Path) -> None:
    """Regression guard (held on main): a link out of the store is the user's choice (a dataset on a bigger disk)."""
    root, disk = tmp_path / "store", tmp_path / "big-disk"
    root.mkdir()
    disk.mkdir()
    (root / "trajectories").symlink_to(disk)
    (disk / "cap_b").mkdir()
    (root / "specs").symlink_to(disk / "cap_b")
    stored = store.write_table(OURS, root, "trajectories", "cap_a")
    assert store.latest(root, "trajectories", "cap_a") == stored and (disk / "cap_a" / "LATEST").is_file()
    assert store.latest(root, "specs") is None
    assert store.latest(root, "specs", "cap_b") is None


def test_a_store_that_is_itself_a_link_is_followed(tmp_path: Path) -> None:
    """Regression guard (held on main): the whole data folder on another disk, by a link or a relative spelling."""
    (tmp_path / "disk").mkdir()
    root = tmp_path / "data"
    root.symlink_to("disk")
    stored = store.write_table(OURS, root, "envs", "cap")
    assert store.latest(root, "envs", "cap") == stored
    again = store.latest(tmp_path / "disk" / ".." / "data", "envs", "cap")
    assert again is not None and again.content_hash == stored.content_hash


@pytest.mark.timeout(300)
def test_an_asset_whose_partition_is_a_link_to_its_input_fails_and_its_input_keeps_its_version(
        tmp_path: Path) -> None:
    """validated_envs' folder of a capability linked to task_specs' (`ln -s ../task_specs/CAP`): on main the asset
    wrote its envs there and task_specs' LATEST named the envs table."""
    settings = one_capability(tmp_path)
    with dg.instance_for_test() as instance:
        specs, _envs = specs_and_envs(instance, settings)
        folder = settings.store_root / "validated_envs" / CAPABILITY
        for name in os.listdir(folder):
            (folder / name).unlink()
        folder.rmdir()
        folder.symlink_to(Path("..") / "task_specs" / CAPABILITY)
        failed = materialize(instance, settings, validated_envs)
        assert not failed.success
        _says(failure_message(failed)[failure_message(failed).find(str(folder)):], folder)
        assert store.latest(settings.store_root, "task_specs", CAPABILITY) == specs
