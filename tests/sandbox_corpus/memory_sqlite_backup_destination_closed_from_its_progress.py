# expect: ok
# value: 1
# `src.backup(dst, pages=1, progress=f)` keeps `dst`'s raw sqlite connection and the backup handle in C across each
# call of `f`, and sqlite defers a close only for a backup's source: `dst.close()` (or a second `dst.__init__`) from
# inside `f` freed the destination, bytes objects of the code's own refilled the block, and the next backup step read
# it (plain 3.11.7: SIGSEGV, `crashed`). Where the hook runs, `backup` takes no `progress` argument (TypeError, refused
# by its C argument parser before any copy starts), so no code of the code's own runs while a backup runs: 1.
import sqlite3


def attempt(kind):
    src = sqlite3.connect(":memory:")
    src.execute("create table t(x)")
    src.executemany("insert into t values (?)", [(b"x" * 2000,) for _ in range(200)])
    src.commit()
    dst = sqlite3.connect(":memory:")
    calls, spray = [], []

    def progress(status, remaining, total):
        calls.append(1)
        if len(calls) == 2:
            if kind == "close":
                dst.close()
            else:
                dst.__init__(":memory:")
            spray.extend(bytes(2000) for _ in range(64))

    try:
        src.backup(dst, pages=1, **{"progress": progress})
    except TypeError:
        return "refused"
    except sqlite3.Error:  # sqlite's error for the freed destination: the attack ran
        pass
    return "ran"


def check(**p):
    outcomes = [attempt(kind) for kind in ("close", "init")]
    return 1 if outcomes == ["refused"] * 2 else f"backup progress run: {outcomes!r}"
