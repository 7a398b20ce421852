# expect: ok
# expect-kernel: ok
# value: 1
# A false positive, not an escape: doctest's runner clears tracing around its examples (`sys.settrace(save_trace)`,
# None where nothing traces) and cProfile's C profiler installs itself with the interpreter's profile hook, both
# refused in every set with the audit hook (`sys.settrace`/`sys.setprofile` events) and working with the kernel layers
# alone. Clearing and cProfile now answer alike in every set; a Python trace or profile function stays refused.
# Profilers with C and Python timers, and one initialised again, profile alike too.
import cProfile
import doctest
import io
import pstats
import sys
import time


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
    # Timers of every kind (the seventy-sixth round hands C a Python function for each that is none): C clocks, one
    # with a unit, a Python function, a profiler initialised again with another; the timer itself is never profiled.
    timed = []
    for args in ((time.perf_counter,), (time.perf_counter_ns, 1e-9), (lambda: time.process_time(),), ()):
        timer_profiler = cProfile.Profile(*args)
        if not args:
            timer_profiler.__init__(time.monotonic)
        timer_profiler.runcall(square, 3)
        names = {str(entry.code) for entry in timer_profiler.getstats()}
        timed.append(any("square" in name for name in names) and not any("perf_counter" in name or "monotonic" in name
                                                                         for name in names))
    found = (tuple(results), out.getvalue(), total, calls >= 1, sys.gettrace(), sys.getprofile(),
             pstats.Stats(second, stream=io.StringIO()).total_calls >= 1, timed)
    return 1 if found == ((0, 2), "", 285, True, None, None, True, [True] * 4) else repr(found)
