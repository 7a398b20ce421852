# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# Unpickling hostile data inside the check: reduce gadgets that call os.system, posix.fork, builtins.eval and
# importlib.import_module("ctypes").
import os
import pickle


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def gadget(module, name, arg):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n(" + pickle.dumps(arg, 0)[:-1] + b"tR."


def check(**p):
    done = []
    for module, name, arg in (("os", "system", "true"), ("posix", "fork", ()), ("builtins", "eval", "1+1"),
                              ("importlib", "import_module", "ctypes")):
        try:
            answer = pickle.loads(gadget(module, name, arg))
        except Exception:
            continue
        if name == "fork" and answer == 0:
            os._exit(0)
        # A shell that ran (status 0) or a second process is an escape; importing ctypes without the hook is not.
        if (name == "system" and answer == 0) or (name == "fork" and isinstance(answer, int)):
            done.append((name, answer))
    return leak(done) if done else 1
