"""The static reading behind `nondeterministic_check` (coworkenv/validate/_entropy_tells.py), unrun and cheap: the
draws it finds through run-time lookups, another standard module's imports or a device file, and the clock's readings
finer than a day, and the look-alikes it leaves."""

from __future__ import annotations

import pytest

from coworkenv.validate._entropy_tells import unpinned_randomness
from coworkenv.validate._module_lookups import canonical
from tests.defects import entropy_reexported

_HEAD = "import os, sys, time, uuid, builtins, importlib, json, math\nfrom datetime import date, datetime\n"


def _check(expr: str) -> str:
    return f"{_HEAD}\ndef check(state, audit, messages):\n    rows = list(state)\n    return bool({expr})\n"


@pytest.mark.parametrize("expr", [
    # randomness of the OS or the process, reached at run time (entropy_looked_up)
    "__import__('os').urandom(1)[0] < 255",
    "importlib.import_module('uuid').uuid1().int % 9",
    "getattr(__import__('time'), 'monotonic_ns')() % 7",
    "sys.modules['os'].getpid() % 9",
    "sys.modules.get('secrets').token_hex(2) != 'ffff'",
    "getattr(uuid, ''.join(['uu', 'id4']))().int % 9",
    "vars(time)['perf_counter']() % 1 < 0.999",
    "os.__dict__.get('urandom')(1)[0] < 255",
    "getattr(builtins, 'id')(object()) % 7",
    "__builtins__['hash'](repr(state)) % 7 if isinstance(__builtins__, dict) else 1",
    "(m := __import__('os')) and m.getppid() % 9",
    "exec('x = os.urandom(1)') or True",
    "__import__('o' + 's').urandom(1)[0] < 255",
    "globals()['os'].getpid() % 9",
    "os.__getattribute__('urandom')(1)[0] < 255",
    "__import__('operator').attrgetter('uuid4')(uuid)().int % 9",
    "__import__('operator').methodcaller('urandom', 1)(os)[0] < 255",
    "__import__('ssl').RAND_bytes(1)[0] < 255",
    # a clock read finer than a day (clock_digits_unprobed)
    "str(time.time())[-1] != '7'",
    "repr(datetime.now())[-3:] != '99)'",
    "f'{time.time():.6f}'[11:] < '999'",
    "datetime.now().isoformat().split('.')[1] < '999'",
    "str(datetime.now()).rpartition(':')[2] < '59'",
    "'{}'.format(time.time_ns()).endswith('7')",
    "('%s' % time.time()).strip()[-2:] != '99'",
    "datetime.utcnow().strftime('%M:%S') != '59:59'",
    "f'{datetime.now():%f}' < '999'",
    "datetime.now().hour != 3",
    "time.localtime().tm_min != 33",
    "time.gmtime()[-5] != 33",
    "datetime.now().timetz() is not None and datetime.now().time().second < 59",
    "math.fmod(time.time(), 1) < 0.999",
    "time.ctime()[17:19] != '59'",
    "datetime.now().ctime().split()[3] != '03:33:33'",
    "datetime.now().timetuple()[-4] != 59",
    "time.time() * 1000 - int(time.time()) * 1000 < 999",
    "(t := time.time()) - math.floor(t) < 0.999",
])
def test_unprobed_draw_is_found(expr: str) -> None:
    assert unpinned_randomness(_check(expr)) is not None


@pytest.mark.parametrize("expr", [
    "__import__('os').path.join('a', 'b') == 'a/b'",
    "importlib.import_module('math').floor(2.5) == 2",
    "sys.modules['os'].sep == '/' and getattr(os, 'sep') == '/'",
    "vars(os)['path'].basename('a/b') == 'b'",
    "getattr(builtins, 'hash')(7) % 9 and len({id(r) for r in rows}) == len(rows)",
    "eval('len(rows)') >= 0",
    "getattr(rows, 'count')(1) >= 0",
    "globals()['os'].sep == '/' and __import__('operator').attrgetter('sep')(os) == '/'",
    "datetime.now().isoformat()[:10] > '2000'",
    "str(time.time())[:10] > '1000000000'",
    "datetime.now().strftime('%Y-%m-%dT%H:%M:%S') > '2000'",
    "f'{datetime.now():%Y-%m-%d}' > '2000'",
    "datetime.now().isoformat().split('T')[0] > '2000' and str(date.today()).split('-')[2] <= '31'",
    "str(date.today())[-2:] <= '31' and datetime.now().date().isoformat()[8:] <= '31'",
    "time.localtime()[:3] > (2000,) and time.localtime()[0] > 2000",
    "time.ctime()[-4:] > '2000' and time.ctime().split()[-1] > '2000' and datetime.now().timetuple()[0] > 2000",
    "datetime.now().year > 2000 and datetime.now().weekday() < 7",
    "(datetime.now() - datetime(2020, 1, 1)).days > 0 and time.time() - 5 < time.time()",
    "str(rows)[-1] == ']' and str(len(rows)).split('.')[-1] >= '0'",
    "divmod(len(rows), 2)[1] < 2 and math.modf(2.5)[0] == 0.5",
])
def test_deterministic_look_alike_is_left(expr: str) -> None:
    assert unpinned_randomness(_check(expr)) is None


def test_star_import_names_the_module() -> None:
    """`from os import *` binds `getpid` as `os.getpid`; the module's deterministic names stay harmless."""
    head = "from os import *\nfrom time import *\ndef check(state, audit, messages):\n    return "
    assert unpinned_randomness(head + "getpid() % 9 > 0\n") is not None
    assert unpinned_randomness(head + "str(time())[-1] != '7'\n") is not None
    assert unpinned_randomness(head + "sep == '/' and len(state) >= 0 and hash(7) % 2 < 3\n") is None


def _reexported(expr: str, imports: str) -> str:
    return f"{imports}\ndef check(state, audit, messages):\n    rows = list(state)\n    return bool({expr})\n"


@pytest.mark.parametrize(("expr", "imports"), [
    *((draw, imports) for draw, imports, _, _ in entropy_reexported._DRAWS.values()),
    ("glob.os.getpid() % 9", "import glob\n"),
    ("subprocess._time() % 1 < 0.9", "import subprocess\n"),
    ("u.urandom(1)[0] < 255", "from uuid import os as u\n"),
    ("open(b'/dev/hwrng', 'rb').read(1)[0] < 255", ""),
    ("open('/proc/sys/kernel/random/boot_id').read()[:2] != 'ff'", ""),
    ("posix.urandom(1)[0] < 255", "import posix\n"),
    ("getpid() % 9", "from posix import getpid\n"),
    ("email.utils.os.getpid() % 9", "import email.utils\n"),
    ("concurrent.futures.process.os.urandom(1)[0] < 255", "import concurrent.futures.process\n"),
    ("events.os.getpid() % 9", "from asyncio import events\n"),
])
def test_reexported_draw_is_found(expr: str, imports: str) -> None:
    """A draw reached through another standard module's own import of it (read from that module's source), or the
    kernel's randomness read as a file (entropy_reexported)."""
    assert unpinned_randomness(_reexported(expr, imports)) is not None, expr


@pytest.mark.parametrize(("expr", "imports"), [
    *((twin, imports) for _, _, twin, imports in entropy_reexported._DRAWS.values() if twin is not None),
    ("random._os.path.join('a', 'b') == 'a/b' and logging.os.sep == '/'", "import random, logging\n"),
    ("json.dumps(rows) == '[]' and threading.current_thread().name == 'MainThread'", "import json, threading\n"),
    ("open('/dev/null').read() == '' and 'urandom' != 'random'", ""),
    ("posix.sep if hasattr(posix, 'sep') else posix.getcwd is not None", "import posix\n"),
    ("email.utils.parseaddr('a <a@b.c>')[1] == 'a@b.c' and email.utils.os.sep == '/'", "import email.utils\n"),
    ("json.JSONDecoder().decode('[]') == []", "import json\n"),
])
def test_reexported_look_alike_is_left(expr: str, imports: str) -> None:
    assert unpinned_randomness(_reexported(expr, imports)) is None, expr


def test_canonical_reads_the_modules_source() -> None:
    """`canonical` follows a standard module's own imports, unimported; other names stay as they are."""
    assert canonical("random._urandom") == "os.urandom"
    assert canonical("uuid.os.getpid") == "os.getpid"
    assert canonical("threading._time") == "time.monotonic"
    assert canonical("os.urandom") == "os.urandom"
    assert canonical("no_such_module.os") == "no_such_module.os"
    # a C module's members under the standard module that re-exports them, a submodule's own import, a relative one
    assert canonical("posix.urandom") == "os.urandom"
    assert canonical("email.utils.os.getpid") == "os.getpid"
    assert canonical("concurrent.futures.process.os.getpid") == "os.getpid"
    assert canonical("json.JSONDecoder") == "json.decoder.JSONDecoder"
