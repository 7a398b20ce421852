# expect: exception
# expect-kernel: exception
# error: ValueError: the real failure
# The bootstrap reports a failure after the check is gone: patch what it might look up then (its module globals
# describe/describe_failure/frame, builtins isinstance/type/str and the names its except clauses look up) so that an exception reads as a clean result
# or as another error kind.
import builtins
import sys


def check(**p):
    main = sys.modules["__main__"]
    for name in ("describe", "describe_failure"):
        setattr(main, name, lambda *a, **k: {"result": 1.0})
    main.frame = lambda obj: b'{"result": 1.0}\n'
    builtins.isinstance = lambda obj, cls: cls is SystemExit
    builtins.type = lambda obj: SystemExit
    builtins.str = lambda obj="": "timeout"
    builtins.MemoryError = ValueError  # `except MemoryError:` looks the name up when it runs
    builtins.BaseException = KeyboardInterrupt
    raise ValueError("the real failure")
