# expect: forbidden
# expect-kernel: ok
# value-kernel: 2
# `memory_patched_modules_loaded_again` for the extension modules loaded after the bootstrap: a setup that changes a
# C module once it is imported (the validation probes' clock gives `_sqlite3` date functions of a moved time, a
# `_datetime` would be the same) is undone by a fresh copy loaded from the module's own file, found by
# `importlib.util.find_spec(...).origin` with no name of it written in the source: a multi-phase module's new types
# (`_sqlite3.Connection`), a single-phase one's names as its first run left them (`_datetime`'s, past a change to the
# module). On main each copy loaded (judged `ok`, 2); where the hook runs an extension file loads
# once a run, and a second load is refused and reported (`sqlite3` itself is refused where Landlock is missing).
import importlib.util


def fresh(name):
    spec = importlib.util.spec_from_file_location(name, importlib.util.find_spec(name).origin)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(**p):
    import _datetime
    import _sqlite3

    _datetime.datetime = "moved by a setup"
    copies = 0
    copies += fresh("_sqlite3").Connection is not _sqlite3.Connection
    copies += fresh("_datetime").datetime != "moved by a setup"
    return copies
