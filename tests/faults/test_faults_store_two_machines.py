"""Fault corpus, two machines storing one dataset partition at once in one data folder on a network file system (two
training nodes with the project on an NFS home, each running `python -m pipelines.run`; the UI's "Materialize" on
one while `make run` works on the other).

Writers of one dataset folder take turns by an `flock` on the folder (faults69), but a network file system keeps a
folder's flock on the client (NFS takes none to its server, or refuses it on a folder opened for reading): the other
machine's writer was not seen, the two writes interleaved as faults69 found them do on one machine without the lock
(an intact copy moved aside as damaged by the second of two repairs, a LATEST moved under the other), and a mount
without locks at all (`nolock`) said nothing. Now, where the folder is on a network file system, a write also takes
a POSIX record lock on `<folder>/.coworkenv-writers-lock`, which the server keeps for every machine, and waits for the
other machine's writer, saying so; a mount without locks is written as before and said.

No network file system can be mounted here: the mount table the product reads is replaced by one that mounts the
test's folder as `nfs4` (`harness.mounted_as`), and the other machine is a process holding the record lock, which is
what the server shows this machine of a lock taken there (as in test_faults_publish_two_machines.py)."""

from __future__ import annotations

import errno
import fcntl
import logging
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
import pyarrow as pa
import pytest

from assets.specs import task_specs
from coworkenv.store import file_sha256, latest, write_table
from pipelines.staleness import sync_partitions
from tests.faults.harness import CAPABILITY, in_thread, mounted_as
from tests.faults.test_faults_publish_two_machines import _Waiting
from tests.faults.test_faults_store_version import materialize, one_capability

pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs Linux /proc")

LOCK = ".coworkenv-writers-lock"
# The other machine's writer: makes the folder, takes the record lock, says so, holds it until told to end.
HOLDER = ("import fcntl, os, sys\nos.makedirs(sys.argv[1], exist_ok=True)\n"
          "fd = os.open(os.path.join(sys.argv[1], sys.argv[2]), os.O_RDWR | os.O_CREAT)\nfcntl.lockf(fd, fcntl.LOCK_EX)\n"
          "print('held', flush=True)\nsys.stdin.readline()\n")
TABLE = pa.table({"x": list(range(500))})


@contextmanager
def _other_machine_writing(folder: Path) -> Iterator[Callable[[], None]]:
    """A writer of another machine holding `folder`'s record lock; the callable lets it end."""
    other = subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), LOCK], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)

    def end() -> None:
        assert other.stdin is not None
        other.stdin.write("\n")
        other.stdin.flush()
        other.wait(30)

    try:
        assert other.stdout is not None and other.stdout.readline() == "held\n"
        yield end
    finally:
        other.kill()
        other.wait()


@contextmanager
def _heard() -> Iterator[_Waiting]:
    """What the store says, its waiting at INFO too."""
    heard = _Waiting()
    store_log = logging.getLogger("coworkenv.store")
    store_log.addHandler(heard)
    level = store_log.level
    store_log.setLevel(logging.INFO)
    try:
        yield heard
    finally:
        store_log.removeHandler(heard)
        store_log.setLevel(level)


def _waits_for_the_other_machine(heard: _Waiting, thread: threading.Thread, done: list[object], what: str) -> str:
    while not heard.said.wait(0.05) and thread.is_alive():
        pass
    assert heard.said.is_set() and thread.is_alive(), \
        f"{what} went on while another machine's writer held the folder's lock: {done or heard.lines}"
    return next(line for line in heard.lines if "waiting for it to end" in line)


def test_a_repair_waits_for_another_machines_writer_of_the_same_folder(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Both machines rerun the partition whose file was damaged (what the store's message asks): the other machine's
    writer is at work in the folder. On `main` this write went on at once (the folder's flock is this machine's
    alone), checking and moving the file the other one was repairing."""
    mounted_as(monkeypatch, tmp_path, "nfs4")
    stored = write_table(TABLE, tmp_path, "task_specs", "cap")
    stored.path.write_bytes(stored.path.read_bytes()[:100])
    with _other_machine_writing(stored.path.parent) as end, _heard() as heard:
        thread, done = in_thread(lambda: write_table(TABLE, tmp_path, "task_specs", "cap"))
        said = _waits_for_the_other_machine(heard, thread, done, "the repair")
        assert str(stored.path.parent) in said and "nfs4" in said and "another machine" in said, said
        assert file_sha256(stored.path) != stored.content_hash, "repaired while the other machine's writer worked"
        end()
        thread.join(60)
    assert not thread.is_alive() and done == [stored], done
    assert file_sha256(stored.path) == stored.content_hash and latest(tmp_path, "task_specs", "cap") == stored


def test_a_materialization_waits_for_another_machines_run_storing_the_partition(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """task_specs materialized here (the UI's "Materialize", or this node's `make run`) while the other node's run
    stores the partition's specs: on `main` it moved LATEST under the other machine's write."""
    settings = one_capability(tmp_path)
    mounted_as(monkeypatch, tmp_path, "nfs4")
    folder = settings.store_root / "task_specs" / CAPABILITY
    with dg.instance_for_test() as instance, _other_machine_writing(folder) as end, _heard() as heard:
        sync_partitions(instance, settings.taxonomy())
        thread, done = in_thread(lambda: materialize(instance, settings, task_specs))
        _waits_for_the_other_machine(heard, thread, done, "the materialization")
        assert not (folder / "LATEST").exists()
        end()
        thread.join(120)
        assert not thread.is_alive() and len(done) == 1
        result = done[0]
        assert isinstance(result, dg.ExecuteInProcessResult) and result.success, result
    assert latest(settings.store_root, "task_specs", CAPABILITY) is not None


def test_a_data_folder_mounted_without_locks_is_still_written_and_says_so(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """An NFS mount with `nolock` (no lock manager: ENOLCK, to the folder's flock too): the write goes on as before,
    and says that another machine's writer is not kept in turns and what to do. On `main` nothing was said."""
    mounted_as(monkeypatch, tmp_path, "nfs4")

    def no_locks(fd: int, cmd: int, *args: object) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "lockf", no_locks)
    monkeypatch.setattr(fcntl, "flock", no_locks)
    with caplog.at_level(logging.WARNING, logger="coworkenv.store"):
        stored = write_table(TABLE, tmp_path, "task_specs", "cap")
    assert latest(tmp_path, "task_specs", "cap") == stored
    said = [line for line in caplog.messages if "mounted without locks" in line]
    assert said and "No locks available" in said[0] and str(stored.path.parent) in said[0], caplog.messages
    assert "run one pipeline at a time" in said[0], said


def test_on_a_local_disk_no_lock_file_is_left(tmp_path: Path) -> None:
    """Guard (passes on `main` too): on a local disk the folder's flock is enough and leaves no file."""
    stored = write_table(TABLE, tmp_path, "task_specs", "cap")
    assert sorted(p.name for p in stored.path.parent.iterdir()) == sorted(["LATEST", stored.path.name])
