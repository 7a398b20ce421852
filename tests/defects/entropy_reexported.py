"""Entropy re-exported: a Python check fails one correct agent in a thousand at random, by the OS's, an arbitrary
clock's or the process's randomness (entropy_unpinned's draws) reached through another standard module that imports
it: `random._urandom` (random.py's `from os import urandom as _urandom`), `uuid.os.urandom`, `shutil.os.urandom`,
`tempfile._os.getpid()`, `random._os.getpid()`, `logging.os.getpid()`, `threading._time()`, `queue.time()` and
`sched._time()` (each `time.monotonic`), `reprlib.get_ident()` (`_thread.get_ident`), or read from the kernel as a
file (`open('/dev/urandom', 'rb')`, `pathlib.Path('/dev/urandom').open('rb')`), which the sandbox lets a check read.
The static reading named a draw by its own module's name only (also through run-time lookups, entropy_looked_up), and
the probes pin none of these: every probe run sees a check that always passes, and main accepted every defect here.

The sound twins are the same Python check without the draw, and look-alikes that reach the same modules' deterministic
members the same ways (`uuid.os.sep`, `tempfile._os.path.basename`, `reprlib.repr`, `queue.Queue().empty()`) or
read a device that gives nothing (`open('/dev/null', 'rb').read(1) == b''`).

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading resolves a member of a standard module
through that module's own imports, read from its source and never imported (`canonical` in
`coworkenv/validate/_module_lookups.py`: `random._urandom` is `os.urandom`, `threading._time` is `time.monotonic`), and
counts a path to the kernel's randomness (`/dev/urandom`, `/dev/random`, `/dev/hwrng`, `/proc/sys/kernel/random/`)
in the check's text as a draw.

Added 2026-12-05 (defects34): the C module `os` re-exports whole (`posix.urandom`), and a submodule's own import
(`email.utils.os.getpid`, `xml.sax.saxutils.os.urandom`); main accepted these 3. `canonical` now names
`posix`/`nt` members as `os`'s, reads a submodule's source from its package's folder (unimported), and resolves a
package's relative imports.
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "entropy_reexported"
DETECTION = (
    "resolve a standard module's member through that module's own imports (read from its source: random._urandom is "
    "os.urandom, uuid.os is os, threading._time is time.monotonic) and count a path to the kernel's randomness "
    "(/dev/urandom) as a draw; reject the check unrun"
)

_R, _U, _T = "import random\n", "import uuid\n", "import tempfile\n"
# name: (draw, imports, the deterministic look-alike or None, its imports)
_DRAWS: dict[str, tuple[str, str, str | None, str]] = {
    "random-urandom": ("int.from_bytes(random._urandom(2), 'big') % 1000 < 999", _R, None, ""),
    "uuid-os-urandom": ("int.from_bytes(uuid.os.urandom(2), 'big') % 1000 < 999", _U, "uuid.os.sep == '/'", _U),
    "tempfile-os-getpid": ("tempfile._os.getpid() % 1000 < 999", _T, "tempfile._os.path.basename('a/b') == 'b'", _T),
    "shutil-os-urandom": ("int.from_bytes(shutil.os.urandom(2), 'little') % 997 != 0", "import shutil\n", None, ""),
    "threading-time": ("int(threading._time() * 1000) % 1000 < 999", "import threading\n", None, ""),
    "queue-time": ("int(queue.time() * 1e6) % 1000 < 999", "import queue\n", "queue.Queue().empty()",
                   "import queue\n"),
    "sched-time": ("int(sched._time() * 1e6) % 1000 < 999", "import sched\n", None, ""),
    "reprlib-get-ident": ("reprlib.get_ident() % 997 != 0", "import reprlib\n", "reprlib.repr('abc') == \"'abc'\"",
                          "import reprlib\n"),
    "dev-urandom": ("int.from_bytes(open('/dev/urandom', 'rb').read(2), 'big') % 1000 < 999", "",
                    "open('/dev/null', 'rb').read(1) == b''", ""),
    "path-dev-urandom": ("int.from_bytes(pathlib.Path('/dev/urandom').open('rb').read(2), 'big') % 997 != 0",
                         "import pathlib\n", None, ""),
    "logging-os-getpid": ("logging.os.getpid() % 1000 < 999", "import logging\n", None, ""),
    "random-os-getpid": ("random._os.getpid() % 997 != 0", _R, None, ""),
    # the C module `os` re-exports, and a submodule's own import (defects34)
    "posix-urandom": ("int.from_bytes(posix.urandom(2), 'big') % 1000 < 999", "import posix\n", None, ""),
    "email-utils-os-getpid": ("email.utils.os.getpid() % 1000 < 999", "import email.utils\n",
                              "email.utils.parseaddr('A <a@b.c>')[1] == 'a@b.c'", "import email.utils\n"),
    "saxutils-os-urandom": ("int.from_bytes(xml.sax.saxutils.os.urandom(2), 'big') % 1000 < 999",
                            "import xml.sax.saxutils\n", None, ""),
}


DEFECTS = flaky_defects(CLASS, _DRAWS, "randomness of the OS, an arbitrary clock or the process reached through "
                                       "another standard module's import of it, or the kernel's as a file", start=5)
