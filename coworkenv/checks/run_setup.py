"""The setup every run of a Python check starts with, the verifier's own run and the sandbox gate's probes alike.

It puts `random`'s module functions and every wall clock (`time.time`, `time_ns`, `localtime`, `gmtime`, `ctime`,
`strftime` and `asctime` of now, `clock_gettime` of the real-time clocks, `datetime.now`/`utcnow`, and
`date.today`, which reads `time.time`) behind stand-ins, and with the clocks the file times `os`'s stat family
reports and what sqlite's date functions take for 'now' (on every connection, once `_sqlite3` loads); pinned, it
pins what a generator seeded from the system draws (`random.Random()`, `SystemRandom`, `secrets`, `_random.Random()`)
as well as the module's functions. In the verifier's run the stand-ins answer as the originals
do (`setup()`: no offset, a fresh seed, nothing pinned); the probes of `coworkenv.validate.python_probes` move the
clocks, seed `random` or pin `random()` through the same code with other values. So a check sees the same setup
either way: the same objects in `time`, `random` and `datetime`, the same modules imported (`'random' in
sys.modules`), the same objects on the heap; only the values differ, and a value is what the probes test.

`random`, `datetime` and sqlite are set up as they load (a finder first on `sys.meta_path`, `_CW_ON_LOAD`), not
imported here: a check that never imports one is spared its import (`random` 1.1 ms, `datetime` 1.0 ms of CPU in a
run of ~23 ms), and one that does, or imports its C module (`_random`, `_datetime`), gets it set up before its own
code sees it, with the draws and the clock readings of a setup that imported it first (`random` seeded as it loads).

The setup runs as a unit of its own before the check (`run_sandboxed(prelude=...)`): nothing in the check's globals,
source, line numbers or frames shows it, and a check's own `from __future__` stays first.
"""

from __future__ import annotations

SETUP = """\
import time as _cw_time
_cw_offset = {offset}
_cw_seed = {seed}
_cw_pin = {pin}
_cw_draws = __import__("itertools").count()


def _cw_like(fake, real):
    # the stand-in answers to the original's name, so `random.random.__name__` says nothing of a stand-in
    for name in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(fake, name, getattr(real, name))
        except (AttributeError, TypeError):
            pass
    return fake


def _cw_patch(module, name, fake):
    setattr(module, name, _cw_like(fake, getattr(module, name)))


# A generator seeded from the system draws past the module's functions: `random.Random()`, its subclasses
# (`SystemRandom`, which `secrets` draws from) and the C module's `_random.Random`. Pinned, what such a generator draws
# is pinned too (`random`, `getrandbits`, and the bounded integers behind `randint`, `choice`, `sample`, `shuffle`), at
# the extreme yet never the same value twice (counted per generator); one seeded with a value of the check's own is a fixed sequence: as is.
def _cw_free(rng):
    return _cw_pin is not None and getattr(rng, "_cw_seeded", None) is None


def _cw_pin_generator(cls, seeding, drawing):
    for name in seeding:
        def seeded(self, a=None, *rest, _real=getattr(cls, name), _name=name):
            self._cw_seeded = True if _name == "setstate" else a
            return _real(self, a, *rest)
        _cw_patch(cls, name, seeded)
    for name in drawing:
        def drawn(self, *args, _real=getattr(cls, name), _name=name):
            if not _cw_free(self):
                return _real(self, *args)
            drawn = self.__dict__.get("_cw_drawn", 0)  # each generator's first draw at the extreme
            self._cw_drawn = drawn + 1
            if _name == "random":
                return abs(_cw_pin - drawn * 1e-12)
            n = args[0] if _name == "_randbelow" else 2 ** args[0]
            return drawn % n if _cw_pin < 0.5 else n - 1 - drawn % n
        _cw_patch(cls, name, drawn)


# Set up when `random` loads (`_CW_ON_LOAD`): a check that imports it gets it as a setup that imported it first left
# it (seeded, then patched), and one that never does is spared its import (1.1 ms of a run's ~23 ms of CPU).
def _cw_setup_random(module):
    global _cw_random, _cw_random_real, _cw_c_random, _CwCRandom
    _cw_random = module
    # `seed(None)` seeds from the system's randomness, as an unseeded interpreter does
    _cw_random.seed(_cw_seed)
    _cw_random_real = {{n: getattr(_cw_random, n) for n in ("random", "uniform", "randint", "randrange", "choice")}}
    # pinned: at the extreme, yet never the same value twice (`random() == random()` would tell a pinned run)
    _cw_patch(_cw_random, "random", lambda: _cw_random_real["random"]() if _cw_pin is None
              else abs(_cw_pin - next(_cw_draws) * 1e-12))
    _cw_patch(_cw_random, "uniform", lambda a, b: _cw_random_real["uniform"](a, b) if _cw_pin is None
              else a + (b - a) * _cw_pin)
    _cw_patch(_cw_random, "randint", lambda a, b: _cw_random_real["randint"](a, b) if _cw_pin is None
              else a if _cw_pin < 0.5 else b)
    _cw_patch(_cw_random, "randrange", lambda a, b=None, *r: _cw_random_real["randrange"](a, b, *r) if _cw_pin is None
              else (0 if b is None else a) if _cw_pin < 0.5 else (a if b is None else b) - 1)
    _cw_patch(_cw_random, "choice", lambda s: _cw_random_real["choice"](s) if _cw_pin is None
              else s[0] if _cw_pin < 0.5 else s[-1])
    _cw_pin_generator(_cw_random.Random, ("seed", "setstate"), ("random", "getrandbits", "_randbelow"))
    _cw_pin_generator(_cw_random.SystemRandom, (), ("random", "getrandbits"))
    _cw_c_random = __import__("_random")

    class _CwCRandom(_cw_c_random.Random):
        def __init__(self, *args):
            self.seed(*args)

    _CwCRandom.__qualname__ = "_CwCRandom"  # as where it was defined at the top level
    _cw_pin_generator(_CwCRandom, ("seed", "setstate"), ("random", "getrandbits"))
    _cw_c_random.Random = _CwCRandom


# A file's times are the kernel's stamp of the real clock: the stat family of `os` (a directory entry's `stat()` too)
# reports them moved with the clocks, so every door that ends there (an archive's member, `pathlib`,
# `os.path.get*time`, a name built at run time) sees a file written now as written now. (`posix` is left to the
# import system, which reads it for its caches; a check importing it is rejected unrun, `probe_aware`.)
_cw_os = __import__("os")


def _cw_moved(st):
    if not _cw_offset:
        return st
    kind, (fields, extra) = st.__reduce__()
    fields = (*fields[:7], *(t + int(_cw_offset) for t in fields[7:10]), *fields[10:])
    extra = {{k: v + (_cw_offset * 10**9 if k.endswith("_ns") else _cw_offset) if "time" in k else v
              for k, v in extra.items()}}
    return kind(fields, extra)


class _CwDirEntry:
    def __init__(self, entry):
        self._cw_entry = entry

    def __getattr__(self, name):
        return getattr(self._cw_entry, name)

    def __fspath__(self):
        return self._cw_entry.__fspath__()

    def __repr__(self):
        return repr(self._cw_entry)

    def stat(self, *, follow_symlinks=True):
        return _cw_moved(self._cw_entry.stat(follow_symlinks=follow_symlinks))


class _CwScandir:
    def __init__(self, entries):
        self._cw_entries = entries

    def __iter__(self):
        return self

    def __next__(self):
        return _CwDirEntry(next(self._cw_entries))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._cw_entries.close()

    def close(self):
        self._cw_entries.close()


def _cw_move_stat(name, fake):
    real = getattr(_cw_os, name)
    _cw_patch(_cw_os, name, fake)
    for supports in (_cw_os.supports_fd, _cw_os.supports_dir_fd, _cw_os.supports_follow_symlinks):
        if real in supports:
            supports.add(getattr(_cw_os, name))


_cw_stat, _cw_lstat, _cw_fstat, _cw_scandir = _cw_os.stat, _cw_os.lstat, _cw_os.fstat, _cw_os.scandir
_cw_move_stat("stat", lambda *a, **k: _cw_moved(_cw_stat(*a, **k)))
_cw_move_stat("lstat", lambda *a, **k: _cw_moved(_cw_lstat(*a, **k)))
_cw_move_stat("fstat", lambda *a, **k: _cw_moved(_cw_fstat(*a, **k)))
_cw_move_stat("scandir", lambda *a, **k: _CwScandir(_cw_scandir(*a, **k)))

# Set up when `datetime` loads, as `random` is.
def _cw_setup_datetime(module):
    global _cw_datetime, _cw_real, _cw_delta, _CwDatetime
    _cw_datetime = module
    _cw_real = _cw_datetime.datetime
    _cw_delta = _cw_datetime.timedelta(seconds=_cw_offset)

    # `date.today()` and `datetime.today()` read `time.time` (patched below) themselves: moved once, not twice.
    # Every value the stand-in class makes is of that class (`now()`, `min` too, as the constructor's), prints as the
    # original's does and has no instance dict: two values' classes, or a value's repr, tell nothing of a probe.
    class _CwDatetime(_cw_real):
        __slots__ = ()

        @classmethod
        def now(cls, tz=None):
            moved = _cw_real.now(tz) + _cw_delta
            return cls.combine(moved, moved.timetz())

        @classmethod
        def utcnow(cls):
            moved = _cw_real.utcnow() + _cw_delta
            return cls.combine(moved, moved.timetz())

        def __repr__(self):
            return repr(_cw_real.combine(self, self.timetz()))

    _CwDatetime.min = _CwDatetime.combine(_cw_real.min, _cw_real.min.timetz())
    _CwDatetime.max = _CwDatetime.combine(_cw_real.max, _cw_real.max.timetz())
    _cw_patch(_cw_datetime, "datetime", _CwDatetime)
    # the C module keeps the class `datetime` re-exports (`_datetime.datetime`): the stand-in there too
    _cw_c_datetime = __import__("sys").modules.get("_datetime")
    if _cw_c_datetime is not None:
        _cw_c_datetime.datetime = _CwDatetime


_cw_time_real, _cw_time_ns_real = _cw_time.time, _cw_time.time_ns
_cw_localtime, _cw_gmtime, _cw_ctime = _cw_time.localtime, _cw_time.gmtime, _cw_time.ctime
_cw_strftime, _cw_asctime = _cw_time.strftime, _cw_time.asctime
_cw_gettime, _cw_gettime_ns = _cw_time.clock_gettime, _cw_time.clock_gettime_ns
# every clock that reads the wall time, by the number Linux gives it too: a check may pass an id it computed
# (`clock_gettime(10 // 2)`, CLOCK_REALTIME_COARSE, which `time` does not name), which no reading of its code sees
_cw_wall = [getattr(_cw_time, n) for n in ("CLOCK_REALTIME", "CLOCK_TAI") if hasattr(_cw_time, n)]
if __import__("sys").platform.startswith("linux"):
    _cw_wall += [5, 8]  # CLOCK_REALTIME_COARSE, CLOCK_REALTIME_ALARM
_cw_patch(_cw_time, "time", lambda: _cw_time_real() + _cw_offset)
_cw_patch(_cw_time, "time_ns", lambda: _cw_time_ns_real() + _cw_offset * 10**9)
_cw_patch(_cw_time, "localtime", lambda secs=None: _cw_localtime(_cw_time.time() if secs is None else secs))
_cw_patch(_cw_time, "gmtime", lambda secs=None: _cw_gmtime(_cw_time.time() if secs is None else secs))
_cw_patch(_cw_time, "ctime", lambda secs=None: _cw_ctime(_cw_time.time() if secs is None else secs))
# the forms that read the clock without a time given: strftime and asctime of now, the wall clocks by id
_cw_patch(_cw_time, "strftime", lambda fmt, t=None: _cw_strftime(fmt, _cw_time.localtime() if t is None else t))
_cw_patch(_cw_time, "asctime", lambda t=None: _cw_asctime(_cw_time.localtime() if t is None else t))
_cw_patch(_cw_time, "clock_gettime", lambda clk: _cw_gettime(clk) + (_cw_offset if clk in _cw_wall else 0))
_cw_patch(_cw_time, "clock_gettime_ns",
          lambda clk: _cw_gettime_ns(clk) + (_cw_offset * 10**9 if clk in _cw_wall else 0))

# sqlite's date functions read the real clock in C where the time they are given is 'now' or none (`julianday()`,
# `strftime('%s')`, `CURRENT_TIMESTAMP`, a column's default of it): every connection the check opens (`connect`,
# `Connection(...)`, a factory of its own) gets stand-ins of those names that hand the library's own function the
# moved time instead ('YYYY-MM-DD HH:MM:SS.SSS', the precision of sqlite's 'now'), through a connection of the setup's.
# Set up when the C module loads (every way to sqlite goes through `_sqlite3`; `sqlite3.dbapi2` copies its names):
# importing sqlite3 in every run cost a trivial check 3 ms of its 16 ms of CPU.
def _cw_sqlite_now():
    seconds, ms = divmod(_cw_time.time_ns() // 10**6, 1000)
    return _cw_strftime("%Y-%m-%d %H:%M:%S", _cw_gmtime(seconds)) + ".%03d" % ms


def _cw_sqlite_is_now(value):  # as sqlite compares it: without case, ASCII only, up to a NUL, text or a blob's bytes
    if isinstance(value, str):
        value = value.encode("utf-8", "replace")
    return isinstance(value, bytes) and value.split(b"\\0")[0].lower() == b"now"


def _cw_sqlite_stand_in(own, name, at):
    def stand_in(*args):
        args = [_cw_sqlite_now() if (i == at or (name == "timediff" and i < 2)) and _cw_sqlite_is_now(a) else a
                for i, a in enumerate(args)]
        if len(args) == at:  # no time given: now
            args.append(_cw_sqlite_now())
        marks = ", ".join("?" * len(args))
        return own.execute(f"select {{name}}({{marks}})", args).fetchone()[0]
    return stand_in


def _cw_sqlite_patch(module):
    real, connect = module.Connection, module.connect
    own = connect(":memory:")
    # the argument that holds the time, by function (those the library has: `timediff` is new in 3.43)
    at = {{name: i for name, i in (("date", 0), ("time", 0), ("datetime", 0), ("julianday", 0), ("unixepoch", 0),
                                  ("strftime", 1), ("timediff", 0))
          if own.execute("select count(*) from pragma_function_list where name = ?", (name,)).fetchone()[0]}}
    stand_ins = [(name, -1, _cw_sqlite_stand_in(own, name, i)) for name, i in at.items()]
    stand_ins += [(name, 0, _cw_sqlite_stand_in(own, of, 0)) for name, of in (
        ("current_date", "date"), ("current_time", "time"), ("current_timestamp", "datetime"))]

    def moved(conn):
        for name, n, stand_in in stand_ins:
            conn.create_function(name, n, stand_in, deterministic=True)
        return conn

    class Connection(real):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            moved(self)

    def connect_moved(*args, **kwargs):
        if len(args) < 6:  # `factory` is the sixth parameter
            kwargs.setdefault("factory", Connection)
        conn = connect(*args, **kwargs)
        return moved(conn) if isinstance(conn, real) else conn

    _cw_patch(module, "connect", connect_moved)
    module.Connection = _cw_like(Connection, real)


_cw_sys = __import__("sys")


def _cw_with(name):
    # a C module's own: `random` and `datetime` load theirs first, and a check that imports the C module alone gets
    # the module beside it as the setup left it (as set up where it was imported before the check)
    def load(module):
        if name not in _cw_sys.modules:  # else that module is the one loading it, set up once it has run
            __import__(name)
    return load


# What is set up as a module loads, by its name (`_CwFinder`): loading them all in every run cost a run 2.1 ms of CPU
# (`random` 1.1, `datetime` 1.0), sqlite 3 ms more; a check that never imports one is spared it, one that does gets
# it set up before its first line sees it, as it was set up here before.
_CW_ON_LOAD = {{"random": _cw_setup_random, "_random": _cw_with("random"), "datetime": _cw_setup_datetime,
               "_datetime": _cw_with("datetime"), "_sqlite3": _cw_sqlite_patch}}


class _CwLoader:
    def __init__(self, real, set_up):
        self._cw_real, self._cw_set_up = real, set_up

    def create_module(self, spec):
        return self._cw_real.create_module(spec)

    def exec_module(self, module):
        self._cw_real.exec_module(module)
        # the module as the import system leaves it without the setup: its own loader
        module.__loader__ = self._cw_real
        if getattr(module, "__spec__", None) is not None and module.__spec__.loader is self:
            module.__spec__.loader = self._cw_real
        self._cw_set_up(module)


class _CwFinder:
    _cw_finding = set()  # a finder after this one that asks the others (the sandbox's own) comes back here

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        set_up = _CW_ON_LOAD.get(name)
        if set_up is None or name in cls._cw_finding:
            return None
        cls._cw_finding.add(name)
        try:
            for finder in _cw_sys.meta_path:
                spec = None if finder is cls else getattr(finder, "find_spec", lambda *a: None)(name, path, target)
                if spec is not None:
                    spec.loader = _CwLoader(spec.loader, set_up)
                    return spec
        finally:
            cls._cw_finding.discard(name)
        return None


# One loaded before the setup is set up now; `random` and `datetime` where their C module is (`_CW_ON_LOAD`).
if any(name not in _cw_sys.modules for name in _CW_ON_LOAD):
    _cw_sys.meta_path.insert(0, _CwFinder)
for _cw_name in ("random", "_random", "datetime", "_datetime", "_sqlite3"):
    if _cw_name in _cw_sys.modules:
        _CW_ON_LOAD[_cw_name](_cw_sys.modules[_cw_name])
"""


def setup(offset: int = 0, seed: int | None = None, pin: float | None = None) -> str:
    """The setup code of one run: the clocks `offset` seconds ahead, `random` seeded with `seed` (None: from the
    system's randomness), `random()` and its kin pinned near `pin` (None: not pinned). `setup()` is the verifier's
    run."""
    return SETUP.format(offset=int(offset), seed=None if seed is None else int(seed),
                         pin=None if pin is None else float(pin))
