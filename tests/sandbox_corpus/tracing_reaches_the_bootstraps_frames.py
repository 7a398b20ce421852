# expect: forbidden
# A Python trace or profile function is handed every frame, the bootstrap's too (the frame that runs the code and
# encodes its result), and may set `f_lineno` of a frame it is not called for (a jump of a running caller crashed
# the interpreter: a way around the hook) or, in 3.11, write a traced frame's locals back. Clearing tracing and
# cProfile are let through since the thirty-fourth round; every way to a Python tracer must stay refused: the
# builtins themselves, restored by `_imp.create_builtin`, the clearing gate with its closure rewritten, the C
# profiler's methods called directly or through the gates with their defaults rewritten.
import _imp
import contextlib
import functools
import importlib.machinery
import sys

SEEN = []


def tracer(frame, event, arg):
    SEEN.append(frame.f_code.co_filename)
    return tracer


def check(**p):
    refused = []
    real = _imp.create_builtin(importlib.machinery.ModuleSpec("sys", None))
    attempts = [
        lambda: sys.settrace(tracer),
        lambda: sys.setprofile(tracer),
        lambda: real.settrace(tracer),
        lambda: real.setprofile(tracer),
    ]
    gate = sys.settrace
    if getattr(gate, "__closure__", None):
        def rewritten_gate():
            gate.__closure__[0].cell_contents = functools.partial(max, tracer, key=real.settrace)
            gate(None)
        attempts.append(rewritten_gate)
    import _lsprof
    base = _lsprof.Profiler.__mro__[-2] if len(_lsprof.Profiler.__mro__) > 2 else _lsprof.Profiler
    attempts.append(lambda: base.enable(base()))
    enable = getattr(_lsprof.Profiler, "enable", None)
    if getattr(enable, "__defaults__", None):
        attempts.append(lambda: enable(_lsprof.Profiler(), True, True, lambda *a: real.setprofile(tracer)))
        attempts.append(lambda: enable(_lsprof.Profiler(), True, True, functools.partial(max, tracer, key=real.setprofile)))
    for attempt in attempts:
        try:
            attempt()
            refused.append(False)
        except (PermissionError, TypeError, ValueError):
            refused.append(True)
        finally:
            try:
                real.settrace(None)
                real.setprofile(None)
            except PermissionError:
                pass
    seen = sorted(set(SEEN))
    if seen:
        marker = "SANDBOX-ESCAPED a Python tracer saw frames of " + repr(seen)[:200]
        with contextlib.suppress(OSError), open("/" + marker):  # a deliberate violation that names it
            pass
        return marker
    return repr(refused)
