"""The run's own pid namespace, made by the host around the child's spawn.

Without one the run's pids were the machine's: `os.getpid()`, a thread's id, its session and group ids (no audit
event, nothing to refuse) counted every process and thread the machine started, since boot and between two runs (a
channel from the host's activity, and a tell of a probe run from a real one), and `F_GETLK` named a host process that
held a lock. A pid namespace applies to the children of whoever makes it, never to itself, so the child cannot make
its own without a fork; the host makes it instead: the spawning thread unshares `CLONE_NEWPID` (a thread's own
setting), spawns an idle pid 1 and then the child, which is pid 2 in every run, and returns to the host's namespace.
pid 1 is a separate process because the kernel spares a namespace's init the signals it has no handler for (the
CPU limit's SIGXCPU and a crash the code raises itself would be ignored); it waits on a pipe whose other end only the
host holds, so it ends with the host, and the namespace with it (the kernel kills what is left in it). That init is
`cat` reading the pipe (it reads nothing, and ends at EOF), started with every other descriptor closed: a program,
not an interpreter, because it starts for every sandboxed call (a Python init took 14 ms of wall and 18 ms of CPU a
call, `cat` 1 ms).
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import shutil
import subprocess
from collections.abc import Callable
from types import TracebackType

CLONE_NEWPID = 0x20000000
_log = logging.getLogger(__name__)
_warned: set[str] = set()


class RunPidNamespace:
    """A pid namespace for one call: `spawn` starts the child in it (pid 2, after an idle init), leaving the calling
    thread in the host's namespace again; leaving the context kills the init, and every process left in there.
    `missing` says why no namespace was made (not wanted, no root, the kernel refused), else None."""

    def __init__(self, wanted: bool) -> None:
        self.missing: str | None = None if wanted else "switched off by the caller"
        if wanted and os.geteuid() != 0:
            self.missing = "the sandbox runs without root, which a pid namespace of the run's own needs"
        self._init: subprocess.Popen[bytes] | None = None
        self._init_pipe = -1

    def __enter__(self) -> RunPidNamespace:
        return self

    def spawn(self, start: Callable[[], int]) -> int:
        """Run `start` (which spawns the child and returns its pid) in a fresh pid namespace where one can be made,
        else as it is."""
        if self.missing is not None:
            return start()
        init = _init_program()
        if init is None:
            self._note_missing("no `cat` program (on PATH or in /bin, /usr/bin) to be the namespace's idle init")
            return start()
        libc = ctypes.CDLL(None, use_errno=True)
        try:  # the way back: setns needs a descriptor of the namespace this thread's children belong in
            own = os.open("/proc/thread-self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        except OSError as exc:
            self._note_missing(f"the host's own pid namespace cannot be opened ({exc.strerror}; is /proc mounted?)")
            return start()
        try:
            if libc.unshare(ctypes.c_int(CLONE_NEWPID)) != 0:
                self._note_missing(f"unshare(CLONE_NEWPID) failed ({os.strerror(ctypes.get_errno())})")
                return start()
            try:
                self._start_init(init)
                return start()
            finally:  # this thread's later children (the host's own subprocesses) belong in the host's namespace
                if libc.setns(ctypes.c_int(own), ctypes.c_int(CLONE_NEWPID)) != 0:
                    raise RuntimeError(f"cannot return the host thread to its pid namespace after the sandbox's spawn "
                                       f"(setns: {os.strerror(ctypes.get_errno())}): its children would start in a "
                                       f"namespace that has ended")
        finally:
            os.close(own)

    def _start_init(self, program: str) -> None:
        read_end, self._init_pipe = os.pipe()  # both ends close-on-exec: the child never holds the write end
        try:  # close_fds: the init holds none of the host's descriptors, inheritable ones included; output: nowhere
            self._init = subprocess.Popen([program], executable=program, stdin=read_end, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL, close_fds=True, start_new_session=True, env={})
        finally:
            os.close(read_end)

    def _note_missing(self, why: str) -> None:
        self.missing = why
        if why not in _warned:
            _warned.add(why)
            _log.warning("the sandbox makes no pid namespace: %s", why)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._init_pipe >= 0:
            os.close(self._init_pipe)
            self._init_pipe = -1
        if self._init is not None:
            self._init.kill()  # from outside its namespace: init's immunity does not apply
            self._init.wait()  # (a SIGCHLD handler elsewhere in the host that reaped it first reads as an exit)
            self._init = None


@functools.lru_cache(maxsize=1)
def _init_program() -> str | None:
    """The `cat` the namespace's init runs: the host's PATH first, then the system's own directories."""
    return shutil.which("cat") or shutil.which("cat", path=os.defpath)
