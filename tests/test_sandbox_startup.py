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
