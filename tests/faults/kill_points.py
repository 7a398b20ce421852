"""Kill points enumerated, not picked: every step of a write that changes the disk or asks git to (a rename, an unlink,
an fsync, a mkdir, a git command) is numbered in the order a clean run takes them, and a child is SIGKILLed before
step N, for every N. `python -m tests.faults.child --call tests.faults.kill_points:run -- N SCENARIO ARGS...`;
N = 0 kills nowhere and prints how many steps the scenario took.

`Forker` runs the same `run` in children forked from one interpreter that imported the scenarios' modules once
(`tests.support.preloaded_python`): a fresh interpreter per kill point paid ~2 s of imports for a write of ~0.2 s, 40
points a write.
"""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.support.preloaded_python import PreloadedPython

if TYPE_CHECKING:
    from tests.faults.harness import ChildResult

# The calls that make a step: what changes what a later reader or a rerun finds.
STEPS: list[tuple[Any, str]] = [(os, "replace"), (os, "rename"), (os, "unlink"), (os, "rmdir"), (os, "mkdir"),
                                (os, "fsync"), (subprocess, "run")]


def _arm(kill_at: int, kinds: list[str] | None = None) -> list[int]:
    taken = [0]
    for owner, name in STEPS:
        original = getattr(owner, name)

        def step(*args: Any, _original: Callable[..., Any] = original, _name: str = name, **kwargs: Any) -> Any:
            taken[0] += 1
            if kinds is not None:
                kinds.append(_name)
            if taken[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return _original(*args, **kwargs)

        setattr(owner, name, functools.wraps(original)(step))
    return taken


def run(kill_at: str, scenario: str, *args: str) -> None:
    """Run SCENARIO (a function of this module's SCENARIOS) killed before step `kill_at`; 0: print the step count."""
    kinds: list[str] = []
    taken = _arm(int(kill_at), kinds)
    SCENARIOS[scenario](*args)
    if int(kill_at) == 0:
        print(f"kinds {','.join(kinds)}")
        print(f"steps {taken[0]}")
    elif taken[0] < int(kill_at):
        print(f"fault corpus: only {taken[0]} steps, none numbered {kill_at}", file=sys.stderr)
        sys.exit(97)


def _publish(repo_dir: str, tag: str, rows: str) -> None:
    from coworkenv.store import LocalGitPublisher
    from tests.faults.harness import release

    LocalGitPublisher(Path(repo_dir)).publish(release(tag, int(rows)))


def _publish_checkpoint(repo_dir: str, folder: str, tag: str) -> None:
    from coworkenv.store import LocalGitPublisher

    LocalGitPublisher(Path(repo_dir)).publish_folder(Path(folder), tag, f"# checkpoint {tag}\n")


def _store_write(root: str, size: str) -> None:
    from tests.faults.scenarios import store_write

    store_write(root, size)


SCENARIOS: dict[str, Callable[..., None]] = {"publish": _publish, "store_write": _store_write,
                                               "publish_checkpoint": _publish_checkpoint}


def run_forked(args: list[str], env: dict[str, str]) -> None:
    """`run(*args)` with `env` added, in a child of `Forker`'s server (SIGINT raising KeyboardInterrupt, as in a
    fresh interpreter started from a terminal)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ.update(env)
    tempfile.tempdir = None  # TMPDIR may name another folder now
    run(*args)


class Forker:
    """`run(args, env)` is `run_child(args, call="tests.faults.kill_points:run", env=env)` in a child forked from one
    server that imported the scenarios' modules once (`tests.support.preloaded_python`), not a new interpreter."""

    def __init__(self, workdir: Path) -> None:
        from tests.faults.harness import ROOT

        self.server = PreloadedPython(("tests.faults.kill_points", "tests.faults.harness", "tests.faults.scenarios"),
                                      cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, folder=workdir)

    def run(self, args: list[str], env: dict[str, str] | None = None) -> ChildResult:
        from tests.faults.harness import ChildResult

        done = self.server.run(f"from tests.faults.kill_points import run_forked\nrun_forked({args!r}, {env or {}!r})",
                               "", timeout=600)
        return ChildResult(done.returncode, done.stdout, done.stderr)

    def close(self) -> None:
        self.server.close()
