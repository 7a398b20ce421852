# expect: forbidden
# A refused module's text read and run in a namespace of the code's own (`exec(open(pty.py).read())`, and its cached
# bytecode through `pkgutil`'s loader), no import at all: main ran pty's source with no report. Reading the file of a
# refused module is refused now, whichever way it is read; the code's own copy of such text is only its own code,
# whose calls the hook and seccomp judge one by one.
import importlib.util
import os


def check(**p):
    ran = []
    path = os.path.join(os.path.dirname(os.__file__), "pty.py")
    try:
        with open(path) as fh:
            namespace = {"__name__": "pty_text"}
            exec(compile(fh.read(), path, "exec"), namespace)
            ran.append("spawn" in namespace)
    except PermissionError:
        pass
    try:
        with open(importlib.util.cache_from_source(path), "rb") as fh:
            ran.append(len(fh.read()) > 16)
    except (PermissionError, FileNotFoundError):
        pass
    return 1 if ran else ran
