# expect: ok
# expect-kernel: ok
# value: 18
# Honest twin of the outliving-view snippets: what a check does with buffered streams and pickle answers alike in
# every set, the sealed ones included: compressed files (gzip, bz2, lzma, a gzipped tar), buffered readers, writers
# and pairs over BytesIO, over FileIO and over raw streams of the code's own (`io.RawIOBase` subclasses), a text
# wrapper over them, FileIO's methods called bound and unbound, and pickle round trips through files with and without
# `readinto`, members read out of a tar file and a restricting Unpickler subclass.
import bz2
import gzip
import io
import lzma
import pickle
import tarfile


class Chunks(io.RawIOBase):
    """A raw stream of the code's own, answering at most 5 bytes a read."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def readable(self):
        return True

    def readinto(self, b):
        chunk = self.data[self.at:self.at + 5]
        b[:len(chunk)] = chunk
        self.at += len(chunk)
        return len(chunk)


class Sink(io.RawIOBase):
    def __init__(self):
        self.parts = []

    def writable(self):
        return True

    def write(self, b):
        self.parts.append(bytes(b))
        return len(b)


class NoReadinto:
    def __init__(self, data):
        self.inner = io.BytesIO(data)

    def read(self, n=-1):
        return self.inner.read(n)

    def readline(self):
        return self.inner.readline()


class Restricted(pickle.Unpickler):
    def find_class(self, module, name):
        if (module, name) != ("builtins", "set"):
            raise pickle.UnpicklingError(f"{module}.{name} refused")
        return super().find_class(module, name)


def check(**p):
    text = "".join(f"line {i}\n" for i in range(300))
    data = text.encode()
    results = []
    for module in (gzip, bz2, lzma):
        with module.open("f." + module.__name__, "wt") as fh:
            fh.write(text)
        with module.open("f." + module.__name__, "rt") as fh:
            results.append(fh.read() == text)
    with tarfile.open("t.tar.gz", "w:gz") as tar:
        tar.add("f.gzip")
    with tarfile.open("t.tar.gz", "r:gz") as tar:
        results.append(tar.getnames() == ["f.gzip"])
    results.append(io.BufferedReader(io.BytesIO(data), 64).read() == data)
    results.append(io.BufferedReader(Chunks(data), 64).read(17) == data[:17])
    results.append(io.TextIOWrapper(io.BufferedReader(Chunks(data))).readlines()[-1] == "line 299\n")
    sink = Sink()
    with io.BufferedWriter(sink, 16) as writer:
        writer.write(data)
    results.append(b"".join(sink.parts) == data)
    pair = io.BufferedRWPair(io.BytesIO(data), io.BytesIO())
    results.append(pair.read(4) == data[:4] and pair.write(b"x") == 1)
    results.append(io.BufferedRandom(io.BytesIO(data)).read(9) == data[:9])
    with open("plain", "wb") as fh:
        fh.write(data)
    with open("plain", "rb", buffering=0) as raw:
        buffer = bytearray(10)
        results.append(raw.readinto(buffer) == 10 and io.FileIO.readinto(raw, buffer) == 10)
    with open("plain", "r+b") as fh:
        fh.seek(0, 2)
        fh.write(b"tail")
        fh.seek(-4, 2)
        results.append(fh.read() == b"tail" and isinstance(fh, io.BufferedRandom))
    value = {"a": [1, 2.5, "three", b"four" * 40, bytearray(b"five")], "b": {7, 8}, "c": (None, True)}
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        with open("p.pkl", "wb") as fh:
            pickle.dump(value, fh, protocol=protocol)
        with open("p.pkl", "rb") as fh:
            if pickle.load(fh) != value:
                break
    else:
        results.append(True)
    results.append(pickle.load(NoReadinto(pickle.dumps(value, 4))) == value)
    results.append(pickle.Unpickler(io.BytesIO(pickle.dumps(value, 5))).load() == value)
    with tarfile.open("t.tar.gz", "r:gz") as tar:
        member = tar.extractfile("f.gzip")
        results.append(member.read(2) == b"\x1f\x8b" and member.readable())
    results.append(Restricted(io.BytesIO(pickle.dumps({1, 2}))).load() == {1, 2})
    try:
        Restricted(io.BytesIO(pickle.dumps(Chunks))).load()
        results.append(False)
    except pickle.UnpicklingError:
        results.append(True)
    return sum(1 for ok in results if ok is True)
