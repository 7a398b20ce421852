"""The static reading of values drawn afresh for every run that are neither a clock nor a generator
(coworkenv/validate/_run_draws.py, behind `nondeterministic_check`), unrun and cheap: the sandbox's scratch path,
temporary names, mapped ids and counters (sandbox_draw_read), addresses, salted hashes and a set's order
(address_read), and the look-alikes it leaves."""

from __future__ import annotations

import pytest

from coworkenv.validate._entropy_tells import unpinned_randomness
from coworkenv.validate._machine_reads import machine_read
from tests.defects import address_read, boot_module_read, clock_bits_unprobed, run_value_read, sandbox_draw_read

_HEAD = ("import os, sys, time, tempfile, pathlib, threading, hashlib, zlib\n"
         "from datetime import datetime, timezone\n")


def _check(expr: str, head: str = _HEAD) -> str:
    return (f"{head}\ndef check(state, audit, messages):\n    rows = list(state)\n    seen = set()\n"
            f"    return bool({expr})\n")


_MODULES = (sandbox_draw_read, address_read, clock_bits_unprobed)
_CORPUS = [(read, imports) for m in _MODULES for read, imports, _, _ in m._READS.values()]
_CORPUS_TWINS = [(twin, imports) for m in _MODULES for _, _, twin, imports in m._READS.values() if twin is not None]


@pytest.mark.parametrize(("expr", "imports"), [*_CORPUS, *[(e, "") for e in (
    "os.getcwdb()[-3:] != b'zzz'",
    "pathlib.Path.home().name != 'x'",
    "str(pathlib.Path('report.csv').absolute())[-14:-12] != 'qq'",
    "os.path.realpath(rows[0] if rows else 'x')[-9] != 'q'",
    "dict(os.environ).get('TMPDIR', '')[-7] != 'q'",
    "os.environ.get('TEMP') is None or os.environ.get('TEMP')[-7] != 'q'",
    "sys.orig_argv[-1][-2:] != 'zq'",
    "sys.getallocatedblocks() % 1000 < 999",
    "__import__('gc').get_count()[0] != 7 and __import__('tracemalloc').get_traced_memory()[0] != 40",
    "(k := id(rows)) and hex(k)[-3:] != 'fff'",
    "sorted(rows, key=lambda r: id(r)) == rows",
    "'%x' % id(rows) != 'abc'",
    "'%r' % (object(),) != ''",
    "repr(x for x in rows)[-3] != 'f'",
    "str(iter(rows))[-5:-2] != 'fff'",
    "threading.main_thread().native_id % 7 != 0",
    "[*{'a', 'b', 'c'}][0] != 'c'",
    "tuple(set(str(r) for r in range(9))) != tuple('012345678')",
    "str({'a', 'b'}) != \"{'b', 'a'}\"",
    "oct(time.time_ns())[-2:] != '77'",
    "[r for r in set(map(str, rows))][:1] != ['x']",
    "sorted(rows, key=id) == rows",
    "os.cpu_count() < 64",
    "getattr(datetime.now(), 'second') != 33 and datetime.now().__getattribute__('microsecond') < 999000",
    "zlib.crc32(repr(time.time()).encode()) < 4000000000",
    "float.hex(time.time())[-6:-4] != 'ff'",
    "time.localtime()[int('５')] != 33",
    "(datetime.now(timezone.utc) - datetime(2026, 1, 1, tzinfo=timezone.utc)).microseconds < 999000",
)]])
def test_run_draw_is_found(expr: str, imports: str) -> None:
    assert unpinned_randomness(_check(expr, _HEAD + imports)) is not None


@pytest.mark.parametrize(("expr", "imports"), [*_CORPUS_TWINS, *[(e, "") for e in (
    "id(rows) != id(seen) and id(rows) in {id(rows)} and (id(rows), 1) in {(id(rows), 1)}",
    "seen.add(id(rows)) is None and len({id(r): r for r in rows}) == len(rows)",
    "{hash(str(r)) for r in rows} is not None and hash(7) % 9 == 7",
    "sorted({'b', 'a'})[0] == 'a' and min({'b', 'a'}) == 'a' and 'a' in {'a'} and len(set('ab')) == 2",
    "list({1, 2, 3})[0] == 1 and {3, 1}.pop() == 1",
    "set(rows) == {'a'} or set(rows) != {'a'}",
    "repr(object) == \"<class 'object'>\" and str(len(rows)).isdigit() and repr(rows) == str(rows)",
    "f'{len(rows)}' == str(len(rows)) and '{}'.format(rows) == str(rows)",
    "os.environ.get('TZ', 'UTC') == 'UTC' and ('TZ' in os.environ or True) and os.getenv('TZ') != 'X'",
    "os.environ['TZ'] == 'UTC' if 'TZ' in os.environ else True",
    "os.path.abspath('/srv/app') == '/srv/app' and pathlib.Path('/srv').resolve() is not None",
    "__import__('gc').collect() >= 0 and __import__('gc').isenabled()",
    "os.path.abspath(rows[0] if rows else 'a') == os.path.abspath('a') and pathlib.Path('b').resolve() != 1",
    "os.path.join('a', 'b') == 'a/b' and os.path.normpath('a/../b') == 'b' and pathlib.Path('a/b').name == 'b'",
    "threading.current_thread().name == 'MainThread' and tempfile.gettempprefix() == 'tmp'",
    "hex(len(rows)) == '0x0' and format(len(rows), 'x') == '0' and len(rows).to_bytes(2, 'big') == b'\\0\\0'",
    "hashlib.sha256(str(datetime.now().date()).encode()).digest() != b'' and getattr(datetime.now(), 'year') > 2000",
    "(datetime.now() - datetime(2020, 1, 1)).total_seconds() > 0 and str(time.time())[:4] > '1000'",
    "datetime.now().replace(hour=0, minute=0) <= datetime.now().replace(year=2100)",
)]])
def test_shared_look_alike_is_left(expr: str, imports: str) -> None:
    assert unpinned_randomness(_check(expr, _HEAD + imports)) is None


def test_first_member_of_a_set_by_a_loop_is_found() -> None:
    """`for x in s: return x` meets the members in the order their hashes decide; a loop over all of them does not
    depend on it."""
    first = "def check(state, audit, messages):\n    for name in set(state):\n        return name == 'x'\n" \
            "    return False\n"
    every = "def check(state, audit, messages):\n    n = 0\n    for name in set(state):\n        n += 1\n" \
            "    return n > 0\n"
    assert unpinned_randomness(first) is not None
    assert unpinned_randomness(every) is None


def _either(code: str) -> str | None:
    return unpinned_randomness(code) or machine_read(code)


_RUN_VALUES = [(read, imports) for read, imports, _, _ in run_value_read._READS.values()]
_RUN_VALUE_TWINS = [(twin, imports) for _, _, twin, imports in run_value_read._READS.values() if twin is not None]


@pytest.mark.parametrize(("expr", "imports"), [*_RUN_VALUES, *[(e, "") for e in (
    "os.path.expandvars(rows[0]) != 'x'",
    "time.clock_gettime_ns(time.CLOCK_THREAD_CPUTIME_ID) < 10**9",
)]])
def test_run_or_machine_value_is_found(expr: str, imports: str) -> None:
    """run_value_read: the scratch variable expanded in a text, a clock the probes do not move asked by its id, the
    page size, the interpreter's build, the host's stack limit."""
    assert _either(_check(expr, _HEAD + imports)) is not None, expr


@pytest.mark.parametrize(("expr", "imports"), [*_RUN_VALUE_TWINS, *[(e, "") for e in (
    "os.path.expandvars('plain text') == 'plain text'",
    "time.clock_gettime(time.CLOCK_TAI) > 0 and time.clock_gettime(11) > 0",
)]])
def test_value_every_run_answers_alike_is_left(expr: str, imports: str) -> None:
    """A text with no scratch variable, the wall clocks by id (which the probes move), the open-files limit the
    sandbox sets."""
    assert _either(_check(expr, _HEAD + "import resource\n" + imports)) is None, expr


_BOOT = [(read, imports) for read, imports, _, _ in boot_module_read._READS.values()]
_BOOT_TWINS = [(twin, imports) for _, _, twin, imports in boot_module_read._READS.values() if twin is not None]


@pytest.mark.parametrize(("expr", "imports"), [*_BOOT, *[(e, "") for e in (
    "'x' not in str(sys.modules.get('__main__'))",
    "'x' not in vars(sys.modules['__main__'])['__file__']",
    "'x' not in getattr(__import__('__main__'), '__file__')",
    "len(sys.path_importer_cache) > 0",
)]])
def test_boot_module_read_is_found(expr: str, imports: str) -> None:
    """boot_module_read: the sandbox's boot module (its file in the scratch directory's random name), however
    reached, and the importer cache naming the same file."""
    assert _either(_check(expr, _HEAD + imports)) is not None, expr


@pytest.mark.parametrize(("expr", "imports"), [*_BOOT_TWINS, *[(e, "") for e in (
    "__name__ != '__main__' and 'sys' in sys.modules and sys.modules['json'] is not None",
)]])
def test_module_look_alike_is_left(expr: str, imports: str) -> None:
    """The check's own module name compared with a text, another module looked up in `sys.modules`."""
    assert _either(_check(expr, _HEAD + "import json\n" + imports)) is None, expr
