# expect: ok
# value: 4
# Honest twin of `memory_sqlite_backup_destination_closed_by_another_thread`: sqlite and threads of the code's own in
# one check, where no connection is made while a thread runs. A thread pool that finished (its `with` block joined
# its workers) leaves sqlite usable; a connection made first, then threads that compute without it; a page-by-page
# backup after the threads ended; and a pool started after sqlite works (where no thread may start, its calls run in
# the submitting thread). Where threads may start, a connection made while one runs is refused (`forbidden`): that is
# the attack's half, not this twin's.
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor


def check(**p):
    passed = 0
    with ThreadPoolExecutor(max_workers=2) as pool:
        squares = list(pool.map(lambda x: x * x, range(10)))
    con = sqlite3.connect("app.db")
    con.execute("create table t(x)")
    con.executemany("insert into t values (?)", [(s,) for s in squares])
    con.commit()
    passed += con.execute("select sum(x) from t").fetchone() == (285,)
    totals = []
    workers = [threading.Thread(target=lambda n=n: totals.append(sum(range(n)))) for n in (10, 20)]
    for worker in workers:
        try:
            worker.start()
        except RuntimeError:  # no thread may start in this set: the same work inline
            worker.run()
    for worker in workers:
        if worker.ident is not None:
            worker.join()
    passed += sorted(totals) == [45, 190]
    copy = sqlite3.connect(":memory:")
    con.backup(copy, pages=1)
    passed += copy.execute("select count(*) from t").fetchone() == (10,)
    with ThreadPoolExecutor(max_workers=2) as pool:
        doubled = list(pool.map(lambda x: 2 * x, [row[0] for row in con.execute("select x from t order by x")]))
    passed += doubled[-1] == 162
    return passed
