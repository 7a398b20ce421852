# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Native code by every loader: import ctypes / _ctypes, importlib.import_module, __import__, loading the _ctypes
# extension file by spec, _imp.create_dynamic; then libc's open() on the secret and system().
import importlib
import importlib.util
import os
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def find_ctypes_file():
    for folder in sys.path:
        try:
            for name in os.listdir(folder):
                if name.startswith("_ctypes.") and name.endswith(".so"):
                    return os.path.join(folder, name)
        except Exception:
            pass
    return None


def loaders():
    yield lambda: __import__("ctypes")
    yield lambda: importlib.import_module("_ctypes")
    yield lambda: __import__("_ctypes")
    path = find_ctypes_file()
    if path:
        def by_spec():
            spec = importlib.util.spec_from_file_location("_ctypes", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module

        yield by_spec

        def by_imp():
            import _imp
            return _imp.create_dynamic(importlib.util.spec_from_file_location("_ctypes", path))

        yield by_imp


def use(module, p):
    if not hasattr(module, "CDLL"):  # the bare _ctypes: go through the full package
        module = __import__("ctypes")
    libc = module.CDLL(None)
    buf = module.create_string_buffer(256)
    fd = libc.open(p["secret_file"].encode(), 0)
    if fd >= 0 and libc.read(fd, buf, 255) > 0:
        return buf.value.decode(errors="replace")
    if libc.system(b"true") == 0:
        return "ran a shell"
    return None


def check(**p):
    for load in loaders():
        try:
            got = use(load(), p)
            if got:
                return leak(got)
        except Exception:
            pass
    return 1
