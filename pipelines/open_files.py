"""The limit on open files of a pipeline run (`ulimit -n`): raised when the system allows, refused when too low.

Dagster holds SQLite connections, compute-log files and pipes per step; past the limit SQLite only says "unable to
open database file", from inside a step, after the run started. Measured: a `--no-train` run of one capability
failed with a limit of 17 and passed with 19 (`ulimit -n N; python -m pipelines.run --no-train --all`).
"""

from __future__ import annotations

import resource

# Room over the 19 measured for one capability: more capabilities, training and the eval open more at once.
MINIMUM_OPEN_FILES = 64
# Raised no further than select()'s FD_SETSIZE, so a library still using select() never sees a larger descriptor.
RAISED_OPEN_FILES = 1024


class OpenFilesLimitError(Exception):
    """The limit on open files is below what a run needs, and this process may not raise it."""


def ensure_open_files_limit(minimum: int = MINIMUM_OPEN_FILES) -> int:
    """Raise this process's soft limit on open files towards RAISED_OPEN_FILES, within its hard limit; return it.

    Raises OpenFilesLimitError, naming the limit and what to do, when it stays below `minimum`.
    """
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
    if soft < minimum:
        raise OpenFilesLimitError(
            f"this process may open at most {soft} files at once (`ulimit -n`; its hard limit is "
            f"{'unlimited' if hard == resource.RLIM_INFINITY else hard}), and a pipeline run needs {minimum}; start "
            f"it from a shell with a higher limit (`ulimit -n {RAISED_OPEN_FILES}`, or a container's --ulimit "
            f"nofile={RAISED_OPEN_FILES}) and run again")
    return soft
