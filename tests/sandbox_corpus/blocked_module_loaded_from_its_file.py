# expect: forbidden
# expect-kernel: ok
# ruff: noqa: SIM105
# `pty` is a refused module (its functions fork or open a pty), refused by name at `import`: main loaded it by path
# with no report in every set (importlib's `spec_from_file_location` and `exec_module`, a `SourceFileLoader` of its
# own, `runpy.run_path`), none of which raises an import event. Every such way reads the module's file (its source or
# its cached bytecode) first: the hook refuses reading a refused module's file now. Without the hook the loaded module
# is pure Python whose calls meet seccomp (fork, the pty ioctls); this run calls none.
import importlib.machinery
import importlib.util
import os
import runpy


def check(**p):
    path = os.path.join(os.path.dirname(os.__file__), "pty.py")
    loaded = []
    for load in (
        lambda: importlib.util.spec_from_file_location("pty_by_path", path),
        lambda: importlib.util.spec_from_loader("pty_loader", importlib.machinery.SourceFileLoader("pty_loader", path)),
    ):
        try:
            spec = load()
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            loaded.append(hasattr(module, "openpty"))
        except PermissionError:
            pass
    try:
        loaded.append("fork" in runpy.run_path(path, run_name="pty_run"))
    except PermissionError:
        pass
    return 1 if len(loaded) == 3 else loaded
