# expect: ok
# value: 2
# sqlite's factories are called by borrowed references from their fields (CPython 3.11.7's `_sqlite3`): a fetched
# text goes through the connection's `text_factory` (any factory but the exact `str`, `bytes` and `bytearray`), a row
# through the cursor's `row_factory`, and a plain attribute store sets either anew. A C factory (a bound method, the
# only holder of its list or dict) whose own comparisons run code of the code's own that sets the factory anew is
# freed with what it holds while its C code runs: the list or dict the code makes next takes the freed block, and
# `list.count` compares that list's items with the text, `dict.get` that dict's keys with the cursor (a use after
# free; a refill of the code's own bytes would forge an object). Routes: a connection's `text_factory`, a cursor's
# `row_factory`. Each answers 1 where the factory C calls is held while it runs.
import sqlite3

HELD = []


class Later:
    """An object made after the free: C must never compare it with what it fetched."""

    def __init__(self, seen, n):
        self.seen, self.n = seen, n

    def __hash__(self):
        return self.seen[0]

    def __eq__(self, other):
        if type(other) is not Later:
            self.seen.append(type(other).__name__)
        return False


class Dropper:
    """An item whose comparison sets the factory anew, then makes the objects that take the freed block."""

    def __init__(self, seen, drop, make, n):
        self.seen, self.drop, self.make, self.n = seen, drop, make, n

    def __hash__(self):
        return self.seen[0]

    def __eq__(self, other):
        if self.n == 0 and self.drop is not None and type(other) is not Dropper:  # not while the dict is built
            drop, self.drop = self.drop, None
            drop()  # frees the C factory running this comparison, and what it alone holds
            HELD.append(self.make())
        return False


def route(how):
    con = sqlite3.connect(":memory:")
    cur = con.cursor()
    seen = [hash(cur)]  # the keys' hash: the one the cursor has, so `dict.get(cur, ...)` compares them
    if how == "text":
        def drop():
            con.text_factory = str

        items = [Dropper(seen, drop, lambda: [Later(seen, n) for n in range(3)], n) for n in range(3)]
        con.text_factory = items.count
        del items
        got = cur.execute("select 'abc'").fetchone()
    else:
        def drop():
            cur.row_factory = None

        def make():
            return {Later(seen, n): n for n in range(3)}

        table = {Dropper(seen, drop, make, n): n for n in range(3)}
        cur.row_factory = table.get
        del table
        got = cur.execute("select 'abc'").fetchone()
    con.close()
    if len(seen) > 1:
        raise RuntimeError(f"{how}: a freed sqlite factory's C code compared an object made after with "
                           f"{seen[1]} (answered {got!r})")
    return 1


def check(**p):
    return route("text") + route("row")
