"""Clock bits unprobed: a Python check fails a correct agent at random, by the wall clock's digits finer than a day
(which the clock probes, moving by whole days, leave as random as they were) reached by a route clock_digits_unprobed's
reading did not follow: the clock's number in other digits or as bits (`hex(time.time_ns())[-3:]`, `bin(...)`,
`format(t, 'x')`, `t.to_bytes(...)[-1]`, `t.bit_count()`, `time.time().hex()`, `struct.pack('<d', t)[0]`), a hash of
its text (`hashlib.sha256(str(time.time_ns()).encode()).digest()[0]`, `binascii.crc_hqx(...)`), a time-of-day field
named at run time (`operator.attrgetter('microsecond')(now)`), the time of day as a difference (`now -
now.replace(hour=0, ...)`, `(now - datetime(2026, 1, 1)).seconds`, `now.replace(microsecond=0) != now`), or a cut of
its text whose bound is computed, here from a full-width digit (`str(time.time_ns())[-int('３'):]`, which the reading,
wanting a constant bound, let pass). Main accepted every defect here.

The sound twins are the same Python check without the clock, and look-alikes that read the clock down to the date
only: the prefix of its hex text (`hex(time.time_ns()).startswith('0x')`), the day as a difference
(`(now - datetime(2020, 1, 1)).days`), midnight compared with a deadline, a hash of the date's text, `int('３')`
alone.

Caught unrun by the sandbox gate (`nondeterministic_check`): the reading (`coworkenv/validate/_entropy_tells.py`)
takes the clock's number in other digits (`hex`, `oct`, `bin`, `format` with a number's spec) for its text, its bytes
and bits (`to_bytes`, `bit_count`, `float.hex`, `struct.pack`) and a hash of its text finer than the date for its
digits, a time-of-day field named by a constant (`getattr`, `attrgetter`, `__getattribute__`) for the field, a clock
compared with or minus itself with its time of day replaced, a difference's `seconds` or `microseconds`, and a cut of
its text with a bound computed at run time as one past the date.
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "clock_bits_unprobed"
DETECTION = (
    "follow a clock read into other digits (hex, bin, a number's format spec), its bytes and bits (to_bytes, "
    "bit_count, float.hex, struct.pack), a hash of its text, a time-of-day field named at run time, a difference with "
    "its own time of day replaced, a difference's seconds, and a cut with a computed bound, and reject it unrun"
)

# name: (the reading, imports, the look-alike reading the date only or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "hex-tail": ("hex(time.time_ns())[-3:] != 'fff'", "", "hex(time.time_ns()).startswith('0x')", ""),
    "bin-tail": ("bin(time.time_ns())[-10:] != '1' * 10", "", None, ""),
    "format-hex": ("format(time.time_ns(), 'x')[-3:] != 'abc'", "", None, ""),
    "to-bytes": ("time.time_ns().to_bytes(8, 'big')[-1] != 255", "", None, ""),
    "bit-count": ("time.time_ns().bit_count() < 44", "", None, ""),
    "float-hex": ("time.time().hex()[-7:-4] != 'fff'", "", None, ""),
    "struct-pack": ("struct.pack('<d', time.time())[0] != 255", "import struct\n", None, ""),
    "digest": ("hashlib.sha256(str(time.time_ns()).encode()).digest()[0] < 255", "import hashlib\n",
               "hashlib.sha256(datetime.now().strftime('%Y-%m-%d').encode()).digest() != b''", "import hashlib\n"),
    "crc": ("binascii.crc_hqx(datetime.now().isoformat().encode(), 0) < 65500", "import binascii\n", None, ""),
    "attrgetter": ("operator.attrgetter('microsecond')(datetime.now()) < 999000", "import operator\n",
                   "operator.attrgetter('year')(datetime.now()) >= 2000", "import operator\n"),
    "midnight-delta": ("(datetime.now() - datetime.now().replace(hour=0, minute=0, second=0, microsecond=0))"
                       ".seconds != 12345", "",
                       "datetime.now().replace(hour=0, minute=0, second=0, microsecond=0) > datetime(2000, 1, 1)", ""),
    "delta-seconds": ("(datetime.now() - datetime(2026, 1, 1)).seconds != 12345", "",
                      "(datetime.now() - datetime(2020, 1, 1)).days > 0", ""),
    "replace-micro": ("(n := datetime.now()).replace(microsecond=0) != n", "", None, ""),
    "fullwidth-cut": ("int(str(time.time_ns())[-int('３'):]) < 999", "", "int('３') == 3", ""),
    "computed-cut": ("int(repr(time.time())[-len('abc'):].strip('.') or 0) < 999", "", None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, ("the clock's digits finer than a day, which the clock probes, moving by "
                                             "whole days, leave as random as they were"), start=1)
