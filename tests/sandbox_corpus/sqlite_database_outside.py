# expect: forbidden
# expect-kernel: exception
import sqlite3


def check(**p):
    db = sqlite3.connect(p["tmp_target"])
    db.execute("create table t (x)")
    db.commit()
    return 1.0
