# expect: forbidden
# A refused module (`pty`) loaded from its cached bytecode by a loader of the code's own (`SourcelessFileLoader` of
# the stdlib's `__pycache__/pty.cpython-3XX.pyc`): the hook lets `marshal.loads` through for the import system's own
# reader when the bytes are exactly that stdlib file's, and no import event is raised, so main loaded pty with no
# report in every set. Reading a refused module's file is refused now.
import importlib.machinery
import importlib.util
import os


def check(**p):
    cached = importlib.util.cache_from_source(os.path.join(os.path.dirname(os.__file__), "pty.py"))
    if not os.path.exists(cached):
        return 1  # no cached bytecode on this host: nothing to load
    loader = importlib.machinery.SourcelessFileLoader("pty_bytecode", cached)
    spec = importlib.util.spec_from_loader("pty_bytecode", loader)
    module = importlib.util.module_from_spec(spec)
    try:
        loader.exec_module(module)
    except PermissionError:
        return 1
    return 1 if hasattr(module, "fork") else 0
