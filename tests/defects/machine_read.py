"""Machine read: a Python check wants a value of the machine it runs on, which is the same in every probe run of the
sandbox gate (every one happens on the validation machine) and another where training or evaluation runs the
verifier: the CPU (`platform.machine() == 'x86_64'`, `os.uname().machine`, `platform.uname().machine`,
`sysconfig.get_platform()`, `__import__('platform').machine()`), the interpreter's version (`sys.version`,
`sys.version_info[:2] == (3, 11)`, `sys.version_info < (3, 12)`, `sys.version_info >= (3, 11, 5)`, `sys.hexversion`,
`vars(sys)['hexversion']`, `getattr(sys, 'version_info').minor`, `platform.python_version()`,
`platform.python_version_tuple()`, `sysconfig.get_python_version()`, `sys.implementation.cache_tag`), the C library
(`platform.libc_ver()`, `os.confstr('CS_GNU_LIBC_VERSION')`) or where the interpreter is installed
(`sys.executable`). Such a check passes every probe run, then fails every correct agent on an ARM worker, a newer
Python or another image; main accepted every defect here (it questioned only `os.cpu_count()` and `os.sysconf`).

The sound twins are the same Python check without the read, and look-alikes every machine that can run the verifier
answers alike: version tests the supported versions decide (`sys.version_info >= (3, 11)`, `.major == 3`, `.minor >=
10`, with `requires-python >= 3.11`), the OS (`platform.system()`, `os.uname().sysname`: the sandbox runs on Linux
only), `sys.implementation.name`.

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading (`coworkenv/validate/_machine_reads.py`)
names the machine's and the interpreter's members of `sys`, `platform`, `os`, `sysconfig` and `shutil` however they
are reached (imports, `__import__`, `getattr`, `vars`), but for the version tests the supported versions decide and
the `uname()` fields the sandbox fills in alike (`sysname`, `node`, `release`, `version`).

Added 2026-12-05 (defects34): `sys.thread_info` (its `version` is the C library's, `NPTL 2.36`; its `lock` the
build's); main accepted these 2. Its `name` (`pthread` on Linux) is the twin's. Added 2026-12-05 (defects46): the
version of a C library the image ships (`sqlite3.sqlite_version`, `3.40.1` here; also OpenSSL's, zlib's, expat's and
the hash algorithms OpenSSL offers, unit cases); main accepted it.
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "machine_read"
DETECTION = (
    "read the check unrun and reject a read of the machine it runs on (platform.machine, uname's machine, the "
    "interpreter's version beyond what requires-python decides, hexversion, libc version, sys.executable, sysconfig): "
    "the same in every probe run on the validation machine, another where training runs"
)

_P, _OS, _SC = "import platform\n", "import os\n", "import sysconfig\n"
# name: (the read, imports, the look-alike every machine answers alike or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "machine": ("platform.machine() == 'x86_64'", _P, "platform.system() == 'Linux'", _P),
    "uname-machine": ("os.uname().machine == 'x86_64'", _OS, "os.uname().sysname == 'Linux'", _OS),
    "uname-result-machine": ("platform.uname().machine in ('x86_64', 'AMD64')", _P, None, ""),
    "get-platform": ("sysconfig.get_platform() == 'linux-x86_64'", _SC, None, ""),
    "python-version": ("platform.python_version().startswith('3.11')", _P, "sys.version_info >= (3, 8)", ""),
    "version-text": ("sys.version.startswith('3.11')", "", None, ""),
    "version-pair": ("sys.version_info[:2] == (3, 11)", "", "sys.version_info >= (3, 11)", ""),
    "hexversion": ("sys.hexversion < 0x030C0000", "", None, ""),
    "version-below": ("sys.version_info < (3, 12)", "", "sys.version_info.major == 3", ""),
    "cache-tag": ("sys.implementation.cache_tag == 'cpython-311'", "", "sys.implementation.name == 'cpython'", ""),
    "version-tuple": ("platform.python_version_tuple()[1] == '11'", _P, None, ""),
    "libc-version": ("platform.libc_ver()[1] >= '2.36'", _P, None, ""),
    "confstr-libc": ("os.confstr('CS_GNU_LIBC_VERSION').endswith('2.36')", _OS, None, ""),
    "executable": ("sys.executable.endswith('python3.11')", "", None, ""),
    "getattr-minor": ("getattr(sys, 'version_info').minor == 11", "", "sys.version_info.minor >= 10", ""),
    "dunder-import-machine": ("__import__('platform').machine() != 'aarch64'", "", None, ""),
    "sysconfig-version": ("sysconfig.get_python_version() == '3.11'", _SC, None, ""),
    "vars-hexversion": ("vars(sys)['hexversion'] >> 16 == 0x030B", "", None, ""),
    "patch-level": ("sys.version_info >= (3, 11, 5)", "", None, ""),
    # the threads' build: the C library's version and the lock's kind (defects34)
    "thread-info-version": ("sys.thread_info.version >= 'NPTL 2.28'", "", "sys.thread_info.name == 'pthread'", ""),
    "thread-info-lock": ("sys.thread_info.lock == 'semaphore'", "", None, ""),
    # a C library the image ships (defects46)
    "sqlite-library": ("sqlite3.sqlite_version == '3.40.1'", "import sqlite3\n", None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, "a read of the machine", start=3,
                        told="passes every probe run on the validation machine and fails every correct agent where "
                             "the verifier runs on another CPU, Python or image, by a read of the machine (`{draw}`)")
