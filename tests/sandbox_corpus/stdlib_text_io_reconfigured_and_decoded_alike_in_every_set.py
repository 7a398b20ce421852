# expect: ok
# expect-kernel: ok
# value: 12
# Honest twin of `memory_newline_decoder_freed_while_it_decodes`: text I/O that reconfigures wrappers and decodes
# through codecs answers alike in every set, where the hook holds each newline decoder while C runs it: reads in every
# newline mode (read, readline, iteration, tell and seek back), `reconfigure` of the encoding, newline, errors and line
# buffering before reading and while writing, a registered codec and an error handler of the check's own under a text
# file, `io.IncrementalNewlineDecoder` made and used directly (and subclassed), a wrapper over BytesIO, a multibyte
# codec, `codecs.open`, and `_pyio`'s wrapper.
import _pyio
import codecs
import io


def check(**p):
    passed = 0
    with open("mixed.txt", "wb") as out:
        out.write("één\r\ntwo\rthree\nfour\r\n".encode() * 50)
    with open("mixed.txt", encoding="utf-8") as fh:
        passed += fh.read(8) == "één\ntwo\n" and fh.read().count("\n") == 4 * 50 - 2
    with open("mixed.txt", encoding="utf-8", newline="") as fh:
        lines = list(fh)
        passed += lines[:4] == ["één\r\n", "two\r", "three\n", "four\r\n"] and len(lines) == 200
    with open("mixed.txt", encoding="utf-8", newline="\r") as fh:
        first = fh.readline()
        mark = fh.tell()
        second = fh.readline()
        fh.seek(mark)
        passed += first == "één\r" and fh.readline() == second == "\ntwo\r"
    with open("mixed.txt", encoding="latin-1") as fh:
        fh.reconfigure(encoding="utf-8", errors="strict", newline=None)
        passed += fh.readline() == "één\n" and fh.encoding == "utf-8"
    with open("mixed.txt", encoding="ascii") as fh:
        fh.reconfigure(errors="replace")
        passed += fh.readline() == "\ufffd\ufffd\ufffd\ufffdn\n"
    with open("out.txt", "w", encoding="utf-8") as fh:
        fh.write("a\n")
        fh.reconfigure(line_buffering=True, newline="\r\n")
        fh.write("b\n")
        fh.reconfigure(encoding="latin-1")
        fh.write("é\n")
    with open("out.txt", "rb") as fh:
        passed += fh.read() == b"a\nb\r\n\xe9\r\n"

    class Upper(codecs.IncrementalDecoder):
        def decode(self, data, final=False):
            return data.decode("latin-1").upper()

    codecs.register(lambda n: codecs.CodecInfo(name="upper_twin", encode=codecs.latin_1_encode,
                                               decode=codecs.latin_1_decode, incrementaldecoder=Upper)
                    if n == "upper_twin" else None)
    with open("mixed.txt", encoding="upper_twin") as fh:
        fh._CHUNK_SIZE = 5
        text = fh.read()
        passed += text.startswith("Ã©Ã©N\nTWO\nTHREE\n") and text.count("\n") == 200
    codecs.register_error("question_twin", lambda exc: ("?", exc.end))
    with open("mixed.txt", encoding="ascii", errors="question_twin") as fh:
        passed += fh.readline() == "????n\n"
    decoder = io.IncrementalNewlineDecoder(codecs.getincrementaldecoder("utf-8")(), translate=True)
    parts = [decoder.decode(b"a\r"), decoder.decode(b"\nb\r"), decoder.decode(b"", final=True)]
    state, seen = decoder.getstate(), decoder.newlines
    decoder.reset()
    decoder.setstate(state)

    class Counting(io.IncrementalNewlineDecoder):
        def decode(self, data, final=False):
            return super().decode(data, final) + "|"

    passed += (parts == ["a", "\nb", "\n"] and seen == ("\r", "\r\n")
               and isinstance(decoder, io.IncrementalNewlineDecoder) and Counting(None, True).decode("x\r\n") == "x\n|")
    wrapper = io.TextIOWrapper(io.BytesIO("gr\u00fc\u00dfe\r\nline\n".encode("utf-16")), encoding="utf-16")
    passed += wrapper.readline() == "grüße\n" and wrapper.tell() > 0 and wrapper.read() == "line\n"
    with open("sjis.txt", "wb") as out:
        out.write("日本語\r\nテキスト\n".encode("shift_jis") * 20)
    with open("sjis.txt", encoding="shift_jis") as fh:
        passed += fh.readline() == "日本語\n" and len(fh.readlines()) == 39
    with codecs.open("mixed.txt", encoding="utf-8") as fh:
        plain = fh.read(3)
    passed += plain == "één" and _pyio.open("mixed.txt", encoding="utf-8").readline() == "één\n"
    return passed
