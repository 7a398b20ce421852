"""Kill points enumerated, not picked: every step of a write that changes the disk or asks git to (a rename, an unlink,
an fsync, a mkdir, a git command) is numbered in the order a clean run takes them, and a child is SIGKILLed before
step N, for every N. `python -m tests.faults.child --call tests.faults.kill_points:run -- N SCENARIO ARGS...`;
N = 0 kills nowhere and prints how many steps the scenario took.

`Forker` runs the same `run` in children forked from one interpreter that imported the scenarios' modules once
(`python -m tests.faults.kill_points serve`): a fresh interpreter per kill point paid ~2 s of imports for a write of
~0.2 s, 40 points a write.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.faults.harness import ChildResult

# The calls that make a step: what changes what a later reader or a rerun finds.
STEPS: list[tuple[Any, str]] = [(os, "replace"), (os, "rename"), (os, "unlink"), (os, "rmdir"), (os, "mkdir"),
                                (os, "fsync"), (subprocess, "run")]


def _arm(kill_at: int) -> list[int]:
    taken = [0]
    for owner, name in STEPS:
        original = getattr(owner, name)

        def step(*args: Any, _original: Callable[..., Any] = original, **kwargs: Any) -> Any:
            taken[0] += 1
            if taken[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return _original(*args, **kwargs)

        setattr(owner, name, functools.wraps(original)(step))
    return taken


def run(kill_at: str, scenario: str, *args: str) -> None:
    """Run SCENARIO (a function of this module's SCENARIOS) killed before step `kill_at`; 0: print the step count."""
    taken = _arm(int(kill_at))
    SCENARIOS[scenario](*args)
    if int(kill_at) == 0:
        print(f"steps {taken[0]}")
    elif taken[0] < int(kill_at):
        print(f"fault corpus: only {taken[0]} steps, none numbered {kill_at}", file=sys.stderr)
        sys.exit(97)


def _publish(repo_dir: str, tag: str, rows: str) -> None:
    from coworkenv.store import LocalGitPublisher
    from tests.faults.harness import release

    LocalGitPublisher(Path(repo_dir)).publish(release(tag, int(rows)))


def _store_write(root: str, size: str) -> None:
    from tests.faults.scenarios import store_write

    store_write(root, size)


SCENARIOS: dict[str, Callable[..., None]] = {"publish": _publish, "store_write": _store_write}


def _forked(args: list[str], env: dict[str, str], out: str, err: str) -> int:
    """Fork a child that runs `run(*args)` with `env` added and its output in `out` and `err`; return its exit code,
    -SIGNAL where a signal ended it (as `subprocess` reports it)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setsid()
            os.environ.update(env)
            tempfile.tempdir = None  # TMPDIR may name another folder now
            for fd, path in ((1, out), (2, err)):
                target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(target, fd)
                os.close(target)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.close(null)
            run(*args)
            code = 0
        except SystemExit as done:
            code = done.code if isinstance(done.code, int) else 1
        except BaseException:  # reported on the child's stderr, as an interpreter would
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def serve() -> None:
    """Answer JSON lines {"args", "env", "out", "err"} on stdin with {"returncode"} lines on stdout, one fork each."""
    from tests.faults import harness, scenarios  # noqa: F401  (imported here once, not in every child)

    signal.signal(signal.SIGINT, signal.default_int_handler)
    for line in sys.stdin:
        request = json.loads(line)
        code = _forked(request["args"], request["env"], request["out"], request["err"])
        print(json.dumps({"returncode": code}), flush=True)


class Forker:
    """A `serve` process; `run(args, env)` is `run_child(args, call="tests.faults.kill_points:run", env=env)` without
    a new interpreter's imports."""

    def __init__(self, workdir: Path) -> None:
        from tests.faults.harness import ROOT

        self.workdir = workdir
        self.runs = 0
        self.process = subprocess.Popen([sys.executable, "-m", "tests.faults.kill_points", "serve"], cwd=ROOT,
                                        env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)

    def run(self, args: list[str], env: dict[str, str] | None = None) -> ChildResult:
        from tests.faults.harness import ChildResult

        assert self.process.stdin is not None and self.process.stdout is not None
        self.runs += 1
        out, err = self.workdir / f"run-{self.runs}.out", self.workdir / f"run-{self.runs}.err"
        self.process.stdin.write(json.dumps({"args": args, "env": env or {}, "out": str(out), "err": str(err)}) + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline()
        assert reply, f"the fork server ended with {self.process.wait()}"
        return ChildResult(json.loads(reply)["returncode"], out.read_text(), err.read_text())

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


if __name__ == "__main__" and sys.argv[1:] == ["serve"]:
    serve()
