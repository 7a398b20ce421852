# expect: ok
# value: 1
# A false positive, not an escape: a grader opening the agent's database read-only through a URI
# (`sqlite3.connect("file:app.db?mode=ro", uri=True)`), a shared in-memory database (`file:mem?mode=memory&cache=shared`)
# or an immutable snapshot was `forbidden` in every set where sqlite3 imports: the hook refused every `file:` URI. A
# URI's path is judged now as any database path (the scratch only), its query may set the mode, the cache, locking and
# immutability alone. Where Landlock is missing and no read-only minimal root confines sqlite, sqlite3 stays refused
# (no kernel-only line here).
import sqlite3


def check(**p):
    con = sqlite3.connect("app.db")
    with con:
        con.execute("create table t (a)")
        con.executemany("insert into t values (?)", [(1,), (2,)])
    con.close()
    found = []
    for uri in ("file:app.db?mode=ro", "file:./app.db?mode=ro&cache=private", "file:app.db?immutable=1",
                "file:app.db?mode=rw&nolock=1#frag"):
        con = sqlite3.connect(uri, uri=True)
        found.append(con.execute("select sum(a) from t").fetchone()[0])
        con.close()
    shared = sqlite3.connect("file:mem1?mode=memory&cache=shared", uri=True)
    shared.execute("create table m (v)")
    shared.execute("insert into m values (5)")
    shared.commit()
    other = sqlite3.connect("file:mem1?mode=memory&cache=shared", uri=True)
    found.append(other.execute("select v from m").fetchone()[0])
    found.append(sqlite3.connect("file::memory:", uri=True).execute("select 1").fetchone()[0])
    try:
        sqlite3.connect("file:app.db?mode=ro", uri=True).execute("insert into t values (3)")
        found.append("written")
    except sqlite3.OperationalError:
        found.append("read-only")
    return 1 if found == [3, 3, 3, 3, 5, 1, "read-only"] else repr(found)
