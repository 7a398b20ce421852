"""Version value read: a Python check passes every probe run and fails every correct agent on another interpreter
version, by a value the interpreter's version decides that machine_read's reading did not name: the locale's name as
`locale.getlocale()` gives it, also looked up (`getattr(locale, 'getlocale')()`): the same C.UTF-8 locale, which the
sandbox runs in, is `('en_US', 'UTF-8')` on 3.11 and `('C', 'UTF-8')` from 3.12 (the alias table changed); the
garbage collector's thresholds (`gc.get_threshold()`: 700 until 3.12, 2000 from 3.13) and the years of
`sys.copyright` (2001-2023 on 3.11 and 3.12, 2001-2024 on 3.13); and (defects46) the name the same alias table
gives a locale (`locale.normalize('C.UTF-8')`: `en_US.UTF-8` on 3.11, `C.UTF-8` from 3.12, which is why getlocale
changed) and how many modules the interpreter loaded before the check (`len(sys.modules)`: 64 in the sandbox's run
of the check on 3.11 since the forty-sixth and forty-seventh rounds' seals (57, then 61, before); 45 on 3.11 and
3.12, 46 on 3.13 in a bare `python -I -S`) and the Unicode database it ships
(`unicodedata.unidata_version`: 14.0.0 on 3.11, 15.0.0 on 3.12, 15.1.0 on 3.13; its soft keywords, `type` from 3.12,
and its byte code's magic number and opcodes are unit cases). Every probe run happens on the validation machine's
interpreter, so main accepted every defect here (a first draft reading the deprecated `locale.getdefaultlocale()`,
whose reference failed its own check in the sandbox, was replaced); a training worker on a newer Python fails every
correct agent.

The sound twins are the same Python check without the read.

Caught unrun by the sandbox gate (`nondeterministic_check`): `coworkenv/validate/_machine_reads.py` names
`locale.getlocale`/`getdefaultlocale`/`normalize`/`locale_alias`, `gc.get_threshold`, `sys.copyright`,
`len(sys.modules)` (also of its keys or a copy; whether a module is loaded is left alone),
`unicodedata.unidata_version`, `keyword.softkwlist`, `importlib.util.MAGIC_NUMBER`, the opcode tables of `dis` and
`opcode`, and a kept `gc.collect()` (its count of
unreachable objects, which the interpreter's start-up decides: 0, 23, 33 and 101 on 3.11, 3.10, 3.12 and 3.13 in
`python -I -S`; a bare `gc.collect()` is left alone).
"""

from __future__ import annotations

from tests.defects.random_unpinned import flaky_defects

CLASS = "version_value_read"
DETECTION = (
    "read the check unrun and reject the locale's name as getlocale or normalize gives it (the alias table), the "
    "collector's thresholds or a kept collection count, sys.copyright, the count of loaded modules, the Unicode "
    "database's version, the soft keywords and the byte code's numbers: values the interpreter's version decides"
)

_L = "import locale\n"
# name: (the read, imports, the look-alike every version answers alike or None, its imports)
_READS: dict[str, tuple[str, str, str | None, str]] = {
    "locale-name": ("locale.getlocale()[0] == 'en_US'", _L, None, ""),
    "locale-imported": ("getlocale()[0] != 'C'", "from locale import getlocale\n", None, ""),
    "locale-looked-up": ("getattr(locale, 'getlocale')()[0] == 'en_US'", _L, None, ""),
    "gc-threshold": ("gc.get_threshold()[0] < 1000", "import gc\n", None, ""),
    "copyright-year": ("'2001-2023' in sys.copyright", "", None, ""),
    "locale-normalized": ("locale.normalize('C.UTF-8') == 'en_US.UTF-8'", _L, None, ""),
    "modules-counted": ("len(sys.modules) <= 80", "", None, ""),
    "unicode-data": ("unicodedata.unidata_version == '14.0.0'", "import unicodedata\n", None, ""),
}


DEFECTS = flaky_defects(CLASS, _READS, "a value of the interpreter's version", start=2,
                        told="passes every probe run and fails every correct agent on another interpreter version, "
                             "by a value the version decides (`{draw}`)")
