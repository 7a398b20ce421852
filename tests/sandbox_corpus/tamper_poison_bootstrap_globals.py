# expect: forbidden
# expect-kernel: ok
# value: 1
# Poison everything the bootstrap might use after the code returns (its own globals through __main__, builtins,
# json, _json, posix.write, sys.modules), then do something forbidden: the violation is still reported.
import builtins
import json
import os
import posix
import sys


def check(**p):
    forged = lambda *a, **k: '{"result":"forged"}'  # noqa: E731
    main = sys.modules.get("__main__")
    for name in ("frame", "write_all", "describe", "describe_failure", "make_value_encoder", "_encode", "_refuse"):
        if main is not None and hasattr(main, name):
            setattr(main, name, forged)
    json.dumps = forged
    sys.modules["json"] = None
    sys.modules["_json"] = None
    posix.write = lambda fd, data: len(data)
    os.write = posix.write
    builtins.callable = lambda obj: True
    try:
        open(p["secret_file"]).close()
    except Exception:
        return 1
    return "SANDBOX-ESCAPED read the secret"
