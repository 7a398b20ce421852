# expect: forbidden
# expect-kernel: ok
# value-kernel: 1
# The class of `memory_array_module_loaded_again` for every extension module the bootstrap loaded before the code ran,
# not `array` alone: it changed some of them (`resource.getrusage` answers the run's own CPU time, `_lsprof.Profiler`
# enables through gates the hook knows, `array.array` is sealed), and a second load of such a file makes a copy it
# never saw: a multi-phase module's new types and functions (`_lsprof`), a single-phase one's functions as its first
# run left them, before the bootstrap's change (`resource`: the C `getrusage` again). Found here by what is loaded
# (any `.so` in `sys.modules`), each loaded again by the import system after it is dropped from `sys.modules` and by
# hand from its spec. On main every load but `array`'s went through, judged `ok` (what the copies do is still the
# layers' to refuse: seccomp answers the C getrusage ENOSYS, the hook the copy's profiler); where the hook runs any
# second load of such a file is refused and reported now. Without the hook nothing is sealed (1).
import importlib.util
import sys


def by_import(name):
    sys.modules.pop(name, None)
    return __import__(name)


def by_spec(name):
    spec = importlib.util.find_spec(name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check(**p):
    import array
    import resource

    sealed = type(vars(array.array)["append"]).__name__ == "function"
    patched = resource.getrusage
    loaded = sorted(name for name, module in list(sys.modules.items())
                    if type(module) is type(sys) and str(vars(module).get("__file__", "")).endswith(".so"))
    fresh = []
    for name in loaded:
        if name == "array":  # refused on main already: `memory_array_module_loaded_again`
            continue
        before = sys.modules.get(name)
        for load in (by_spec, by_import):
            try:
                module = load(name)
            except Exception:  # refused (reported), or not loadable again
                continue
            finally:
                if before is not None:
                    sys.modules[name] = before
            if module is not before:
                fresh.append(name)
    if not sealed:
        return 1  # nothing sealed here (no hook)
    unpatched = "resource" in fresh and patched is not by_spec("resource").getrusage
    return f"copies the bootstrap never saw: {sorted(set(fresh))} (the C getrusage back: {unpatched})"
