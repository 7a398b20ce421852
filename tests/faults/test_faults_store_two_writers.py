"""Fault corpus, two writers storing one dataset partition at once: two Dagster runs materializing one partition (the
UI's "Materialize" clicked while `make run` or the taxonomy sensor's run does it), a run and a script.

Each write checked the folder's content-addressed file and moved LATEST on its own, so the writes interleaved: two
writers repairing one damaged file (the rerun the store asks for) each moved "the damaged file" aside, the second
moving the first's freshly written, intact file as damaged, with a warning that it "did not hold the content its
name records" (or, a moment earlier, failing on the file the first had just moved); and a write whose LATEST another
writer moved meanwhile said nothing, though the other run's record then named a file LATEST no longer did. Writers of
one folder now take turns from the content check to the pointer (a lock on the folder itself), and a write that finds
LATEST moved since it began says so in one line, naming both files, both kept.

The interleavings are made, not waited for: a writer is held at the point where the other must come in (by two real
processes the repair race was seen 0 times in 20 tries: rare, but each one a wrong warning or a failed run)."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pytest

from coworkenv.store import _parquet, file_sha256, latest, write_table

TABLE = pa.table({"x": list(range(500))})


def _waiting_on_lock(folder: Path) -> bool:
    """Whether a process or thread waits for a lock on `folder` (a `->` line of /proc/locks names its inode)."""
    found = os.stat(folder)
    where = f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino}"
    try:
        return any("->" in line and where in line.split() for line in Path("/proc/locks").read_text().splitlines())
    except OSError:
        return False


def _two_writers(monkeypatch: pytest.MonkeyPatch, hold_at: Callable[[Path], bool], first: pa.Table,
                 second: pa.Table, folder: Path, root: Path) -> list[BaseException]:
    """Write `first` in a thread held at its first `file_sha256` of a path `hold_at` picks, while `second` is written
    whole (or until it waits for a lock on `folder`); then let the first go on. The errors either raised."""
    real = _parquet.file_sha256
    held, second_done = threading.Event(), threading.Event()
    first_thread: list[threading.Thread] = []

    def file_sha256_held(path: Path) -> str:
        digest = real(path)
        if threading.current_thread() in first_thread and hold_at(path) and not held.is_set():
            held.set()
            deadline = time.monotonic() + 30
            while not second_done.is_set() and not _waiting_on_lock(folder) and time.monotonic() < deadline:
                time.sleep(0.01)
        return digest

    monkeypatch.setattr(_parquet, "file_sha256", file_sha256_held)
    errors: list[BaseException] = []

    def write(table: pa.Table, done: threading.Event | None) -> None:
        try:
            write_table(table, root, "task_specs", "cap")
        except BaseException as error:
            errors.append(error)
        finally:
            if done is not None:
                done.set()

    one = threading.Thread(target=write, args=(first, None))
    first_thread.append(one)
    one.start()
    assert held.wait(30), "the first writer never reached the point it is held at"
    two = threading.Thread(target=write, args=(second, second_done))
    two.start()
    one.join(60)
    two.join(60)
    assert not one.is_alive() and not two.is_alive()
    return errors


def test_two_writers_repairing_one_damaged_file_move_only_the_damaged_bytes_aside(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Both rerun the partition whose file was damaged on disk (what the store's message asks): the first is held
    once it has found the file damaged; the second comes in then."""
    stored = write_table(TABLE, tmp_path, "task_specs", "cap")
    data = stored.path.read_bytes()
    stored.path.write_bytes(data[: len(data) // 2])
    damaged = stored.path.read_bytes()
    with caplog.at_level(logging.WARNING, logger="coworkenv.store"):
        errors = _two_writers(monkeypatch, lambda path: path == stored.path, TABLE, TABLE, stored.path.parent,
                              tmp_path)
    assert not errors, f"a writer failed: {errors!r}"
    assert latest(tmp_path, "task_specs", "cap") == stored and file_sha256(stored.path) == stored.content_hash
    aside = sorted(p for p in stored.path.parent.iterdir() if ".damaged-" in p.name)
    intact = [p.name for p in aside if file_sha256(p) == stored.content_hash]
    assert not intact, f"an intact copy of the content was moved aside as damaged: {intact}"
    assert [p.read_bytes() for p in aside] == [damaged]
    assert aside[0].name == f"{stored.path.name}.damaged-{hashlib.sha256(damaged).hexdigest()[:16]}"
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lines) == 1 and str(aside[0]) in lines[0], lines


def test_a_write_whose_latest_another_writer_moved_meanwhile_says_so_and_keeps_both(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """Two runs of one partition with other content (an LLM's specs, another seed): the first is held once it has
    written its file, before it moves LATEST; the second stores its own whole meanwhile."""
    other = pa.table({"x": list(range(1000, 1500))})
    folder = tmp_path / "task_specs" / "cap"
    with caplog.at_level(logging.WARNING, logger="coworkenv.store"):
        errors = _two_writers(monkeypatch, lambda path: path.parent == folder and path.name.startswith("."), TABLE,
                              other, folder, tmp_path)
    assert not errors, f"a writer failed: {errors!r}"
    files = {p.name for p in folder.glob("*.parquet")}
    first, second = (f"{hashlib.sha256(_parquet.parquet_bytes(t)).hexdigest()[:16]}.parquet" for t in (TABLE, other))
    assert files == {first, second}, files  # nothing lost: both versions are there
    now = latest(tmp_path, "task_specs", "cap")
    assert now is not None and now.path.name == first  # the last to move LATEST
    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any(second in line and first in line and "at once" in line for line in said), \
        f"the write that moved LATEST over the other writer's version said nothing: {said}"
