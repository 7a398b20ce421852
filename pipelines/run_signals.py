"""How `python -m pipelines.run` stops: SIGINT, SIGTERM and the other stop signals (SIGHUP, ...) become
`Interrupted` (Dagster defers them inside a step to the next safe point), a signal held back too long still stops
the run, a stop signal ignored at start stays ignored, and one run at a time holds a DAGSTER_HOME folder.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from coworkenv.atomic import lock_exclusive


class Interrupted(Exception):
    """A stop signal arrived (SIGINT, SIGTERM, or another of coworkenv.stop_signals)."""


_stopped_by: list[signal.Signals] = []  # the stop signals a handler of ours saw, in order


def stop_signal_name() -> str | None:
    """The name of the last stop signal this run's handlers saw (None: none seen, or only by Dagster's)."""
    return _stopped_by[-1].name if _stopped_by else None


@contextmanager
def signals_raise_interrupted() -> Iterator[None]:
    """SIGTERM stops the run like SIGINT (Dagster defers both inside a step to the next safe point), and so does
    every other stop signal at its default action (SIGHUP of a closing terminal, SIGQUIT, SIGXCPU, ...): it is
    handed to the handler SIGTERM or SIGINT has at that moment, so that Dagster defers it too.

    SIGINT ignored when the run started (`make run &` from a script) stays without effect: Dagster's handlers
    around each step leave it alone, the processes the run starts inherit it blocked, and one that arrived is
    dropped at the end. SIGTERM always stops the run, and the run's stop signals are unblocked at its start.
    """
    from coworkenv.stop_signals import unhandled_stop_signals

    stops = (signal.SIGINT, signal.SIGTERM)
    # Only SIGINT stays ignored (a background job's): a run must hear SIGTERM, and so must what it starts, since
    # Dagster ends its compute-log `tail`s with SIGTERM (ignored or blocked, each step waited 2 x 30 s for them).
    ignored = {signal.SIGINT} if signal.getsignal(signal.SIGINT) == signal.SIG_IGN else set()
    others = [s for s in unhandled_stop_signals() if s not in stops]
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, *others})  # blocked by whoever started us: heard

    def handler(signo: int, frame: FrameType | None) -> None:
        if signo not in ignored:
            _stopped_by.append(signal.Signals(signo))
            raise Interrupted(signal.Signals(signo).name)

    def hand_over(signo: int, frame: FrameType | None) -> None:
        _stopped_by.append(signal.Signals(signo))
        heard = next((signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT) if s not in ignored), None)
        if callable(heard) and heard is not handler:
            heard(signo, frame)  # Dagster's: it defers the stop to the step's next safe point
        else:
            raise Interrupted(signal.Signals(signo).name)

    # A handler even for an ignored SIGINT: after each run Dagster gives SIGTERM the handler SIGINT had.
    previous = {s: signal.signal(s, handler) for s in stops}
    previous.update({s: signal.signal(s, hand_over) for s in others})
    _stopped_by.clear()
    if ignored:
        signal.pthread_sigmask(signal.SIG_BLOCK, ignored)
    try:
        with _dagster_handlers_skip(ignored):
            yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)  # SIG_IGN again drops a blocked signal that is pending
        if ignored:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, ignored)


@contextmanager
def _dagster_handlers_skip(ignored: set[signal.Signals]) -> Iterator[None]:
    """Dagster installs its interrupt handler for SIGINT and SIGTERM around each step whatever was there before;
    every such change goes through `_replace_interrupt_signal`, which here leaves the `ignored` signals out."""
    if not ignored:
        yield
        return
    from pipelines.dagster_internals import interrupts

    dagster_replace = interrupts._replace_interrupt_signal

    def replace(new_signal_handler: Any) -> None:
        for signo in (signal.SIGINT, signal.SIGTERM):
            if signo not in ignored:
                signal.signal(signo, new_signal_handler)

    interrupts._replace_interrupt_signal = replace
    try:
        yield
    finally:
        interrupts._replace_interrupt_signal = dagster_replace


@contextmanager
def deferred_interrupt_watchdog(grace_s: float = 5.0) -> Iterator[threading.Event]:
    """Stop the run if Dagster holds a SIGINT/SIGTERM back for longer than `grace_s`.

    Dagster defers signals to the next step boundary; a run blocked outside a step (e.g. waiting for a pool slot
    taken by another process since `wait_for_pool` returned) would otherwise ignore them for as long as it waits.
    """
    import ctypes

    from pipelines.dagster_internals import check_captured_interrupt

    main = threading.main_thread().ident
    done, fired = threading.Event(), threading.Event()

    def watch() -> None:
        pending_since = None
        while not done.wait(0.5):
            if not check_captured_interrupt():
                pending_since = None
            elif pending_since is None:
                pending_since = time.monotonic()
            elif time.monotonic() - pending_since > grace_s and main is not None:
                fired.set()
                ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(main), ctypes.py_object(Interrupted))
                return

    watcher = threading.Thread(target=watch, name="interrupt-watchdog", daemon=True)
    watcher.start()
    try:
        yield fired
    finally:
        done.set()
        watcher.join()


RUN_LOCK = ".coworkenv-run-lock"  # the folder in DAGSTER_HOME a run holds; made once, left empty


@contextmanager
def one_run_per_folder(home: Path) -> Iterator[None]:
    """Hold DAGSTER_HOME for the run: a second run there waits for the first, then finds its work done.

    Two at once would both start the partitions each found incomplete (the in-flight check and the start are not
    one step) and rebuild the same aggregates into the same folders. The lock ends with the process, however it
    ends. It is on a folder of its own in DAGSTER_HOME (`RUN_LOCK`), not on DAGSTER_HOME itself: a lock on a folder
    tells the episode writers that another command is writing it (`atomic.folder_in_use`), and `make run`'s data
    folder lies inside DAGSTER_HOME (the repository root), so its RL stage refused its own `--out` below the lock.
    Where that folder cannot be made (DAGSTER_HOME read-only), DAGSTER_HOME itself is locked, as before; where
    DAGSTER_HOME is one Dagster refuses (not a full path to a folder), nothing is made in it: the run's check names it.
    """
    lock = home / RUN_LOCK
    try:
        if not (home.is_absolute() and home.is_dir()):
            raise NotADirectoryError(home)
        lock.mkdir(exist_ok=True)
    except OSError:
        lock = home
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:  # not a folder: Dagster's own check of DAGSTER_HOME says so
        yield
        return
    try:
        try:
            lock_exclusive(fd, lock, wait=False)
        except BlockingIOError:
            print(f"another `python -m pipelines.run` ({_lock_holder(lock)}) is running in {home}; waiting for it "
                  "to end (stop with Ctrl-C)", flush=True)
            lock_exclusive(fd, lock)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _lock_holder(folder: Path) -> str:
    """The process holding a lock on `folder`, as "pid N", from /proc/locks where there is one."""
    st = os.stat(folder)
    where = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        lines = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return "pid unknown"
    pids = [fields[4] for fields in map(str.split, lines) if len(fields) > 5 and fields[1] != "->"
            and fields[5] == where]
    return f"pid {pids[0]}" if pids else "pid unknown"
