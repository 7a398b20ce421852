# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: doctest's runner clears tracing around its examples (`sys.settrace(save_trace)`,
# None where nothing traces) and cProfile's C profiler installs itself with the interpreter's profile hook, both
# refused in every set with the audit hook (`sys.settrace`/`sys.setprofile` events) and working with the kernel layers
# alone. Clearing and cProfile now answer alike in every set; a Python trace or profile function stays refused.
import cProfile
import doctest
import io
import pstats
import sys


def square(x):
    """
    >>> square(3)
    9
    >>> [square(n) for n in range(4)]
    [0, 1, 4, 9]
    """
    return x * x


def check(**p):
    out = io.StringIO()
    runner = doctest.DocTestRunner(verbose=False)
    for test in doctest.DocTestFinder().find(square, "square", globs={"square": square}):
        runner.run(test, out=out.write)
    results = runner.summarize(verbose=False)
    doctest.run_docstring_examples(square, {"square": square}, name="square")
    sys.settrace(None)
    sys.setprofile(None)
    profiler = cProfile.Profile()
    total = profiler.runcall(sum, [square(n) for n in range(10)])
    with cProfile.Profile() as second:
        square(7)
    calls = pstats.Stats(profiler, stream=io.StringIO()).total_calls
    found = (tuple(results), out.getvalue(), total, calls >= 1, sys.gettrace(), sys.getprofile(),
             pstats.Stats(second, stream=io.StringIO()).total_calls >= 1)
    return 1 if found == ((0, 2), "", 285, True, None, None, True) else repr(found)
