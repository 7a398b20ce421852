# expect: forbidden
# ruff: noqa: SIM105
# expect-kernel: ok
# value: 42
# error: bytecode
# A .pyc written to scratch next to a matching source, then imported: the import system trusts a cache whose header
# matches the source's mtime and size, so whatever bytecode follows runs. Also SourcelessFileLoader on a bare .pyc.
import importlib.machinery
import importlib.util
import marshal
import os
import sys


def check(**p):
    os.makedirs("__pycache__", exist_ok=True)
    with open("crafted_mod.py", "w") as fh:
        fh.write("result = 1\n")
    st = os.stat("crafted_mod.py")
    header = importlib.util.MAGIC_NUMBER + b"\0\0\0\0" + int(st.st_mtime).to_bytes(4, "little") \
        + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
    body = marshal.dumps(compile("result = 42", "crafted_mod.py", "exec"))
    with open(importlib.util.cache_from_source("crafted_mod.py"), "wb") as fh:
        fh.write(header + body)
    with open("bare.pyc", "wb") as fh:
        fh.write(header + body)
    sys.path.insert(0, os.getcwd())
    found = []
    try:
        found.append(__import__("crafted_mod").result)
    except Exception:
        pass
    try:
        loader = importlib.machinery.SourcelessFileLoader("bare", os.path.abspath("bare.pyc"))
        found.append(loader.load_module("bare").result)
    except Exception:
        pass
    return max(found) if found else 0
