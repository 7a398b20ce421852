# expect: forbidden
# expect-kernel: ok
# value: 42
# error: marshal.loads
# A zip archive in scratch holding only a .pyc: zipimport unmarshals it with no source to compare against.
import importlib.util
import marshal
import sys
import zipfile


def check(**p):
    body = marshal.dumps(compile("result = 42", "zipped.py", "exec"))
    with zipfile.ZipFile("bundle.zip", "w") as zf:
        zf.writestr("zipped.pyc", importlib.util.MAGIC_NUMBER + b"\0" * 12 + body)
    sys.path.insert(0, "bundle.zip")
    try:
        return __import__("zipped").result
    except ImportError:
        return 0
