# expect: ok
# expect-kernel: ok
# value: 1
# The bootstrap loads ctypes for the kernel layers and drops every reference to it before the code runs, but what it
# dropped last (the confinement module, its C library handle and ctypes with it) was cyclic garbage the collector
# had not freed yet. `gc.set_debug(gc.DEBUG_SAVEALL)` and `gc.collect()` (neither audited) hand such garbage to the
# code in `gc.garbage`: a function there whose globals hold the ctypes module gives `ctypes.memmove`, whose calls
# raise no audit event (Python 3.11 audits `_ctypes.call_function` only). Write through it into the audit hook's
# frozen read prefixes ("/" first) and read the host's secret: where Landlock is missing (hook and seccomp) the hook
# is the only layer between the code and it. Nothing found (1) in every set; with the hook off, ctypes found this way
# (2) is native code the kernel layers hold anyway, and garbage there is no less a leftover.
import contextlib
import gc
import os
import sys


def leak(what):
    text = "SANDBOX-ESCAPED " + str(what)[:150]
    with contextlib.suppress(Exception), open("/leak/" + text, "w"):
        pass  # a deliberate violation, so that an escape shows in the report too
    return text


def check(**p):
    gc.unfreeze()  # what the bootstrap froze is garbage too where nothing holds it
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    gc.set_debug(0)
    ctypes, layers = None, set()
    for found in list(gc.garbage):
        names = getattr(found, "__globals__", None) if callable(found) else found if type(found) is dict else None
        if type(names) is dict and names.get("__name__") in ("_kernel", "_confine", "_hook"):
            layers.add(names["__name__"])  # the layers' own modules: their tables, the C library's handle
        if type(names) is dict and type(names.get("ctypes")) is type(sys):
            ctypes = names["ctypes"]
    del gc.garbage[:]
    if ctypes is None:
        return 1 if not layers else "the layers' modules left to the code: " + ", ".join(sorted(layers))
    if type(sys.modules["_imp"].create_builtin) is type(len):  # the hook is off: native code is assumed there
        return 2
    target = bytes(16)
    try:
        ctypes.memmove(id(target) + 32, b"SANDBOX-ESCAPED!", 16)
    except Exception:
        return 1
    if target == bytes(16):
        return 1
    # The hook's frozen read prefixes, from the frame of a refusal it makes unreported (a hard link in the scratch):
    # "/" put first, every host path reads as under a read root.
    with open("held", "w"):
        pass
    frames = []
    try:
        os.link("held", "again")
    except OSError as refused:
        step = refused.__traceback__
        frames = [step.tb_frame]
        while step.tb_next is not None:
            step = step.tb_next
            frames.append(step.tb_frame)
    for frame in frames:
        kept = frame.f_locals.get("read_prefixes")
        if type(kept) is tuple and kept:
            ctypes.memmove(id(kept) + 24, id("/").to_bytes(8, sys.byteorder), 8)
    try:
        with open(p["secret_file"]) as fh:
            return leak(fh.read())
    except OSError:
        return leak("raw memory written with the hook running: " + repr(target))
