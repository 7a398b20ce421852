# expect: ok
# value: 4
# A cursor's `execute` asks the connection's statement cache for the statement of its SQL by a borrowed reference from
# the connection's field (CPython 3.11.7's `get_statement_from_cache`): a C `functools._lru_cache_wrapper` that the
# connection alone holds, made by the `functools.lru_cache` that `_sqlite3` looked up when it loaded. The cache hashes
# its key, a tuple holding the SQL: a `str` subclass whose `__hash__` closes the connection (or runs `__init__` on it
# again) frees the cache under its own C code, which goes on reading its freed fields (a NULL dictionary: SIGSEGV on
# plain 3.11.7; a refill of the code's own would forge one). And `functools`' module globals decide what the cache
# is: `functools.update_wrapper` (what `lru_cache` returns) set to a function of the code's own made every new
# connection's cache a C callable of its choosing (`items.count`, the only holder of its list), freed the same way by
# a comparison that closed the connection, while `list.count` compared the items of the list the code made next with
# the SQL. And C takes what the
# cache answers for a statement without looking at its type: the cache answers what the connection's `__call__`
# answers, a subclass's own (an int: SIGSEGV on plain 3.11.7). Routes: the cache's own C code made by functools'
# globals, `close()` from the key's hash, a failed `__init__` from the key's hash, a subclass's `__call__` answering
# an int. Each answers 1 where the cache C asks is held while it runs and answers statements only.
import contextlib
import functools
import sqlite3

HELD = []


class Later:
    """An item of a list made after the free: the old count must never compare it."""

    def __init__(self, seen):
        self.seen = seen

    def __eq__(self, other):
        self.seen.append(type(other).__name__)
        return False


class Dropper:
    """An item whose comparison closes the connection, then makes the list that takes the freed block."""

    def __init__(self, seen, drop, n):
        self.seen, self.drop, self.n = seen, drop, n

    def __eq__(self, other):
        if self.n == 0 and self.drop is not None:
            drop, self.drop = self.drop, None
            drop()  # frees the C cache running this comparison, and the list it alone holds
            HELD.append([Later(self.seen) for _ in range(3)])
        return False


class Key(str):
    """SQL whose hash runs code of the code's own inside the cache's C code, once."""

    def __hash__(self):
        drop, self.drop = getattr(self, "drop", None), None
        if drop is not None:
            drop()
        return str.__hash__(self)


def route(how):
    seen = []
    con = sqlite3.connect(":memory:")
    if how == "made":
        real = functools.update_wrapper

        def drop():
            con.close()

        items = [Dropper(seen, drop, n) for n in range(3)]
        functools.update_wrapper = lambda wrapper, wrapped: items.count
        try:
            con.__init__(":memory:")  # its cache made anew, by `functools.lru_cache`
        finally:
            functools.update_wrapper = real
        del items
        sql = "select 1"
    elif how == "call":
        class Forged(sqlite3.Connection):
            def __call__(self, sql):
                return 10 ** 30  # C would read its digits as a statement's fields

        con.close()
        con = sqlite3.connect(":memory:", factory=Forged)
        sql = "select 1"
    else:
        sql = Key("select 1")
        if how == "close":
            sql.drop = con.close
        else:
            def drop():
                # sqlite opens nothing: the old connection's fields are cleared and its cache dropped
                with contextlib.suppress(sqlite3.OperationalError):
                    sqlite3.Connection.__init__(con, "file:absent.db?mode=ro", uri=True)
            sql.drop = drop
    failed = None
    try:
        got = con.cursor().execute(sql).fetchall()
    except sqlite3.ProgrammingError as exc:  # the cache asks the connection closed under it, or answers no statement
        got = str(exc)
    except Exception as exc:  # told below, after what the freed cache compared
        got, failed = repr(exc), exc
    if seen:
        raise RuntimeError(f"{how}: a freed statement cache's C code compared an item of a list made after with "
                           f"{seen[0]} (answered {got})")
    if failed is not None:
        raise failed
    if how != "init":  # a failed `__init__` left no connection to close
        con.close()
    return 1


def check(**p):
    return route("made") + route("close") + route("init") + route("call")
