# expect: forbidden
# A module inside a refused package (`ctypes/util.py`, which imports nothing of ctypes at its top: `find_library`,
# `_is_elf`) loaded by path with `spec_from_file_location` and `exec_module`: no import event names `ctypes`, so main
# ran it with no report in every set (its calls that run a process or open a host file meet the hook one by one). A
# file whose folder is a refused package is a refused module's file too: its reading is refused now.
import importlib.util
import os


def check(**p):
    path = os.path.join(os.path.dirname(os.__file__), "ctypes", "util.py")
    spec = importlib.util.spec_from_file_location("library_finder", path)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except PermissionError:
        return 1
    return 1 if hasattr(module, "find_library") else 0
