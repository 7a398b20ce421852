# expect: ok
# expect-kernel: ok
# value: 1
# value-kernel: 0
# A C text wrapper's newline decoder runs the codec's incremental decoder, here the code's own (a registered codec),
# and from there the code calls `reconfigure(encoding=...)` or `__init__` again on the wrapper (both accepted: nothing
# is decoded yet). Without the seal that dropped the wrapper's only reference to the newline decoder C was running:
# the new decoder took the freed block, and the old C decode wrote its pending CR into it, so the text came out with
# a CR the new decoder never read ("abc\ndef\nghi", 0). The route to raw memory goes through that freed block (the
# forty-seventh round wrote it down). Where the hook runs, the wrapper's newline decoder is held for the whole C call:
# the old decoder keeps its CR, and the new one reads on from the next bytes ("abcdef\nghi", 1).
import codecs


def run(how, path):
    state = {}

    class Decoder(codecs.IncrementalDecoder):
        def decode(self, data, final=False):
            wrapper = state.get("wrapper")
            if wrapper is not None and not state.get("done"):
                state["done"] = True
                if how == "init":
                    wrapper.__init__(wrapper.buffer, encoding="latin-1")
                else:
                    wrapper.reconfigure(encoding="latin-1")
                wrapper._CHUNK_SIZE = 4
            return data.decode("latin-1")

    name = f"own_{how}"
    codecs.register(lambda n: codecs.CodecInfo(name=name, encode=codecs.latin_1_encode, decode=codecs.latin_1_decode,
                                               incrementaldecoder=Decoder) if n == name else None)
    with open(path, encoding=name) as wrapper:
        wrapper._CHUNK_SIZE = 4
        state["wrapper"] = wrapper
        return "".join(wrapper.read(2) for _ in range(8))


def check(**p):
    path = "decoded.txt"
    with open(path, "wb") as out:
        out.write(b"abc\rdef\rghi")
    seen = {run(how, path) for how in ("init", "reconfigure")}
    if seen == {"abcdef\nghi"}:
        return 1
    if seen == {"abc\ndef\nghi"}:
        return 0
    return f"unexpected text: {sorted(seen)!r}"
