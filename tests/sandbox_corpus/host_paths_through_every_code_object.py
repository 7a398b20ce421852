# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# With the hook off, every object the interpreter holds (gc.get_objects, refused by the hook): the file names of all
# code objects and modules alive in the run (the bootstrap's functions, its helper modules', whatever they left
# behind) name where the host keeps the project and its venv, in all four sets through the bootstrap's globals. Only
# the run directory and the standard library may show. The host's values come in `p` to compare against.
import gc
import sys
import types


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(repo_dir="", host_prefix="", **p):
    seen = {getattr(module, "__file__", None) or "" for module in list(sys.modules.values())}
    for value in vars(sys.modules["__main__"]).values():
        code = getattr(value, "__code__", None)
        if isinstance(code, types.CodeType):
            seen.add(code.co_filename)
    for obj in gc.get_objects():
        if isinstance(obj, types.FunctionType):
            seen.add(obj.__code__.co_filename)
        elif isinstance(obj, types.CodeType):
            seen.add(obj.co_filename)
    found = sorted(text for text in seen if any(host and host in text for host in (repo_dir, host_prefix)))
    return leak(found) if found else 1
