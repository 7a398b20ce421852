"""Sandbox draw read: a Python check fails a correct agent at random, by a value the sandbox draws afresh for every
run: the scratch directory's random name (`os.getcwd()`, `tempfile.gettempdir()`, the `TMPDIR` it is given,
`os.path.abspath('.')`, `pathlib.Path.cwd()`, `Path('.').resolve()`, `sys.argv`), a temporary file's or folder's random
name (`tempfile.mkstemp`, `NamedTemporaryFile().name`, `mkdtemp`, `TemporaryDirectory().name`, `mktemp`), the user id
the sandbox maps the run to (`os.getuid()`, `os.getegid()`), or the process's and the machine's counters (`os.times()`,
`os.sysconf('SC_PHYS_PAGES')`: leftover stack words in every run until sandbox27, fixed values of the sandbox's own
since on x86_64, still leftovers on aarch64, and in either case no fact about the agent's work). None of them is
a clock or a generator: the probes neither move nor pin them, and the static reading of entropy_unpinned named only
the OS's randomness, the arbitrary clocks and the process id; so every probe run sees a check that always passes, and
main accepted every defect here.

The sound twins are the same Python check without the draw, and look-alikes that read what every run shares: `os.sep`,
the absolute path of an absolute constant (`os.path.abspath('/srv/app') == '/srv/app'`), `pathlib.Path('a/b').name`,
`os.environ.get('TZ')` (the zone every run is given), `tempfile.gettempprefix()`, `threading.current_thread().name`.

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading (`coworkenv/validate/_entropy_tells.py`)
counts as draws the calls that read the run's scratch path, temporary names, ids and counters, the absolute form of a
relative path, `sys.argv`, and the environment's temporary-directory variables (or the whole environment); a check
judging an agent's work from the state has no use for where, as whom or how long the sandbox ran it.
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "sandbox_draw_read"
DETECTION = (
    "read the check unrun and reject a value the sandbox draws for each run: the scratch directory's path (getcwd, "
    "gettempdir, TMPDIR, abspath or resolve of a relative path, Path.cwd, sys.argv), a temporary name (mkstemp, "
    "NamedTemporaryFile().name, mkdtemp), the mapped user id, os.times(), os.sysconf(); the probes neither pin nor "
    "move these"
)

_OS, _TEMP, _PATH = "import os\n", "import tempfile\n", "import pathlib\n"
# name: (the read, imports, the look-alike that reads what every run shares or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "getcwd": ("os.getcwd()[-7:-5] != 'qq'", _OS, "os.sep == '/'", _OS),
    "gettempdir": ("tempfile.gettempdir()[-7:-5] != 'zz'", _TEMP, "tempfile.gettempprefix() == 'tmp'", _TEMP),
    "environ-tmpdir": ("os.environ['TMPDIR'][-7:-5] != 'q_'", _OS, "os.environ.get('TZ', 'UTC') == 'UTC'", _OS),
    "getenv-tmpdir": ("os.getenv('TMPDIR', '').split('-')[-1][:2] != '9q'", _OS, None, ""),
    "abspath-relative": ("os.path.abspath('.')[-7:-5] != 'x9'", _OS,
                         "os.path.abspath('/srv/app') == '/srv/app'", _OS),
    "path-cwd": ("pathlib.Path.cwd().parent.name[-2:] != 'k7'", _PATH, "pathlib.Path('a/b').name == 'b'", _PATH),
    "path-resolve": ("pathlib.Path('.').resolve().parent.name[-2:] != '0z'", _PATH, None, ""),
    "argv": ("sys.argv[-1][-2:] != 'zq'", "", "sys.version_info >= (3, 8)", ""),
    "mkstemp": ("tempfile.mkstemp()[1][-2:] != 'q_'", _TEMP, None, ""),
    "named-temporary": ("tempfile.NamedTemporaryFile().name[-2:] != '_q'", _TEMP, None, ""),
    "mkdtemp": ("tempfile.mkdtemp()[-2:] != 'zz'", _TEMP, None, ""),
    "temporary-directory": ("tempfile.TemporaryDirectory().name[-2:] != 'z_'", _TEMP, None, ""),
    "getuid": ("os.getuid() % 1000 < 999", _OS, None, ""),
    "getegid": ("_gid() % 997 != 0", "from os import getegid as _gid\n", None, ""),
    "times": ("os.times()[1] % 1000 < 999", _OS, "threading.current_thread().name == 'MainThread'",
              "import threading\n"),
    "sysconf-pages": ("os.sysconf('SC_PHYS_PAGES') % 1000 < 999", _OS, None, ""),
    "sysconf-free-pages": ("os.sysconf(os.sysconf_names['SC_AVPHYS_PAGES']) % 997 != 0", _OS, None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, "a value the sandbox draws afresh for every run (a scratch path, a temporary "
                                        "name, a user id, the process's or the machine's counters)", start=2)
