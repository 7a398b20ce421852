"""The sandbox's data types: limits of a call, its result, the error kinds and the isolation layers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ERROR_KINDS = frozenset({
    "timeout", "cpu_limit", "memory_limit", "output_limit", "exception", "forbidden", "crashed", "bad_result",
    "isolation_missing",
})
# Every layer a call can name in `require_layers` (or COWORKENV_SANDBOX_REQUIRE), outermost first.
KNOWN_LAYERS = (
    "netns", "timens", "pidns", "mountns", "min-root", "ro-root", "proc-hidden", "scratch-tmpfs", "memory-cgroup", "pids-cgroup",
    "uid-drop", "oom-first", "caps-drop", "dies-with-host", "rlimits", "no-new-privs", "landlock", "seccomp",
    "libc-paths", "audit-hook",
)


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits of one sandboxed call. CPU time is enforced in whole seconds (rounded up)."""

    cpu_seconds: float = 2.0
    wall_seconds: float = 5.0
    memory_bytes: int = 256 * 2**20
    file_size_bytes: int = 1 * 2**20
    # The child alone: no further process may start while it runs (seccomp refuses every fork and exec anyway).
    max_processes: int = 1
    # Threads the code may run beside its main thread, at once (`threading.Thread`, thread pools): counted by the
    # run's pids cgroup (at `max_processes + max_threads` tasks) or by RLIMIT_NPROC, which binds any uid but root;
    # where neither counts them (a child that keeps root without a pids cgroup) none starts. 0: none anywhere.
    max_threads: int = 8
    max_output_bytes: int = 64 * 2**10
    # Total size of the scratch directory (enforced where a tmpfs can be mounted for it).
    scratch_bytes: int = 16 * 2**20
    # Requests to the host (`run_sandboxed(ask=...)`, e.g. an LLM judge's): at most `max_asks` of them, each at
    # most `max_ask_bytes` on the channel, answers cut to `max_answer_bytes`, and `ask_seconds` of the host's time
    # in all. The wall clock stops while the host answers, and so does the child (SIGSTOP to its process group).
    max_asks: int = 16
    max_ask_bytes: int = 256 * 2**10
    max_answer_bytes: int = 64 * 2**10
    ask_seconds: float = 300.0

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "wall_seconds", "memory_bytes", "file_size_bytes", "max_processes",
                     "max_output_bytes", "scratch_bytes", "max_asks", "max_ask_bytes", "max_answer_bytes",
                     "ask_seconds"):
            if not getattr(self, name) > 0:
                raise ValueError(f"SandboxLimits.{name} must be positive, got {getattr(self, name)!r}")
        if not self.max_threads >= 0:
            raise ValueError(f"SandboxLimits.max_threads must not be negative, got {self.max_threads!r}")


@dataclass(frozen=True)
class SandboxResult:
    """Outcome of one sandboxed call: the JSON value returned, or why there is none."""

    ok: bool
    value: Any
    error_kind: str | None
    error: str | None
    duration_s: float
    # CPU seconds the child spent (user and system, its start included); 0.0 where the run did not return a value
    cpu_s: float = 0.0
