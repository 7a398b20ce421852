# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok|crashed|bad_result
# value: 1
# gc.get_referrers / get_objects / get_referents to find the hook function and its cells.
import gc


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    found = 0
    for finder in (lambda: gc.get_referrers(PermissionError), gc.get_objects,
                   lambda: gc.get_referents(__import__("sys").modules["__main__"])):
        try:
            for obj in finder():
                for cell in getattr(obj, "__closure__", None) or ():
                    try:
                        cell.cell_contents = ("/",)
                        found += 1
                    except Exception:
                        pass
        except Exception:
            pass
    try:
        return leak(open(p["secret_file"]).read())
    except Exception:
        pass
    return 1
