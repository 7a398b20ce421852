"""The suite's own scheduling over xdist workers (tests/support/xdist_schedule.py): units, order, recorded times."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support import xdist_schedule as xs

SPREAD_FILE = xs.SPREAD[0]


def test_a_spread_file_is_cut_into_chunks_of_about_chunk_s_and_others_stay_whole() -> None:
    ids = [f"{SPREAD_FILE}::test_x[{i}]" for i in range(100)] + [f"tests/test_other.py::test_{i}" for i in range(5)]
    groups = xs.groups_of(ids, {SPREAD_FILE: 4.5 * xs.CHUNK_S, "tests/test_other.py": 500.0})
    chunks = {groups[i] for i in ids[:100]}
    assert len(chunks) == 5
    assert {groups[i] for i in ids[100:]} == {"tests/test_other.py"}
    # chunks are contiguous runs of the file's tests, in its order
    seq = [groups[i] for i in ids[:100]]
    assert seq == sorted(seq, key=seq.index) and all(seq.count(c) == 20 for c in chunks)


def test_units_are_ordered_longest_first_each_keeping_its_tests_in_order() -> None:
    ids = ["tests/a.py::t1", "tests/b.py::t1", "tests/a.py::t2", "tests/c.py::t1", "tests/b.py::t2"]
    order = xs.order_longest_first(ids, {"tests/a.py": 5.0, "tests/b.py": 50.0})  # c unknown: DEFAULT_S
    assert [ids[i] for i in order] == ["tests/b.py::t1", "tests/b.py::t2", "tests/c.py::t1", "tests/a.py::t1",
                                       "tests/a.py::t2"]
    assert sorted(order) == list(range(len(ids)))


def test_a_missing_or_damaged_record_gives_no_estimates(tmp_path: Path) -> None:
    assert xs.load_durations(tmp_path / "none.json") == {}
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    assert xs.load_durations(tmp_path / "bad.json") == {}
    ids = ["tests/a.py::t", "tests/b.py::t"]
    assert xs.order_longest_first(ids, {}) == [0, 1]


def test_durations_are_summed_per_file_from_junit_and_written_atomically(tmp_path: Path) -> None:
    (tmp_path / "tests" / "faults").mkdir(parents=True)
    (tmp_path / "tests" / "test_a.py").write_text("", encoding="utf-8")
    (tmp_path / "tests" / "faults" / "test_b.py").write_text("", encoding="utf-8")
    report = tmp_path / "r.xml"
    report.write_text(textwrap.dedent("""\
        <testsuites><testsuite>
        <testcase classname="tests.test_a" name="t1" time="1.5"/>
        <testcase classname="tests.test_a.TestK" name="t2" time="2"/>
        <testcase classname="tests.faults.test_b" name="t" time="0.5"/>
        <testcase classname="elsewhere.test_z" name="t" time="9"/>
        </testsuite></testsuites>"""), encoding="utf-8")
    files = xs.durations_from_junit([report], root=tmp_path)
    assert files == {"tests/test_a.py": 3.5, "tests/faults/test_b.py": 0.5}
    out = tmp_path / "durations.json"
    xs.write_durations(files, out)
    assert xs.load_durations(out) == files
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".durations")] == []


def test_the_recorded_durations_name_files_that_exist() -> None:
    """A renamed or removed test file leaves a stale entry: refresh tests/durations.json (the module says how)."""
    files = json.loads(xs.DURATIONS.read_text(encoding="utf-8"))["files"]
    missing = sorted(f for f in files if not (xs.ROOT / f).is_file())
    assert not missing, f"tests/durations.json names files that are gone: {missing}"
    assert all(f in files for f in xs.SPREAD)


def _xdist_suite(tmp_path: Path, files: dict[str, str], durations: dict[str, float]) -> list[tuple[str, str]]:
    """Run the test files `files` (name: body) in two xdist workers under `--dist loadfile`, through hooks that call
    the same functions as tests/conftest.py's; each test appends its name and worker to a log, returned in order."""
    tests = tmp_path / "suite"  # not `tests`: the repository's tests package is imported from it
    tests.mkdir()
    (tests / "conftest.py").write_text(textwrap.dedent(f"""\
        import pytest
        from tests.support import xdist_schedule as xs
        xs.SPREAD = ("suite/test_many.py",)
        xs.CHUNK_S = 1.0
        xs.load_durations = lambda path=None: {durations!r}

        @pytest.hookimpl(optionalhook=True)
        def pytest_xdist_make_scheduler(config, log):
            return xs.make_scheduler(config, log) if config.getvalue("dist") == "loadfile" else None

        @pytest.hookimpl(optionalhook=True)
        def pytest_configure_node(node):
            xs.tell_worker(node)

        @pytest.hookimpl(trylast=True)
        def pytest_collection_modifyitems(config, items):
            if xs.sorts_here(config):
                order = xs.order_longest_first([i.nodeid for i in items], xs.load_durations())
                items[:] = [items[i] for i in order]
        """), encoding="utf-8")
    for name, body in files.items():
        (tests / name).write_text(body, encoding="utf-8")
    log = tmp_path / "log"
    env = {"LOG": str(log), "PYTHONPATH": f"{xs.ROOT}", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist",
                           "loadfile", "suite", "--rootdir", str(tmp_path), "-c", "/dev/null"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [(line.split()[0], line.split()[1]) for line in log.read_text(encoding="utf-8").splitlines()]


_LOGGING = "open(os.environ['LOG'], 'a').write(NAME + ' ' + os.environ['PYTEST_XDIST_WORKER'] + '\\n')\n"


def test_xdist_runs_every_test_once_under_the_duration_scheduler_the_longest_file_first(tmp_path: Path) -> None:
    """A real two-worker run of a small suite through the hooks: every test runs once, none is lost or doubled, and
    the longest file is the first its worker runs, though the alphabet puts it last. The workers hand the scheduler
    their collections sorted longest first under `--dist loadfile`; a worker's own `--dist` reads "no" (pytest-xdist
    resets it), so until suitetime13 the sort never ran and the units went out in the files' alphabetical order (the
    suite's longest file, test_llm_vllm_cpu.py, started 24 min into a fresh clone's run)."""
    ran = _xdist_suite(tmp_path, {
        "test_many.py": "import os, pytest\n@pytest.mark.parametrize('i', range(30))\ndef test_m(i):\n    "
                        + _LOGGING.replace("NAME", "f'm{i}'"),
        "test_few.py": "import os\ndef test_f():\n    " + _LOGGING.replace("NAME", "'f'"),
        "test_zlong.py": "import os\ndef test_z():\n    " + _LOGGING.replace("NAME", "'z'")},
        {"suite/test_many.py": 6.0, "suite/test_few.py": 2.0, "suite/test_zlong.py": 500.0})
    assert sorted(name for name, _ in ran) == sorted([f"m{i}" for i in range(30)] + ["f", "z"])
    assert {worker for name, worker in ran if name.startswith("m")} == {"gw0", "gw1"}, \
        "the spread file's chunks went to both workers"
    worker = dict(ran)["z"]
    assert next(name for name, w in ran if w == worker) == "z", ran
