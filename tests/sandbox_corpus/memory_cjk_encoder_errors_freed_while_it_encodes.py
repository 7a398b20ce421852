# expect: ok
# expect-kernel: ok
# value: 1
# value-kernel: 0
# A CJK codec's incremental encoder (`_multibytecodec`'s C object) takes its `errors` name once per `encode` and uses
# it for every bad character. Its error handler, the code's own, set `encoder.errors` to another name: that freed the
# old name (the encoder held its only reference) while C went on with it, and a string the handler made next took
# the freed block: the next bad character ran "handler_two", which the encoder was never given (or, where another
# object took the block, its header was read as a string's: TypeError), 0. Where the hook runs `errors` cannot be
# set on those objects (AttributeError, as for any read-only attribute), and every bad character meets the handler
# the encoder was given, 1.
import codecs


def check(**p):
    calls, spray = [], [None] * 64
    part = "handler_tw"

    def one(exc):
        calls.append(1)
        if len(calls) == 1:
            try:  # noqa: SIM105 (no allocation after the free: the next string must take its block)
                encoder.errors = "strict"
            except AttributeError:
                pass
            for i in range(64):
                spray[i] = part + "o"
        return ("?", exc.end)

    def two(exc):
        calls.append(2)
        return ("!", exc.end)

    codecs.register_error("handler_one", one)
    codecs.register_error("handler_two", two)
    encoder = codecs.getincrementalencoder("gb18030")(errors="handler_" + "one")
    try:
        encoder.encode("a\udc80b\udc81c\udc82")
    except TypeError:
        return 0
    if calls == [1, 1, 1]:
        return 1
    if 2 in calls:
        return 0
    return f"unexpected calls: {calls!r}"
