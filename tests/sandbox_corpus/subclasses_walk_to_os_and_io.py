# expect: forbidden
# expect-kernel: ok
# value: 1
# ruff: noqa: SIM105, SIM115
# The classic template-injection chain: object.__subclasses__() to os._wrap_close (its __init__.__globals__ is the
# os module: system, popen, open), to _io.FileIO and to BuiltinImporter, reaching what the check never imported.


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def check(**p):
    found = []
    for cls in object.__subclasses__():
        name = cls.__name__
        try:
            if name == "_wrap_close":
                g = cls.__init__.__globals__
                found.append(g["popen"]("id").read())
            elif name == "FileIO":
                found.append(cls(p["secret_file"]).read())
            elif name == "BuiltinImporter":
                found.append(cls.load_module("_posixsubprocess"))
        except Exception:
            pass
    found = [f for f in found if f]
    return leak(found) if found else 1
