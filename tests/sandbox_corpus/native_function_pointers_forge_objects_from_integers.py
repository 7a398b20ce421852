# expect: ok
# expect-kernel: ok
# value: 1
# value-kernel: 2
# ctypes' function pointer types stay reachable through object.__subclasses__() after `import ctypes` is refused (the
# bootstrap made some, ctypes itself makes memmove's, memset's and cast's), and their constructors and calls raise no
# audit event: one made from a Python callable is a C thunk whose address its own buffer holds (`memoryview`), and
# another type made at that address reads the thunk's integer result as an object pointer. `cast`'s type (object
# result) over memmove's (integer result) turns any integer into an object: a forged bytearray over any address is
# then raw memory, the hook's tables included. With the hook, no function pointer may be made or called (1); without
# it native code is assumed and the kernel layers hold (2).
import sys


def every_class(root=object, seen=None):
    """Every class under `root`, each once (the audited `_ctypes` module is never imported)."""
    seen = set() if seen is None else seen
    for sub in type.__subclasses__(root):
        if id(sub) not in seen:
            seen.add(id(sub))
            yield sub
            yield from every_class(sub, seen)


def signature(cls):
    result = getattr(cls, "_restype_", None)
    return (getattr(result, "__name__", None), [a.__name__ for a in (getattr(cls, "_argtypes_", None) or ())])


def check(**p):
    functions = [cls for cls in every_class() if any(base.__name__ == "CFuncPtr" for base in cls.__mro__[1:])]
    integers = [cls for cls in functions if signature(cls)[0] == "c_void_p" and signature(cls)[1][:1] == ["c_void_p"]]
    objects = [cls for cls in functions if signature(cls)[0] == "py_object" and signature(cls)[1][:1] == ["c_void_p"]]
    target = ["the hook's tables"]
    for make_int in integers:
        for make_obj in objects:
            try:
                keep = make_int(lambda *args: args[0])
                thunk = int.from_bytes(bytes(memoryview(keep)), sys.byteorder)
                forge = make_obj(thunk)
                forged = forge(id(target), *(None,) * (len(signature(make_obj)[1]) - 1))
            except Exception:
                continue
            if forged is target:
                if type(sys.modules["_imp"].create_builtin) is type(len):  # the hook is off
                    return 2
                return "SANDBOX-ESCAPED an object forged from an integer address, the hook running"
    return 1 if type(sys.modules["_imp"].create_builtin) is not type(len) else 2
