# expect: ok
# expect-kernel: ok
# value: 1
# cProfile's C profiler runs in every set since the thirty-fourth round, and calls a Python timer of the code's in
# every profile event. The timer walks up to the bootstrap's frame (which runs the code and encodes its result), gives
# it a trace function and tries to jump it (a jump of a running caller crashed the interpreter under a Python tracer)
# and to rewrite its locals (the result's encoder): a profile event is no line event, so CPython refuses the jump, and
# the C callback writes no frame's locals back.
import cProfile
import sys
import time

OUTCOMES = set()


def timer():
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename != "<sandboxed>" and frame.f_code.co_name == "run_untrusted":
            frame.f_trace = lambda *a: None
            try:
                frame.f_lineno = frame.f_lineno + 1
                OUTCOMES.add("SANDBOX-ESCAPED jumped the bootstrap's frame")
            except ValueError:
                OUTCOMES.add("jump refused")
            frame.f_locals["result_frame"] = lambda value: b"SANDBOX-ESCAPED forged frame"
            frame.f_trace = None
        frame = frame.f_back
    return time.perf_counter()


def work():
    return sum(n * n for n in range(50))


def check(**p):
    profiler = cProfile.Profile(timer)
    profiler.enable()
    value = work()
    profiler.disable()
    escaped = sorted(o for o in OUTCOMES if "ESCAPED" in o)
    if escaped:
        return escaped[0]
    return 1 if value == 40425 and {"jump refused"} == OUTCOMES else repr((value, sorted(OUTCOMES)))
