"""Suite-wide set-up: the project's bytecode is compiled once, before any test starts a child interpreter.

Hundreds of tests start a fresh `python` that imports the project (fault children, pipeline runs, CLI runs, Dask
workers). Where PYTHONDONTWRITEBYTECODE is set (as on the machines this project runs on), no interpreter writes `__pycache__`, so each
of them compiled the ~40k lines of `coworkenv`, `assets`, `pipelines` and `trainers` again (~0.7 s of CPU
each). Interpreters still read bytecode that exists, and it is checked against the source's mtime and size, so an
edited file is recompiled as usual. The test files themselves are imported by pytest, in-process, with their asserts
rewritten: under xdist the controller writes those rewritten modules once (tests/support/rewrite_ahead.py), where every
worker rewrote them all at its collection.
"""

from __future__ import annotations

import compileall
import os
import signal
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import rewrite_ahead, sqlite_nosync, xdist_schedule

ROOT = Path(__file__).resolve().parents[1]
# What child interpreters import: the project, the fault-corpus child and the test support modules.
PACKAGES = ("coworkenv", "assets", "pipelines", "trainers", "tests/faults", "tests/support")


# The test processes' Dagster instances commit their SQLite storage without fsync (tests/support/sqlite_nosync.py: a
# killed process loses nothing either way).
sqlite_nosync.install()


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # a pytest-xdist worker: the controller compiled before starting it
        return
    for package in PACKAGES:
        compileall.compile_dir(ROOT / package, quiet=2, force=False)
    workers = config.getoption("numprocesses", None)
    if isinstance(workers, int) and workers > 1:  # the xdist controller: its workers read the rewritten test modules
        rewrite_ahead.rewrite_ahead(config, ROOT / "tests", min(workers, os.cpu_count() or 1))


# Under `--dist loadfile` (what `make test` uses) the work is spread by measured time: tests/support/xdist_schedule.py.
@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    if config.getvalue("dist") != "loadfile":
        return None
    return xdist_schedule.make_scheduler(config, log)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: object) -> None:
    xdist_schedule.tell_worker(node)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In an xdist worker under `--dist loadfile`: the longest units of work first (every worker sorts alike). The
    worker's own `--dist` reads "no" (pytest-xdist resets it): until stop 49 this hook never sorted, and the units
    went out in the files' alphabetical order (test_llm_vllm_cpu.py, the longest file, started 24 min into a run)."""
    if not xdist_schedule.sorts_here(config):
        return
    order = xdist_schedule.order_longest_first([item.nodeid for item in items], xdist_schedule.load_durations())
    items[:] = [items[i] for i in order]


# PyTorch in a test process computes on one thread. Its default, a thread per core, gains nothing on the suite's tiny
# models (hidden size 32) and costs a great deal where the cores are shared: every operator's parallel region waits at
# a barrier for a thread the scheduler has put aside, so a test that trains 150 steps spent most of its time waiting
# (`make test` runs one process more than the cores; measured in docs/testing.md: tests/test_copy_model.py 863 s on
# the default against 60 s on one thread, the same results). Set before each test: torch is imported when a test file
# is collected, and a test that wants more threads sets them itself. Child processes are not touched.
_TORCH_THREADS = 1


def pytest_runtest_setup(item: pytest.Item) -> None:
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != _TORCH_THREADS:
        torch.set_num_threads(_TORCH_THREADS)


# Signal state a test may not leave behind. A disposition set to SIG_IGN, or a blocked mask, is inherited by every
# process the next tests start (a `sleep` holding a lock that then ignores SIGTERM): named in a warning. A Python
# handler left in place (Dagster gives SIGTERM the handler SIGINT has after an in-process run) is reset by exec, so it
# is only put back. Under pytest-xdist a worker runs many files in turn, in an order no serial run shows. Where the
# suite itself starts with SIGINT ignored (a `make test &` from a non-interactive shell: bash ignores SIGINT for
# background jobs), every in-process Dagster run copies that SIG_IGN to SIGTERM (`dagster._utils.interrupts`), which
# is what the 50 warnings of such a run name; `python -m pipelines.run` puts SIGTERM back itself (run_signals.py).
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
                 signal.SIGALRM, signal.SIGPIPE, signal.SIGCHLD)


@pytest.fixture(autouse=True)
def _signal_state_restored(request: pytest.FixtureRequest) -> Iterator[None]:
    before = {s: signal.getsignal(s) for s in _STOP_SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    yield
    inherited = [s.name for s in _STOP_SIGNALS if signal.getsignal(s) == signal.SIG_IGN != before[s]]
    if signal.pthread_sigmask(signal.SIG_SETMASK, mask) != mask:
        inherited.append("the blocked-signal mask")
    for s in _STOP_SIGNALS:
        if signal.getsignal(s) != before[s] and before[s] is not None:
            signal.signal(s, before[s])
    if inherited:
        warnings.warn(f"{request.node.nodeid} left {', '.join(inherited)} for the processes that follow (restored)",
                      stacklevel=1)
