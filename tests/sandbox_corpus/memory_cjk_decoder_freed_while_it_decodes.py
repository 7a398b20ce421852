# expect: ok
# expect-kernel: ok
# value: 1
# value-kernel: 0
# A CJK codec's incremental decoder is `_multibytecodec`'s C object, and a C text wrapper with an explicit `newline`
# (no newline decoder in between) calls its `decode` by a borrowed reference. On a bad byte C calls the error handler,
# the code's own (`codecs.register_error`), which calls `reconfigure(encoding=...)` or `__init__` on the wrapper (both
# accepted: nothing is decoded yet): that dropped the decoder's only reference while C was decoding. The new decoder
# took the freed block, and the old C decode, going on, wrote its pending lead byte (0x82) into it, so the next read
# gave "い" (0x82 0xa2), a character of bytes the new decoder never read ("a?bいc", 0): C writing in a freed object,
# whose next owner the code chooses. Where the hook runs, those C objects are never freed: the old decoder keeps its
# lead byte, and the new one reads 0xa2 alone ("a?b｢c", 1).
import codecs


def run(how, path):
    state = {}

    def handler(exc):
        wrapper = state.pop("wrapper", None)
        if wrapper is not None:
            if how == "init":
                wrapper.__init__(wrapper.buffer, encoding="shift_jis", newline="\n")
            else:
                wrapper.reconfigure(encoding="shift_jis", errors="strict")
            wrapper._CHUNK_SIZE = 4
        return ("?", exc.end)

    codecs.register_error(f"own_{how}", handler)
    with open(path, encoding="shift_jis", errors=f"own_{how}", newline="\n") as wrapper:
        wrapper._CHUNK_SIZE = 4
        state["wrapper"] = wrapper
        return "".join(wrapper.read(2) for _ in range(6))


def check(**p):
    path = "decoded.txt"
    with open(path, "wb") as out:
        out.write(b"a\x80b\x82\xa2c\n")
    seen = {run(how, path) for how in ("init", "reconfigure")}
    if seen == {"a?b\uff62c\n"}:
        return 1
    if seen == {"a?b\u3044c\n"}:
        return 0
    return f"unexpected text: {sorted(seen)!r}"
