"""Fault corpus, a stage file named by hand that is a named pipe, a device, or a link to one: `read_envs(PATH)` (and
every reader of one stage file: `Stage.read`) opened it and read; a FIFO (`mkfifo envs.parquet`, a process
substitution `<(...)`, a link into another job's pipe) waited for a writer for ever, a device (`/dev/zero`) never
ended. Folders of stage files were checked for such entries (`no_special_files`), a file named alone was not.

Now the file is refused before it is opened, saying what it is and that nothing was read. On `main` each read hung
("DID NOT END" within 5 s; the test then opens the pipe for writing, so that the read ends)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from coworkenv.store.stages import StageError
from coworkenv.store.stages.envs import read_envs


def _ends(call: Callable[[], object], release: Callable[[], None], within_s: float = 5.0) -> object:
    done: list[object] = []

    def run() -> None:
        try:
            done.append(call())
        except BaseException as exc:
            done.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(within_s)
    if thread.is_alive():
        release()
        thread.join(5)
        pytest.fail(f"DID NOT END within {within_s} s: the read waits on the file")
    return done[0]


@pytest.mark.parametrize("linked", [False, True], ids=["pipe", "link to a pipe"])
def test_an_envs_file_that_is_a_named_pipe_is_refused_unread(tmp_path: Path, linked: bool) -> None:
    pipe = tmp_path / "envs.parquet"
    os.mkfifo(pipe)
    named = pipe
    if linked:
        named = tmp_path / "validated.parquet"
        named.symlink_to(pipe)

    def release() -> None:  # on `main`: a writer that closes at once, so that the read ends
        os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))

    failed = _ends(lambda: read_envs(named), release)
    assert isinstance(failed, StageError), failed
    told = str(failed)
    assert str(named) in told and "a named pipe (FIFO)" in told and "nothing was read" in told


def test_an_envs_file_that_is_a_device_is_refused_unread(tmp_path: Path) -> None:
    device = tmp_path / "envs.parquet"
    device.symlink_to("/dev/zero")
    failed = _ends(lambda: read_envs(device), lambda: None)
    assert isinstance(failed, StageError), failed
    assert "a device" in str(failed) and "/dev/zero" in str(failed)
