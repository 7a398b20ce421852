"""Running a dataset repository's post-commit hook for a publish: within a time limit, and without waiting on what the
hook leaves running in the background (as git itself runs it)."""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

from coworkenv.store._publisher import PublishError

# How long a publish waits for the repository's post-commit hook (a push to a backup, a notification) before it stops
# it; git itself waits for ever, and a hook that never ends (a push waiting on an unreachable host, a prompt no one
# can answer) held the publish, and the repository's lock with it, for good.
HOOK_TIMEOUT_ENV = "COWORKENV_HOOK_TIMEOUT_S"
DEFAULT_HOOK_TIMEOUT_S = 60.0
_STOP_GRACE_S = 2.0  # between SIGTERM and SIGKILL of a hook that ran out of time
# A hook's output goes to a pipe that this process reads, keeping its last HOOK_OUTPUT_KEPT bytes (for its last line):
# it takes no disk, and one that writes for ever (`yes`, a loop printing each try) waits on the pipe's 64 KiB when this
# process is slow to read, a bound the kernel keeps however late a look comes. It went to a file of the temporary
# folder, emptied by a look every 50 ms: under load the look came late and the file held gigabytes (2,732 MiB seen).
HOOK_OUTPUT_KEPT = 64 << 10
_POLL_S = 0.05
# How much more a publish reads once the hook has ended (what its background work still writes) before it hands the
# pipe to a drain of its own (`cat` to /dev/null, in a session of its own) and goes on.
_FINAL_READS = 16


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
    """Run `hook` with no input, its output to a pipe read here, and wait for it alone, for at most `timeout_s`.

    Waiting for its output to end waited on whatever it started in the background, which keeps the pipe open (`git
    push &`, a daemon): git itself waits for the hook's process only. So once the hook has ended, what is in the pipe
    is read (its last line), and a pipe still held by its background work is handed to a drain that outlives the
    publish (`drained`): that work goes on, as git leaves it, and writes to no file. The hook runs in a session of
    its own, with no terminal to prompt on; one that runs out of time is stopped with all it started (SIGTERM, then
    SIGKILL), and so is one running when the publish is interrupted (Ctrl-C). OSError when it cannot be started."""
    read_end, write_end = os.pipe()
    try:
        os.set_blocking(read_end, False)
        process = subprocess.Popen([str(hook)], cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=write_end,
                                   stderr=write_end, start_new_session=True)
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    reader = OutputReader(read_end, tail=HOOK_OUTPUT_KEPT)
    reader.start()
    try:
        try:
            returncode: int | None = process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            stop_group(process)
            returncode = None
    except BaseException:
        stop_group(process)
        reader.finish()
        os.close(read_end)
        raise
    reader.finish()
    reader.close()
    said = reader.kept.decode(errors="replace").strip().splitlines()[-1:]
    return HookRun(returncode, said[0].strip() if said else "no output", timeout_s)


class OutputReader(threading.Thread):
    """Reads an output pipe (`fd`, non-blocking) as it comes: its first `head` bytes and its last `tail` bytes are
    kept (`kept`), the rest let go; `total`: the bytes read so far; `at_end`: the pipe was closed by every writer. A
    writer faster than the reader waits on the pipe (64 KiB): what it writes takes no disk and bounded memory however
    late the reader runs."""

    def __init__(self, fd: int, tail: int, head: int = 0) -> None:
        super().__init__(name="program output", daemon=True)
        self.fd, self._head_size, self._tail_size = fd, head, tail
        self.head = b""
        self.tail = b""
        self.total = 0
        self.at_end = False
        self._finishing = threading.Event()

    @property
    def kept(self) -> bytes:
        """What was kept: all it read, or its first `head` and last `tail` bytes with a line saying how many were
        left out between them."""
        left_out = self.total - len(self.head) - len(self.tail)
        middle = f"\n[... {left_out} bytes left out ...]\n".encode() if left_out > 0 else b""
        return self.head + middle + self.tail

    def run(self) -> None:
        poller = select.poll()
        poller.register(self.fd, select.POLLIN)
        left = _FINAL_READS
        while left > 0:
            if not self._finishing.is_set():
                if not poller.poll(_POLL_S * 1000):
                    continue
            else:
                left -= 1
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                if self._finishing.is_set():
                    return  # all that was written is read; what its background work writes later is not waited for
                continue
            except OSError:
                return
            if not data:
                self.at_end = True
                return
            self.total += len(data)
            room = self._head_size - len(self.head)
            if room > 0:
                self.head += data[:room]
                data = data[room:]
            if data:
                self.tail = (self.tail + data)[-self._tail_size:] if self._tail_size else b""

    def finish(self) -> None:
        """Read what is in the pipe now, and stop."""
        self._finishing.set()
        self.join()

    def close(self) -> None:
        """Once `finish`ed: close the read end, or hand it to a drain where writers still hold the pipe (`drained`)."""
        if self.at_end:
            os.close(self.fd)
        else:
            drained(self.fd)


def drained(fd: int) -> None:
    """Hand the read end `fd` of a hook's output pipe, still held by what the hook left running, to a `cat` writing to
    /dev/null in a session of its own (started by a shell that ends at once, so that no child of this process is left
    to reap), and close it here: that work goes on after the publish (no broken pipe), and what it writes takes no
    disk. Where it cannot start, the pipe is closed (the next write of that work fails)."""
    try:
        os.set_blocking(fd, True)  # the pipe's description is shared: a non-blocking one, `cat` takes for its end
        subprocess.run(["sh", "-c", "exec 3<&0; cat <&3 >/dev/null 2>&1 &"], stdin=fd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, start_new_session=True, check=False, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        pass
    finally:
        os.close(fd)


def stop_group(process: subprocess.Popen[bytes]) -> None:
    """Stop `process` and every process of its group: SIGTERM, then SIGKILL after a grace."""
    for sent in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sent)
        try:
            process.wait(timeout=_STOP_GRACE_S if sent == signal.SIGTERM else None)
        except subprocess.TimeoutExpired:
            continue
