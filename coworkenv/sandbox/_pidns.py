"""The run's own pid namespace, made by the host around the child's spawn.

Without one the run's pids were the machine's: `os.getpid()`, a thread's id, its session and group ids (no audit
event, nothing to refuse) counted every process and thread the machine started, since boot and between two runs (a
channel from the host's activity, and a tell of a probe run from a real one), and `F_GETLK` named a host process that
held a lock. A pid namespace applies to the children of whoever makes it, never to itself, so the child cannot make
its own without a fork; the host makes it instead: the spawning thread unshares `CLONE_NEWPID` (a thread's own
setting), spawns an idle pid 1 and then the child, which is pid 2 in every run, and returns to the host's namespace.
pid 1 is a separate process because the kernel spares a namespace's init the signals it has no handler for (the
CPU limit's SIGXCPU and a crash the code raises itself would be ignored); it waits on a pipe whose other end only the
host holds, so it ends with the host, and the namespace with it (the kernel kills what is left in it).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
from collections.abc import Callable
from types import TracebackType

CLONE_NEWPID = 0x20000000
# pid 1 of the run's namespace: closes what it inherited from the host and sleeps until the host closes its pipe
# (the host's exit included); the namespace ends with it.
INIT_CODE = "import os; os.closerange(1, 1 << 16); os.read(0, 1)"
_log = logging.getLogger(__name__)
_warned: set[str] = set()


class RunPidNamespace:
    """A pid namespace for one call: `spawn` starts the child in it (pid 2, after an idle init), leaving the calling
    thread in the host's namespace again; leaving the context kills the init, and every process left in there.
    `missing` says why no namespace was made (not wanted, no root, the kernel refused), else None."""

    def __init__(self, interpreter: str, wanted: bool) -> None:
        self.interpreter = interpreter
        self.missing: str | None = None if wanted else "switched off by the caller"
        if wanted and os.geteuid() != 0:
            self.missing = "the sandbox runs without root, which a pid namespace of the run's own needs"
        self._init_pid = -1
        self._init_pipe = -1

    def __enter__(self) -> RunPidNamespace:
        return self

    def spawn(self, start: Callable[[], int]) -> int:
        """Run `start` (which spawns the child and returns its pid) in a fresh pid namespace where one can be made,
        else as it is."""
        if self.missing is not None:
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
                self._start_init()
                return start()
            finally:  # this thread's later children (the host's own subprocesses) belong in the host's namespace
                if libc.setns(ctypes.c_int(own), ctypes.c_int(CLONE_NEWPID)) != 0:
                    raise RuntimeError(f"cannot return the host thread to its pid namespace after the sandbox's spawn "
                                       f"(setns: {os.strerror(ctypes.get_errno())}): its children would start in a "
                                       f"namespace that has ended")
        finally:
            os.close(own)

    def _start_init(self) -> None:
        read_end, self._init_pipe = os.pipe()  # both ends close-on-exec: the child never holds the write end
        try:
            self._init_pid = os.posix_spawn(
                self.interpreter, [self.interpreter, "-I", "-S", "-B", "-c", INIT_CODE], {},
                file_actions=[(os.POSIX_SPAWN_DUP2, read_end, 0)], setsid=True, setsigmask=())
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
        if self._init_pid > 0:
            try:
                os.kill(self._init_pid, signal.SIGKILL)  # from outside its namespace: init's immunity does not apply
                os.waitpid(self._init_pid, 0)
            except (ProcessLookupError, ChildProcessError):  # a SIGCHLD handler elsewhere in the host reaped it
                pass
            self._init_pid = -1
