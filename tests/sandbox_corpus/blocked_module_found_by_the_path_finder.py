# expect: forbidden
# The import system's own finder asked directly (`importlib.machinery.PathFinder.find_spec("pty")`), its spec loaded
# with `module_from_spec` and `exec_module`: the import event that names the module comes from `__import__` only, so
# main loaded the refused module under its own name with no report, and `sys.modules["pty"]` set by hand made a later
# `import pty` answer it. Reading a refused module's file is refused now.
import importlib.machinery
import importlib.util
import sys


def check(**p):
    spec = importlib.machinery.PathFinder.find_spec("pty")
    if spec is None:
        return 1
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except PermissionError:
        return 1
    sys.modules["pty"] = module
    import pty
    return 1 if pty is module else 0
