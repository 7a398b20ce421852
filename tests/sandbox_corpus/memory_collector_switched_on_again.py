# expect: ok
# expect-kernel: ok
# value: 1
# value-kernel: 0
# The class behind `memory_text_reader_freed_by_a_collected_finalizer`: an automatic collection runs in whatever C
# call allocates a tracked object, and runs the code's finalizers and weakref callbacks there, inside C code that
# holds what they may free. Where the hook runs the collector is off for good, and every way the code has of turning
# it on again is a stand-in (1): `gc.enable`, `gc.set_threshold`, the module reloaded, imported again or made anew by
# `_imp.create_builtin` (the built-in is served once); after each, a cycle with a weakref callback and 100000 tracked
# allocations, and the callback must not have run. An explicit `gc.collect()` still collects. Without the hook the
# collector runs by itself (0).
import gc
import sys
import weakref


def collected_by_itself():
    seen = []

    class Cycle:
        pass

    cycle = Cycle()
    cycle.self = cycle
    ref = weakref.ref(cycle, lambda _: seen.append(1))
    del cycle
    junk = [[] for _ in range(100000)]
    del junk
    ran = bool(seen)
    gc.collect()
    return ran, bool(seen) and ref() is None


def check(**p):
    import _imp
    import importlib
    import importlib.machinery

    def made_anew():
        spec = importlib.machinery.ModuleSpec("gc", importlib.machinery.BuiltinImporter)
        return _imp.create_builtin(spec)

    def imported_again():
        del sys.modules["gc"]
        return importlib.import_module("gc")

    ways = [lambda: gc, lambda: gc, lambda: importlib.reload(gc), imported_again, made_anew]
    by_itself = []
    for i, way in enumerate(ways):
        module = way()
        if i == 1:
            module.set_threshold(1, 1, 1)
        module.enable()
        ran, collected = collected_by_itself()
        if not collected:
            return "an explicit gc.collect() did not collect"
        by_itself.append(ran)
    if not any(by_itself):
        return 1
    return 0 if all(by_itself) else f"collected by itself after some ways only: {by_itself}"
