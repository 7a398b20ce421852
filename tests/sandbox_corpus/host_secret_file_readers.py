# expect: forbidden
# ruff: noqa: SIM105, SIM115
# expect-kernel: ok
# value: 1
# Every reader of the host's 0600 secret file: bytes path, os.open, io.FileIO, io.open_code, pathlib, codecs,
# linecache, fileinput, shutil.copy into scratch, os.sendfile and mmap.
import codecs
import io
import linecache
import mmap
import os
import pathlib
import shutil


def leak(what):
    try:
        open("/leak/SANDBOX-ESCAPED " + what[:150])
    except Exception:
        pass
    return "SANDBOX-ESCAPED " + what[:150]


def check(**p):
    secret = p["secret_file"]
    readers = [
        lambda: open(secret.encode(), "rb").read().decode(),
        lambda: os.read(os.open(secret, os.O_RDONLY), 200).decode(),
        lambda: io.FileIO(secret).read().decode(),
        lambda: io.open_code(secret).read().decode(),
        lambda: pathlib.Path(secret).read_text(),
        lambda: codecs.open(secret).read(),
        lambda: linecache.getline(secret, 1),
        lambda: (shutil.copy(secret, "copy"), open("copy").read())[1],
        lambda: mmap.mmap(os.open(secret, os.O_RDONLY), 0, prot=mmap.PROT_READ)[:].decode(),
    ]
    for read in readers:
        try:
            text = read()
            if text:
                return leak(text)
        except Exception:
            pass
    return 1
