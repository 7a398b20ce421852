"""Child process of the fault corpus: run one `coworkenv` command with a fault armed.

    python -m tests.faults.child [--fsize BYTES] [--nofile SOFT[:HARD]] [--kill MODULE:ATTR:NTH:WHEN[:SIGNAL]]
        [--fail MODULE:ATTR:NTH:ERRNO[:path]] [--ignore SIGNAL] [--call MODULE:FUNCTION] -- ARGS...

`--fsize` caps the size of any file the process writes (RLIMIT_FSIZE: writes past it fail with EFBIG, as on a full
disk). `--nofile` caps how many files the process may have open at once (RLIMIT_NOFILE: soft and hard both, as
`ulimit -n N` does, or a soft limit the process may raise up to HARD). `--kill` replaces MODULE.ATTR (a function, or Class.method) with a wrapper that sends SIGNAL (default
SIGKILL) to this process on the NTH call, `before` or `after` calling the original: a deterministic kill point.
`--fail` makes the NTH call raise OSError(ERRNO) instead, e.g. ENOSPC: a disk that fills up at that moment; with
`:path`, the error names the call's first argument as its file, as the system's errors for a path do.
ARGS are the `coworkenv` command line, run through the entry point the installed `coworkenv` script calls (read
from pyproject.toml, so a script that skips the CLI's signal handlers is caught here), or with
`--call MODULE:FUNCTION` the arguments of that function (a library-level scenario such as a publish).

The child starts with SIGINT and every stop signal (`coworkenv.stop_signals`: SIGTERM, SIGHUP, SIGQUIT, ...) at
their defaults, as a command typed at an interactive shell does, whatever the test runner inherited: a runner
started in the background ignores SIGINT and SIGQUIT, one under nohup SIGHUP, an ignored signal survives exec, and
the CLI rightly leaves an ignored signal ignored.
`--ignore SIGNAL` then ignores one again, as `nohup` does. A command that ends with exit 0 while one of its armed
faults was never met, or met while its signal was ignored, exits FAULT_NOT_MET instead, saying which: a fault
case must never pass by not running its fault.
"""

from __future__ import annotations

import argparse
import errno
import functools
import importlib
import os
import resource
import signal
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coworkenv.stop_signals import STOP_SIGNALS

ROOT = Path(__file__).resolve().parents[2]
FAULT_NOT_MET = 97  # neither a CLI code (0-3) nor 128 + a signal


@dataclass
class FaultPoint:
    """One armed fault and what became of it: how often its target was called, and why it did not act."""

    spec: str
    nth: int
    calls: int = 0
    unheard: str | None = None  # the fault point was met, but its signal was ignored

    def problem(self) -> str | None:
        if self.calls < self.nth:
            return f"fault point {self.spec} was not met: its target was called {self.calls} times, not {self.nth}"
        return f"fault point {self.spec} was met but {self.unheard}" if self.unheard else None


ARMED: list[FaultPoint] = []


def _patch(target: str, point: FaultPoint, when: str, act: Callable[..., None]) -> None:
    """Replace MODULE:ATTR (a function, or Class.method) by a wrapper that calls `act` with the call's arguments on
    its NTH call."""
    module_name, attr = target.split(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        point.calls += 1
        hit = point.calls == point.nth
        if hit and when == "before":
            act(*args)
        result = original(*args, **kwargs)
        if hit and when == "after":
            act(*args)
        return result

    setattr(owner, name, wrapper)
    ARMED.append(point)


def arm_kill(spec: str) -> None:
    """MODULE:ATTR:NTH:WHEN[:SIGNAL]: the NTH call of ATTR signals this process (SIGKILL unless named)."""
    module_name, attr, nth, when, *rest = spec.split(":")
    signo = getattr(signal, rest[0]) if rest else signal.SIGKILL
    point = FaultPoint(spec, int(nth))

    def send(*_: Any) -> None:
        os.kill(os.getpid(), signo)
        # Still running: the signal was dropped, or blocked (held back from this process until dropped).
        if signal.getsignal(signo) == signal.SIG_IGN or signo in signal.pthread_sigmask(signal.SIG_BLOCK, []):
            point.unheard = f"{signal.Signals(signo).name} is ignored in this process"

    _patch(f"{module_name}:{attr}", point, when, send)


def arm_failure(spec: str) -> None:
    """MODULE:ATTR:NTH:ERRNO[:path]: the NTH call of ATTR fails with that OSError (e.g. ENOSPC) before doing
    anything; with `path`, naming the call's first argument as its file."""
    module_name, attr, nth, name, *named = spec.split(":")
    code = getattr(errno, name)

    def fail(*args: Any) -> None:
        if named and args:
            raise OSError(code, os.strerror(code), os.fspath(args[0]))
        raise OSError(code, os.strerror(code))

    _patch(f"{module_name}:{attr}", FaultPoint(spec, int(nth)), "before", fail)


def reset_stop_signals(ignored: list[str]) -> None:
    """The stop signals at their defaults (SIGINT raising KeyboardInterrupt), then `ignored` ignored."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signo in STOP_SIGNALS:
        signal.signal(signo, signal.SIG_DFL)
    for name in ignored:
        signal.signal(getattr(signal, name), signal.SIG_IGN)


def unmet_faults() -> list[str]:
    """Why each armed fault did not act (empty when every one did)."""
    return [problem for point in ARMED if (problem := point.problem()) is not None]


def _run(options: argparse.Namespace, args: list[str]) -> None:
    if options.call:
        module_name, function = options.call.split(":")
        getattr(importlib.import_module(module_name), function)(*args)
        return
    sys.argv = ["coworkenv", *args]
    script_entry_point()()


def script_entry_point() -> Callable[[], object]:
    """What the installed `coworkenv` script calls: `[project.scripts] coworkenv` of pyproject.toml."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module_name, attr = scripts["coworkenv"].split(":")
    entry: Callable[[], object] = getattr(importlib.import_module(module_name), attr)
    return entry


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fsize", type=int)
    parser.add_argument("--nofile")
    parser.add_argument("--kill", action="append", default=[])
    parser.add_argument("--fail", action="append", default=[])
    parser.add_argument("--ignore", action="append", default=[], help="a signal to ignore, as nohup does")
    parser.add_argument("--call", help="MODULE:FUNCTION to call with ARGS instead of the coworkenv command line")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    args = options.args[1:] if options.args[:1] == ["--"] else options.args
    reset_stop_signals(options.ignore)
    if options.fsize is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (options.fsize, options.fsize))
    if options.nofile is not None:
        soft, _, hard = options.nofile.partition(":")
        resource.setrlimit(resource.RLIMIT_NOFILE, (int(soft), int(hard or soft)))
    for spec in options.kill:
        arm_kill(spec)
    for spec in options.fail:
        arm_failure(spec)
    try:
        _run(options, args)
    except SystemExit as done:
        if done.code not in (0, None) or not unmet_faults():
            raise
    problems = unmet_faults()
    if problems:
        print(f"fault corpus: the command succeeded, but {'; '.join(problems)}", file=sys.stderr)
        sys.exit(FAULT_NOT_MET)


if __name__ == "__main__":
    main(sys.argv[1:])
