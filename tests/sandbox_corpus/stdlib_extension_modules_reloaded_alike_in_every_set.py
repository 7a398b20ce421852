# expect: ok
# expect-kernel: ok
# value: 6
# Honest twin of `memory_patched_modules_loaded_again`: `importlib.reload` of extension modules the bootstrap loaded
# (`array`, `resource`, `math`, `_struct`, `_json`, `_lsprof`) loads no file again and keeps each module as it was,
# so it answers alike in every set, and the modules work after it (`resource.getrusage` the run's own time).
import importlib


def check(**p):
    import _json
    import _lsprof
    import _struct
    import array
    import math
    import resource

    count = 0
    for module in (array, resource, math, _struct, _json, _lsprof):
        count += importlib.reload(module) is module
    assert array.array("q", [1, 2]).tolist() == [1, 2] and math.isqrt(17) == 4
    assert resource.getrusage(resource.RUSAGE_SELF).ru_utime >= 0
    return count
