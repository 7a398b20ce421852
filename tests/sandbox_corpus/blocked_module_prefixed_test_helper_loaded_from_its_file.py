# expect: forbidden
# expect-kernel: ok
# ruff: noqa: SIM105
# The interpreter's test modules are refused by prefix (`_test`, `_xx`: any part of a dotted name at `import`), but
# the file check for a refused module's own file (round 37's, `blocked_module_loaded_from_its_file`) looked at the
# exact names only: `unittest/test/_test_warnings.py`, refused as `import unittest.test._test_warnings`, was loaded
# on main by path with no report in every set (importlib's `spec_from_file_location`, a `SourcelessFileLoader` of its
# cached bytecode, `runpy.run_path`), none of which raises an import event. The file check now asks the prefixes too,
# of the file's stem and of its folder. Without the hook the loaded module is pure Python that imports `unittest` and
# `warnings` only; this run calls nothing of it.
import importlib.machinery
import importlib.util
import os
import runpy


def check(**p):
    base = os.path.dirname(os.__file__)
    source = os.path.join(base, "unittest", "test", "_test_warnings.py")
    cached = importlib.util.cache_from_source(source)
    loaded = []
    for load in (
        lambda: importlib.util.spec_from_file_location("warnings_by_path", source),
        lambda: importlib.util.spec_from_loader(
            "warnings_cached", importlib.machinery.SourcelessFileLoader("warnings_cached", cached)),
    ):
        try:
            spec = load()
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            loaded.append(hasattr(module, "TestWarnings"))
        except (PermissionError, FileNotFoundError):
            pass
    try:
        loaded.append("TestWarnings" in runpy.run_path(source, run_name="warnings_helper"))
    except PermissionError:
        pass
    return 1 if len(loaded) == 3 else loaded
