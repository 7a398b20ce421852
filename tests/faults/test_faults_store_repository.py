"""Fault corpus, a damaged `.git` in the local dataset repository (a disk error, a sync tool or a person removing
or cutting its files): the publish stops with one line saying that `.git` is damaged and what to do, instead of
"`git symbolic-ref HEAD ...` failed"; the folder and what is left of its versions are untouched, and moved aside as
the line says, the next publish starts a whole new repository."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import release, snapshot


def _head_garbage(git: Path) -> None:
    (git / "HEAD").write_text("garbage\n")


def _objects_gone(git: Path) -> None:
    shutil.rmtree(git / "objects")


def _objects_cut(git: Path) -> None:
    for obj in (p for p in (git / "objects").rglob("*") if p.is_file() and p.parent.name not in ("pack", "info")):
        obj.chmod(0o644)
        obj.write_bytes(obj.read_bytes()[:10])


def _index_garbage(git: Path) -> None:
    (git / "index").write_bytes(b"not an index" * 10)


def _branch_to_nothing(git: Path) -> None:
    (git / "refs" / "heads" / "main").write_text("0" * 40 + "\n")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "HEAD garbage": _head_garbage, "objects gone": _objects_gone, "objects cut short": _objects_cut,
    "index garbage": _index_garbage, "branch names a missing commit": _branch_to_nothing}


@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_a_damaged_git_folder_is_named_and_nothing_is_lost(tmp_path: Path, damage: str) -> None:
    repo = tmp_path / "hub"
    LocalGitPublisher(repo).publish(release("v1"))
    DAMAGE[damage](repo / ".git")
    files, git = snapshot(repo), _all_bytes(repo / ".git")
    with pytest.raises(PublishError) as refused:
        LocalGitPublisher(repo).publish(release("v2"))
    message = str(refused.value)
    for needle in (f"{repo / '.git'} is damaged", "nothing was published", f"move {repo} aside"):
        assert needle in message, message
    assert snapshot(repo) == files and _all_bytes(repo / ".git") == git
    repo.rename(tmp_path / "hub.damaged")  # what the message says to do
    LocalGitPublisher(repo).publish(release("v2"))
    fresh = LocalGitPublisher(tmp_path / "fresh")
    fresh.publish(release("v2"))
    assert LocalGitPublisher(repo).published_versions() == ["v2"] and snapshot(repo) == snapshot(tmp_path / "fresh")


def _all_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
