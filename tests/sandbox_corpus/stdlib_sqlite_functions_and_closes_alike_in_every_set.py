# expect: ok
# value: 15
# Honest twin of `memory_sqlite_hook_replaced_from_inside_itself`: sqlite answers alike in every set where it imports,
# where the hook's bootstrap leaves connections no authorizer, progress handler or trace callback: a database file in
# the scratch, `executemany` and `executescript`, row and text factories, user functions, aggregates, window
# functions and collations (made, used, replaced between statements, removed), an error raised by one (refused as
# sqlite's OperationalError), `interrupt`, `backup` (whole and page by page, with no progress callback) and
# `iterdump`, blobs, `with` transactions, a connection closed twice and used after its close (ProgrammingError), a
# second connection opened inside a user function, and factories of every kind (C callables, a callable instance,
# a cursor's own) read back as set, and statement caches of every size (SQL as a `str` subclass, a `Connection`
# subclass, a connection initialised again) beside `functools.lru_cache` for the code's own functions.
import functools
import sqlite3


class Total:
    def __init__(self):
        self.total = 0

    def step(self, value):
        self.total += value

    def inverse(self, value):
        self.total -= value

    def value(self):
        return self.total

    def finalize(self):
        return self.total


def refused(con, query, error):
    try:
        con.execute(query)
    except error:
        return True
    return False


class Pair:
    """A callable instance as a row factory."""

    def __call__(self, cursor, row):
        return ("pair", *row)


def check(**p):
    passed = 0
    con = sqlite3.connect("app.db")
    con.execute("create table t(a integer, b text)")
    con.executemany("insert into t values (?, ?)", [(i, f"n{i % 7}") for i in range(100)])
    con.commit()
    passed += con.execute("select count(*), sum(a) from t").fetchone() == (100, 4950)
    con.executescript("create table u(x); insert into u values (1); insert into u values (2);")
    con.row_factory = sqlite3.Row
    row = con.execute("select a, b from t where a = 3").fetchone()
    passed += (row["a"], row["b"], list(row.keys())) == (3, "n3", ["a", "b"])
    con.row_factory = None
    con.text_factory = bytes
    passed += con.execute("select b from t where a = 4").fetchone() == (b"n4",)
    con.text_factory = str
    # Factories of every kind, read back as set (the seventy-fifth round hands C a Python function for each of them
    # that is no Python function): a C bound method, a callable instance, a lambda, a cursor's own beside its
    # connection's, a connection's copied into its next cursor.
    upper, names = (lambda b: b.decode().upper()), {}
    con.text_factory = upper
    shouted = con.execute("select b from t where a = 5").fetchone()
    con.text_factory = names.get  # a C callable: the text is no key, so None
    missing = con.execute("select b from t where a = 5").fetchone()
    con.text_factory = str
    con.row_factory = Pair()
    cur = con.cursor()
    copied = cur.row_factory is con.row_factory and cur.execute("select a from t where a = 6").fetchone() == ("pair", 6)
    cur.row_factory = names.get  # the cursor is no key: the row
    own = cur.row_factory == names.get and cur.execute("select a from t where a = 7").fetchone() == (7,)
    con.row_factory = None
    passed += shouted == ("N5",) and missing == (None,) and con.text_factory is str and copied and own
    con.create_function("double", 1, lambda x: x * 2, deterministic=True)
    passed += con.execute("select sum(double(a)) from t").fetchone() == (9900,)
    con.create_function("double", 1, lambda x: x * 3)  # replaced between statements
    first = con.execute("select double(2)").fetchone()
    con.create_function("double", 1, None)  # removed
    passed += first == (6,) and refused(con, "select double(2)", sqlite3.OperationalError)
    con.create_aggregate("total", 1, Total)
    con.create_window_function("running", 1, Total)
    passed += con.execute("select total(a) from t").fetchone() == (4950,) and con.execute(
        "select running(a) over (order by a rows 1 preceding) from t limit 3").fetchall() == [(0,), (1,), (3,)]
    con.create_collation("reverse", lambda x, y: (x < y) - (x > y))
    passed += [r[0] for r in con.execute("select distinct b from t order by b collate reverse limit 3")] == \
        ["n6", "n5", "n4"]

    def broken(x):
        raise ValueError("the function's own error")

    con.create_function("broken", 1, broken)
    try:
        con.execute("select broken(1)").fetchall()
        raised = False
    except sqlite3.OperationalError:
        raised = True
    con.interrupt()  # nothing runs: a no-op
    passed += raised and con.execute("select 1").fetchone() == (1,)
    copy = sqlite3.connect(":memory:")
    con.backup(copy)
    passed += copy.execute("select count(*) from t").fetchone() == (100,) and any(
        "CREATE TABLE t" in line for line in copy.iterdump())
    stepped = sqlite3.connect(":memory:")
    con.backup(stepped, pages=1, name="main", sleep=0)  # page by page, with no progress callback
    passed += stepped.execute("select count(*), sum(a) from t").fetchone() == (100, 4950)
    con.execute("create table blobs(data blob)")
    con.execute("insert into blobs values (zeroblob(16))")
    con.commit()
    with con.blobopen("blobs", "data", 1) as blob:
        blob.write(b"sandbox!")
        blob.seek(0)
        passed += blob.read(8) == b"sandbox!"
    with con:
        con.execute("insert into u values (3)")
    passed += con.execute("select count(*) from u").fetchone() == (3,)

    # Statement caches (each a Python function of the bootstrap's holding C's cache since the seventy-seventh round):
    # statements asked again under caches of no, one and 128 statements, SQL as a `str` subclass, a `Connection`
    # subclass, a connection initialised again; and `functools.lru_cache` for a function of the code's own.
    class Sql(str):
        pass

    class Counted(sqlite3.Connection):
        def __call__(self, sql):  # asked for each statement the cache has not kept
            self.asked = getattr(self, "asked", 0) + 1
            return super().__call__(sql)

    answers = []
    for size in (0, 1, 128):
        small = sqlite3.connect(":memory:", cached_statements=size, factory=Counted)
        answers.append([small.execute(Sql(f"select {n % 3}")).fetchone()[0] for n in range(6)] + [small.asked])
        small.__init__(":memory:")
        answers.append(small.execute("select 7").fetchone()[0])
        small.close()

    @functools.lru_cache(maxsize=2)
    def square(n):
        return n * n

    squares = [square(n) for n in (2, 3, 2)]
    passed += answers == [[0, 1, 2, 0, 1, 2, 6], 7, [0, 1, 2, 0, 1, 2, 6], 7, [0, 1, 2, 0, 1, 2, 3], 7] and squares == [4, 9, 4] and square.cache_info().hits == 1

    def other(x):
        inner = sqlite3.connect(":memory:")
        value = inner.execute("select ? + 1", (x,)).fetchone()[0]
        inner.close()
        return value

    con.create_function("other", 1, other)
    inner_value = con.execute("select other(41)").fetchone()
    con.close()
    con.close()
    passed += inner_value == (42,) and refused(con, "select 1", sqlite3.ProgrammingError)
    return passed
