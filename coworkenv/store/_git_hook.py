"""Running a dataset repository's post-commit hook for a publish: within a time limit, and without waiting on what the
hook leaves running in the background (as git itself runs it)."""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from coworkenv.store._publisher import PublishError

# How long a publish waits for the repository's post-commit hook (a push to a backup, a notification) before it stops
# it; git itself waits for ever, and a hook that never ends (a push waiting on an unreachable host, a prompt no one
# can answer) held the publish, and the repository's lock with it, for good.
HOOK_TIMEOUT_ENV = "COWORKENV_HOOK_TIMEOUT_S"
DEFAULT_HOOK_TIMEOUT_S = 60.0
_STOP_GRACE_S = 2.0  # between SIGTERM and SIGKILL of a hook that ran out of time
# How much of a hook's output is kept on disk while it runs: past it, the file is emptied (its last 64 KiB kept in
# memory, for its last line). A hook that writes for ever (`yes`, a loop printing each try) wrote to a file of the
# temporary folder until its time limit, gigabytes a second: the disk (or the memory, for a tmpfs) of everything else.
HOOK_OUTPUT_KEPT = 16 << 20
_POLL_S = 0.05


def hook_timeout_s() -> float:
    """The time limit of a post-commit hook: COWORKENV_HOOK_TIMEOUT_S, or 60 s. Read before a publish writes
    anything: a setting that is not a number of seconds stops the publish there, named, not after the commit."""
    return seconds_setting(HOOK_TIMEOUT_ENV, DEFAULT_HOOK_TIMEOUT_S,
                           "how long a publish waits for the dataset repository's post-commit hook")


def seconds_setting(name: str, default: float, meaning: str) -> float:
    """The number of seconds above 0 that environment variable `name` sets (`meaning`: what it is), or `default`;
    PublishError for one that is not such a number."""
    given = os.environ.get(name, "").strip()
    if not given:
        return default
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds <= 0:
        raise PublishError(f"{name}={given!r} is not a number of seconds above 0 ({meaning}); set it to one, e.g. "
                           f"600, or unset it ({default:.0f} s); nothing was published")
    return seconds


@dataclass(frozen=True)
class HookRun:
    """How a hook ended: its exit status (None: stopped after `timeout_s`) and the last line it wrote."""

    returncode: int | None
    last_line: str
    timeout_s: float


def run_hook(hook: Path, cwd: Path, env: dict[str, str], timeout_s: float) -> HookRun:
    """Run `hook` with no input, its output to an unnamed file, and wait for it alone, for at most `timeout_s`.

    Waiting for its output to end (pipes) waited on whatever it started in the background, which keeps the pipe open
    (`git push &`, a daemon): git itself waits for the hook's process only. The hook runs in a session of its own, with
    no terminal to prompt on; one that runs out of time is stopped with all it started (SIGTERM, then SIGKILL), and
    so is one running when the publish is interrupted (Ctrl-C). Its output is kept to HOOK_OUTPUT_KEPT on disk: one
    that writes for ever fills no disk. OSError when it cannot be started."""
    with tempfile.TemporaryFile() as output:
        fd = output.fileno()
        # Appended to wherever it ends, so that a file emptied while the hook writes stays small (not sparse).
        fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_APPEND)
        process = subprocess.Popen([str(hook)], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=output,
                                   stderr=output, start_new_session=True)
        tail = b""
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                try:
                    returncode: int | None = process.wait(timeout=max(0.0, min(_POLL_S, deadline - time.monotonic())))
                    break
                except subprocess.TimeoutExpired:
                    if time.monotonic() >= deadline:
                        stop_group(process)
                        returncode = None
                        break
                size = os.fstat(fd).st_size
                if size > HOOK_OUTPUT_KEPT:  # keep its end, let go of the rest
                    tail = os.pread(fd, 1 << 16, size - (1 << 16))
                    os.ftruncate(fd, 0)
        except BaseException:
            stop_group(process)
            raise
        size = os.fstat(fd).st_size
        end = tail + os.pread(fd, 1 << 16, max(0, size - (1 << 16)))  # its last line is in its last 64 KiB
        said = end.decode(errors="replace").strip().splitlines()[-1:]
    return HookRun(returncode, said[0].strip() if said else "no output", timeout_s)


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """Stop `process` and every process of its group: SIGTERM, then SIGKILL after a grace."""
    for sent in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sent)
        try:
            process.wait(timeout=_STOP_GRACE_S if sent == signal.SIGTERM else None)
        except subprocess.TimeoutExpired:
            continue
