"""Child process of the fault corpus: run one `coworkenv` command with a fault armed.

    python -m tests.faults.child [--fsize BYTES] [--kill MODULE:ATTR:NTH:WHEN[:SIGNAL]]
        [--fail MODULE:ATTR:NTH:ERRNO] [--call MODULE:FUNCTION] -- ARGS...

`--fsize` caps the size of any file the process writes (RLIMIT_FSIZE: writes past it fail with EFBIG, as on a full
disk). `--kill` replaces MODULE.ATTR (a function, or Class.method) with a wrapper that sends SIGNAL (default
SIGKILL) to this process on the NTH call, `before` or `after` calling the original: a deterministic kill point.
`--fail` makes the NTH call raise OSError(ERRNO) instead, e.g. ENOSPC: a disk that fills up at that moment.
ARGS are the `coworkenv` command line, run through the real entry point (`coworkenv.cli.main`), or with
`--call MODULE:FUNCTION` the arguments of that function (a library-level scenario such as a publish).
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
from collections.abc import Callable
from typing import Any


def _patch(target: str, nth: int, when: str, act: Callable[[], None]) -> None:
    """Replace MODULE:ATTR (a function, or Class.method) by a wrapper that calls `act` on its NTH call."""
    module_name, attr = target.split(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = attr.split(".")
    for part in path:
        owner = getattr(owner, part)
    original = getattr(owner, name)
    calls = {"n": 0}

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        hit = calls["n"] == nth
        if hit and when == "before":
            act()
        result = original(*args, **kwargs)
        if hit and when == "after":
            act()
        return result

    setattr(owner, name, wrapper)


def arm_kill(spec: str) -> None:
    """MODULE:ATTR:NTH:WHEN[:SIGNAL]: the NTH call of ATTR signals this process (SIGKILL unless named)."""
    module_name, attr, nth, when, *rest = spec.split(":")
    signo = getattr(signal, rest[0]) if rest else signal.SIGKILL
    _patch(f"{module_name}:{attr}", int(nth), when, lambda: os.kill(os.getpid(), signo))


def arm_failure(spec: str) -> None:
    """MODULE:ATTR:NTH:ERRNO: the NTH call of ATTR fails with that OSError (e.g. ENOSPC) before doing anything."""
    module_name, attr, nth, name = spec.split(":")
    code = getattr(errno, name)

    def fail() -> None:
        raise OSError(code, os.strerror(code))

    _patch(f"{module_name}:{attr}", int(nth), "before", fail)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fsize", type=int)
    parser.add_argument("--kill", action="append", default=[])
    parser.add_argument("--fail", action="append", default=[])
    parser.add_argument("--call", help="MODULE:FUNCTION to call with ARGS instead of the coworkenv command line")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    args = options.args[1:] if options.args[:1] == ["--"] else options.args
    if options.fsize is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (options.fsize, options.fsize))
    for spec in options.kill:
        arm_kill(spec)
    for spec in options.fail:
        arm_failure(spec)
    if options.call:
        module_name, function = options.call.split(":")
        getattr(importlib.import_module(module_name), function)(*args)
        return
    from coworkenv.cli import main as cli_main

    sys.argv = ["coworkenv", *args]
    cli_main()


if __name__ == "__main__":
    main(sys.argv[1:])
