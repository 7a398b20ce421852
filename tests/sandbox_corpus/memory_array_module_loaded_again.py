# expect: forbidden
# expect-kernel: ok
# value-kernel: 1
# `array` is a multi-phase extension module: every load of its file makes a module with types of its own, which the
# bootstrap's seal of `array.array` (its stores convert the value before they write) never saw. A second load, by the
# import system after the module is dropped from `sys.modules`, or by hand from its spec, gave an `array.array` whose
# item stores write where a value of the code's own moved the buffer (the `memory_array_item_converted_after_its_resize`
# write, all memory). Where the hook runs the file is loaded once, sealed, and any later load of it is refused and
# reported; without the hook nothing is sealed and native code is assumed anyway (1).
import importlib.util
import sys


def by_import():
    sys.modules.pop("array", None)
    return __import__("array")


def by_spec():
    spec = importlib.util.find_spec("array")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Shrinker:
    def __init__(self, target):
        self.target = target

    def __index__(self):
        del self.target[1:]
        return 0x4142434445464748


def check(**p):
    import array

    if type(vars(array.array)["append"]).__name__ != "function":
        return 1  # nothing sealed here (no hook): native code is assumed anyway
    for load in (by_import, by_spec):
        try:
            module = load()
        except Exception:
            continue
        if type(vars(module.array)["append"]).__name__ == "function":
            continue
        target = module.array("q", bytes(8 * 32))
        try:
            target[21] = Shrinker(target)
        except Exception:
            continue
        if len(target) == 1:  # the write landed past the buffer that one item kept
            return "SANDBOX-ESCAPED an array module loaded again, unsealed: a write past its buffer"
    return 1
