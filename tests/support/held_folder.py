"""A folder held by another live process's `flock`, as a process using it holds it (`coworkenv.held_folders`)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def held_by_another_process(folder: Path) -> Iterator[int]:
    """While the block runs, a child process holds an exclusive `flock` on `folder`; yields its pid."""
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, time\n"
                               f"fd = os.open({str(folder)!r}, os.O_RDONLY)\nfcntl.flock(fd, fcntl.LOCK_EX)\n"
                               "print('held', flush=True)\ntime.sleep(60)\n"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n", "the holder never took the lock"
        yield holder.pid
    finally:
        holder.kill()
        holder.wait()
