# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Generator, coroutine and async-generator frames (gi_frame, cr_frame, ag_frame) walked up through f_back to the
# bootstrap: its locals (the job, the encoder), its module globals (the policy tables) rewritten, then a read of the
# host's secret that the rewritten state would allow.
import sys


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def gen():
    yield sys._getframe()


async def coro():
    return sys._getframe()


def check(**p):
    frames = [next(gen())]
    c = coro()
    try:
        c.send(None)
    except StopIteration as done:
        frames.append(done.value)
    g = gen()
    frames.append(g.gi_frame)
    for frame in frames:
        while frame is not None:
            for name, value in list(frame.f_globals.items()):
                if isinstance(value, (frozenset, tuple, dict)) and name.isupper():
                    try:
                        frame.f_globals[name] = type(value)()
                    except Exception:
                        pass
            for value in list(frame.f_locals.values()):
                if isinstance(value, dict) and "payload" in value:
                    value["disable"] = ["hook", "landlock", "seccomp"]
            frame = frame.f_back
    try:
        with open(p["secret_file"]) as fh:
            return leak(fh.read())
    except Exception:
        return 1
