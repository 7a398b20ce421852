"""Standard output that says so when it fails: a reader that went away (`coworkenv ... | head -1`), a full disk
(`> /dev/full`), a terminal that closed. While `watching_standard_output()` its write errors are
`StandardOutputError`, told apart from those of the files a command writes (which name their file), so the command
stops as such a failure asks (`standard_output_stop`) instead of blaming a file or the disk of its outputs.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sys
from collections.abc import Iterator

from coworkenv.atomic import os_reason, path_advice

SYSTEM_ERROR = 1
READER_GONE = 128 + signal.SIGPIPE  # what the shell reports for a command the signal ended


class StandardOutputError(OSError):
    """A write to standard output failed (errno as the system gave it)."""


class _StandardOutputFile(io.RawIOBase):
    """File descriptor 1, writing only, its failures raised as StandardOutputError."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return os.isatty(self._fd)

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        try:
            return os.write(self._fd, data)
        except OSError as exc:
            raise StandardOutputError(exc.errno, exc.strerror) from None

    def close(self) -> None:  # descriptor 1 stays open: the interpreter and child processes share it
        super().close()


@contextlib.contextmanager
def watching_standard_output() -> Iterator[None]:
    """`sys.stdout` writes through a file whose errors are StandardOutputError, and what was printed is flushed at
    the end, before the interpreter's exit would (and fail there with a traceback). A stdout that is no file on
    descriptor 1 (closed at start, or replaced by a caller such as a test runner) is left as it is."""
    original = sys.stdout
    try:
        watched = original is not None and original.fileno() == 1
    except (OSError, ValueError, io.UnsupportedOperation):
        watched = False
    if not watched:
        yield
        return
    original.flush()
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(_StandardOutputFile(1)), encoding=original.encoding,
                                  errors=original.errors, line_buffering=bool(original.line_buffering))
    try:
        yield
    finally:
        try:
            sys.stdout.flush()
        except OSError as exc:
            raise SystemExit(standard_output_stop(exc)) from None
        finally:
            sys.stdout = original


def standard_output_stop(error: OSError) -> int:
    """Stop for a standard output that takes no more, returning the exit code: quietly when its reader went away,
    as a command the SIGPIPE ended does; with one `error:` line naming standard output otherwise. The files written
    so far are whole, as after any stop."""
    with contextlib.suppress(OSError):  # what is still buffered goes nowhere, so the exit does not fail on it
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    if error.errno == errno.EPIPE:
        return READER_GONE
    from coworkenv.commands import error_line  # imported on this path only: it brings the LLM clients along

    message = f"cannot write to standard output: {os_reason(error)}; send it to another file or /dev/null, or " \
              f"{path_advice(None, error)}"
    with contextlib.suppress(OSError):  # standard error is gone too; the exit code still tells
        print(error_line(message), file=sys.stderr)
    return SYSTEM_ERROR


__all__ = ["READER_GONE", "StandardOutputError", "standard_output_stop", "watching_standard_output"]
