"""Fault corpus, two machines making the very first publish into one shared folder on a network file system in the
same instant (two training nodes sharing an NFS home, each ending its first run with a publish into a dataset
repository that does not exist yet).

faults60 kept two machines' publishes apart with a POSIX record lock on `.git/coworkenv-publish-lock`, which the
server keeps for every machine, but only once the git directory existed: a first publish into a new folder took no
lock a second machine could see (the folder's `flock` stays on its client under NFS), so both ran `git init` and their
first commits into one folder at once.

No network file system can be mounted here, and a process's record locks are its own: each machine is a process of its
own, the mount table it reads is one that mounts the test's folder as `nfs4`, and the folder's `flock` is taken by
neither (it does not reach the other machine). Both are held at the point where a publish looks at the repository's
git directory, so that each looks before the other has made it, the instant the race needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from coworkenv.store import LocalGitPublisher, PublishError
from tests.faults.harness import mount_table, mounted_as

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")

# Both races, each in two children forked from one interpreter that imported the project once (a fresh interpreter per
# machine paid the imports twice per case; a fork of the test process might copy a lock one of its threads holds).
# ARGV: mountinfo, then one folder per race holding `out-a`, `out-b` (the machines' outputs) and `shared/hub`.
MACHINES = r"""
import json, logging, os, sys, time
from pathlib import Path
import coworkenv.store._git_locks as git_locks
import coworkenv.store._local_git as local_git
from coworkenv.store import LocalGitPublisher, PublishError

git_locks._MOUNTINFO = Path(sys.argv[1])
local_git.lock_exclusive = lambda fd, path, wait=True: None  # the folder's flock: this machine's alone
looked = local_git.shared_file_system


def machine(race, me, other, version):
    repo = race / "shared" / "hub"
    met = []

    def shared_file_system(path):
        if not met:  # the first look at the repository: wait there until the other machine has come as far
            met.append(True)
            (race / f"arrived-{me}").touch()
            deadline = time.monotonic() + 30
            while not (race / f"arrived-{other}").exists() and time.monotonic() < deadline:
                time.sleep(0.01)
        return looked(path)

    local_git.shared_file_system = shared_file_system
    said = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())
    logging.getLogger("coworkenv.store._local_git").addHandler(handler)
    logging.getLogger("coworkenv.store._local_git").setLevel(logging.INFO)
    try:
        result = LocalGitPublisher(repo).publish_folder(race / f"out-{me}", version, f"# {version}\n")
        told = {"tag": result.tag, "said": said}
    except Exception as error:
        told = {"error": f"{type(error).__name__}: {error}", "said": said}
    (race / f"told-{me}.json").write_text(json.dumps(told))


for race in map(Path, sys.argv[2:]):
    children = []
    for me, other, version in (("a", "b", "v1"), ("b", "a", "v2")):
        pid = os.fork()
        if pid == 0:
            try:
                machine(race, me, other, version)
            finally:
                os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)
"""

RACES = {"new-folder": False, "empty-folder": True}  # the repository's folder: not there yet, or made empty by hand


@pytest.fixture(scope="module")
def raced(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("nfs")
    table = mount_table(root, "nfs4")
    races = {}
    for name, made in RACES.items():
        race = races[name] = root / name
        (race / "shared").mkdir(parents=True)
        if made:
            (race / "shared" / "hub").mkdir()
        for me, version in (("a", "v1"), ("b", "v2")):
            (race / f"out-{me}").mkdir()
            (race / f"out-{me}" / "weights-00001.bin").write_text(f"{version} weights of machine {me}\n")
            (race / f"out-{me}" / f"only-{me}.json").write_text("{}\n")
    subprocess.run([sys.executable, "-c", MACHINES, str(table), *map(str, races.values())], check=True,
                   timeout=240, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    return races


@pytest.mark.parametrize("race", list(RACES))
def test_two_machines_first_publish_into_one_new_shared_folder_one_waits_and_both_versions_are_kept(
        raced: dict[str, Path], race: str) -> None:
    repo = raced[race] / "shared" / "hub"
    told = {me: json.loads((raced[race] / f"told-{me}.json").read_text()) for me in ("a", "b")}
    failed = {me: said["error"] for me, said in told.items() if "error" in said}
    assert not failed, f"a first publish failed while another machine made its own: {failed}; {told}"
    waited = [me for me, said in told.items()
              if any("waiting for it to end" in line and "another machine" in line for line in said["said"])]
    assert len(waited) == 1, f"the second first publish did not wait for the first one: {told}"
    publisher = LocalGitPublisher(repo)
    assert sorted(publisher.published_versions()) == ["v1", "v2"]
    owner = waited[0]  # the one that waited published last
    last = {"a": "v1", "b": "v2"}[owner]
    # The folder holds the version published last, whole: its files and none of the other's.
    assert (repo / "weights-00001.bin").read_text() == f"{last} weights of machine {owner}\n"
    names = sorted(path.name for path in repo.iterdir() if path.name != ".git")
    assert names == sorted([".gitattributes", "README.md", "weights-00001.bin", f"only-{owner}.json"]) or \
        names == sorted(["README.md", "weights-00001.bin", f"only-{owner}.json"]), names
    fsck = subprocess.run(["git", "-C", str(repo), "fsck", "--strict"], capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stderr
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True)
    assert status.stdout == "", status.stdout


def _shared(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    mounted_as(monkeypatch, tmp_path, "nfs4")


def test_a_first_publish_stopped_before_git_init_leaves_a_folder_the_next_one_publishes_into(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A first publish killed (or refused) after it made `.git` for its lock and before `git init`: the next publish
    makes the repository there, rather than taking the lock's folder for a damaged git directory."""
    _shared(monkeypatch, tmp_path)
    repo = tmp_path / "hub"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "coworkenv-publish-lock").touch()
    out = tmp_path / "out"
    out.mkdir()
    (out / "weights-00001.bin").write_text("v1 weights\n")
    LocalGitPublisher(repo).publish_folder(out, "v1", "# v1\n")
    assert LocalGitPublisher(repo).published_versions() == ["v1"]
    assert (repo / "weights-00001.bin").read_text() == "v1 weights\n"


def test_a_shared_folder_with_files_and_no_git_is_refused_and_gets_no_git_directory(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Regression guard (passes on `main`): a shared folder of someone's files is refused as before, and the lock of
    a first publish makes no `.git` in it (which git would then take for a damaged repository)."""
    _shared(monkeypatch, tmp_path)
    repo = tmp_path / "project"
    repo.mkdir()
    (repo / "notes.txt").write_text("mine\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "weights-00001.bin").write_text("v1 weights\n")
    with pytest.raises(PublishError, match="is not empty and is not a git repository"):
        LocalGitPublisher(repo).publish_folder(out, "v1", "# v1\n")
    assert sorted(path.name for path in repo.iterdir()) == ["notes.txt"]
