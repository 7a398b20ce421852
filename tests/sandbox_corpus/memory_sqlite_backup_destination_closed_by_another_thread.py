# expect: forbidden|ok
# value: 1
# `src.backup(dst, pages=1)` releases the GIL around each `sqlite3_backup_step` and keeps `dst`'s raw sqlite connection
# in C across the steps; sqlite defers a close only for a backup's source. Another thread of the code's own called
# `dst.__init__(":memory:")` between steps (`__init__` checks no thread: plain connections, no `check_same_thread`),
# which closed the destination, and bytes objects of its own refilled the freed block: plain 3.11.7 died of SIGSEGV in
# 5 of 5 runs (6 of 6 with `close()` of a `check_same_thread=False` one), and so did main's full set. Where the hook
# runs, no connection is made or made again while a thread of the code's own runs: the thread's `__init__` is refused
# (`forbidden`); where no thread may start, nothing runs beside the backup: 1.
import contextlib
import sqlite3
import threading
import time


def attempt():
    src = sqlite3.connect(":memory:")
    src.execute("create table t(x)")
    src.executemany("insert into t values (?)", [(b"x" * 3000,) for _ in range(1500)])
    src.commit()
    dst = sqlite3.connect(":memory:")
    started, spray, errors = threading.Event(), [], []

    def other():
        started.wait()
        time.sleep(0.002)
        try:
            dst.__init__(":memory:")
        except Exception as error:
            errors.append(type(error).__name__)
        spray.extend(bytes(4000) for _ in range(300))

    thread = threading.Thread(target=other)
    try:
        thread.start()
    except RuntimeError:
        return "refused"
    started.set()
    with contextlib.suppress(sqlite3.Error):  # sqlite's error for a freed destination
        src.backup(dst, pages=1)
    thread.join()
    return f"ran: {errors!r}"


def check(**p):
    outcomes = []
    for _ in range(2):
        outcomes.append(attempt())
        if "PermissionError" in outcomes[-1]:  # refused by the hook: the run is `forbidden` already
            break
    return 1 if outcomes == ["refused"] * 2 else f"a thread reached a connection under a backup: {outcomes!r}"
