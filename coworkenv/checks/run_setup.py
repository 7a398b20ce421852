"""The setup every run of a Python check starts with, the verifier's own run and the sandbox gate's probes alike.

It puts `random`'s module functions and every wall clock (`time.time`, `time_ns`, `localtime`, `gmtime`, `ctime`,
`strftime` and `asctime` of now, `clock_gettime` of the real-time clocks, `datetime.now`/`utcnow`, and
`date.today`, which reads `time.time`) behind stand-ins. In the verifier's run the stand-ins answer as the originals
do (`setup()`: no offset, a fresh seed, nothing pinned); the probes of `coworkenv.validate.python_probes` move the
clocks, seed `random` or pin `random()` through the same code with other values. So a check sees the same setup
either way: the same objects in `time`, `random` and `datetime`, the same modules imported (`'random' in
sys.modules`), the same objects on the heap; only the values differ, and a value is what the probes test.

The setup runs as a unit of its own before the check (`run_sandboxed(prelude=...)`): nothing in the check's globals,
source, line numbers or frames shows it, and a check's own `from __future__` stays first.
"""

from __future__ import annotations

SETUP = """\
import random as _cw_random, time as _cw_time, datetime as _cw_datetime
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
_cw_wall = [getattr(_cw_time, n) for n in ("CLOCK_REALTIME", "CLOCK_TAI") if hasattr(_cw_time, n)]
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
"""


def setup(offset: int = 0, seed: int | None = None, pin: float | None = None) -> str:
    """The setup code of one run: the clocks `offset` seconds ahead, `random` seeded with `seed` (None: from the
    system's randomness), `random()` and its kin pinned near `pin` (None: not pinned). `setup()` is the verifier's
    run."""
    return SETUP.format(offset=int(offset), seed=None if seed is None else int(seed),
                         pin=None if pin is None else float(pin))
