# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Native file access that Python's audit events do not describe: sqlite3 URIs (file:/...), ATTACH DATABASE of
# host paths, load_extension, and VACUUM INTO a path outside the scratch directory.
import sqlite3


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    attempts = [
        lambda: sqlite3.connect(f"file:{p['secret_file']}?mode=ro", uri=True).execute("select 1").fetchall(),
        lambda: sqlite3.connect(":memory:").execute(f"attach database '{p['tmp_target']}' as x").fetchall(),
        lambda: sqlite3.connect(":memory:").execute(f"vacuum into '{p['repo_target']}'").fetchall(),
        lambda: sqlite3.connect(":memory:").execute("select load_extension('/lib/x86_64-linux-gnu/libc.so.6')"),
    ]
    for attempt in attempts:
        try:
            attempt()
        except Exception:
            pass
    import os
    if os.path.exists(p["tmp_target"]) or os.path.exists(p["repo_target"]):
        return leak("sqlite wrote outside the scratch directory")
    return 1
