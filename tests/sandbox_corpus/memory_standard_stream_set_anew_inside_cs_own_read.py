# expect: ok
# expect-kernel: ok|crashed|memory_limit|exception|timeout
# value: 1
# CPython 3.11.7's `input` reads `sys.stdin`, `sys.stdout` and `sys.stderr` from the `sys` module's dict one after
# the other without references of its own (`_PySys_GetAttr`, gh-130163) and uses all three after. A key of the code's
# own in that dict whose hash is a stream's name (not a str: the dict then compares keys by `__eq__`) runs code of the
# code's inside each of C's reads: set `sys.stdin` anew inside the read of `sys.stdin` (C takes the new one, held by
# the dict only), then again inside the read of `sys.stderr`: the stream C took as its input is freed before C reads
# a line from it (SIGSEGV on plain 3.11.7, 3 of 3 runs). The eightieth round's gate takes references to the streams
# before C reads them, which this shifts by one read. Answers 1 where C read no line from a freed stream (or `input`
# refused); without the hook native code is assumed anyway.
import sys

dead = set()
freed = []


class Stream:
    def __init__(self, text=""):
        self.text = text

    def __del__(self):
        dead.add(id(self))

    def readline(self, *args):
        if id(self) in dead:
            freed.append("readline")
        return self.text

    def write(self, text):
        if id(self) in dead:
            freed.append("write")
        return len(text)

    def flush(self):
        if id(self) in dead:
            freed.append("flush")

    def fileno(self):
        if id(self) in dead:
            freed.append("fileno")
        raise OSError("no descriptor")


armed = []


class Key:
    def __init__(self, target):
        self.target = target

    def __hash__(self):
        return hash(self.target)

    def __eq__(self, other):
        if armed and armed[0] and other == self.target:
            armed[0] = False  # setting the stream compares this key again
            sys.stdin = Stream("answer\n")  # a new stream at each read of stdin or stderr: the last C took is freed
            armed[0] = True
        return False


def check(**p):
    saved = sys.stdin, sys.stdout, sys.stderr
    keys = []
    for name in ("stdin", "stderr"):
        value = vars(sys).pop(name)
        key = Key(name)
        vars(sys)[key] = None  # comes before the name in its probe sequence once the name is stored again
        vars(sys)[name] = value
        keys.append(key)
    sys.stdin, sys.stdout, sys.stderr = Stream("answer\n"), Stream(), Stream()
    armed.append(True)
    try:
        try:
            answer = input()
        except Exception:
            answer = None  # refused: nothing read
    finally:
        armed[0] = False
        sys.stdin, sys.stdout, sys.stderr = saved
        for key in keys:
            del vars(sys)[key]
    if freed:
        raise RuntimeError(f"input: C called {freed!r} on a standard stream the code's own code freed")
    if answer not in (None, "answer"):
        raise RuntimeError(f"input read {answer!r}")
    return 1
