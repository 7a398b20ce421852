"""What the host computes once for every call of a process gives the child what computing it per call gave (perf71):
the bootstrap's byte-code file from a template, the C library's own /proc and /sys texts from the host's copy of the
library, the caller's setup code compiled in the host, where `_sqlite3`'s hook setters and backup parser lie
(suitetime6)."""

from __future__ import annotations

import ctypes
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from coworkenv.sandbox import _confine, _host, run_sandboxed


@pytest.mark.parametrize("path", [
    tempfile.gettempdir() + "/coworkenv-sandbox-k2j4_x9q/boot.py", "/tmp/coworkenv-sandbox-abcdefgh/boot.py",
    "/tmp/coworkenv-sandbox-zzzzzzzz/boot.py", "/b", "/tmp/r\u00e9pertoire/boot.py", "/tmp/" + "x" * 300 + "/boot.py",
])
def test_the_bootstrap_file_from_the_template_is_the_one_made_for_its_path(path: str) -> None:
    assert _host.bootstrap_bytes(path) == _host._bootstrap_file(path)


def test_the_c_librarys_paths_taken_from_the_host_are_those_a_scan_finds() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    scanned = _confine.c_library_host_paths(libc)
    known = _confine.c_library_path_offsets(libc)
    if known is None:
        pytest.skip("this C library has no build id or no such texts")
    assert _confine.c_library_host_paths(libc, known) == scanned
    # Another build, other segments, an address that holds no such text, junk: the library is scanned instead.
    for other in ({**known, "build_id": "00" * 20}, {**known, "loads": known["loads"][:-1]},
                  {**known, "offsets": [*known["offsets"][:-1], known["offsets"][-1] + 1]},
                  {**known, "offsets": [-(2**40)]}, {**known, "offsets": ["x"]}, {"build_id": known["build_id"]}):
        assert _confine._known_paths(0, [], other) == ()
        assert _confine.c_library_host_paths(libc, other) == scanned


SQLITE_FRESH = """if True:
    import importlib.machinery, importlib.util, json, sys
    spec = importlib.util.spec_from_file_location("_confine", sys.argv[1])
    confine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(confine)
    known = json.loads(sys.argv[2])
    origin = importlib.machinery.PathFinder.find_spec("_sqlite3").origin
    base, loads = confine._sqlite_mapping(origin)
    scanned = confine._sqlite_entries(base, loads, fresh=True)
    print(confine._known_sqlite_entries(origin, base, loads, known) == scanned)
    for other in ({**known, "build_id": "00" * 20}, {**known, "loads": known["loads"][:-1]},
                  {**known, "origin": origin + "x"}, {**known, "source": known["source"] + 8},
                  {**known, "targets": known["targets"][:2]}, {**known, "targets": [known["source"]] * 3},
                  {**known, "parser": known["parser"] - 8}, {**known, "parser": -(2**40)}, {**known, "source": "x"},
                  {"origin": origin}):
        print(confine._known_sqlite_entries(origin, base, loads, other))
    print(confine.seal_sqlite_hooks(known))
    import sqlite3
    con = sqlite3.connect(":memory:")
    print(hasattr(con, "set_authorizer"))
    try:
        con.backup(sqlite3.connect(":memory:"), progress=print)
    except TypeError:
        print("refused")
"""


def test_sqlite_entries_taken_from_the_host_are_those_a_scan_finds() -> None:
    """The host (whose own `_sqlite3` may have run: its backup parser holds a keyword tuple) finds the entries once;
    a fresh interpreter takes them where they check out (the scan's result), scans on any mismatch, and seals."""
    import sqlite3

    used, copy = sqlite3.connect(":memory:"), sqlite3.connect(":memory:")
    used.backup(copy, pages=1, progress=lambda *args: None)  # this process's parser gets its keyword tuple
    used.close()
    copy.close()
    known = _confine.sqlite_hook_offsets()
    if known is None:
        pytest.skip("no _sqlite3 file, or not the tables this bootstrap knows")
    confine = Path(_confine.__file__)
    done = subprocess.run([sys.executable, "-I", "-S", "-c", SQLITE_FRESH, str(confine), json.dumps(known)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.split() == ["True", *["None"] * 10, "None", "False", "refused"], (
        done.stdout, done.stderr)


OBJECT_DICTS_FRESH = """if True:
    import importlib.util, json, sys
    spec = importlib.util.spec_from_file_location("_confine", sys.argv[1])
    confine = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(confine)
    known = json.loads(sys.argv[2])
    print(confine._dict_setter_definitions(known, set()) == confine._dict_setter_definitions(None, set()))
    print(confine.seal_object_dicts(known))
    import ast
    node = ast.parse("x").body[0]
    try:
        node.__dict__ = {}
    except AttributeError:
        print("refused")
"""


def test_object_dict_setters_taken_from_the_host_are_those_a_scan_finds() -> None:
    """The host finds the `__dict__` setters' definitions once (the `_ast` nodes' among them, whose types no one has
    made); a fresh interpreter takes them where they check out (the scan's result), scans where they do not (another
    build, one moved out of the writable data), and seals the nodes made after it."""
    known = _confine.object_dict_offsets()
    if known is None:
        pytest.skip("no dladdr or build id here")
    assert len(known["offsets"]) >= 8
    confine = Path(_confine.__file__)
    for given in (known, {**known, "build_id": "00" * 20}, {**known, "offsets": [*known["offsets"][1:], 8]}):
        done = subprocess.run([sys.executable, "-I", "-S", "-c", OBJECT_DICTS_FRESH, str(confine), json.dumps(given)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0 and done.stdout.split() == ["True", "None", "refused"], (given, done.stdout, done.stderr)


SHOWS_SETUP = "import sys\ndef check():\n    return [sys.setup_file, sorted(sys._getframe(1).f_locals)]\n"


def test_a_setup_compiled_by_the_host_runs_as_the_childs_own_did() -> None:
    ran = run_sandboxed(SHOWS_SETUP, "check", {}, prelude="import sys\ndef f():\n    pass\nsys.setup_file = f.__code__.co_filename\n")
    assert ran.ok, ran
    assert ran.value[0] == "<setup>" and "prelude" not in ran.value[1]
    broken = run_sandboxed(SHOWS_SETUP, "check", {}, prelude="def (:\n")  # compiled, and refused, in the child
    assert broken.error_kind == "exception"
    assert (broken.error or "").startswith("the setup failed before the code ran: SyntaxError")
    raising = run_sandboxed(SHOWS_SETUP, "check", {}, prelude="raise KeyError(3)\n")
    assert raising.error == "the setup failed before the code ran: KeyError: 3"


# suitetime10: the code's compile without compile()'s one-off set-up of the `_ast` node types, and the child's modules
# without a run-time import of `__future__`.
EARLY_SOURCES = [
    "def check(n):\n    return n + 1\n",
    "from __future__ import annotations\nimport dataclasses\n@dataclasses.dataclass\nclass P:\n    x: int\n",
    "# -*- coding: latin-1 -*-\ns = 'r\u00e9sum\u00e9 \u2603'\n",
    "async def f():\n    return [x async for x in g()]\nlambda: (yield)\nclass A:\n    def m(self):\n        return super().m()\n",
    "x = 1\r\ny = 2\r\n", "",
]
EARLY_REFUSED = ["def (:\n", "x = 1\n\x00", "s = '\udc80'\n", "ok = 1 is 1\n", "p = '\\d'\n", "(" * 300 + ")" * 300]


def _early(source: str) -> dict[str, object]:
    from coworkenv.sandbox import _child

    early: dict[str, object] = {"source": source}
    _child.compile_early(early, ctypes)
    return early


@pytest.mark.parametrize("source", EARLY_SOURCES)
def test_the_early_compile_makes_the_code_object_compile_makes(source: str) -> None:
    early = _early(source)
    assert early["code"] == compile(source, "<sandboxed>", "exec", dont_inherit=True), source
    assert early["limit"] == sys.getrecursionlimit() and "source" not in early


def test_the_early_compile_leaves_what_would_fail_or_warn_to_compile_at_the_codes_turn() -> None:
    import warnings

    filters, before = warnings.filters, list(warnings.filters)
    for source in EARLY_REFUSED:  # a syntax error, a NUL, a lone surrogate, two warnings, too deep a nesting
        assert "code" not in _early(source), source
        assert warnings.filters is filters and warnings.filters == before


def test_the_early_code_is_used_only_where_the_setup_changed_nothing_compile_depends_on() -> None:
    import builtins

    from coworkenv.sandbox import _child

    made = _early(EARLY_SOURCES[0])
    assert _child.early_compiled({"early": dict(made)}) is made["code"]
    assert _child.early_compiled({}) is None
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + 7)
    try:
        assert _child.early_compiled({"early": dict(made)}) is None
    finally:
        sys.setrecursionlimit(limit)
    original = builtins.compile
    builtins.compile = lambda *args, **kwargs: original(*args, **kwargs)  # type: ignore[assignment]
    try:
        assert _child.early_compiled({"early": dict(made)}) is None
    finally:
        builtins.compile = original


def test_the_childs_modules_keep_their_annotations_flag_without_importing_future() -> None:
    import __future__

    import types

    def codes(code: types.CodeType) -> list[types.CodeType]:
        return [code, *(c for k in code.co_consts if isinstance(k, types.CodeType) for c in codes(k))]

    source = Path(_host.__file__).with_name("_child.py").read_text(encoding="utf-8")
    made, plain = _host.compile_for_child(source, "boot.py"), compile(source, "boot.py", "exec", dont_inherit=True)
    assert "__future__" not in made.co_names and "__future__" in plain.co_names
    assert made.co_flags & __future__.annotations.compiler_flag
    assert codes(made)[1:] == codes(plain)[1:]  # every function and class as compiled from the source


AST_AND_FUTURE = ("import sys\ndef check():\n    return [sorted({c.__name__ for c in object.__subclasses__()} & {'AST', "
                  "'mod', 'expr'}), '__future__' in sys.modules]\n")


def test_a_run_builds_no_ast_types_and_imports_no_future_module_before_the_code() -> None:
    """compile() built the `_ast` module's ~120 node types in every run (1.0-1.5 ms of CPU) and the child's modules
    imported `__future__` (0.2-0.4 ms): main answered [['AST', 'expr', 'mod'], True]."""
    ran = run_sandboxed(AST_AND_FUTURE, "check", {})
    assert ran.ok and ran.value == [[], False], ran


SQLITE_WITHOUT_FUNCTOOLS = """if True:
    import sys
    confine = {"__name__": "_confine"}  # no importlib.util: it would load functools
    with open(sys.argv[1], encoding="utf-8") as fh:
        exec(compile(fh.read(), sys.argv[1], "exec"), confine)
    _sqlite3 = confine["_load_sqlite3"]()
    print(sorted(set(sys.modules) & {"functools", "collections", "keyword", "reprlib"}))

    def battery():
        out = []
        for size in (-1, 0, 1, 128):
            con = _sqlite3.connect(":memory:", cached_statements=size)
            con.execute("create table t(a)")
            con.executemany("insert into t values (?)", [(n,) for n in range(5)])
            out.append([con.execute(f"select count(*) + {n % 3} from t").fetchone() for n in range(7)])
            con.close()
            try:
                con.execute("select 1")
            except _sqlite3.Error as exc:
                out.append(str(exc))
        return out

    before = battery()  # the stand-in's cache: functools' own C cache, not yet sealed
    import gc
    print(sorted({type(ref).__name__ for ref in gc.get_referents(_sqlite3.connect(":memory:"))} & {"_lru_cache_wrapper", "method"}))
    print(confine["seal_sqlite_statement_cache"](), battery() == before)
    print(sorted({type(ref).__name__ for ref in gc.get_referents(_sqlite3.connect(":memory:"))} & {"_lru_cache_wrapper", "method"}))
    ns = {"__name__": "attack"}
    with open(sys.argv[2], encoding="utf-8") as fh:
        exec(compile(fh.read(), sys.argv[2], "exec"), ns)
    print(ns["check"]())
"""


def test_sqlite_loads_without_functools_and_its_statement_cache_is_sealed_as_before() -> None:
    """`_sqlite3` takes `functools.lru_cache` when it loads, and importing `functools` for it (with `collections`,
    `keyword`, `reprlib`) cost ~3 ms of every run's CPU (suitetime21): the seals load it with a stand-in whose maker
    makes functools' own C cache, nothing of `functools` loaded; statements cache as before, the statement-cache seal
    replaces the stand-in as it replaced `functools.lru_cache`, and the corpus snippet's four routes answer 1 each."""
    root = Path(__file__).resolve().parents[1]
    attack = root / "tests" / "sandbox_corpus" / "memory_sqlite_statement_cache_freed_while_it_runs.py"
    done = subprocess.run([sys.executable, "-I", "-S", "-c", SQLITE_WITHOUT_FUNCTOOLS, str(Path(_confine.__file__)),
                           str(attack)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.splitlines() == [
        "[]", "['_lru_cache_wrapper']", "None True", "['method']", "4"], (done.stdout, done.stderr)


SQLITE_IN_A_RUN = ("import sys\ndef check():\n    loaded = sorted(set(sys.modules) & {'functools', 'collections', "
                   "'keyword', 'reprlib'})\n    import functools, sqlite3\n    con = sqlite3.connect(':memory:')\n"
                   "    rows = [con.execute('select ? + 1', (n,)).fetchone()[0] for n in (1, 2, 1, 2)]\n"
                   "    return [loaded, rows, functools.lru_cache.__module__, type(functools._CacheInfo).__name__]\n")


def test_a_run_loads_no_functools_before_the_code_and_its_sqlite_works() -> None:
    """main answered [['collections', 'functools', 'keyword', 'reprlib'], ...]: loaded for `_sqlite3` only."""
    ran = run_sandboxed(SQLITE_IN_A_RUN, "check", {})
    assert ran.ok and ran.value == [[], [2, 3, 2, 3], "functools", "type"], ran
