# expect: ok
# expect-kernel: ok
# value: 12
# Honest twin of `memory_cjk_decoder_freed_while_it_decodes` and `memory_cjk_encoder_errors_freed_while_it_encodes`:
# the CJK codecs answer alike in every set, where the hook never frees their C objects and their `errors` is read-only:
# round trips through gb18030, shift_jis, euc_kr, big5, iso2022_jp and hz; incremental decoders fed byte by byte
# (pending lead bytes), their state saved, restored and reset; incremental encoders of a stateful codec; stream readers
# and writers over BytesIO; text files read and written (tell and seek back, reconfigure before reading); `errors`
# read back; an error handler of the check's own on both sides; `codecs.open`; a thousand decoders made and dropped.
import codecs
import io

TEXT = "汉字かな한글 ascii 繁體\n" * 20


def check(**p):
    passed = 0
    names = ("gb18030", "shift_jis", "euc_kr", "big5", "iso2022_jp", "hz")
    samples = {"gb18030": TEXT, "shift_jis": "かな漢字 ok\n" * 20, "euc_kr": "한글 ok\n" * 20,
               "big5": "繁體 ok\n" * 20, "iso2022_jp": "かな漢字 ok\n" * 20, "hz": "汉字 ok\n" * 20}
    passed += all(codecs.decode(codecs.encode(samples[n], n), n) == samples[n] for n in names)
    data = samples["shift_jis"].encode("shift_jis")
    decoder = codecs.getincrementaldecoder("shift_jis")()
    passed += "".join(decoder.decode(data[i:i + 1]) for i in range(len(data))) + decoder.decode(b"", True) == \
        samples["shift_jis"]
    decoder.decode(b"\x82")
    saved = decoder.getstate()
    decoder.reset()
    reset_state = decoder.getstate()
    decoder.setstate(saved)
    passed += saved == (b"\x82", 0) and reset_state == (b"", 0) and decoder.decode(b"\xa0", True) == "あ"
    encoder = codecs.getincrementalencoder("iso2022_jp")()
    out = b"".join(encoder.encode(ch) for ch in samples["iso2022_jp"]) + encoder.encode("", True)
    passed += out == samples["iso2022_jp"].encode("iso2022_jp") and encoder.errors == "strict"
    buffer = io.BytesIO()
    writer = codecs.getwriter("euc_kr")(buffer)
    writer.writelines(["한글", " ok\n"] * 20)
    buffer.seek(0)
    reader = codecs.getreader("euc_kr")(buffer)
    passed += reader.readline() == "한글 ok\n" and len(reader.readlines()) == 19
    with open("gb.txt", "w", encoding="gb18030") as fh:
        fh.write(TEXT)
    with open("gb.txt", encoding="gb18030") as fh:
        first, mark = fh.readline(), fh.tell()
        second = fh.readline()
        fh.seek(mark)
        passed += first == second == fh.readline() == TEXT.splitlines(True)[0]
    with open("gb.txt", encoding="latin-1") as fh:
        fh.reconfigure(encoding="gb18030")
        passed += fh.read() == TEXT
    with open("gb.txt", encoding="gb18030", newline="\n") as fh:
        passed += "".join(fh.read(3) for _ in range(len(TEXT))) == TEXT

    def marked(exc):
        return (f"<{exc.start}>", exc.end)

    codecs.register_error("marked", marked)
    passed += b"\x80a\xff".decode("shift_jis", "marked") == "<0>a<2>" and \
        codecs.getincrementalencoder("gb2312")("marked").encode("a\udc80") == b"a<1>"
    passed += b"a\x80\x82\xa0".decode("shift_jis", "replace") == "a\ufffdあ" and \
        "a\u0e01".encode("euc_kr", "ignore") == b"a"
    with codecs.open("sj.txt", "w", encoding="shift_jis") as fh:
        fh.write(samples["shift_jis"])
    with codecs.open("sj.txt", encoding="shift_jis") as fh:
        passed += fh.read() == samples["shift_jis"]
    made = [codecs.getincrementaldecoder("big5")().decode("繁體".encode("big5")) for _ in range(1000)]
    passed += made == ["繁體"] * 1000
    return passed
