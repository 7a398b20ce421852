"""The limit on open files (`ulimit -n`): raised at start when the system allows, as Go programs do, since a soft
limit below the hard one only makes a busy process fail ("Too many open files") where it could have gone on."""

from __future__ import annotations

import resource

# Raised no further than select()'s FD_SETSIZE, so a library still using select() never sees a larger descriptor.
RAISED_OPEN_FILES = 1024


class OpenFilesLimitError(Exception):
    """The limit on open files is below what the work needs, and this process may not raise it."""


def open_files_limit() -> int:
    """How many files this process may have open at once (the soft `ulimit -n`)."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_open_files_limit() -> int:
    """Raise this process's soft limit on open files towards RAISED_OPEN_FILES, within its hard limit; return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= RAISED_OPEN_FILES:
        return RAISED_OPEN_FILES if soft == resource.RLIM_INFINITY else soft
    wanted = RAISED_OPEN_FILES if hard == resource.RLIM_INFINITY else min(hard, RAISED_OPEN_FILES)
    if wanted > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (ValueError, OSError):  # a system that caps it lower (macOS's OPEN_MAX)
            pass
    return soft


def ensure_open_files_limit(minimum: int, what: str) -> int:
    """`raise_open_files_limit`, then OpenFilesLimitError (naming the limit and what to do) when it stays below
    `minimum`, the files `what` needs open at once."""
    soft = raise_open_files_limit()
    if soft < minimum:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        raise OpenFilesLimitError(
            f"this process may open at most {soft} files at once (`ulimit -n`; its hard limit is "
            f"{'unlimited' if hard == resource.RLIM_INFINITY else hard}), and {what} needs {minimum}; start it from "
            f"a shell with a higher limit (`ulimit -n {RAISED_OPEN_FILES}`, or a container's --ulimit "
            f"nofile={RAISED_OPEN_FILES}) and run again")
    return soft
