"""Run value read: a Python check wants a value of the run or of the machine that the readings of machine_read,
sandbox_draw_read and entropy_unpinned did not name, so every probe run of the sandbox gate sees a check that passes,
and a correct agent fails in another run or on another machine:
- the scratch directory's random name through `os.path.expandvars('$TMPDIR')` or `'${TMPDIR}/...'`;
- a clock that counts from an arbitrary start asked by its id (`time.clock_gettime(time.CLOCK_BOOTTIME)`,
  `CLOCK_MONOTONIC`, the process's or thread's CPU time, a raw id `7`): the probes move only the wall clocks, and
  these are the machine's uptime (the time namespace's where there is one) or its load;
- the machine's memory page (`resource.getpagesize()`, `mmap.PAGESIZE`: 4 KiB on x86-64, 16 or 64 KiB on many ARM
  machines), the interpreter's build (`sys.getsizeof`, `__sizeof__`, `sys.stdlib_module_names`,
  `sys.builtin_module_names`, `importlib.machinery.EXTENSION_SUFFIXES`, which name the CPU and the C library), the
  host's stack limit (`resource.getrlimit(resource.RLIMIT_STACK)`: the one limit the sandbox leaves the host's).
Main accepted every defect here. (A file's owner or group, the run's mapped ids too, is read by `stat`, which main
already rejects as a read of a file's times, `probe_aware`: left out.)

The sound twins are the same Python check without the read, and look-alikes every run and machine answers alike:
`os.path.expandvars('$TZ')` (the sandbox sets `UTC`), the real-time clock by id (which the probes move), the
open-files limit the sandbox sets.

Caught unrun by the sandbox gate (`nondeterministic_check`): `coworkenv/validate/_run_draws.py` names `expandvars` of
the scratch variables (or of a text it cannot read) and `clock_gettime` of any clock but the wall clocks;
`coworkenv/validate/_machine_reads.py` names the page size, the build's members and `getrlimit` of a limit the
sandbox does not set.
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "run_value_read"
DETECTION = (
    "read the check unrun and reject expandvars of the scratch variable, clock_gettime of a clock the probes do not "
    "move, the page size, the interpreter's object sizes and module lists, native-module suffixes and a resource "
    "limit the sandbox leaves the host's"
)

_OS, _T, _RS, _MM = "import os\n", "", "import resource\n", "import mmap\n"
_IM = "import importlib.machinery\n"
# name: (the read, imports, the look-alike every run and machine answers alike or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "expandvars-scratch": ("'7777' not in os.path.expandvars('$TMPDIR')", _OS,
                           "os.path.expandvars('$TZ') == 'UTC'", _OS),
    "expandvars-braces": ("'zzzz' not in os.path.expandvars('${TMPDIR}/out')", _OS, None, ""),
    "boot-clock": ("time.clock_gettime(time.CLOCK_BOOTTIME) < 10**7", _T,
                   "time.clock_gettime(time.CLOCK_REALTIME) > 0", _T),
    "monotonic-clock-ns": ("time.clock_gettime_ns(time.CLOCK_MONOTONIC) < 10**16", _T, None, ""),
    "process-cpu-clock": ("time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID) < 1.5", _T, None, ""),
    "thread-cpu-clock": ("time.clock_gettime_ns(time.CLOCK_THREAD_CPUTIME_ID) < 15 * 10**8", _T, None, ""),
    "clock-raw-id": ("time.clock_gettime(7) < 10**7", _T, "time.clock_gettime_ns(0) > 0", _T),
    "page-size": ("resource.getpagesize() == 4096", _RS, "resource.getrlimit(resource.RLIMIT_NOFILE)[0] >= 1", _RS),
    "mmap-page-size": ("mmap.PAGESIZE <= 4096", _MM, None, ""),
    "object-size": ("sys.getsizeof('abc') <= 52", "", "sys.getrecursionlimit() >= 100", ""),
    "own-size": ("'abc'.__sizeof__() <= 52", "", None, ""),
    "extension-suffix": ("importlib.machinery.EXTENSION_SUFFIXES[0].endswith('-linux-gnu.so')", _IM, None, ""),
    "stack-limit": ("resource.getrlimit(resource.RLIMIT_STACK)[0] >= 2**20", _RS, None, ""),
    "stdlib-names": ("'tomllib' in sys.stdlib_module_names", "", None, ""),
    "builtin-names": ("'_ssl' not in sys.builtin_module_names", "", None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, "a value of the run or the machine", start=4,
                        told="passes every probe run and fails a correct agent in another run or on another machine, "
                             "by a value of the run or the machine (`{draw}`)")
