"""The static reading of a Python check's reads of the machine it runs on (coworkenv/validate/_machine_reads.py,
behind `nondeterministic_check`), unrun and cheap: the CPU, the interpreter's version, build and install, the C
library (machine_read), against what every machine able to run the verifier answers alike."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from coworkenv.validate._machine_reads import SUPPORTED, machine_read
from tests.defects import machine_read as corpus
from tests.defects import version_value_read

_HEAD = "import sys, os, platform, sysconfig, shutil\n"


def _check(expr: str, head: str = _HEAD) -> str:
    return f"{head}\ndef check(state, audit, messages):\n    rows = list(state)\n    return bool({expr})\n"


_CORPUS = [(read, imports) for read, imports, _, _ in corpus._READS.values()]
_CORPUS_TWINS = [(twin, imports) for _, _, twin, imports in corpus._READS.values() if twin is not None]


def test_supported_version_is_the_projects() -> None:
    """The oldest supported Python the reading assumes is pyproject's `requires-python`."""
    project = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]
    found = re.fullmatch(r">=\s*(\d+)\.(\d+)", project["requires-python"].strip())
    assert found is not None, project["requires-python"]
    assert (int(found.group(1)), int(found.group(2))) == SUPPORTED


@pytest.mark.parametrize(("expr", "imports"), [*_CORPUS, *[(e, "") for e in (
    "platform.processor() == 'x86_64'",
    "sys.prefix.startswith('/usr')",
    "sys.path[-1].endswith('lib-dynload')",
    "sysconfig.get_config_var('SOABI') == 'cpython-311-x86_64-linux-gnu'",
    "(m := platform.machine()) and m == 'x86_64'",
    "sys.version_info > (3, 11)",
    "sys.version_info.minor == 11",
    "sys.version_info[1] < 12",
    "(3, 12) > sys.version_info",
    "sys.modules['platform'].machine() == 'x86_64'",
    "platform.uname().machine == 'x86_64'",
    "shutil.disk_usage('/').free > 0",
    "f'{sys.version_info}' != ''",
    "sys.thread_info.version == 'NPTL 2.36'",
    "sys.thread_info.lock == 'semaphore'",
    "str(sys.thread_info).endswith(\"'NPTL 2.36')\")",
)]])
def test_machine_read_is_found(expr: str, imports: str) -> None:
    assert machine_read(_check(expr, _HEAD + imports)) is not None, expr


@pytest.mark.parametrize(("expr", "imports"), [*_CORPUS_TWINS, *[(e, "") for e in (
    "sys.version_info >= (3, 11) and sys.version_info > (3, 10) and not sys.version_info < (3, 11)",
    "sys.version_info[0] == 3 and sys.version_info.major >= 3 and sys.version_info[1] >= 11",
    "(3, 9) <= sys.version_info and 3 == sys.version_info.major",
    "sys.platform == 'linux' and platform.system() == 'Linux' and sys.maxsize > 2 ** 32",
    "os.uname().sysname == 'Linux' and os.uname().nodename != '' and platform.uname().release != ''",
    "sys.float_info.epsilon < 1e-9 and sys.byteorder in ('little', 'big') and sys.implementation.name == 'cpython'",
    "os.path.join('a', 'b') == 'a/b' and sys.getrecursionlimit() > 0 and os.sep == '/'",
    "sys.thread_info.name == 'pthread' and sys.int_info.bits_per_digit == 30 and sys.byteorder == 'little'",
    "sys.getrecursionlimit() == 1000 and sys.float_info.max > 1e308 and sys.float_info.mant_dig == 53",
)]])
def test_shared_value_is_left(expr: str, imports: str) -> None:
    assert machine_read(_check(expr, _HEAD + imports)) is None, expr


@pytest.mark.parametrize(("expr", "imports"), [*[(read, imports) for read, imports, _, _ in
                                                  version_value_read._READS.values()], *[(e, "") for e in (
    "__import__('gc').collect() > 10",
    "(n := __import__('gc').collect()) >= 0",
)]])
def test_version_value_is_found(expr: str, imports: str) -> None:
    """version_value_read: the locale's name as the alias table gives it, the collector's thresholds or a kept
    count, the copyright's years."""
    assert machine_read(_check(expr, _HEAD + imports)) is not None, expr


def test_bare_collection_and_locale_settings_are_left() -> None:
    """A bare `gc.collect()` (its count thrown away), the locale's encoding and the C library's setting."""
    head = _HEAD + "import gc, locale\ngc.collect()\n"
    expr = "locale.getencoding() == 'UTF-8' and locale.localeconv()['decimal_point'] == '.'"
    assert machine_read(_check(expr, head)) is None


@pytest.mark.parametrize(("expr", "imports"), [
    ("locale.locale_alias['c.utf8'] == 'en_US.UTF-8'", "import locale\n"),
    ("normalize('c.utf8').startswith('en_US')", "from locale import normalize\n"),
    ("len(list(sys.modules.keys())) < 60", ""),
    ("len(sys.modules.copy()) == 57", ""),
    ("len(dir(builtins)) < 160", "import builtins\n"),
    ("len(builtins.__dict__) == 158", "import builtins\n"),
])
def test_alias_table_and_module_count_are_found(expr: str, imports: str) -> None:
    """version_value_read: the locale alias table (what `normalize` reads), how many modules the interpreter loaded."""
    assert machine_read(_check(expr, _HEAD + imports)) is not None, expr


def test_whether_a_module_or_a_builtin_is_there_is_left() -> None:
    """Whether a module is loaded or a built-in there, and the size of something else, name no count of the
    interpreter's."""
    expr = "'os' in sys.modules and sys.modules.get('json') is None and len(sys.modules['os'].sep) == 1 and " \
        "'len' in dir(builtins) and len(dir(rows)) > 0 and len(vars(os.path)) > 0"
    assert machine_read(_check(expr)) is None


@pytest.mark.parametrize(("expr", "imports"), [
    ("'type' not in keyword.softkwlist", "import keyword\n"),
    ("importlib.util.MAGIC_NUMBER[:2] == b'\\xa7\\r'", "import importlib.util\n"),
    ("dis.opmap['LOAD_CONST'] == 100", "import dis\n"),
    ("'OpenSSL 3.0' in ssl.OPENSSL_VERSION", "import ssl\n"),
    ("zlib.ZLIB_RUNTIME_VERSION == '1.2.13'", "import zlib\n"),
    ("expat.EXPAT_VERSION.startswith('expat_2.5')", "from xml.parsers import expat\n"),
    ("'sm3' not in hashlib.algorithms_available", "import hashlib\n"),
])
def test_shipped_data_and_library_versions_are_found(expr: str, imports: str) -> None:
    """version_value_read and machine_read: what the interpreter's version ships (soft keywords, byte code numbers)
    and the C libraries of the image (OpenSSL, zlib, expat, the hash algorithms they offer)."""
    assert machine_read(_check(expr, _HEAD + imports)) is not None, expr


def test_what_every_supported_version_ships_alike_is_left() -> None:
    """Hard keywords, the highest pickle protocol, the guaranteed hash algorithms, a letter's Unicode category."""
    head = _HEAD + "import hashlib, keyword, pickle, unicodedata\n"
    expr = "keyword.iskeyword('def') and pickle.HIGHEST_PROTOCOL == 5 and 'sha256' in hashlib.algorithms_guaranteed " \
        "and unicodedata.category('a') == 'Ll'"
    assert machine_read(_check(expr, head)) is None
