# expect: forbidden
# expect-kernel: ok
# value: 1
# A sqlite3 URI whose query names a parameter twice: sqlite takes the last of each, the hook (sandbox41) took
# `mode=memory` anywhere in the query as "no file": `file:<host path>?mode=memory&mode=ro` (or `rwc`, with a `cache`
# between) opened the host path with no violation reported, in the full and degraded sets on main, where Landlock
# alone refused the open (OperationalError, the call answering 1). The hook now refuses a parameter given twice.
# With the kernel layers alone, Landlock keeps each open out of the host: nothing read, nothing made.
import os
import sqlite3


def rows_of(uri):
    try:
        with sqlite3.connect(uri, uri=True) as con:
            return con.execute("select name from sqlite_master").fetchall()
    except sqlite3.Error:
        return []


def check(**p):
    secret, target = p["secret_file"], p["tmp_target"]
    leaked = {uri: rows_of(uri) for uri in (f"file:{secret}?mode=memory&mode=ro",
                                            f"file:{target}?mode=memory&cache=shared&mode=rwc",
                                            f"file://{secret}?mode=memory&immutable=1&mode=ro")}
    if any(leaked.values()) or os.path.exists(target):
        return f"SANDBOX-ESCAPED {leaked!r} made: {os.path.exists(target)}"[:200]
    return 1
