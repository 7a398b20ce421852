# expect: forbidden|ok
# value: 1
# The other order of `memory_sqlite_backup_destination_closed_by_another_thread`: the thread starts before sqlite3 is
# imported, waits, and calls `dst.__init__(":memory:")` (no thread check) while the main thread's backup copies page
# by page: the destination freed between steps (main's full set: SIGSEGV). Where the hook runs, no sqlite connection
# is made, or made again, while a thread of the code's own runs: the import's own connection (the run's clock setup)
# is refused (`forbidden`); where no thread may start at all, nothing runs beside the backup: 1.
import contextlib
import threading
import time

box, go, errors = {}, threading.Event(), []


def other():
    go.wait()
    time.sleep(0.002)
    try:
        box["dst"].__init__(":memory:")
    except Exception as error:
        errors.append(type(error).__name__)
    box["spray"] = [bytes(4000) for _ in range(300)]


def check(**p):
    thread = threading.Thread(target=other)
    try:
        thread.start()
    except RuntimeError:
        return 1
    try:
        import sqlite3

        src = sqlite3.connect(":memory:")
        src.execute("create table t(x)")
        src.executemany("insert into t values (?)", [(b"x" * 3000,) for _ in range(3000)])
        src.commit()
        box["dst"] = sqlite3.connect(":memory:")
        go.set()
        with contextlib.suppress(sqlite3.Error):  # sqlite's error for a freed destination
            src.backup(box["dst"], pages=1)
    finally:
        go.set()
        thread.join()
    return f"a connection was made beside a thread: {errors!r}"
