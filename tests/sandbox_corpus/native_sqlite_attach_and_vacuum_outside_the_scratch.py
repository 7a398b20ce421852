# expect: ok|forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105
# sqlite opens the files that `ATTACH` and `VACUUM INTO` name natively, with no audit event: the kernel must keep them
# to the scratch. sqlite3 is allowed where Landlock confines it, and now also where a read-only minimal root does (a
# root host on a kernel without Landlock: `test_native_file_modules_answer_where_a_read_only_minimal_root_confines_them`);
# refused by name where neither does (the no-Landlock set: forbidden). A host file read through ATTACH, or created by
# either, is an escape; the scratch's own databases work.
import os
import sqlite3


def check(**p):
    memory = sqlite3.connect(":memory:")
    memory.execute("create table t(x)")
    memory.execute("insert into t values ('kept')")
    memory.commit()
    found = []
    attempts = [
        lambda: memory.execute(f"attach database '{p['secret_file']}' as s").fetchall(),
        lambda: found.extend(memory.execute("select * from s.sqlite_master").fetchall()),
        lambda: memory.execute(f"attach database '{p['tmp_target']}' as t2").fetchall(),
        lambda: memory.execute("create table t2.x(y)").fetchall(),
        lambda: memory.execute(f"vacuum into '{p['repo_target']}'").fetchall(),
        lambda: memory.execute(f"vacuum into '{p['tmp_target']}'").fetchall(),
    ]
    for attempt in attempts:
        try:
            attempt()
        except Exception:
            pass
    if found or os.path.exists(p["tmp_target"]) or os.path.exists(p["repo_target"]):
        return "SANDBOX-ESCAPED sqlite reached a host file " + repr(found)[:100]
    memory.execute("attach database 'scratch.db' as local")
    memory.execute("create table local.u(x)")
    memory.execute("vacuum into 'copy.db'")
    copied = sqlite3.connect("copy.db").execute("select x from t").fetchall()
    return 1 if copied == [("kept",)] and os.path.exists("scratch.db") else repr(copied)
