"""Fault corpus, kill -9 at every step, enumerated (tests/faults/kill_points.py): a clean run of the write is
counted in steps (every rename, unlink, rmdir, mkdir, fsync and git command), then for each N a child is killed
before step N and the write is run again. At every point the earlier version stays readable and whole, and the rerun
ends where an undisturbed run ends. Regression guards: main passed all of them (the hand-picked kill points of
test_faults_kill.py and test_faults_publish_retry.py found the failures these would have)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

from coworkenv.store import LocalGitPublisher, latest, read_table
from coworkenv.store._publisher import FOLDER_STAGING
from tests.faults.harness import release, snapshot, temp_files
from tests.faults.kill_points import Forker
from tests.faults.scenarios import store_write

SIGKILLED = -9
ROWS = "10"  # one shard: fewer steps, the same kinds of step


def _own_temp(folder: str) -> dict[str, str]:
    """A temp folder of the child's own, beside `folder`: a publish first removes the staging folders that killed
    publishes left in the temp folder (settled 60 s), which would add steps to one run and not another (a count off
    by one, a kill missed)."""
    where = Path(f"{folder}-tmp")
    where.mkdir(exist_ok=True)
    return {"TMPDIR": str(where)}


@pytest.fixture(scope="module")
def forker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Forker]:
    """Children forked from one interpreter that imported the store once (a fresh one per kill point: ~2 s each)."""
    server = Forker(tmp_path_factory.mktemp("forker"))
    yield server
    server.close()


def _steps(forker: Forker, *args: str) -> int:
    counted = forker.run(["0", *args], env=_own_temp(args[1]))
    assert counted.returncode == 0, counted.stderr
    return int(counted.stdout.split()[-1])


def _killed_at(forker: Forker, step: int, *args: str) -> None:
    killed = forker.run([str(step), *args], env=_own_temp(args[1]))
    assert killed.returncode == SIGKILLED, f"step {step}: {killed.returncode} {killed.stderr[-500:]}"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def _published(repo: Path) -> dict[str, object]:
    """What a reader of the repository sees: versions, their trees, the branch, its files, and no temp files."""
    tags = LocalGitPublisher(repo).published_versions()
    return {"versions": tags, "trees": [_git(repo, "rev-parse", f"{tag}^{{tree}}") for tag in tags],
            "commits": len(_git(repo, "rev-list", "main").split()), "files": snapshot(repo),
            "temps": temp_files(repo), "status": _git(repo, "status", "--porcelain", "--untracked-files=all")}


def _enumerate_publish(forker: Forker, tmp_path: Path, before: list[str], tag: str) -> None:
    template, clean = tmp_path / "template", tmp_path / "clean"
    for version in before:
        LocalGitPublisher(template).publish(release(version, int(ROWS)))
    shutil.copytree(template, clean, symlinks=True)
    LocalGitPublisher(clean).publish(release(tag, int(ROWS)))
    expected = _published(clean)
    earlier = {version: _git(template, "rev-parse", f"{version}^{{tree}}") for version in before}
    failures: list[str] = []
    counted = Path(shutil.copytree(template, tmp_path / "counted", symlinks=True))
    steps = _steps(forker, "publish", str(counted), tag, ROWS)
    assert _published(counted) == expected  # the counting run is a clean run
    for step in range(1, steps + 1):
        repo = tmp_path / f"killed-{step}"
        shutil.copytree(template, repo, symlinks=True)
        _killed_at(forker, step, "publish", str(repo), tag, ROWS)
        publisher = LocalGitPublisher(repo)
        if any(_git(repo, "rev-parse", f"{version}^{{tree}}") != tree for version, tree in earlier.items()):
            failures.append(f"step {step}: an earlier version changed")
        publisher.publish(release(tag, int(ROWS)))
        if (got := _published(repo)) != expected:
            failures.append(f"step {step}: {', '.join(k for k in expected if got[k] != expected[k])} differ")
    assert failures == [], failures


def test_a_publish_over_a_version_killed_at_every_step_then_rerun_ends_as_a_clean_one(forker: Forker,
                                                                                        tmp_path: Path) -> None:
    _enumerate_publish(forker, tmp_path, ["v1"], "v2")


def test_an_earlier_version_published_again_killed_at_every_step_then_rerun(forker: Forker, tmp_path: Path) -> None:
    _enumerate_publish(forker, tmp_path, ["v1", "v2"], "v1")


def _stored(root: Path) -> pa.Table:
    """The table a reader of the store takes: its recorded latest version."""
    stored = latest(root, "table")
    assert stored is not None
    return read_table(stored)


def test_a_store_write_killed_at_every_step_leaves_the_last_version_then_rerun_stores_it(forker: Forker,
                                                                                         tmp_path: Path) -> None:
    template, clean = tmp_path / "template", tmp_path / "clean"
    store_write(str(template), "small")
    shutil.copytree(template, clean)
    store_write(str(clean), "large")
    expected, earlier = _stored(clean).to_pylist(), _stored(template).to_pylist()
    failures: list[str] = []
    counted = Path(shutil.copytree(template, tmp_path / "counted"))
    for step in range(1, _steps(forker, "store_write", str(counted), "large") + 1):
        root = tmp_path / f"killed-{step}"
        shutil.copytree(template, root)
        _killed_at(forker, step, "store_write", str(root), "large")
        if _stored(root).to_pylist() not in (earlier, expected):  # the last version or the new one, whole
            failures.append(f"step {step}: the store holds neither version")
        store_write(str(root), "large")
        if _stored(root).to_pylist() != expected or temp_files(root):
            failures.append(f"step {step}: the rerun did not end as a clean write")
    assert failures == [], failures


def _checkpoint(folder: Path, weights: str) -> Path:
    """A checkpoint folder as a training saves it: its files and their record."""
    from coworkenv.checkpoint_manifest import write_checkpoint_manifest

    folder.mkdir(parents=True)
    (folder / "config.json").write_text('{"model_type": "qwen2", "hidden_size": 32}')
    (folder / "tokenizer_config.json").write_text('{"model_max_length": 4096}')
    (folder / "model.safetensors").write_text(weights)
    write_checkpoint_manifest(folder)
    return folder


def _staged_beside(root: Path) -> list[str]:
    """What a checkpoint publish left beside the folder it published (its staging folder holds a copy of the
    weights). A folder emptied but not yet removed (killed before its last rmdir) had been left for a minute, until
    a later publish: now it is named `...removing` and the rerun removes it at once (faults52)."""
    return sorted(f.relative_to(root).as_posix() for p in root.iterdir() if p.name.startswith(FOLDER_STAGING)
                  for f in [p, *p.rglob("*")])


def test_a_checkpoint_publish_killed_at_every_step_then_rerun_ends_as_a_clean_one(forker: Forker,
                                                                                  tmp_path: Path) -> None:
    """A checkpoint folder's publish (`publish_folder`: its files copied and checked beside it, then committed and
    tagged), killed before each of its steps: the earlier version and the checkpoint folder unchanged, and the
    rerun ends where an undisturbed publish ends, with nothing left beside the checkpoint."""
    template = tmp_path / "template"
    LocalGitPublisher(template / "repo").publish_folder(_checkpoint(template / "first", "weights 1"), "c1", "# c1\n")
    shutil.rmtree(template / "first")
    _checkpoint(template / "ckpt", "weights 2")
    clean = Path(shutil.copytree(template, tmp_path / "clean", symlinks=True))
    LocalGitPublisher(clean / "repo").publish_folder(clean / "ckpt", "c2", "# checkpoint c2\n")
    expected, trained = _published(clean / "repo"), snapshot(template / "ckpt")
    earlier = _git(template / "repo", "rev-parse", "c1^{tree}")
    counted = Path(shutil.copytree(template, tmp_path / "counted", symlinks=True))
    counting = forker.run(["0", "publish_checkpoint", str(counted / "repo"), str(counted / "ckpt"), "c2"],
                          env=_own_temp(str(counted / "repo")))
    assert counting.returncode == 0, counting.stderr
    assert _published(counted / "repo") == expected and not _staged_beside(counted)  # a clean run
    kinds = counting.stdout.split()[-3].split(",")
    failures: list[str] = []
    # Not before its git commands (the release publishes above are killed before each: the same `_publish`), nor
    # before an fsync (to a kill, which loses no written page, that is a kill before the step after it): 28 of 58.
    for step in (n for n, kind in enumerate(kinds, 1) if kind not in ("run", "fsync")):
        root = Path(shutil.copytree(template, tmp_path / f"killed-{step}", symlinks=True))
        _killed_at(forker, step, "publish_checkpoint", str(root / "repo"), str(root / "ckpt"), "c2")
        if _git(root / "repo", "rev-parse", "c1^{tree}") != earlier:
            failures.append(f"step {step}: the earlier version changed")
        if snapshot(root / "ckpt") != trained:
            failures.append(f"step {step}: the checkpoint folder changed")
        LocalGitPublisher(root / "repo").publish_folder(root / "ckpt", "c2", "# checkpoint c2\n")
        if (got := _published(root / "repo")) != expected:
            failures.append(f"step {step}: {', '.join(k for k in expected if got[k] != expected[k])} differ")
        if left := _staged_beside(root):
            failures.append(f"step {step}: left beside the checkpoint: {left}")
    assert failures == [], failures


def test_git_killed_between_the_two_renames_of_its_ref_transaction_then_rerun_ends_as_a_clean_one(
        tmp_path: Path) -> None:
    """`git update-ref --stdin` writes both lock files, then renames them one by one: git killed between the two (a
    kill -9 of the process group, an OOM kill) leaves the branch on the new commit, the tag's lock file written and
    not renamed, and the publish's marker. The rerun removes the lock, tags that commit (no second commit) and ends
    where a clean publish ends. Regression guard: main passed it."""
    repo = tmp_path / "repo"
    LocalGitPublisher(repo).publish(release("v1", int(ROWS)))
    LocalGitPublisher(repo).publish(release("v2", int(ROWS)))
    expected = _published(repo)
    tag = _git(repo, "rev-parse", "refs/tags/v2").strip()
    _git(repo, "update-ref", "-d", "refs/tags/v2")
    (repo / ".git" / "refs" / "tags" / "v2.lock").write_text(f"{tag}\n")
    (repo / ".git" / "coworkenv-publishing").touch()
    assert LocalGitPublisher(repo).published_versions() == ["v1"]
    LocalGitPublisher(repo).publish(release("v2", int(ROWS)))
    assert _published(repo) == expected
    assert not list((repo / ".git").rglob("*.lock"))
