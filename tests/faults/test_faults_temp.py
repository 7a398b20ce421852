"""Fault corpus, the temp folder and the home folder: TMPDIR missing, a file, or unset, HOME unset or unusable, and
a temp folder that fills up while the rest of the disk has room. Commands write the bytes they write with a sound
environment; a publish whose staging fails leaves the repository at its last version and no staging folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher
from tests.faults.harness import CAPABILITY, publish_folder, publish_release, run_child, snapshot

STAGING_WRITE = "coworkenv.store._publisher:atomic_write_bytes"


def _environments(tmp_path: Path) -> dict[str, tuple[dict[str, str], tuple[str, ...]]]:
    """Name -> (variables set, variables unset) of an unusual environment."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    return {
        "tmpdir-missing": ({"TMPDIR": str(tmp_path / "no" / "such" / "folder")}, ()),
        "tmpdir-a-file": ({"TMPDIR": str(blocker)}, ()),
        "tmpdir-and-home-unset": ({}, ("TMPDIR", "HOME")),
        "home-through-a-file": ({"HOME": str(blocker / "home")}, ()),
    }


@pytest.mark.parametrize("environment", ["tmpdir-missing", "tmpdir-a-file", "tmpdir-and-home-unset",
                                         "home-through-a-file"])
@pytest.mark.parametrize("work", ["synth", "publish"])
def test_an_unusable_temp_or_home_folder_changes_no_byte_of_the_output(tmp_path: Path, environment: str,
                                                                       work: str) -> None:
    env, unset = _environments(tmp_path)[environment]
    out, clean = tmp_path / "out", tmp_path / "clean"
    if work == "synth":
        args = ["--out", str(out), "-c", CAPABILITY, "--n", "1"]
        done = run_child(["synth", *args], env=env, unset=unset, preloaded=True)
        assert done.returncode == 0, done.stderr
        assert run_child(["synth", "--out", str(clean), *args[2:]], preloaded=True).returncode == 0
    else:
        done = run_child([str(out), "v1"], call="tests.faults.harness:publish_release", env=env, unset=unset,
                         preloaded=True)
        assert done.returncode == 0, done.stderr
        publish_release(str(clean), "v1")
    assert snapshot(out) == snapshot(clean) and snapshot(out)


@pytest.mark.parametrize(("kind", "nth"), [("release", 2), ("folder", 1)])
def test_a_temp_folder_filling_up_during_a_publish_leaves_the_last_version(tmp_path: Path, kind: str,
                                                                           nth: int) -> None:
    # Only the temp folder is full: the publisher stages the data files (or the card) there before the copy.
    repo, temp = tmp_path / "hub", tmp_path / "tmp"
    temp.mkdir()
    folder = tmp_path / "checkpoint"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"weights" * 100)
    scenario, args = (("publish_release", [str(repo), "v2"]) if kind == "release"
                      else ("publish_folder", [str(repo), str(folder), "v2"]))
    publish_release(str(repo), "v1")
    before = snapshot(repo)
    failed = run_child(args, call=f"tests.faults.harness:{scenario}", fail=(f"{STAGING_WRITE}:{nth}:ENOSPC",),
                       env={"TMPDIR": str(temp)}, preloaded=True)
    assert failed.returncode != 0
    assert "No space left on device" in failed.stderr.strip().splitlines()[-1], failed.stderr
    assert snapshot(repo) == before and LocalGitPublisher(repo).published_versions() == ["v1"]
    assert list(temp.iterdir()) == []  # the staging folder went with the failure
    (publish_release if kind == "release" else publish_folder)(*args)  # with room again it goes through
    fresh = tmp_path / "fresh"
    publish_release(str(fresh), "v1")
    (publish_release if kind == "release" else publish_folder)(str(fresh), *args[1:])
    assert snapshot(repo) == snapshot(fresh)
    assert LocalGitPublisher(repo).published_versions() == ["v1", "v2"]
