"""Library-level scenarios the fault corpus runs in a child process (`python -m tests.faults.child --call ...`)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from coworkenv.store import write_table


def store_write(root: str, size: str) -> None:
    """Store a small or a large table as dataset `table` under `root`."""
    rows = 10 if size == "small" else 5000
    write_table(pa.table({"text": [f"{size} row {i} " * 8 for i in range(rows)]}), Path(root), "table")


def publish_killed_at_git_step(repo_dir: str, tag: str, step: str, when: str) -> None:
    """Publish `release(tag)` into `repo_dir`, SIGKILLed `before` or `after` its `git STEP` (add, commit, tag)."""
    import os
    import signal
    import subprocess

    from coworkenv.store import LocalGitPublisher
    from tests.faults.harness import publish_release

    real = LocalGitPublisher._run

    def run(self: LocalGitPublisher, *args: str, locate: bool = True) -> subprocess.CompletedProcess[str]:
        if args[0] == step and when == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        result = real(self, *args, locate=locate)
        if args[0] == step and when == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return result

    LocalGitPublisher._run = run  # type: ignore[method-assign]
    publish_release(repo_dir, tag)
